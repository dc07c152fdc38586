"""`jsonl`: one JSON object per line with the fields of a save (and what `ihmt export --format jsonl`
writes: `status: archived` lands in the archive, `facts` and `extra` become front matter, `id` and
`supersedes` are kept, so an export reads back into an equal vault)."""

from __future__ import annotations

from pathlib import Path

from ...storage.draft import Item
from .reading import first_json_line, json_lines

WHAT = "a .jsonl file of memories (one JSON object a line with a 'text' key)"


class JsonLines:
    what = "JSON lines of save fields (.jsonl; what 'ihmt export --format jsonl' writes)"

    def recognises(self, path: Path) -> bool:
        line = first_json_line(path) if path.is_file() and path.suffix.lower() in (".jsonl", ".json") else None
        return line is not None and "text" in line and line.get("type") not in ("entity", "relation")

    def read(self, path: Path) -> list[Item]:
        items = []
        for n, fields in json_lines(path, WHAT):
            extra = dict(fields.get("extra") or {}) if isinstance(fields.get("extra"), dict) else fields.get("extra")
            if fields.get("facts") is not None and isinstance(extra, dict):
                extra.setdefault("facts", fields["facts"])
            item = Item.of({**fields, "extra": extra}, where=f"line {n}")
            item.archived = str(fields.get("status") or "").lower() == "archived"
            items.append(item)
        return items
