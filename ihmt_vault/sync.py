"""Sync a vault with a git remote: commit what is pending, pull (merge), push.

Invariants, whatever the two sides did offline:
- No memory is lost. A memory edited on both sides keeps git's merge where it is clean; otherwise
  this side's text stays in place and the other side's is saved beside it as a new memory marked
  as a conflict copy (`conflict_of: <id>`), with a notice. A memory edited on one side and deleted
  on the other is kept, edited.
- No conflict marker is ever left in a memory, and generated summaries never conflict: the
  `ihmt-summary` merge driver keeps either side, and every summary along a changed path is
  regenerated before the merge commit.
- Ids stay unique: they carry random bits (two machines creating memories offline do not collide);
  a conflict copy gets a new id.

Credentials, transports and remotes are git's own. The merge runs under the vault lock.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

from . import gitlog, notes, tree
from .errors import BadInput, VaultError

DRIVER = "ihmt-summary"
QUIET_HOOKS = {"IHMT_HOOKS": "off"}   # our hooks must not re-enter the vault while sync holds its lock


@dataclass
class SyncReport:
    remote: str
    branch: str
    pushed: bool = False
    pulled: int = 0                      # commits brought in
    committed: list[dict] = field(default_factory=list)   # pending hand edits taken in first
    conflicts: list[str] = field(default_factory=list)    # notices about conflict copies
    merge_commit: str | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _git(v, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["git", "-c", f"merge.{DRIVER}.driver=true", "-c", f"merge.{DRIVER}.name=IHMT summaries",
                        *args], cwd=v.repo.top, capture_output=True, text=True, env={**v.repo._env, **QUIET_HOOKS})
    if check and r.returncode != 0:
        raise VaultError(f"git {args[0]} failed: {(r.stderr or r.stdout).strip().splitlines()[-1:] or ['?']}"[:400])
    return r


def configure(v) -> None:
    """Declare the summary merge driver in this clone's git config and attributes (not versioned)."""
    v.repo.run("config", f"merge.{DRIVER}.name", "IHMT summaries (regenerated after the merge)")
    v.repo.run("config", f"merge.{DRIVER}.driver", "true")
    attributes = v.repo.git_dir / "info" / "attributes"
    pattern = f"{v.repo.prefix}/**/index.md" if v.repo.prefix else "index.md"
    line = f"{pattern} merge={DRIVER}\n"
    text = attributes.read_text() if attributes.exists() else ""
    if line not in text:
        attributes.parent.mkdir(parents=True, exist_ok=True)
        attributes.write_text(text + ("" if not text or text.endswith("\n") else "\n") + line)


def _remote(v, remote: str | None) -> str:
    remotes = v.repo.run("remote").split()
    if remote:
        if remote not in remotes:
            raise BadInput(f"--remote {remote}: no such git remote; known: {', '.join(remotes) or 'none'}")
        return remote
    if not remotes:
        raise BadInput("this vault has no git remote; add one with 'git remote add origin URL'")
    return "origin" if "origin" in remotes else remotes[0]


def _branch(v) -> str:
    r = _git(v, "symbolic-ref", "--short", "-q", "HEAD", check=False)
    if r.returncode != 0:
        raise BadInput("the vault's repository is on a detached HEAD; check out a branch before syncing")
    return r.stdout.strip()


def _counts(v, upstream: str) -> tuple[int, int]:
    r = _git(v, "rev-list", "--left-right", "--count", f"HEAD...{upstream}", check=False)
    if r.returncode != 0:
        return (0, 0)
    ahead, behind = r.stdout.split()
    return int(ahead), int(behind)


def status(v, remote: str | None = None) -> dict:
    """How far ahead of and behind the remote the vault is (after a fetch), and what is pending."""
    name = _remote(v, remote)
    branch = _branch(v)
    _git(v, "fetch", "-q", name)
    upstream = f"{name}/{branch}"
    exists = _git(v, "rev-parse", "-q", "--verify", upstream, check=False).returncode == 0
    ahead, behind = _counts(v, upstream) if exists else (int(v.repo.run("rev-list", "--count", "HEAD") or 0), 0)
    pending = [p for p in v.repo.dirty() if v._is_memory_path(p)]
    return {"remote": name, "branch": branch, "ahead": ahead, "behind": behind, "pending": len(pending),
            "remote_branch_exists": exists}


def sync(v, remote: str | None = None, agent: str = "sync") -> SyncReport:
    name = _remote(v, remote)
    branch = _branch(v)
    configure(v)
    report = SyncReport(name, branch)
    report.committed = v.reconcile(None, agent=agent)["changes"]
    for _attempt in range(3):
        _git(v, "fetch", "-q", name)
        upstream = f"{name}/{branch}"
        if _git(v, "rev-parse", "-q", "--verify", upstream, check=False).returncode == 0:
            ahead, behind = _counts(v, upstream)
            if behind:
                report.pulled += behind
                _pull(v, upstream, ahead, report, agent)
        push = _git(v, "push", "-q", name, f"HEAD:refs/heads/{branch}", check=False)
        if push.returncode == 0:
            report.pushed = True
            break
        if "rejected" not in push.stderr and "fetch first" not in push.stderr:
            raise VaultError(f"git push to {name} failed: {push.stderr.strip().splitlines()[-1] if push.stderr.strip() else '?'}")
    else:
        raise VaultError(f"{name} kept moving while syncing; run 'ihmt sync' again")
    v.refresh(force=True)
    return report


