"""A memory's life: pinned as core, archived out of the way, restored.

`archive/` keeps the sub-tree shape of the live tree (`work/infra/x.md` → `archive/work/infra/x.md`),
so restoring puts a memory back where it was. Archived memories stay searchable (search falls back
to them when nothing live answers); a pinned (core) memory is never archived.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.core import Engine
from ..errors import BadInput, Refused
from ..results import ForgetReport
from ..storage import notes, oplog, tree
from ..storage.notes import Memory
from . import purge as purge_op
from .saving import make_draft


def pin(e: Engine, id_or_path: str, pinned: bool = True, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.pinned == pinned:
        return m
    with e.transaction(
        "edit", f"{'pin' if pinned else 'unpin'}: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "edit")], source
    ) as tx:
        tx.edit(m, {"pinned": pinned})
    return e.get(m.id)


def rename(e: Engine, id_or_path: str, title: str, source: str | None = None) -> Memory:
    """A memory's new title, and its file named by it (the id stays): one `edit` commit."""
    m = e.get(id_or_path)
    new = make_draft(e, text=m.body or title, title=title).title  # the checks of a save's title
    if not isinstance(title, str) or not title.strip():
        raise BadInput("the title is empty; give the memory's new title")
    if new == m.title:
        return m
    stem = notes.slugify(new)
    with e.transaction(
        "edit", f"rename: {m.title} → {new}", [("Memory-Id", m.id), ("Memory-Op", "edit")], source
    ) as tx:
        tx.edit(m, {"title": new})
        dest = tx.move(m.path, m.folder, stem) if stem != m.path.rpartition("/")[2].removesuffix(".md") else m.path
    return e.read(dest)


def archive(e: Engine, id_or_path: str, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.folder.split("/")[0] == tree.ARCHIVE:
        raise BadInput(f"{m.path}: is already archived; use restore to bring it back")
    if m.pinned:
        raise BadInput(f"{m.path}: is pinned (a core memory); unpin it first")
    with e.transaction("archive", f"archive: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "archive")], source) as tx:
        tx.edit(m, {"status": "archived"})
        dest = tx.move(m.path, f"{tree.ARCHIVE}/{m.folder}".rstrip("/"))
    return e.read(dest)


def restore(e: Engine, id_or_path: str, source: str | None = None, why: str = "") -> Memory:
    m = e.get(id_or_path)
    if m.folder.split("/")[0] != tree.ARCHIVE:
        raise BadInput(f"{m.path}: is not archived; only memories under {tree.ARCHIVE}/ can be restored")
    home = m.folder.partition("/")[2] or "restored"
    with e.transaction("restore", f"restore: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")], source) as tx:
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
        except Refused:  # a reader reads it where it is: bringing it back is a write
            return m
        back.notices.append(f"Restored from the archive to {back.folder}/.")
        return back
    return m


def forget(
    e: Engine,
    id_or_path: str,
    purge: bool = False,
    confirm: Callable[[int], bool] | None = None,
    source: str | None = None,
) -> ForgetReport:
    """Without `purge`, archive the memory (kept, out of the way); with it, `purge.purge`."""
    if purge:  # by id or path; a purge a crash interrupted is finished by the same call
        return purge_op.purge(e, id_or_path, confirm, source)
    m = e.get(id_or_path)
    return ForgetReport(m.id, purged=False, path=archive(e, m.id, source=source).path)
