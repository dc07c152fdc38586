"""Any repository, bare ones too: what a push brings (the server's pre-receive hook, a CI job's
range check), read with git run in that repository's folder.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .repo import GitError, name_status, parse_trailers


def _git_at(where: Path, *args: str, check: bool = True) -> str:
    """git in a repository given by its folder (a bare one or a work tree); the environment is
    kept as it is (a pre-receive hook's quarantined objects are found through it)."""
    r = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise GitError(f"git {args[0]} failed: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


@dataclass
class PushedCommit:
    sha: str
    author_email: str
    parents: list[str]
    trailers: dict[str, list[str]]


def new_commits(where: Path, new: str, exclude: list[str]) -> list[str]:
    """The commits reachable from `new` and from none of `exclude` (rev-list arguments such as
    "--all" or a commit), oldest first."""
    return _git_at(where, "rev-list", "--reverse", "--topo-order", new, "--not", *exclude).split()


def pushed_commit(where: Path, sha: str) -> PushedCommit:
    author, parents, body = _git_at(where, "show", "-s", "--format=%ae%x00%P%x00%B", sha).split("\0", 2)
    return PushedCommit(sha, author.strip(), parents.split(), parse_trailers(body))


def commit_changes(where: Path, c: PushedCommit) -> list[tuple[str, str, str | None]]:
    """What a commit changes: (status A|M|D|R, path, old path), relative to its FIRST parent, a
    merge's too: what it brings to the branch it was made on. (A merge judged only on the paths
    that differ from every parent, `diff-tree -c`, hid a merge whose tree is an older commit's: it
    equals that parent, so it listed nothing.)"""
    if c.parents:
        return changes_between(where, c.parents[0], c.sha)
    return changes_between(where, None, c.sha)


def changes_between(where: Path, a: str | None, b: str) -> list[tuple[str, str, str | None]]:
    """What going from commit `a` to commit `b` changes, renames found (`git diff a b`); `a` None:
    from nothing (every path of `b` added)."""
    if a is None:
        a = _git_at(where, "hash-object", "-t", "tree", "/dev/null").strip()  # the empty tree
    return name_status(_git_at(where, "diff-tree", "-r", "-M", "--name-status", "-z", a, b))


def merge_base(where: Path, a: str, b: str) -> str | None:
    """The best common ancestor of two commits (None: unrelated histories)."""
    return _git_at(where, "merge-base", a, b, check=False).strip() or None


def file_at(where: Path, rev: str, path: str) -> str | None:
    """A file's text at a revision, or None when it has no such file."""
    r = subprocess.run(["git", "-C", str(where), "cat-file", "blob", f"{rev}:{path}"], capture_output=True)
    return r.stdout.decode("utf-8", errors="replace") if r.returncode == 0 else None


def resolve_at(where: Path, rev: str) -> str | None:
    out = _git_at(where, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False).strip()
    return out or None


def is_ancestor(where: Path, a: str, b: str) -> bool:
    return subprocess.run(["git", "-C", str(where), "merge-base", "--is-ancestor", a, b]).returncode == 0
