"""`memorytree`: MemoryTree's (mindmap-memory, a Hermes Agent plugin) `mindmap.db` (FORMATS.md).

Each node of `nodes` is a memory: its `content` the text, `created_at` its date; `is_core` → pinned,
`is_deep` (its archive, the root pool) → archived, `score` (rounded) and `last_access` → the initial
recall weight. The mind map's hierarchy becomes the folders: a node's folder is its parent's folder
and, below it, its own `topic` (`Python/asyncio`), at most `MAX_DEPTH` levels deep, so a parent
topic (Python, Rust, Docker) holds its children's folders; a node with a parent also says so with
a link line (`- part of [[Parent]]`). Soft-deleted nodes (`deleted`) are left
out. The database is only read (reading.open_sqlite).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import BadInput
from ...storage import notes
from ...storage.draft import Item
from .reading import day_of, has_tables, iso_time, open_sqlite, rows

WHAT = "MemoryTree's mindmap.db (an SQLite database with a nodes table)"
MAX_DEPTH = 6  # the vault's deepest folder level


class MemoryTree:
    what = "MemoryTree's mindmap.db (SQLite, a nodes table)"

    def recognises(self, path: Path) -> bool:
        return path.is_file() and (
            path.name == "mindmap.db" or (has_tables(path, "nodes") and not has_tables(path, "memories"))
        )

    def read(self, path: Path) -> list[Item]:
        conn = open_sqlite(path, WHAT)
        try:
            nodes = rows(conn, path, "SELECT * FROM nodes ORDER BY id", WHAT)
        finally:
            conn.close()
        if nodes and not {"id", "content"} <= set(nodes[0]):
            raise BadInput(f"{path}: its nodes table has no id and content columns; give {WHAT}")
        live = [n for n in nodes if not n.get("deleted") and str(n.get("content") or "").strip()]
        titles = {n["id"]: notes.title_from_body(str(n["content"]), str(n.get("topic") or "memory")) for n in live}
        folders = _folders({n["id"]: n for n in live})
        items = []
        for n in live:
            text = str(n["content"]).rstrip() + "\n"
            parent = n.get("parent_id")
            if parent in titles:
                text += f"\n- part of [[{titles[parent]}]]\n"
            items.append(
                Item(
                    text=text,
                    title=titles[n["id"]],
                    topic=folders.get(n["id"]) or None,
                    date=day_of(n.get("created_at")),
                    pinned=bool(n.get("is_core")),
                    archived=bool(n.get("is_deep")),
                    recalls=max(0, round(_number(n.get("score")))),
                    last_recall=iso_time(n.get("last_access")),
                    key=str(n["id"]),
                    where=f"{path.name} node {n['id']}",
                )
            )
        return items


def _folders(nodes: dict) -> dict:
    """Each node's folder: its ancestors' topics and its own, as a path (a cycle is cut where it closes)."""
    out: dict = {}

    def folder(i, seen: frozenset = frozenset()) -> str:
        if i in out:
            return out[i]
        n = nodes[i]
        own = str(n.get("topic") or "").strip().replace("/", "-")
        parent = n.get("parent_id")
        above = folder(parent, seen | {i}) if parent in nodes and parent not in seen | {i} else ""
        parts = [p for p in above.split("/") if p]
        if own and (not parts or parts[-1] != own):
            parts.append(own)
        out[i] = "/".join(parts[:MAX_DEPTH])
        return out[i]

    for i in nodes:
        folder(i)
    return out


def _number(value) -> float:
    try:
        return float(json.loads(value) if isinstance(value, str) else value or 0)
    except (TypeError, ValueError):
        return 0.0
