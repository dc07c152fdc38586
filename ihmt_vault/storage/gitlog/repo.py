"""A vault's repository: commits written through the command line's plumbing, history read from the log.

Why plumbing and a private index (STACK-NOTES.md, "Git"): `git commit -- paths` lstats every tracked
file and GitPython's IndexFile rewrites the whole index in Python, both O(vault) per save. We keep
our own index file mirroring HEAD in the git dir, update only the paths an operation wrote, and
`write-tree` → `commit-tree` → `update-ref HEAD new old`. That commits exactly those paths — never
a person's unrelated staged or unstaged changes — and the old value in `update-ref` is an
optimistic lock against anyone committing at the same moment. The person's own index is then
updated for the same paths only, so `git status` stays clean.

Reads of old content go through one GitPython `Repo` (its persistent `git cat-file` makes a blob
at a commit ≈ 0.5 ms instead of a process per read); everything that writes uses the git CLI.

Errors: a git command that fails raises `GitError` with git's own message (a bug or a broken repo,
not a user mistake); `VaultError`s are raised by the callers.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # GitPython is imported by the first read of old content (Repo.show)
    import git

ZERO = "0" * 40
SUMMARY_DRIVER = "ihmt-summary"  # generated summaries never conflict: either side, then regenerated
_TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*): (.*)$")


class GitError(RuntimeError):
    pass


def _identity_env(top: Path) -> dict:
    """Commits need an author; a fresh machine may have none configured (asked in the repository:
    its own config, a clone's user.email, counts)."""
    env = {}
    probe = subprocess.run(["git", "var", "GIT_COMMITTER_IDENT"], cwd=top, capture_output=True, text=True)
    if probe.returncode != 0:
        env = {
            "GIT_AUTHOR_NAME": "IHMT Vault",
            "GIT_AUTHOR_EMAIL": "ihmt@localhost",
            "GIT_COMMITTER_NAME": "IHMT Vault",
            "GIT_COMMITTER_EMAIL": "ihmt@localhost",
        }
    return env


def work_tree_of(path: Path) -> Path | None:
    """The top of the git work tree containing `path`, or None."""
    r = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    return Path(r.stdout.strip()) if r.returncode == 0 else None


def init_repo(path: Path) -> None:
    """A new repository for a vault. Its index is split (STACK-NOTES: a save then rewrites a small
    file, not every entry: 49 → 28 ms at 50,000 files); a person's own repository is left as it is."""
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(path), "config", "core.splitIndex", "true"], check=True, capture_output=True)


def clone(url: str, dest: Path) -> str | None:
    """Clone a repository; None, or git's own reason (its last line) when it failed."""
    r = subprocess.run(["git", "clone", "-q", url, str(dest)], capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["git clone failed"])[-1]


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Trailers of the message's last paragraph: {"Memory-Id": [...], "Memory-Op": ["save"]}."""
    paragraphs = message.strip().split("\n\n")
    out: dict[str, list[str]] = {}
    if len(paragraphs) < 2:
        return out
    for line in paragraphs[-1].splitlines():
        m = _TRAILER.match(line.strip())
        if m:
            out.setdefault(m.group(1), []).append(m.group(2).strip())
    return out


def message(subject: str, trailers: list[tuple[str, str]], body: str = "") -> str:
    parts = [subject.replace("\n", " ")[:200]]
    if body:
        parts.append(body)
    parts.append("\n".join(f"{k}: {v}" for k, v in trailers if v))
    return "\n\n".join(parts) + "\n"


@dataclass
class Commit:
    sha: str
    date: str
    author: str
    subject: str
    trailers: dict[str, list[str]] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)

    @property
    def op(self) -> str:
        ops = self.trailers.get("Memory-Op")
        if ops:
            return ops[0]
        prefix = self.subject.partition(":")[0]  # our own commits without a memory, e.g. "init: ..."
        return prefix if prefix.isalpha() and prefix.islower() and ":" in self.subject else "edit"

    @property
    def agent(self) -> str:
        return (self.trailers.get("Agent") or [self.author])[0]