def _pull(v, upstream: str, ahead: int, report: SyncReport, agent: str) -> None:
    with v.lock.held():
        before = v.repo.head()
        if not ahead:  # nothing of ours to merge: take theirs as it is
            _git(v, "merge", "-q", "--ff-only", upstream)
            _retake(v, before)
            return
        r = _git(v, "merge", "-q", "--no-ff", "--no-commit", "--no-edit", upstream, check=False)
        if r.returncode != 0 and not _unmerged(v):
            raise VaultError(f"git merge failed: {(r.stderr or r.stdout).strip()[:300]}; "
                             "commit or stash your own changes outside the vault first")
        for path in _unmerged(v):
            report.conflicts += _resolve(v, path)
        merged = v.repo.run("diff", "--name-only", "--cached", "HEAD").split()  # what the merge changes here
        paths = [p for x in merged if (p := v.repo.vault_path(x))]
        v._update_caches([p for p in paths if v._is_memory_path(p) and v._abs(p).exists()],
                         [p for p in paths if v._is_memory_path(p) and not v._abs(p).exists()], set())
        folders = {f for p in paths for f in tree.parents(p.rpartition("/")[0])} | {""}
        for folder in sorted(folders, key=lambda f: (-tree.depth(f), f)):
            rel = f"{folder}/{tree.INDEX}" if folder else tree.INDEX
            text = v._render_folder(folder)
            if text is None:
                if v._abs(rel).exists():
                    v._abs(rel).unlink()
                    _git(v, "rm", "-q", "--cached", "--ignore-unmatch", "--", v.repo.repo_path(rel))
                continue
            notes.write_atomic(v._abs(rel), text)
            _git(v, "add", "--", v.repo.repo_path(rel))
        msg = gitlog.message(f"merge: sync with {upstream}",
                             [("Memory-Op", "merge"), ("Agent", agent)], "\n".join(report.conflicts))
        subprocess.run(["git", "commit", "-q", "--no-verify", "-F", "-"], cwd=v.repo.top, input=msg, text=True,
                       capture_output=True, check=True, env={**v.repo._env, **QUIET_HOOKS})
        report.merge_commit = v.repo.head()
        _retake(v, before)


def _retake(v, before: str | None) -> None:
    """After HEAD moved under us: catalog and index follow every file the merge changed."""
    changed = v.repo.changed_since(before) if before else None
    if changed is None:
        v._rebuild_caches()
        return
    v._update_caches([p for p in changed if v._is_memory_path(p) and v._abs(p).exists()],
                     [p for p in changed if v._is_memory_path(p) and not v._abs(p).exists()],
                     {p.rpartition("/")[0] if "/" in p else "" for p in changed if p.endswith(tree.INDEX)})


def _unmerged(v) -> list[str]:
    out = v.repo.run("diff", "--name-only", "--diff-filter=U").split()
    return [p for x in out if (p := v.repo.vault_path(x))]


def _stage(v, n: int, rel: str) -> str | None:
    r = subprocess.run(["git", "show", f":{n}:{v.repo.repo_path(rel)}"], cwd=v.repo.top, capture_output=True)
    return r.stdout.decode("utf-8", errors="replace") if r.returncode == 0 else None


def _resolve(v, rel: str) -> list[str]:
    """Settle one conflicted path without losing either side; returns notices."""
    full = v.repo.repo_path(rel)
    ours, theirs = _stage(v, 2, rel), _stage(v, 3, rel)
    if rel.endswith(tree.INDEX) or not v._is_memory_path(rel):
        keep = ours if ours is not None else theirs
        if keep is None:
            _git(v, "rm", "-q", "--cached", "--ignore-unmatch", "--", full)
            return []
        notes.write_atomic(v._abs(rel), keep)
        _git(v, "add", "--", full)
        return []
    if ours is None or theirs is None:  # edited on one side, deleted on the other: the edit stays
        notes.write_atomic(v._abs(rel), ours if ours is not None else theirs)
        _git(v, "add", "--", full)
        return [f"{rel}: deleted on one side and edited on the other; the edited memory is kept."]
    notes.write_atomic(v._abs(rel), ours)
    mine = notes.parse(ours, rel)
    other = notes.parse(theirs, rel)
    stem = rel.rpartition("/")[2].removesuffix(".md")
    folder = rel.rpartition("/")[0]
    copy_rel, n = f"{folder}/{stem}-conflict-copy.md" if folder else f"{stem}-conflict-copy.md", 2
    while v._abs(copy_rel).exists():
        copy_rel, n = (f"{folder}/" if folder else "") + f"{stem}-conflict-copy-{n}.md", n + 1
    same = other.id == mine.id or not other.id
    changes = {"id": notes.new_id() if same else other.id,
               "title": f"{other.title} (conflict copy)" if same else other.title}
    if same:
        changes["conflict_of"] = mine.id
    notes.write_atomic(v._abs(copy_rel), notes.update_front_matter(theirs, changes, path=copy_rel))
    _git(v, "add", "--", full, v.repo.repo_path(copy_rel))
    return [f"{rel}: edited on both machines; this side's text kept, the other side's saved as {copy_rel}."]
