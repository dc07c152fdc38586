"""History: what a memory was on a day, what changed it, undoing an operation, and purging a memory.

Everything here comes from git: a memory's lineage is `git log --follow`, its old text a blob at a
commit. `undo` never rewrites history (it commits the reverse); `forget(purge=True)` is the one
operation that does, because a secret or a person's private text must leave every commit.
"""
from __future__ import annotations

from typing import Callable

from . import gitlog, notes
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


def undo(e: Engine, source: str | None = None) -> UndoReport:
    with e.transaction("edit", "undo", [("Memory-Op", "edit")], source) as tx:
        last = e.repo.log(max_count=1)
        head = e.repo.head()
        if not last or last[0].sha != head:
            raise BadInput("the last commit of this repository is not a vault operation; use git revert")
        c = last[0]
        if "Memory-Op" not in c.trailers and not c.subject.startswith(_OWN_SUBJECTS):
            raise BadInput(f"the last commit ({c.sha[:10]} {c.subject!r}) was not made by ihmt; use git revert")
        if c.subject.startswith("init:"):
            raise BadInput("nothing to undo: the last commit created the vault")
        dirty = [p for p in c.paths if e.repo.show("HEAD", p) != _text_or_none(e, p)]
        if dirty:
            raise BadInput(f"{dirty[0]}: has changes since the last operation; commit or discard them first")
        for p in c.paths:
            before = e.repo.show(f"{c.sha}^", p)
            if before is None:
                tx.remove(p)
            else:
                tx.write(p, before)
        tx.subject = f"undo: {c.subject}"
        tx.trailers += [("Memory-Id", i) for i in c.trailers.get("Memory-Id", [])] + [("Reverts", c.sha)]
    return UndoReport(c.sha, c.subject, tx.commit)


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
