"""History: what a memory was on a day, what changed it, undoing an operation, and purging a memory.

Everything here comes from git: a memory's lineage is `git log --follow`, its old text a blob at a
commit. `undo` never rewrites history (it commits the reverse); `forget(purge=True)` is the one
operation that does, because a secret or a person's private text must leave every commit.
"""
from __future__ import annotations

from typing import Callable

from . import gitlog, notes, tree
from .draft import check_date
from .engine import Engine
from .errors import BadInput, NotFound
from .notes import Memory
from .results import Change, ForgetReport, UndoReport

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
        changes.append(Change(c.sha, c.date, c.op, c.agent, c.subject, paths[i],
                              e.repo.patch(c.sha, paths[i], before) if diff else None))
    return changes


def changes(e: Engine, limit: int = 50) -> list[Change]:
    return [Change(c.sha, c.date, c.op, c.agent, c.subject, ", ".join(c.paths[:3]),
                   ids=c.trailers.get("Memory-Id", [])) for c in e.repo.log(max_count=limit)]


def undo(e: Engine, source: str | None = None, force: bool = False, commit: str | None = None) -> UndoReport:
    """Revert the caller's own last operation (by its `Agent:`), or the one `commit` names, with a
    new commit. A second undo steps further back (operations already undone are skipped); another
    agent's operation, or files changed since by someone else, are refused unless `force`."""
    agent = source or e.config.default_source
    with e.transaction("edit", "undo", [("Memory-Op", "edit")], agent) as tx:
        target = _undo_target(e, agent, force, commit)
        # Summaries are regenerated from the memories: only the other files are reverted.
        paths = [p for p in target.paths if not p.endswith(tree.INDEX)]
        dirty = [p for p in paths if e.repo.show("HEAD", p) != _text_or_none(e, p)]
        if dirty:
            raise BadInput(f"{dirty[0]}: has changes since the last operation; commit or discard them first")
        later = e.repo.changed_between(target.sha, "HEAD", paths)
        if later and not force:
            raise BadInput(f"{later[0]}: changed again after {target.sha[:10]} ({target.subject!r}); undoing it "
                           f"would lose that change; use --force to undo it anyway")
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
                raise BadInput(f"{c.sha[:10]} is a sync merge; undoing it would drop the other machine's changes "
                               f"(use git revert -m 1 if you must)")
            continue
        if c.agent == agent or commit or force:
            return c
    if commit:
        raise BadInput(f"{commit}: no such operation in this vault's recent history")
    last = next((c for c in log if "Memory-Op" in c.trailers and c.sha not in undone
                 and not c.subject.startswith(("undo:", "init:"))), None)
    if last is not None:
        raise BadInput(f"nothing of {agent}'s to undo; the last operation ({last.sha[:10]} {last.subject!r}) was "
                       f"made by {last.agent}: undo it with --force, or name it with --commit")
    raise BadInput("nothing to undo")


def purge(e: Engine, m: Memory, confirm: Callable[[int], bool] | None, source: str | None) -> ForgetReport:
    """Delete a memory and rewrite git history so its text is in no commit; `confirm(n)` is asked
    first with the number of commits that change."""
    log = e.repo.log(m.path, follow=True)
    paths = sorted({c.paths[0] for c in log if c.paths} | {m.path})
    count = gitlog.commits_touching_since(e.repo, log[-1].sha) + 1 if log else 1
    if confirm is not None and not confirm(count):
        return ForgetReport(m.id, purged=False, cancelled=True, commits=count)
    needles = [m.title, *{p.rpartition("/")[2] for p in paths}, notes.first_line(m.body)[:40],
               *[line.strip() for line in m.body.splitlines() if len(line.strip()) >= 12]]
    with e.lock.held():  # the removal and the rewrite are one operation: no writer in between
        with e.transaction("edit", f"forget: purged memory {m.id}", [("Memory-Id", m.id), ("Memory-Op", "edit")],
                           source) as tx:
            tx.remove(m.path)
        rewritten = gitlog.rewrite_history(e.repo, m.id, needles)
        e.rebuild_caches()  # deleted documents linger in index segments until rebuilt
    return ForgetReport(m.id, purged=True, commits=rewritten)


def _text_or_none(e: Engine, rel: str) -> str | None:
    try:
        return notes.read_exact(e.layout.abs(rel))
    except (OSError, UnicodeDecodeError):
        return None
