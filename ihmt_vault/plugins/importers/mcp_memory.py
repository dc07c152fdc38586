"""`mcp-memory`: the reference MCP memory server's `memory.jsonl` (FORMATS.md).

An entity (`{"type": "entity", "name", "entityType", "observations"}`) is a memory titled by its
name, its observations a bullet list, filed under its entity type (`person` and `project` are
also its type); each relation (`{"type": "relation", "from", "to", "relationType"}`) is a link
line in the body of its `from` entity: `- works_at [[Acme]]`. A relation from an entity the file
does not hold is left out.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import BadInput
from ...storage import notes
from ...storage.draft import Item
from .reading import first_json_line, json_lines

WHAT = "the MCP memory server's memory.jsonl (entity and relation lines)"


class McpMemory:
    what = "the MCP memory server's memory.jsonl (entity/relation lines)"

    def recognises(self, path: Path) -> bool:
        line = first_json_line(path) if path.is_file() and path.suffix.lower() in (".jsonl", ".json") else None
        return line is not None and line.get("type") in ("entity", "relation")

    def read(self, path: Path) -> list[Item]:
        entities: dict[str, tuple[int, dict]] = {}
        relations: dict[str, list[str]] = {}
        for n, line in json_lines(path, WHAT):
            kind = line.get("type")
            if kind == "entity" and str(line.get("name") or "").strip():
                entities.setdefault(str(line["name"]).strip(), (n, line))
            elif kind == "relation" and line.get("from") and line.get("to"):
                rel = " ".join(str(line.get("relationType") or "relates_to").split()) or "relates_to"
                relations.setdefault(str(line["from"]).strip(), []).append(f"- {rel} [[{str(line['to']).strip()}]]")
            elif kind not in ("entity", "relation"):
                raise BadInput(f"{path}: line {n} is neither an entity nor a relation; give {WHAT}")
        items = []
        for name, (n, e) in entities.items():
            kind = " ".join(str(e.get("entityType") or "").split())
            said = [" ".join(str(o).split()) for o in e.get("observations") or [] if str(o).strip()]
            lines = [f"- {o}" for o in said] + list(dict.fromkeys(relations.get(name, [])))
            if not lines:
                lines = [name]
            items.append(
                Item(
                    text="\n".join(lines) + "\n",
                    title=name,
                    topic=notes.slugify(kind) if kind else None,
                    type=kind.lower() if kind.lower() in ("person", "project") else None,
                    tags=[notes.slugify(kind)] if kind else [],
                    key=name,
                    where=f"{path.name} line {n}",
                )
            )
        return items
