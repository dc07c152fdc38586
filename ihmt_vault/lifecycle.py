"""A memory's life: pinned as core, archived out of the way, restored.

`archive/` keeps the sub-tree shape of the live tree (`work/infra/x.md` → `archive/work/infra/x.md`),
so restoring puts a memory back where it was. Archived memories stay searchable (search falls back
to them when nothing live answers); a pinned (core) memory is never archived.
"""
from __future__ import annotations

from . import clock, oplog, tree
from .draft import check_date
from .engine import Engine
from .errors import BadInput, Refused
from .notes import Memory


def pin(e: Engine, id_or_path: str, pinned: bool = True, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.pinned == pinned:
        return m
    with e.transaction("edit", f"{'pin' if pinned else 'unpin'}: {m.title}",
                       [("Memory-Id", m.id), ("Memory-Op", "edit")], source) as tx:
        tx.edit(m, {"pinned": pinned})
    return e.get(m.id)


def archive(e: Engine, id_or_path: str, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.folder.split("/")[0] == tree.ARCHIVE:
        raise BadInput(f"{m.path}: is already archived; use restore to bring it back")
    if m.pinned:
        raise BadInput(f"{m.path}: is pinned (a core memory); unpin it first")
    with e.transaction("archive", f"archive: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "archive")],
                       source) as tx:
        tx.edit(m, {"status": "archived"})
        dest = tx.move(m.path, f"{tree.ARCHIVE}/{m.folder}".rstrip("/"))
    return e.read(dest)


def restore(e: Engine, id_or_path: str, source: str | None = None, why: str = "") -> Memory:
    m = e.get(id_or_path)
    if m.folder.split("/")[0] != tree.ARCHIVE:
        raise BadInput(f"{m.path}: is not archived; only memories under {tree.ARCHIVE}/ can be restored")
    home = m.folder.partition("/")[2] or "restored"
    with e.transaction("restore", f"restore: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")],
                       source) as tx:
        tx.edit(m, {"status": "outdated" if m.superseded_by else "active"})
        dest = tx.move(m.path, home)
        if why:  # the vault did it on its own: the operations log says so
            oplog.append(tx, f"restored from the archive ({why})", [m])
    return e.read(dest)


def show(e: Engine, id_or_path: str, source: str | None = None) -> Memory:
    """Read in full: a recall; an archived memory read in full comes back to its folder."""
    m = e.get(id_or_path)
    e.recalls.record([m.id])
    if m.folder.split("/")[0] == tree.ARCHIVE and m.id:
        try:
            back = restore(e, m.id, source, why="read in full")
        except Refused:   # a reader reads it where it is: bringing it back is a write
            return m
        back.notices.append(f"Restored from the archive to {back.folder}/.")
        return back
    return m


def search(e: Engine, query: str, k: int = 10, clue: str | None = None, level: int | None = None,
           under: str | None = None, detail: str = "compact", as_of: str | None = None):
    """One vault's answer to a query, counted as a recall of the memory it answers with."""
    if not isinstance(query, str) or not query.strip():
        raise BadInput("the query is empty; say what to look for")
    if under:
        under = tree.clean_topic(under, e.config.max_depth)
    day = check_date(as_of, "--as-of ") if as_of else None
    result = e.search(query, k=k, clue=clue, level=level, under=under, detail=detail,
                      budget_tokens=e.config.search_tokens, as_of=day)
    return recalled_by_search(e, result)


def recalled_by_search(e: Engine, result):
    """Count the search's answer as a recall. An answer from the archive recalled twice within the
    idle allowance comes back to its folder (one `restore` commit; the answer says so)."""
    if result.status != "found" or not result.hits or not result.hits[0].id:
        return result
    best = result.hits[0]
    e.recalls.record([best.id])
    if result.archived_fallback and best.folder.split("/")[0] == tree.ARCHIVE:
        seen = e.recalls.all().get(best.id)
        if seen and seen.count >= 2 and _recent(seen.last, e.config.decay_idle_days):
            try:
                back = restore(e, best.id, why="recalled twice")
            except Refused:   # a reader's search: the answer stays in the archive
                return result
            best.notices.append(f"Restored from the archive to {back.folder}/.")
            best.path, best.folder = back.path, back.folder
    return result


def _recent(stamp: str, days: int) -> bool:
    at = clock.when(stamp)
    return at is not None and (clock.now() - at).days <= max(1, days)
