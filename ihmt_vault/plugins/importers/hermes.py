"""`hermes`: Hermes Agent's own flat memory, `MEMORY.md` (FORMATS.md): entries separated by a line
holding only `§`. Each entry is a memory, placed by the vault's tree (the file has no topics)."""

from __future__ import annotations

from pathlib import Path

from ...errors import BadInput
from ...storage.draft import Item
from .reading import text_of

WHAT = "Hermes' MEMORY.md (entries separated by a line holding only §)"


def is_entry_list(text: str) -> bool:
    return any(line.strip() == "§" for line in text.splitlines())


class Hermes:
    what = "Hermes' MEMORY.md (entries separated by § lines)"

    def recognises(self, path: Path) -> bool:
        if not (path.is_file() and path.name.upper() in ("MEMORY.MD", "USER.MD")):
            return False
        try:
            return ".hermes" in path.resolve().parts or is_entry_list(text_of(path, WHAT))
        except BadInput:
            return False

    def read(self, path: Path) -> list[Item]:
        text = text_of(path, WHAT)
        items, entry, start = [], [], 1
        for n, line in enumerate(text.splitlines() + ["§"], 1):
            if line.strip() != "§":
                entry.append(line)
                continue
            body = "\n".join(entry).strip()
            if body:
                items.append(Item(text=body + "\n", where=f"{path.name} line {start}"))
            entry, start = [], n + 1
        return items
