"""`letta`: a Letta agent file (`.af`, FORMATS.md): JSON with the agents, their memory blocks and
more. The current format is `{agents: [{id, name, block_ids, memory_blocks, ...}], blocks: [{id,
label, value, description, ...}], ...}`; the first one, an agent of its own, holds its blocks as
`core_memory: [{label, value, ...}]`.

Each core memory block (`human`, `persona`, ...) with a value is a pinned memory titled by its
label, in a folder named after the agent that uses it (a block several agents share: the first).
Archival memory passages, where a file carries them (`passages` of the file or of an agent:
`{text, created_at}`; Letta's own exports leave them out so far), are ordinary memories in the
agent's folder. Messages, tools and settings are not memories and are left out."""

from __future__ import annotations

from pathlib import Path

from ...errors import BadInput
from ...storage.draft import Item
from .reading import day_of, json_document, peek_json

WHAT = "a Letta agent file (.af: JSON with agents and memory blocks)"


def _is_agent_file(value) -> bool:
    if not isinstance(value, dict):
        return False
    return (isinstance(value.get("agents"), list) and isinstance(value.get("blocks"), list)) or isinstance(
        value.get("core_memory"), list
    )


def _folder(name) -> str:
    return str(name or "").strip().replace("/", "-").replace("\\", "-") or "letta"


class Letta:
    what = "a Letta agent file (.af: core memory blocks, archival passages)"

    def recognises(self, path: Path) -> bool:
        return _is_agent_file(peek_json(path, (".af", ".json")))

    def read(self, path: Path) -> list[Item]:
        doc = json_document(path, WHAT)
        if not _is_agent_file(doc):
            raise BadInput(f"{path}: has no agents with memory blocks (nor core_memory); give {WHAT}")
        agents = [a for a in doc.get("agents") or [doc] if isinstance(a, dict)]
        owner: dict[str, str] = {}  # block id -> the folder of the first agent using it
        for a in agents:
            for block_id in a.get("block_ids") or []:
                owner.setdefault(str(block_id), _folder(a.get("name")))
        items: list[Item] = []

        def block(b, folder: str, where: str) -> None:
            if not isinstance(b, dict) or not str(b.get("value") or "").strip():
                return
            label = str(b.get("label") or "block").strip()
            extra = {"letta": {k: b[k] for k in ("label", "description", "id") if b.get(k)}}
            items.append(
                Item(
                    text=str(b["value"]).strip() + "\n",
                    title=label,
                    topic=folder,
                    pinned=True,
                    key=str(b["id"]) if b.get("id") else None,
                    extra=extra,
                    where=where,
                )
            )

        def passages(found, folder: str, where: str) -> None:
            for n, p in enumerate(found if isinstance(found, list) else [], 1):
                text = p.get("text") if isinstance(p, dict) else None
                if isinstance(text, str) and text.strip():
                    items.append(
                        Item(
                            text=text.strip() + "\n",
                            topic=folder,
                            date=day_of(p.get("created_at")),
                            key=str(p["id"]) if p.get("id") else None,
                            where=f"{where} passage {n}",
                        )
                    )

        for n, b in enumerate(doc.get("blocks") or [], 1):
            if not isinstance(b, dict):
                continue
            folder = owner.get(str(b.get("id")), _folder(agents[0].get("name") if agents else None))
            block(b, folder, f"{path.name} block {n}")
        for a in agents:
            folder, name = _folder(a.get("name")), a.get("name") or "agent"
            for n, b in enumerate((a.get("core_memory") or []) + (a.get("memory_blocks") or []), 1):
                block(b, folder, f"{path.name} {name} block {n}")
            passages(a.get("passages") or a.get("archival_memory"), folder, f"{path.name} {name}")
        if "agents" in doc:
            passages(doc.get("passages"), _folder(agents[0].get("name") if agents else None), path.name)
        return items