class Repo:
    """The git repository holding a vault (the vault may be a sub-folder of it)."""

    def __init__(self, vault_root: Path):
        top = work_tree_of(vault_root)
        if top is None:
            raise GitError(f"{vault_root} is not inside a git work tree")
        self.top = top.resolve()
        self.prefix = vault_root.resolve().relative_to(self.top).as_posix()
        self.prefix = "" if self.prefix == "." else self.prefix
        self.git_dir = Path(self.run("rev-parse", "--absolute-git-dir").strip())
        self._private_index = self.git_dir / "ihmt-index"
        self._env = {**os.environ, **_identity_env(self.top)}
        self._reader: git.Repo | None = None  # a GitPython Repo, opened on the first read of old content

    def close(self) -> None:
        """Reap GitPython's `cat-file` children (one `Repo` per process, closed on shutdown)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    # -- running git ------------------------------------------------------------------------------
    def run(self, *args: str, input: str | None = None, env: dict | None = None, check: bool = True) -> str:
        r = subprocess.run(
            ["git", *args],
            cwd=self.top,
            input=input,
            capture_output=True,
            text=True,
            env=env or getattr(self, "_env", None),
        )
        if check and r.returncode != 0:
            raise GitError(f"git {args[0]} failed: {r.stderr.strip() or r.stdout.strip()}")
        return r.stdout

    def repo_path(self, vault_path: str) -> str:
        """A vault-relative path as a path relative to the top of the work tree."""
        return f"{self.prefix}/{vault_path}" if self.prefix else vault_path

    def vault_path(self, repo_path: str) -> str | None:
        if not self.prefix:
            return repo_path
        return repo_path[len(self.prefix) + 1 :] if repo_path.startswith(self.prefix + "/") else None

    def head_fast(self) -> str:
        """HEAD's commit read from the files under .git (no process): a cheap 'did anyone commit?'."""
        try:
            ref = (self.git_dir / "HEAD").read_text().strip()
            if not ref.startswith("ref: "):
                return ref
            name = ref[5:]
            loose = self.git_dir / name
            if loose.exists():
                return loose.read_text().strip()
            packed = self.git_dir / "packed-refs"
            for line in packed.read_text().splitlines() if packed.exists() else []:
                if line.endswith(" " + name):
                    return line.split(" ", 1)[0]
            return ""
        except OSError:
            return ""

    def head(self) -> str | None:
        out = self.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).strip()
        return out or None

    # -- writing ----------------------------------------------------------------------------------
    def commit(self, vault_paths: list[str], msg: str, merge_parent: str | None = None) -> str | None:
        """Commit exactly these vault paths (added, changed or deleted) as one commit; with
        `merge_parent`, a merge commit whose second parent it is (and git's merge state is cleared).

        Returns the new commit, or None when the paths did not change anything.
        """
        path_set = {self.repo_path(p) for p in vault_paths}
        if merge_parent:  # everything the merge brought, in and out of the vault, is in the merge commit
            path_set.update(
                n for n in self.run("diff", "--name-only", "--no-renames", "-z", "--cached", "HEAD").split("\0") if n
            )
        paths = sorted(path_set)
        if not paths and not merge_parent:  # a merge that changes no file still records the other side
            return None
        # A split index: each save rewrites a small file, not all of the vault's entries (STACK-NOTES).
        env = {
            **self._env,
            "GIT_INDEX_FILE": str(self._private_index),
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.splitIndex",
            "GIT_CONFIG_VALUE_0": "true",
        }
        stdin = "\0".join(paths) + "\0"
        marker = self._private_index.with_suffix(".head")  # "<commit> <tree>" the private index mirrors
        for _attempt in range(5):
            head = self.head_fast() or None
            mirrored, _, head_tree = (marker.read_text() if marker.exists() else "").partition(" ")
            if not self._private_index.exists() or mirrored != (head or ""):
                self.run("read-tree", head or "--empty", env=env)
                head_tree = self.run("rev-parse", f"{head}^{{tree}}").strip() if head else ""
            try:
                if paths:
                    self.run("update-index", "--add", "--remove", "-z", "--stdin", input=stdin, env=env)
                tree = self.run("write-tree", env=env).strip()
            except GitError:
                # Our private index is a cache of HEAD: unreadable (damaged, half-written by a
                # killed process), it is thrown away and rebuilt from HEAD on the next attempt.
                self._private_index.unlink(missing_ok=True)
                marker.unlink(missing_ok=True)
                continue
            if head and head_tree == tree and not merge_parent:
                marker.write_text(f"{head} {tree}")
                # Already committed (say, by a run killed before its last step): the person's index
                # may still lag behind HEAD for these paths.
                self._stage_in_persons_index(stdin)
                return None
            parents = (["-p", head] if head else []) + (["-p", merge_parent] if merge_parent else [])
            new = self.run("commit-tree", tree, *parents, "-F", "-", input=msg, env=env).strip()
            # The person's index takes these paths *before* HEAD moves: a `git commit` of theirs
            # then either holds index.lock (we wait, and it lands first) or starts after and
            # includes our files — it can never build a tree without them on top of our commit.
            if paths:
                self._stage_in_persons_index(stdin)
            moved = subprocess.run(
                ["git", "update-ref", "-m", f"ihmt: {msg.splitlines()[0]}", "HEAD", new, head or ZERO],
                cwd=self.top,
                capture_output=True,
                text=True,
                env=self._env,
            )
            if moved.returncode == 0:
                marker.write_text(f"{new} {tree}")
                if merge_parent:
                    self.run("merge", "--quit", check=False)  # MERGE_HEAD & co: the merge is committed
                return new
            marker.unlink(missing_ok=True)  # someone else committed: mirror their HEAD and retry
        raise GitError("HEAD kept moving while committing; try again")

    def _stage_in_persons_index(self, stdin: str, wait: float = 15.0) -> None:
        """Update the person's own index for these paths only (so `git status` stays clean), waiting
        while a git command of theirs holds `index.lock`."""
        deadline = time.monotonic() + wait
        while True:
            r = subprocess.run(
                ["git", "update-index", "--add", "--remove", "-z", "--stdin"],
                cwd=self.top,
                input=stdin,
                capture_output=True,
                text=True,
                env=self._env,
            )
            if r.returncode == 0:
                return
            locked = (self.git_dir / "index.lock").exists() or "index.lock" in r.stderr
            if not locked or time.monotonic() > deadline:
                raise GitError(
                    f"git update-index failed: {r.stderr.strip()}"
                    + ("; if no git command is running, delete .git/index.lock" if locked else "")
                )
            time.sleep(0.05)

    # -- reading ----------------------------------------------------------------------------------
    def log(
        self,
        vault_path: str | None = None,
        follow: bool = False,
        max_count: int | None = None,
        until: str | None = None,
    ) -> list[Commit]:
        args = ["log", "--format=%x1e%H%x1f%aI%x1f%an%x1f%B%x1f", "--name-only"]
        if follow:
            args.append("--follow")
        if max_count:
            args.append(f"--max-count={max_count}")
        if until:
            args.append(f"--until={until}")
        args += ["--", self.repo_path(vault_path) if vault_path else (self.prefix or ".")]
        if self.head() is None:
            return []
        commits = []
        for record in self.run(*args).split("\x1e")[1:]:
            sha, date, author, body, names = record.split("\x1f")
            paths = [v for n in names.split("\n") if n.strip() and (v := self.vault_path(n.strip()))]
            commits.append(Commit(sha, date, author, body.split("\n", 1)[0], parse_trailers(body), paths))
        return commits

    def changed_between(self, a: str, b: str, vault_paths: list[str]) -> list[str]:
        """Which of these vault paths differ between two commits."""
        if not vault_paths:
            return []
        out = self.run(
            "diff", "--name-only", "--no-renames", "-z", a, b, "--", *[self.repo_path(p) for p in vault_paths]
        )
        return [p for n in out.split("\0") if n and (p := self.vault_path(n))]

    def is_merge(self, sha: str) -> bool:
        return len(self.run("rev-list", "--parents", "-n", "1", sha).split()) > 2

    def patch(self, sha: str, vault_path: str, old_path: str | None = None) -> str:
        """What a commit changed in one file (followed from `old_path` if it moved), as a unified diff."""
        paths = {self.repo_path(vault_path), self.repo_path(old_path or vault_path)}
        return self.run("show", "--format=", "--no-color", "--find-renames", sha, "--", *sorted(paths))

    def show(self, rev: str, vault_path: str) -> str | None:
        """A file's text at a revision, byte for byte (no newline translation), or None."""
        import git as gitpython  # ≈ 25 ms to import: only what reads old content pays for it

        if self._reader is None:
            self._reader = gitpython.Repo(self.top)
        try:
            blob = self._reader.rev_parse(f"{rev}:{self.repo_path(vault_path)}")
            return blob.data_stream.read().decode("utf-8", errors="replace")
        except (KeyError, ValueError, IndexError, gitpython.BadName, gitpython.BadObject, gitpython.GitCommandError):
            return None

    def dirty(self, vault_paths: list[str] | None = None) -> list[str]:
        """Vault paths whose working-tree state differs from HEAD: modified, added, deleted, untracked.

        This is `git status`: O(vault) without `vault_paths`, so it is for reconciling, never for saves.
        """
        specs = [self.repo_path(p) for p in vault_paths] if vault_paths is not None else [self.prefix or "."]
        if not specs:
            return []
        r = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", *specs],
            cwd=self.top,
            capture_output=True,
            text=True,
        )
        out = []
        for entry in r.stdout.split("\0"):
            if len(entry) > 3 and (v := self.vault_path(entry[3:])):
                out.append(v)
        return sorted(set(out))

    def modified(self) -> list[str]:
        """Tracked vault paths whose file differs from the index (edited or deleted in place).

        `git diff-files` compares stat data in C: far cheaper than hashing, and than Python stats.
        """
        r = subprocess.run(
            ["git", "diff-files", "--name-only", "-z", "--", self.prefix or "."],
            cwd=self.top,
            capture_output=True,
            text=True,
        )
        return [v for n in r.stdout.split("\0") if n and (v := self.vault_path(n))]

    def refresh_stat(self) -> bool:
        """Refresh the stat data git keeps for the vault's tracked files (`update-index --refresh`):
        after a copy (`cp -a`, a restore) every file looks modified to `diff-files` until this runs.
        Content is compared only for files whose stat data changed; nothing is staged. False when
        the index is busy (a git command of the person's holds `index.lock`): try again later."""
        r = subprocess.run(
            ["git", "update-index", "-q", "--refresh", "--", self.prefix or "."],
            cwd=self.top,
            capture_output=True,
            text=True,
            env=getattr(self, "_env", None),
        )
        return "index.lock" not in r.stderr

    def changed_since(self, rev: str) -> list[str] | None:
        """Vault paths changed between `rev` and HEAD, or None if `rev` is unknown."""
        r = subprocess.run(
            ["git", "diff", "--name-only", "--no-renames", rev, "HEAD", "--", self.prefix or "."],
            cwd=self.top,
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            return None
        return [v for n in r.stdout.splitlines() if (v := self.vault_path(n))]

    def history_rewritten(self) -> None:
        """After a rewrite of history: our private index and the object reader start over, and the
        person's index is written out whole (a split index's shared part still names deleted files)."""
        self._private_index.with_suffix(".head").unlink(missing_ok=True)
        self._private_index.unlink(missing_ok=True)
        self.close()
        if self.run("rev-parse", "--shared-index-path", check=False).strip():
            self.run("-c", "splitIndex.sharedIndexExpire=now", "update-index", "--split-index", check=False)
        else:  # only our private index was split: its shared parts are orphans now
            for shared in self.git_dir.glob("sharedindex.*"):
                shared.unlink(missing_ok=True)

    # -- hooks and the staging area -----------------------------------------------------------------
    def hooks_dir(self) -> Path:
        path = Path(self.run("rev-parse", "--git-path", "hooks").strip())
        return path if path.is_absolute() else self.top / path

    def staged(self) -> list[tuple[str, bytes]]:
        """(vault path, staged bytes) of every file added, copied, modified or renamed in the index."""
        names = self.run("diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR", "--", self.prefix or ".")
        out = []
        for name in filter(None, names.split("\0")):
            rel = self.vault_path(name)
            if rel:
                blob = subprocess.run(["git", "show", f":{name}"], cwd=self.top, capture_output=True, env=self._env)
                out.append((rel, blob.stdout))
        return out

    def staged_changes(self) -> list[tuple[str, str, str | None]]:
        """(status A|M|D|R, vault path, old vault path of a rename) of everything staged: what a
        commit made now would change (renames found, so a move is not a delete)."""
        out = self.run("diff", "--cached", "--name-status", "-M", "-z", "--", self.prefix or ".")
        return [
            (s, rel, self.vault_path(o) if o else None) for s, p, o in name_status(out) if (rel := self.vault_path(p))
        ]

    def author_email(self) -> str:
        """The e-mail the next commit's author will have (git config or GIT_AUTHOR_EMAIL)."""
        ident = self.run("var", "GIT_AUTHOR_IDENT", check=False)
        return ident.partition("<")[2].partition(">")[0].strip()

    # -- remotes and merges (sync) ------------------------------------------------------------------
    def _sync_git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """git for sync: the summary merge driver declared, and our own hooks quiet (sync holds the
        vault lock; a hook calling `ihmt` would wait for it)."""
        r = subprocess.run(
            [
                "git",
                "-c",
                f"merge.{SUMMARY_DRIVER}.driver=true",
                "-c",
                f"merge.{SUMMARY_DRIVER}.name=IHMT summaries",
                *args,
            ],
            cwd=self.top,
            capture_output=True,
            text=True,
            env={**self._env, "IHMT_HOOKS": "off"},
        )
        if check and r.returncode != 0:
            raise GitError(f"git {args[0]} failed: {(r.stderr or r.stdout).strip()[:300] or '?'}")
        return r

    def configure_summary_merges(self) -> None:
        """Declare the summary merge driver in this clone's config and attributes (not versioned)."""
        for key, value in (("name", "IHMT summaries (regenerated after the merge)"), ("driver", "true")):
            if self.run("config", "--get", f"merge.{SUMMARY_DRIVER}.{key}", check=False).strip() != value:
                self.run("config", f"merge.{SUMMARY_DRIVER}.{key}", value)  # written once: no config.lock races
        attributes = self.git_dir / "info" / "attributes"
        pattern = f"{self.prefix}/**/index.md" if self.prefix else "index.md"
        line = f"{pattern} merge={SUMMARY_DRIVER}\n"
        text = attributes.read_text() if attributes.exists() else ""
        if line not in text:
            attributes.parent.mkdir(parents=True, exist_ok=True)
            attributes.write_text(text + ("" if not text or text.endswith("\n") else "\n") + line)

    def remotes(self) -> list[str]:
        return self.run("remote").split()

    def branch(self) -> str | None:
        """The checked-out branch, or None on a detached HEAD."""
        r = self._sync_git("symbolic-ref", "--short", "-q", "HEAD", check=False)
        return r.stdout.strip() if r.returncode == 0 else None

    def fetch(self, remote: str) -> None:
        self._sync_git("fetch", "-q", remote)

    def rev_exists(self, rev: str) -> bool:
        return self._sync_git("rev-parse", "-q", "--verify", rev, check=False).returncode == 0

    def rev(self, rev: str) -> str:
        return self.run("rev-parse", "--verify", rev).strip()

    def ahead_behind(self, upstream: str) -> tuple[int, int]:
        r = self._sync_git("rev-list", "--left-right", "--count", f"HEAD...{upstream}", check=False)
        if r.returncode != 0:
            return (0, 0)
        ahead, behind = r.stdout.split()
        return int(ahead), int(behind)

    def commit_count(self) -> int:
        return int(self.run("rev-list", "--count", "HEAD", check=False).strip() or 0)

    def merge_fast_forward(self, upstream: str) -> None:
        self._sync_git("merge", "-q", "--ff-only", upstream)

    def merge_start(self, upstream: str) -> tuple[list[str], list[str]]:
        """Start merging `upstream` into the work tree without committing; returns (vault paths the
        merge changes, vault paths left in conflict)."""
        r = self._sync_git("merge", "-q", "--no-ff", "--no-commit", "--no-edit", upstream, check=False)
        unmerged = self.unmerged()
        if r.returncode != 0 and not unmerged:
            raise GitError(f"git merge failed: {(r.stderr or r.stdout).strip()[:300]}")
        return sorted(set(self.merge_changes()) | set(unmerged)), unmerged

    def merge_changes(self) -> list[str]:
        """Vault paths the merge in progress changes (staged against HEAD)."""
        names = self.run("diff", "--name-only", "--no-renames", "-z", "--cached", "HEAD").split("\0")
        return [p for n in names if n and (p := self.vault_path(n))]

    def unmerged(self) -> list[str]:
        out = self.run("diff", "--name-only", "-z", "--diff-filter=U").split("\0")
        return [p for x in out if x and (p := self.vault_path(x))]

    def merge_in_progress(self) -> str | None:
        """The commit being merged when a merge was started and not finished (MERGE_HEAD), else None."""
        file = self.git_dir / "MERGE_HEAD"
        try:
            return file.read_text().split()[0]
        except (OSError, IndexError):
            return None

    def merge_abort(self) -> None:
        self._sync_git("merge", "--abort", check=False)

    def conflict_side(self, stage: int, vault_path: str) -> str | None:
        """One side of a conflicted file: 2 = ours, 3 = theirs (None: that side deleted it)."""
        r = subprocess.run(
            ["git", "show", f":{stage}:{self.repo_path(vault_path)}"], cwd=self.top, capture_output=True, env=self._env
        )
        return r.stdout.decode("utf-8", errors="replace") if r.returncode == 0 else None

    def push(self, remote: str, branch: str) -> tuple[bool, str]:
        """Push HEAD to `remote`'s `branch`: (pushed, git's message); refused (behind) is not an error."""
        r = self._sync_git("push", "-q", remote, f"HEAD:refs/heads/{branch}", check=False)
        if r.returncode == 0:
            return True, ""
        if "rejected" in r.stderr or "fetch first" in r.stderr:
            return False, r.stderr.strip()
        raise GitError(f"git push to {remote} failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else '?'}")

    # -- purging: objects, reflogs, quarantined fetches ---------------------------------------------
    def popen(self, args: list[str], **kw) -> subprocess.Popen:
        """A git command streaming its input or output (the two ends of a history rewrite)."""
        return subprocess.Popen(["git", *args], cwd=self.top, env=self._env, **kw)

    def common_dir(self) -> Path:
        """The git dir shared by every work tree of the repository (refs, logs, objects)."""
        path = Path(self.run("rev-parse", "--git-common-dir").strip())
        return path if path.is_absolute() else (self.top / path).resolve()

    def objects(self, shas: Iterable[str] | None = None) -> Iterator[tuple[str, str, bytes]]:
        """(sha, type, content) of these objects, or of every object in the store (reachable or not:
        `git cat-file --batch-all-objects --batch`), streamed."""
        args = ["git", "cat-file", "--batch"] + (["--batch-all-objects", "--unordered"] if shas is None else [])
        p = subprocess.Popen(
            args,
            cwd=self.top,
            env=self._env,
            stdout=subprocess.PIPE,
            stdin=subprocess.PIPE if shas is not None else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stdout = p.stdout
        assert stdout is not None  # stdout=PIPE
        if shas is not None:

            def feed(pipe=p.stdin, items=shas):
                try:
                    for sha in items:
                        pipe.write(sha.encode() + b"\n")
                except (BrokenPipeError, ValueError):
                    pass
                finally:
                    try:
                        pipe.close()
                    except OSError:
                        pass

            threading.Thread(target=feed, daemon=True).start()
        try:
            while True:
                header = stdout.readline()
                if not header:
                    break
                parts = header.split()
                if len(parts) != 3:  # "<sha> missing"
                    continue
                size = int(parts[2])
                data = stdout.read(size)
                stdout.read(1)
                yield parts[0].decode(), parts[1].decode(), data
        finally:
            stdout.close()
            p.kill()
            p.wait()

    def blobs(self, *revs: str) -> Iterator[tuple[str, bytes]]:
        """(sha, content) of every blob reachable from `revs` (rev-list arguments; default: every
        ref and every reflog entry, stashes included)."""
        listed = self.run("rev-list", "--objects", "--no-object-names", *(revs or ("--all", "--reflog")))
        checked = self.run("cat-file", "--batch-check=%(objecttype) %(objectname)", input=listed)
        wanted = [line.split()[1] for line in checked.splitlines() if line.startswith("blob ")]
        for sha, kind, data in self.objects(wanted):
            if kind == "blob":
                yield sha, data

    def tree_blobs(self, rev: str = "HEAD") -> dict[str, str]:
        """{repository path: blob sha} of every file in a commit's tree (the whole repository)."""
        out = self.run("ls-tree", "-r", "-z", "--full-tree", rev, check=False)
        files = {}
        for entry in filter(None, out.split("\0")):
            meta, _, path = entry.partition("\t")
            mode, kind, sha = meta.split()
            if kind == "blob":
                files[path] = sha
        return files

    def follow_blobs(self, vault_path: str) -> set[str]:
        """Every blob a file's lineage had (`git log --follow`, through renames), both sides of each change."""
        if self.head() is None:
            return set()
        out = self.run(
            "log", "--follow", "--format=", "--raw", "--no-abbrev", "--", self.repo_path(vault_path), check=False
        )
        shas: set[str] = set()
        for line in out.splitlines():
            if line.startswith(":"):
                fields = line.split("\t", 1)[0].split()
                shas.update(s for s in fields[2:4] if s.strip("0"))
        return shas

    def identities(self) -> set[str]:
        """Every author and committer name and e-mail in history (they are in every commit object)."""
        out = self.run("log", "--all", "--reflog", "--format=%an%n%ae%n%cn%n%ce", check=False) if self.head() else ""
        return set(out.splitlines())

    def rev_list(self, *args: str) -> list[str]:
        return self.run("rev-list", *args, check=False).split()

    def metadata_files(self) -> list[Path]:
        """Every file git keeps besides its objects (refs, reflogs, indexes, messages, config)."""
        roots = {self.git_dir.resolve(), self.common_dir()}
        files = []
        for root in roots:
            for dirpath, dirnames, filenames in os.walk(root):
                if Path(dirpath) == root:
                    dirnames[:] = [d for d in dirnames if d != "objects"]
                files += [Path(dirpath) / n for n in filenames]
        return sorted(set(files))

    def leftover_messages(self) -> list[Path]:
        """Files where git keeps the text of a message being written (a commit, a merge, a crash report)."""
        names = ("COMMIT_EDITMSG", "MERGE_MSG", "SQUASH_MSG", "TAG_EDITMSG", "fast_import_crash_*")
        return [f for root in {self.git_dir, self.common_dir()} for n in names for f in root.glob(n)]

    def stage(self, vault_paths: list[str]) -> None:
        """The person's index takes these files as they are on disk (after history moved under them)."""
        self._stage_in_persons_index("\0".join(self.repo_path(p) for p in vault_paths) + "\0")

    def remote_tip(self, remote: str, branch: str) -> str | None:
        """The commit a remote's branch is at, asked without fetching anything (None: no such branch)."""
        r = self._sync_git("ls-remote", "-q", remote, f"refs/heads/{branch}", check=False)
        if r.returncode != 0:
            raise GitError(f"git ls-remote {remote} failed: {(r.stderr or r.stdout).strip()[:300] or '?'}")
        line = r.stdout.split()
        return line[0] if line else None

    def fetch_quarantined(self, remote: str, branch: str) -> str:
        """Fetch a remote's branch into a private ref only (remote-tracking refs untouched); returns it."""
        self._sync_git("fetch", "-q", "--no-tags", "--refmap=", remote, f"+refs/heads/{branch}:{QUARANTINE}")
        return QUARANTINE

    def drop_quarantine(self, prune: bool) -> None:
        """Forget the quarantined fetch; with `prune`, its objects leave the store too."""
        self.run("update-ref", "-d", QUARANTINE, check=False)
        if prune:
            gc_keeping_reflogs(self)


QUARANTINE = "refs/ihmt/incoming"  # a fetch looked at before anything of it is merged (sync)


def blob_hash(data: bytes) -> str:
    """The id git gives a file with this content (`git hash-object`), computed without git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def gc_keeping_reflogs(repo: Repo) -> None:
    """Prune every unreachable object now, expiring no reflog entry (stashes are reflog entries)."""
    repo.run("-c", "gc.reflogExpire=never", "-c", "gc.reflogExpireUnreachable=never", "gc", "--prune=now", "--quiet")


def name_status(out: str) -> list[tuple[str, str, str | None]]:
    """`--name-status -z` output as (status letter, path, old path of a rename or copy)."""
    fields, i = out.split("\0"), 0
    changes: list[tuple[str, str, str | None]] = []
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status[0] in "RC":
            changes.append((status[0], fields[i + 2], fields[i + 1]))
            i += 3
        else:
            changes.append((status[0], fields[i + 1], None))
            i += 2
    return changes
