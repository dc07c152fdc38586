"""Git, the only place it runs: a vault's repository (`repo.py`), purging text from history
(`rewrite.py`), and reading what a push brings in any repository, bare ones too (`pushes.py`).

The vault's operations ask it by name (commit, log, fetch, merge, push, ...); nothing else in the
package starts git or imports GitPython (tests/test_architecture.py).
"""

from .pushes import PushedCommit, commit_changes, file_at, is_ancestor, new_commits, pushed_commit, resolve_at
from .repo import (
    QUARANTINE,
    SUMMARY_DRIVER,
    ZERO,
    Commit,
    GitError,
    Repo,
    blob_hash,
    clone,
    gc_keeping_reflogs,
    init_repo,
    message,
    parse_trailers,
    work_tree_of,
)
from .rewrite import (
    TEMP_REFS,
    PurgePlan,
    Rewritten,
    StashChange,
    commits_touching_since,
    rewrite_history,
    saved_reflogs,
)

__all__ = [
    "PushedCommit",
    "commit_changes",
    "file_at",
    "is_ancestor",
    "new_commits",
    "pushed_commit",
    "resolve_at",
    "QUARANTINE",
    "SUMMARY_DRIVER",
    "ZERO",
    "Commit",
    "GitError",
    "Repo",
    "blob_hash",
    "clone",
    "gc_keeping_reflogs",
    "init_repo",
    "message",
    "parse_trailers",
    "work_tree_of",
    "TEMP_REFS",
    "PurgePlan",
    "Rewritten",
    "StashChange",
    "commits_touching_since",
    "rewrite_history",
    "saved_reflogs",
]
