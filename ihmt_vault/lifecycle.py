"""A memory's life: pinned as core, archived out of the way, restored.

`archive/` keeps the sub-tree shape of the live tree (`work/infra/x.md` → `archive/work/infra/x.md`),
so restoring puts a memory back where it was. Archived memories stay searchable (search falls back
to them when nothing live answers); a pinned (core) memory is never archived.
"""
from __future__ import annotations

from . import tree
from .engine import Engine
from .errors import BadInput
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


def restore(e: Engine, id_or_path: str, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.folder.split("/")[0] != tree.ARCHIVE:
        raise BadInput(f"{m.path}: is not archived; only memories under {tree.ARCHIVE}/ can be restored")
    home = m.folder.partition("/")[2] or "restored"
    with e.transaction("restore", f"restore: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")],
                       source) as tx:
        tx.edit(m, {"status": "outdated" if m.superseded_by else "active"})
        dest = tx.move(m.path, home)
    return e.read(dest)
