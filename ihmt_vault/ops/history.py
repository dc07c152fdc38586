"""History: what a memory was on a day, what changed it, and undoing an operation.

Everything here comes from git: a memory's lineage is `git log --follow`, its old text a blob at a
commit. `undo` never rewrites history (it commits the reverse); purge.py is the one operation that
does.
"""

from __future__ import annotations

from .. import files
from ..engine.core import Engine
from ..errors import BadInput, NotFound
from ..results import Change, UndoReport
from ..storage import gitlog, notes, tree
from ..storage.draft import check_date
from ..storage.notes import Memory
from ..storage.recall import STATS

# Commits an `undo` may revert: ours carry a Memory-Op trailer, or one of these subjects.
_OWN_SUBJECTS = ("init:", "undo:", "rebuild:", "doctor:", "move:")


def get_at(e: Engine, id_or_path: str, at: str) -> Memory:
    """A memory as it was at the end of the day `at` (YYYY-MM-DD), from git."""
    rel = e.resolve(id_or_path)
    day = check_date(at, "--at ")
    commits = e.repo.log(rel, follow=True, until=f"{day} 23:59:59")
    if not commits or not commits[0].paths:
        raise NotFound(f"{id_or_path}: this memory did not exist yet on {day}")
    text = e.repo.show(commits[0].sha, commits[0].paths[0])
    if text is None:
        raise NotFound(f"{id_or_path}: this memory had been deleted by {day}")
    return notes.parse(text, commits[0].paths[0])


def history(e: Engine, id_or_path: str, diff: bool = False) -> list[Change]:
    rel = e.resolve(id_or_path)
    log = e.repo.log(rel, follow=True)
    paths = [c.paths[0] if c.paths else rel for c in log]
    changes = []
    for i, c in enumerate(log):
        before = paths[i + 1] if i + 1 < len(paths) else paths[i]  # a move: diff old → new name
        changes.append(
            Change(
                c.sha,
                c.date,
                c.op,
                c.agent,
                c.subject,
                paths[i],
                e.repo.patch(c.sha, paths[i], before) if diff else None,
            )
        )
    return changes


def changes(e: Engine, limit: int = 50) -> list[Change]:
    return [
        Change(c.sha, c.date, c.op, c.agent, c.subject, ", ".join(c.paths[:3]), ids=c.trailers.get("Memory-Id", []))
        for c in e.repo.log(max_count=limit)
    ]


def undo(e: Engine, source: str | None = None, force: bool = False, commit: str | None = None) -> UndoReport:
    """Revert the caller's own last operation (by its `Agent:`), or the one `commit` names, with a
    new commit. A second undo steps further back (operations already undone are skipped); another
    agent's operation, or files changed since by someone else, are refused unless `force`."""
    agent = source or e.config.default_source
    with e.transaction("edit", "undo", [("Memory-Op", "edit")], agent) as tx:
        target = _undo_target(e, agent, force, commit)
        # Summaries are regenerated from the memories, and recall counts only grow: the rest is reverted.
        paths = [p for p in target.paths if not p.endswith(tree.INDEX) and not p.startswith(STATS + "/")]
        dirty = [p for p in paths if e.repo.show("HEAD", p) != _text_or_none(e, p)]
        if dirty:
            raise BadInput(f"{dirty[0]}: has changes since the last operation; commit or discard them first")
        later = e.repo.changed_between(target.sha, "HEAD", paths)
        if later and not force:
            raise BadInput(
                f"{later[0]}: changed again after {target.sha[:10]} ({target.subject!r}); undoing it "
                f"would lose that change; use --force to undo it anyway"
            )
        tx.folders.update(tree.folder_of(p) for p in target.paths)
        for p in paths:
            before = e.repo.show(f"{target.sha}^", p)
            if before is None:
                tx.remove(p)
            else:
                tx.write(p, before)
        tx.subject = f"undo: {target.subject}"
        tx.trailers += [("Memory-Id", i) for i in target.trailers.get("Memory-Id", [])] + [("Reverts", target.sha)]
    return UndoReport(target.sha, target.subject, tx.commit)


def _undo_target(e: Engine, agent: str, force: bool, commit: str | None) -> gitlog.Commit:
    log = e.repo.log(max_count=500)
    undone = {sha for c in log for sha in c.trailers.get("Reverts", [])}
    for c in log:
        if commit and not c.sha.startswith(commit.strip().lower()):
            continue
        if c.sha in undone or c.subject.startswith("undo:"):
            if commit:
                raise BadInput(f"{c.sha[:10]}: is an undo, or was undone already; nothing to undo")
            continue
        if "Memory-Op" not in c.trailers and not c.subject.startswith(_OWN_SUBJECTS):
            if commit:
                raise BadInput(f"{c.sha[:10]} ({c.subject!r}) was not made by ihmt; use git revert")
            continue  # a person's own commit: not ours to undo
        if c.subject.startswith("init:"):
            break
        if c.op == "merge" or e.repo.is_merge(c.sha):
            if commit or force or c.agent == agent:
                raise BadInput(
                    f"{c.sha[:10]} is a sync merge; undoing it would drop the other machine's changes "
                    f"(use git revert -m 1 if you must)"
                )
            continue
        if c.agent == agent or commit or force:
            return c
    if commit:
        raise BadInput(f"{commit}: no such operation in this vault's recent history")
    last = next(
        (
            c
            for c in log
            if "Memory-Op" in c.trailers and c.sha not in undone and not c.subject.startswith(("undo:", "init:"))
        ),
        None,
    )
    if last is not None:
        raise BadInput(
            f"nothing of {agent}'s to undo; the last operation ({last.sha[:10]} {last.subject!r}) was "
            f"made by {last.agent}: undo it with --force, or name it with --commit"
        )
    raise BadInput("nothing to undo")


def _text_or_none(e: Engine, rel: str) -> str | None:
    try:
        return files.read_exact(e.layout.abs(rel))
    except (OSError, UnicodeDecodeError):
        return None
