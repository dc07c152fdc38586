"""`memorytree`: MemoryTree's (mindmap-memory, a Hermes Agent plugin) `mindmap.db` (FORMATS.md).

Each node of `nodes` is a memory: its `topic` the folder, its `content` the text, `created_at` its
date; `is_core` → pinned, `is_deep` (its archive, the root pool) → archived, `score` (rounded) and
`last_access` → the initial recall weight. A node with a parent says so with a link line
(`- part of [[Parent]]`), so the mind map's shape survives. Soft-deleted nodes (`deleted`) are left
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
                    topic=str(n.get("topic") or "").strip() or None,
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


def _number(value) -> float:
    try:
        return float(json.loads(value) if isinstance(value, str) else value or 0)
    except (TypeError, ValueError):
        return 0.0
