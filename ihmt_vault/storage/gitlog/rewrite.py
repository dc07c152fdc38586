"""Purging text from history: every commit of every ref, every reflog entry and stash rewritten
without the purged blobs (`git fast-export | filter | git fast-import`), then the old objects pruned.

The caller (ops/purge.py) decides what goes (a `PurgePlan`); this module only applies it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ... import files
from .repo import QUARANTINE, ZERO, GitError, Repo, gc_keeping_reflogs

TEMP_REFS = "refs/ihmt/purge"  # reflog-only commits (older stashes) carried through a rewrite


@dataclass
class PurgePlan:
    """What a history rewrite changes: decided by the caller, applied to every commit of every ref."""

    drop: set[str]  # blobs taken out of every commit (and every stash)
    replace: dict[str, bytes]  # blob → its new content (scrubbed summaries, ...)
    scrub_message: Callable[[bytes, bool], bytes]  # (message, is it the memory's commit?) → message
    ids: set[str] = field(default_factory=set)  # a `Memory-Id:` trailer naming one marks the memory's commits


@dataclass
class StashChange:
    selector: str  # stash@{n} before the purge
    message: str  # its description (scrubbed)
    outcome: str  # "rewritten": its own changes held the text, now without it; "dropped": they were only that


@dataclass
class Rewritten:
    commits: int  # commits whose id changed
    old_commits: list[str] = field(default_factory=list)
    stashes: list[StashChange] = field(default_factory=list)


def saved_reflogs(repo: Repo) -> Path:
    """Where a rewrite keeps the reflogs as they were until it writes them back (a crash between
    fast-import and that write must not lose them); a rewrite that has not started has none."""
    return repo.git_dir / "ihmt-purge-reflogs.json"


def rewrite_history(repo: Repo, plan: PurgePlan) -> Rewritten:
    """Apply `plan` to all of history: every ref (branches, tags, remote-tracking refs, the stash)
    and every reflog entry (older stashes, HEAD's log) is carried over to its rewritten commit, with
    its date, its author and its message scrubbed; then the old objects are pruned.

    `git fast-export --all | filter | git fast-import`: a dropped blob's `M` becomes `D` (the file
    is not in that commit), a replaced blob gets its new bytes, messages pass through
    `plan.scrub_message`. Commits reachable only from a reflog get temporary refs for the export.
    Reflogs are read before and written back after (mapped, scrubbed), so nothing that is not the
    purged text is lost; a stash whose own changes were only the purged memory is dropped (an
    empty stash), and each affected stash is reported. Running it again is harmless (a purge
    resumed after a crash): the same plan gives the same commits.
    """
    common = repo.common_dir()
    for ref in repo.run("for-each-ref", "--format=%(refname)", TEMP_REFS, QUARANTINE).split():
        repo.run("update-ref", "-d", ref, check=False)  # left by an interrupted rewrite or sync
    before = set(repo.rev_list("--all"))
    # The reflogs as they were before the rewrite, kept until they are written back: fast-import
    # appends its own entries, and a purge resumed after a crash must not take those for the person's.
    saved = saved_reflogs(repo)
    try:
        logs = {
            common / rel: [(o, n, r.encode("latin-1")) for o, n, r in entries]
            for rel, entries in json.loads(saved.read_text(encoding="utf-8")).items()
        }
    except (OSError, ValueError):
        logs = _read_reflogs(common)
        files.atomic_write(
            saved,
            json.dumps(
                {
                    f.relative_to(common).as_posix(): [(o, n, r.decode("latin-1")) for o, n, r in es]
                    for f, es in logs.items()
                }
            ),
        )
    listed = {sha for entries in logs.values() for old, new, _ in entries for sha in (old, new) if sha.strip("0")}
    loose = [s for s in sorted(listed - before)]
    kinds = (
        repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)", input="\n".join(loose) + "\n")
        if loose
        else ""
    )
    loose = [line.split()[0] for line in kinds.splitlines() if line.endswith(" commit")]
    if loose:
        repo.run("update-ref", "--stdin", input="".join(f"update {TEMP_REFS}/{i} {s}\n" for i, s in enumerate(loose)))
    stash_log = common / "logs" / "refs" / "stash"
    held = _stashes_holding(repo, logs.get(stash_log, []), plan)

    marks = repo.git_dir / "ihmt-purge-marks"
    with tempfile.TemporaryFile() as exp_err, tempfile.TemporaryFile() as imp_err:
        exp = repo.popen(
            [
                "fast-export",
                "--all",
                "--show-original-ids",
                "--use-done-feature",
                "--fake-missing-tagger",
                "--signed-tags=strip",
                "--reencode=yes",
                "--tag-of-filtered-object=rewrite",
            ],
            stdout=subprocess.PIPE,
            stderr=exp_err,
        )
        imp = repo.popen(
            ["fast-import", "--force", "--quiet", "--done", f"--export-marks={marks}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=imp_err,
        )
        exported, imported = exp.stdout, imp.stdin
        assert exported is not None and imported is not None  # stdout=PIPE, stdin=PIPE
        try:
            originals, touching = _filter_stream(exported, imported, plan)
        finally:
            try:
                imported.close()
            except OSError:
                pass
            exported.close()
        for name, proc, err in (("fast-export", exp, exp_err), ("fast-import", imp, imp_err)):
            if proc.wait() != 0:
                err.seek(0)
                raise GitError(
                    f"git {name} failed while rewriting history: "
                    f"{err.read().decode(errors='replace').strip()[-300:] or '?'}"
                )
    new_of = {}
    for line in marks.read_text().splitlines():
        mark, _, sha = line.partition(" ")
        if mark in originals:
            new_of[originals[mark]] = sha
    marks.unlink(missing_ok=True)
    for ref in repo.run("for-each-ref", "--format=%(refname)", TEMP_REFS).split():
        repo.run("update-ref", "-d", ref, check=False)

    stashes = _write_reflogs(repo, common, logs, new_of, touching, plan, stash_log, held)
    saved.unlink(missing_ok=True)
    orig_head = repo.git_dir / "ORIG_HEAD"
    try:
        sha = orig_head.read_text().strip()
        if sha in new_of:
            orig_head.write_text(new_of[sha] + "\n")
    except OSError:
        pass
    shutil.rmtree(common / "logs" / "refs" / "ihmt", ignore_errors=True)  # the temporary refs' logs, if any
    gc_keeping_reflogs(repo)
    repo.history_rewritten()
    after = set(repo.rev_list("--all"))
    old = sorted(before - after)
    return Rewritten(len(old), old, stashes)


def _read_reflogs(common: Path) -> dict[Path, list[tuple[str, str, bytes]]]:
    """Every reflog (the refs', HEAD's, each work tree's): file → [(old, new, rest of the line)]."""
    files = [Path(d) / n for d, _, names in os.walk(common / "logs") for n in names]
    files += list(common.glob("worktrees/*/logs/HEAD"))
    logs = {}
    for file in files:
        entries = []
        for line in file.read_bytes().splitlines():
            parts = line.split(b" ", 2)
            if len(parts) == 3:
                entries.append((parts[0].decode(), parts[1].decode(), parts[2]))
        logs[file] = entries
    return logs


def _own_changes(repo: Repo, commit: str) -> tuple[set[str], bool]:
    """A stash entry's own changes: the blobs its work-tree, index and untracked commits add, and
    whether it changes anything at all."""
    parents = repo.run("rev-list", "--parents", "-n", "1", commit, check=False).split()[1:]
    if not parents:
        return set(), False
    out = repo.run("diff-tree", "-r", "--no-commit-id", "--no-renames", parents[0], commit, check=False)
    if len(parents) > 1:
        out += repo.run("diff-tree", "-r", "--no-commit-id", "--no-renames", parents[0], parents[1], check=False)
    blobs = {line.split()[3] for line in out.splitlines() if line.startswith(":")}
    if len(parents) > 2:
        listing = repo.run("ls-tree", "-r", parents[2], check=False)
        blobs |= {line.split()[2] for line in listing.splitlines() if line.strip()}
        out += listing
    return {b for b in blobs if b.strip("0")}, bool(out.strip())


def _stashes_holding(repo: Repo, entries: list, plan: PurgePlan) -> set[int]:
    """Positions (in the stash reflog) of the stashes whose own changes hold a dropped or replaced blob."""
    affected = plan.drop | set(plan.replace)
    return {i for i, (_, new, _) in enumerate(entries) if _own_changes(repo, new)[0] & affected}


def _write_reflogs(
    repo: Repo,
    common: Path,
    logs: dict,
    new_of: dict[str, str],
    touching: set[str],
    plan: PurgePlan,
    stash_log: Path,
    held: set[int],
) -> list[StashChange]:
    stashes: list[StashChange] = []
    for file, entries in logs.items():
        if file.is_relative_to(common / "logs" / "refs" / "ihmt"):
            continue
        out = []
        for i, (old, new, rest) in enumerate(entries):
            ident, tab, msg = rest.partition(b"\t")
            msg = plan.scrub_message(msg, new in touching or old in touching) if tab else msg
            entry = (new_of.get(old, old), new_of.get(new, new), ident + tab + msg)
            if file == stash_log and i in held:
                gone = not _own_changes(repo, entry[1])[1]
                selector = f"stash@{{{len(entries) - 1 - i}}}"
                stashes.append(
                    StashChange(selector, msg.decode("utf-8", "replace"), "dropped" if gone else "rewritten")
                )
                if gone:
                    continue
            out.append(entry)
        if file == stash_log:  # the chain of a reflog: each entry's old value is the previous one's new
            out = [(out[k - 1][1] if k else ZERO, new, rest) for k, (_, new, rest) in enumerate(out)]
            if out:
                repo.run("update-ref", "refs/stash", out[-1][1])
            else:
                repo.run("update-ref", "-d", "refs/stash", check=False)
                file.unlink(missing_ok=True)
                continue
        files.atomic_write(file, b"".join(f"{o} {n} ".encode() + rest + b"\n" for o, n, rest in out))
    return sorted(stashes, key=lambda s: s.selector)


_MEMORY_ID = re.compile(rb"^Memory-Id:[ \t]*(\S+)[ \t]*$", re.M)


def _filter_stream(src, dst, plan: PurgePlan) -> tuple[dict[str, str], set[str]]:
    """Copy a fast-export stream to fast-import applying `plan`; returns ({commit mark: original
    commit}, original commits that were the memory's: they changed a dropped blob or name its id)."""
    originals: dict[str, str] = {}
    touching: set[str] = set()
    dropped: set[bytes] = set()
    ids = {i.encode() for i in plan.ids}

    def header(first: bytes, lf: bool = True) -> tuple[list[bytes], bytes | None, str | None, bytes]:
        """An object's header lines, mark, original id and data; `lf`: the data's optional LF is
        taken too (we write our own)."""
        lines, mark, oid = [first], None, None
        while True:
            line = src.readline()
            if not line:
                raise GitError("git fast-export ended in the middle of an object")
            if line.startswith(b"data "):
                data = src.read(int(line[5:].strip()))
                if lf and src.peek(1)[:1] == b"\n":
                    src.read(1)
                return lines, mark, oid, data
            if line.startswith(b"mark "):
                mark = line[5:].strip()
            elif line.startswith(b"original-oid "):
                oid = line[13:].strip().decode()
            lines.append(line)

    while True:
        line = src.readline()
        if not line:
            break
        word = line.split(b" ", 1)[0].strip()
        if word == b"blob":
            lines, mark, oid, data = header(line)
            if oid in plan.drop:
                if mark is not None:
                    dropped.add(mark)
                continue
            if oid is not None:
                data = plan.replace.get(oid, data)
            dst.write(b"".join(lines) + b"data %d\n" % len(data) + data + b"\n")
        elif word == b"commit":
            lines, mark, oid, msg = header(line, lf=False)
            changes, mine = [], bool(ids and set(_MEMORY_ID.findall(msg)) & ids)
            while True:
                change = src.readline()
                if change in (b"\n", b""):
                    break
                if change.startswith(b"M "):
                    parts = change.split(b" ", 3)
                    if len(parts) == 4 and parts[2] in dropped:
                        change, mine = b"D " + parts[3], True  # the memory's version: not in this commit
                changes.append(change)
            if mine and oid:
                touching.add(oid)
            if mark and oid:
                originals[mark.decode()] = oid
            msg = plan.scrub_message(msg, mine)
            dst.write(b"".join(lines) + b"data %d\n" % len(msg) + msg + b"\n" + b"".join(changes) + b"\n")
        elif word == b"tag":
            lines, _mark, _oid, msg = header(line)
            msg = plan.scrub_message(msg, False)
            dst.write(b"".join(lines) + b"data %d\n" % len(msg) + msg + b"\n")
        else:
            dst.write(line)
    return originals, touching


def commits_touching_since(repo: Repo, first: str) -> int:
    """How many commits a history rewrite starting at `first` changes (it and all its descendants)."""
    parent = repo.run("rev-parse", "-q", "--verify", f"{first}^", check=False).strip()
    args = ["rev-list", "--count", "--all"] + ([f"^{parent}"] if parent else [])
    return int(repo.run(*args).strip() or 0)
