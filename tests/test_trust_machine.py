"""Every failure of the machine is one line: a full disk, a file-size limit, a read-only file
system, permission denied each print one line naming what failed and what to do, exit 2, no
traceback; afterwards the vault is consistent (`ihmt doctor` finds nothing that needs a person)
and the next save works. Real file systems: a small tmpfs (we mount it when we may), RLIMIT_FSIZE
in the child, a remount read-only, capabilities dropped with setpriv."""

import errno
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt_vault.errors import MachineError, machine_error

WORDS = "deploy window tuesday rollback staging nightly mirror billing search checkout mail auth media".split()


def prose(n: int, seed: int = 1) -> str:
    """About `n` characters of ordinary words (no key shapes), in a random order."""
    r = random.Random(seed)
    out, size = [], 0
    while size < n:
        w = r.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return "Notes: " + " ".join(out) + "."


def ihmt(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, **kw)


def assert_one_line(r: subprocess.CompletedProcess, start: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), r.stderr
    assert "Traceback" not in r.stderr


def assert_consistent(root: Path) -> None:
    """Nothing left that needs a person; repair completes what the failure cut; the next save lands."""
    first = ihmt("doctor", "--vault", str(root))
    assert "[needs you]" not in first.stdout and "Traceback" not in first.stderr, first.stdout
    saved = ihmt("save", "After the failure the deploy window is Wednesday.", "--topic", "work", "--vault", str(root))
    assert saved.returncode == 0, saved.stderr
    after = ihmt("doctor", "--vault", str(root))
    assert (after.returncode, after.stdout.strip()) == (0, "vault is healthy")
    assert ihmt("search", "deploy window Wednesday", "--vault", str(root)).returncode == 0


@pytest.fixture
def small_fs(tmp_path):
    """A 24 MB tmpfs of our own (we are root in CI); skipped where mounting is not allowed."""
    where = tmp_path / "fs"
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(where)]).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)])


def new_vault(where: Path) -> Path:
    root = where / "vault"
    assert ihmt("init", str(root)).returncode == 0
    assert ihmt("save", "The deploy window is Tuesday.", "--topic", "work", "--vault", str(root)).returncode == 0
    return root


def fill(where: Path, leave: int) -> Path:
    """Fill the file system, then give back `leave` bytes."""
    filler = where / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError as err:
            assert err.errno == errno.ENOSPC
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


@pytest.mark.parametrize("leave", [0, 40_000, 200_000])
def test_a_full_disk_is_one_line_and_leaves_the_vault_consistent(small_fs, leave):
    root = new_vault(small_fs)
    filler = fill(small_fs, leave)
    r = ihmt("save", "-", "--topic", "work", "--vault", str(root), input=prose(150_000))
    assert_one_line(r, "error: save could not finish: the disk is full")
    assert r.stderr.rstrip().endswith("free some space and run it again")
    filler.unlink()
    assert_consistent(root)


def test_a_file_size_limit_is_one_line_and_leaves_the_vault_consistent(tmp_path):
    root = new_vault(tmp_path)
    limit = max(f.stat().st_size for f in root.rglob("*") if f.is_file()) + 16_384
    r = ihmt(
        "save",
        "-",
        "--topic",
        "work",
        "--vault",
        str(root),
        input=prose(limit + 100_000),
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    assert_one_line(r, "error: save could not finish: a file would grow past the size this process may write")
    assert "raise the limit (ulimit -f)" in r.stderr
    assert_consistent(root)


def test_a_read_only_file_system_is_one_line_and_changes_nothing(small_fs):
    root = new_vault(small_fs)
    assert subprocess.run(["mount", "-o", "remount,ro", str(small_fs)]).returncode == 0
    try:
        r = ihmt("save", "The standup moved to 10:00.", "--topic", "work", "--vault", str(root))
        assert_one_line(r, "error: save could not finish: the file system is read-only")
        assert "remount it read-write" in r.stderr
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert not (root / "work/the-standup-moved-to-10-00.md").exists()
    assert_consistent(root)


def test_permission_denied_is_one_line_and_changes_nothing(tmp_path):
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to drop the capability that ignores file modes")
    root = new_vault(tmp_path)
    subprocess.run(["chmod", "-R", "a-w", str(root)], check=True)
    try:
        drop = "-dac_override,-dac_read_search,-fowner"
        r = subprocess.run(
            [setpriv, f"--bounding-set={drop}", f"--inh-caps={drop}", sys.executable, "-m", "ihmt_vault"]
            + ["save", "The standup moved to 10:00.", "--topic", "work", "--vault", str(root)],
            capture_output=True,
            text=True,
        )
        assert_one_line(r, "error: save could not finish: permission denied")
        assert "give the user running ihmt write access to the vault" in r.stderr
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(root)], check=True)
    assert_consistent(root)


def test_what_is_and_is_not_a_machine_failure():
    full = machine_error(OSError(errno.ENOSPC, "No space left on device", "/v/work/a.md"))
    assert isinstance(full, MachineError) and full.exit_code == 2
    assert str(full) == "the disk is full (No space left on device) at /v/work/a.md; free some space and run it again"
    big = machine_error(OSError(errno.EFBIG, "File too large"))
    assert str(big).startswith("a file would grow past the size this process may write (File too large); ")
    disk = machine_error(sqlite3.OperationalError("database or disk is full"))
    assert str(disk).startswith(
        "the disk is full: the catalog (SQLite) could not be written (database or disk is full)"
    )
    git = machine_error(RuntimeError("git commit-tree failed: fatal: unable to write: No space left on device"))
    assert str(git).startswith("the disk is full (No space left on device; git commit-tree failed); ")
    assert machine_error(RuntimeError("git log failed: bad revision")) is None  # a bug keeps its traceback
    assert machine_error(ValueError("No space left on device")) is None
