"""`hmem`: an hmem store, `*.hmem` (SQLite: `memories`, `memory_nodes`, `memory_tags`; FORMATS.md).

Each root entry of `memories` is a memory: `title` its title, `level_1` the first paragraph and its
children of `memory_nodes` (compound ids `L0001.2.1`, depth 2–5) a Markdown nested list below it,
one level per indentation, in id order. Its prefix gives the folder and type (L lessons, E errors,
D decisions → decision, P projects → project, others under `hmem/`), `memory_tags` its tags;
`favorite` or `pinned` → pinned, `irrelevant` → archived, `access_count` and `last_accessed` → the
initial recall weight, `min_role` kept as front matter, `links` as link lines (`- related [[Title]]`).
An `obsolete` entry is outdated, superseded by the entry its `[✓E0076]` names (one that names none,
or a missing one, stays current with the tag `obsolete`). The database is only read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...errors import BadInput
from ...storage.draft import Item
from .reading import day_of, has_tables, iso_time, open_sqlite, rows, tables

WHAT = "an hmem store (.hmem: SQLite with memories and memory_nodes tables)"
PREFIXES = {"L": ("lessons", None), "E": ("errors", None), "D": ("decisions", "decision"), "P": ("projects", "project")}
_CORRECTION = re.compile(r"\[✓\s*([A-Za-z]+\d+)\]")
_TEXT = ("content", "text", "body", "level_text")


class Hmem:
    what = "an hmem store (.hmem, SQLite: memories + memory_nodes)"

    def recognises(self, path: Path) -> bool:
        return path.is_file() and (path.suffix == ".hmem" or has_tables(path, "memories", "memory_nodes"))

    def read(self, path: Path) -> list[Item]:
        conn = open_sqlite(path, WHAT)
        try:
            have = tables(conn)
            if not {"memories", "memory_nodes"} <= have:
                raise BadInput(f"{path}: has no memories and memory_nodes tables; give {WHAT}")
            roots = rows(conn, path, "SELECT * FROM memories ORDER BY id", WHAT)
            nodes = rows(conn, path, "SELECT * FROM memory_nodes", WHAT)
            tags = rows(conn, path, "SELECT * FROM memory_tags", WHAT) if "memory_tags" in have else []
        finally:
            conn.close()
        children: dict[str, list[tuple[tuple[int, ...], str]]] = {}
        for node in nodes:
            ident = str(node.get("id") or "")
            text = next((str(node[k]) for k in _TEXT if node.get(k)), "")
            root, _, rest = ident.partition(".")
            if rest and text.strip():
                order = tuple(int(p) if p.isdigit() else 0 for p in rest.split("."))
                children.setdefault(root, []).append((order, " ".join(text.split())))
        tags_of: dict[str, list[str]] = {}
        for t in tags:
            mid, tag = t.get("memory_id") or t.get("id"), t.get("tag") or t.get("name")
            if mid and tag:
                tags_of.setdefault(str(mid), []).append(str(tag))
        titles = {str(r["id"]): str(r.get("title") or r.get("level_1") or r["id"]).strip() for r in roots}
        items: dict[str, Item] = {}
        for r in roots:
            ident = str(r["id"])
            items[ident] = self._entry(r, ident, titles, sorted(children.get(ident, [])), tags_of.get(ident, []), path)
        for r in roots:  # an obsolete entry: outdated, corrected by the entry its [✓...] names
            ident = str(r["id"])
            if not r.get("obsolete"):
                continue
            said = " ".join(str(r.get(k) or "") for k in ("title", "level_1"))
            fix = next((c for c in _CORRECTION.findall(said) if c in items and c != ident), None)
            if fix:
                items[fix].supersedes.append(ident)
            else:
                items[ident].tags.append("obsolete")
        return list(items.values())

    def _entry(self, r: dict, ident: str, titles: dict, kids: list, tags: list[str], path: Path) -> Item:
        letters = re.match(r"[A-Za-z]*", ident)
        assert letters is not None  # [A-Za-z]* matches every text
        prefix = str(r.get("prefix") or letters.group(0) or "").upper()
        folder, type_ = PREFIXES.get(prefix, (f"hmem/{prefix.lower() or 'entries'}", None))
        nested = [f"{'  ' * (len(order) - 1)}- {text}" for order, text in kids]  # depth 2 is the first indent
        lines = [str(r.get("level_1") or r.get("title") or ident).strip()] + (["", *nested] if nested else [])
        links = [f"- related [[{titles[i]}]]" for i in _ids(r.get("links")) if i in titles and i != ident]
        if links:
            lines += ["", *links]
        role = r.get("min_role")
        return Item(
            text="\n".join(lines) + "\n",
            title=titles[ident],
            topic=folder,
            type=type_,
            date=day_of(r.get("created_at")),
            tags=list(tags),
            pinned=bool(r.get("favorite") or r.get("pinned")),
            archived=bool(r.get("irrelevant")),
            recalls=max(0, int(r.get("access_count") or 0)),
            last_recall=iso_time(r.get("last_accessed")),
            extra={"min_role": str(role)} if role else {},
            key=ident,
            where=f"{path.name} {ident}",
        )


def _ids(value) -> list[str]:
    """The `links` column: a JSON list of ids (or of {id: ...} objects)."""
    try:
        data = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [str(x.get("id") if isinstance(x, dict) else x) for x in data if x]
