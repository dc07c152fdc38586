"""Taking in what changed on disk outside the tool — a person's edits, a `git pull` — and rebuilding.

`reconcile` is what the watcher, `watch --once` and the git hooks run. New or edited memories get
what their front matter lacks (id, created, title; the person's keys untouched), a copied file a
new id, a moved one keeps its id; deletions leave the index and the summaries. A file that cannot
be taken in — unreadable front matter, or text holding a secret — is not committed nor indexed: it
stays on disk, is reported as a `Problem`, and is taken in once fixed.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import files
from ..engine.core import Engine, Progress
from ..engine.transaction import Transaction
from ..errors import BrokenFile
from ..results import FileChange, Problem, RebuildReport, ReconcileReport
from ..storage import gitlog, notes, tree
from ..storage.layout import MAX_ATTACHMENT
from ..storage.sensitive import find_secret
from . import purge


def reconcile(e: Engine, paths: Iterable[str] | None = None, agent: str = "watch") -> ReconcileReport:
    with e.transaction("edit", "edit", [], agent) as tx:
        changes, problems = take_in(e, tx, paths)
        ops = {c.op for c in changes}
        tx.op = ops.pop() if len(ops) == 1 else "edit"
        if len(changes) == 1:
            tx.subject = f"{tx.op}: {changes[0].title}"
        elif changes:
            tx.subject = f"{tx.op}: {len(changes)} memories changed by hand"
        else:
            tx.subject = "edit: regenerate summaries"
        tx.trailers += [("Memory-Op", tx.op)] + [("Memory-Id", c.id) for c in changes if c.id]
    reported = {p.path for p in problems}
    problems += [secret_problem(rel, kind) for rel, kind in tx.refused if rel not in reported]
    left_out = {rel for rel, _ in tx.refused}
    return ReconcileReport([c for c in changes if c.path not in left_out], problems, tx.commit, sorted(tx.paths))


def rebuild(e: Engine, progress: Progress | None = None) -> RebuildReport:
    with e.transaction("edit", "rebuild: regenerate summaries", [("Memory-Op", "edit")]) as tx:
        count = e.refill_catalog(progress)  # the summaries are rendered from the catalog ...
        tx.folders.update(e.layout.all_folders())
        tx.reindex_all = True  # ... and the index is built once, after them
    return RebuildReport(count, len(tx.summaries_written), tx.commit)


def refused(e: Engine, rel: str) -> Problem | None:
    """Why a file on disk must not be committed (a secret in it), as a Problem; None when it may."""
    try:
        text = files.read_exact(e.layout.abs(rel))
    except (OSError, UnicodeDecodeError):
        return None
    kind = find_secret(text)
    return secret_problem(rel, kind) if kind else None


def secret_problem(rel: str, kind: str) -> Problem:
    return Problem(
        "secret",
        rel,
        f"{rel}: contains what looks like {kind}; it was not committed nor indexed: "
        f"remove it from the file (keep a pointer such as 'in 1Password')",
        repairable=False,
    )


def _purged(e: Engine, tombs, rel: str) -> str | None:
    try:
        data = e.layout.abs(rel).read_bytes()
    except OSError:
        return None
    return tombs.holds(gitlog.blob_hash(data), data)


def take_in(e: Engine, tx: Transaction, paths: Iterable[str] | None) -> tuple[list[FileChange], list[Problem]]:
    scope = None if paths is None else sorted({r for p in paths if (r := e.layout.rel_or_none(p)) is not None})
    on_disk = e.layout.scan(scope)
    known = e.catalog.stamps()
    if scope is None:
        looked = set(on_disk) | set(known)
    else:
        looked = set(on_disk) | {p for p in known if any(p == s or p.startswith(s + "/") for s in scope)}
    dirty = set(e.repo.dirty(scope)) if scope is None or scope else set()
    candidates = {p for p in looked if p in dirty or on_disk.get(p) != known.get(p)}
    changes: list[FileChange] = []
    problems: list[Problem] = []

    def not_allowed(rel: str, change: str = "write") -> bool:
        """The roles refuse this edit of a person's: reported, left on disk, not committed."""
        why = tx.allowed(rel, change)
        if why:
            problems.append(Problem("refused", rel, f"{rel}: not committed: {why}", repairable=False))
        return why is not None

    for p in dirty:  # a summary edited by hand or brought by git: its folder is regenerated
        if p.endswith(tree.INDEX):
            if not_allowed(p, "write" if e.layout.abs(p).exists() else "delete"):
                continue
            tx.folders.add(tree.folder_of(p))
            tx.paths.add(p)
        elif e.layout.is_attachment(p):  # an image, a PDF, Obsidian's settings: kept as they are
            file = e.layout.abs(p)
            if file.is_symlink() or (file.is_file() and file.stat().st_size > MAX_ATTACHMENT):
                continue  # a link out of the vault, or a file too big for git: left alone
            if not_allowed(p, "write" if file.exists() else "delete"):
                continue
            tx.paths.add(p)
    gone = {p for p in candidates if p not in on_disk and e.layout.is_memory_path(p)}
    id_of_gone = {_catalogued_id(e, p): p for p in gone}
    tombs = purge.tombstones(e)

    def leave_out(problem: Problem, rel: str) -> None:
        problems.append(problem)
        e.catalog.delete(rel)  # not indexed until fixed; the next look takes it in
        tx.folders.add(tree.folder_of(rel))

    for rel in sorted(candidates - gone):
        if not e.layout.is_memory_path(rel):
            continue
        try:
            m = e.read(rel)
        except BrokenFile as err:
            leave_out(Problem("broken", rel, str(err), repairable=False), rel)
            continue
        secret = refused(e, rel) if rel in dirty or rel not in known else None
        if secret:
            leave_out(secret, rel)
            continue
        purged = _purged(e, tombs, rel) if tombs.ids and (rel in dirty or rel not in known) else None
        if purged:
            leave_out(
                Problem(
                    "purged",
                    rel,
                    f"{rel}: is memory {purged}, which was purged; it was not committed: delete the file",
                    repairable=False,
                ),
                rel,
            )
            continue
        fill: dict[str, str] = {}
        if "title" in m.missing:
            fill["title"] = m.title
        if "created" in m.missing:
            fill["created"] = notes.now_timestamp()
        op, old_path = "edit", None
        moved_from = (
            [r.path for r in e.catalog.by_id(m.id) if r.path != rel and not e.layout.abs(r.path).exists()]
            if m.id
            else []
        )
        if m.id and m.id in id_of_gone:
            op, old_path = "move", id_of_gone.pop(m.id)
        elif moved_from:  # its old name was deleted in another batch of events (a move across folders)
            op, old_path = "move", moved_from[0]
        elif not m.id and (kept := _catalogued_id(e, rel)):
            fill["id"] = kept  # the id was dropped by an edit: identity stays
        elif not m.id or any(r.path != rel and e.layout.abs(r.path).exists() for r in e.catalog.by_id(m.id)):
            fill["id"] = notes.new_id()  # new by hand, or a copy of another memory
        if (fill or rel in dirty or old_path) and (not_allowed(rel) or old_path and not_allowed(old_path, "move")):
            continue
        if fill:
            try:
                tx.edit(m, fill)
            except BrokenFile as err:  # readable, but not writable back safely (duplicate keys...)
                leave_out(Problem("broken", rel, str(err), repairable=False), rel)
                continue
        tx.paths.add(rel)
        tx.folders.add(m.folder)
        if not fill and rel not in dirty and not old_path:
            continue  # committed already (a pull, a clone): indexed and summarised, not a change
        if old_path:
            tx.paths.add(old_path)
            tx.folders.add(tree.folder_of(old_path))
            gone.discard(old_path)
        changes.append(FileChange(op, rel, fill.get("id", m.id), m.title, old_path))
    for rel in sorted(gone):
        if not_allowed(rel, "delete"):
            continue
        row = e.catalog.by_path(rel)
        tx.paths.add(rel)
        tx.folders.add(tree.folder_of(rel))
        changes.append(FileChange("delete", rel, row.id if row else "", row.title if row else rel))
    return changes, problems


def _catalogued_id(e: Engine, rel: str) -> str | None:
    """The id the catalog has for a file (None: not catalogued)."""
    row = e.catalog.by_path(rel)
    return row.id if row else None


def adopt(e: Engine, written: list[str]) -> None:
    """A new vault's first commit: its own files, and the notes the folder already held."""
    with e.transaction("", f"init: {e.config.title}", []) as tx:  # no memory, no Memory-Op
        tx.paths.update(written)
        tx.paths.add(e.recalls.start_epoch())  # the metabolism counts from today
        tx.paths.update(e.layout.scan())  # a folder of notes becomes a vault with its notes
        tx.folders.add("")
        tx.folders.update(e.layout.all_folders())
