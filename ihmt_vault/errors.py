"""The error model of the library.

Every error a user can cause is a `VaultError` whose message is one line naming the file or
argument at fault and what to do about it. Front ends print `str(error)` and exit non-zero; they
never show a traceback for a `VaultError`. Anything else escaping the library is a bug.

Invariant: an operation that raises a `VaultError` has changed nothing on disk (it raises before
writing, or the transaction it was in is rolled back / repairable by `ihmt doctor --repair`).

The machine failing (a full or read-only disk, a file-size limit, permission denied, SQLite's disk
errors, git reporting one of them) is not a bug either: `machine_error` turns it into one
`MachineError` line naming what failed and what to do (exit 2), which front ends print the same way.
"""

from __future__ import annotations

import errno
import os
import sqlite3


class VaultError(Exception):
    """Base of every error a user can cause; the message is one actionable line."""

    exit_code = 1


class BadInput(VaultError):
    """An argument given to an operation is invalid (empty text, a topic with '..', ...)."""

    exit_code = 2


class BrokenFile(VaultError):
    """A file in the vault cannot be read as a memory (bad YAML, not UTF-8 text, ...)."""

    def __init__(self, path: str, problem: str, fix: str = "fix the file by hand or run 'ihmt doctor'"):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}; {fix}")


class NotFound(VaultError):
    """No memory or folder matches the id or path asked for."""


class NotAVault(VaultError):
    """The path given is not a vault (or does not exist)."""

    exit_code = 2


class LockTimeout(VaultError):
    """Another process held the vault's write lock for longer than the configured timeout."""

    exit_code = 3


class SecretRefused(BadInput):
    """The text looks like it contains a secret; memories are stored in git in plain text."""


class Refused(VaultError):
    """The vault's roles (`.ihmt/roles.toml`) do not let the one writing make this change; the
    message names the rule. The operation it stopped changed nothing (its transaction is rolled back)."""

    exit_code = 2


class MachineError(VaultError):
    """The machine failed the operation, not its input: the disk is full, the file system is
    read-only, a file may not grow, permission is denied, the disk failed. One line naming what
    failed and what to do; exit code 2. The write path leaves nothing half-written (atomic writes,
    the journal): the next command or `ihmt doctor --repair` completes or rolls back what it cut."""

    exit_code = 2


# errno → (what happened, what to do)
_ERRNO = {
    errno.ENOSPC: ("the disk is full", "free some space and run it again"),
    errno.EDQUOT: ("the disk quota is used up", "free some space or raise the quota, and run it again"),
    errno.EFBIG: (
        "a file would grow past the size this process may write",
        "raise the limit (ulimit -f) or free space, and run it again",
    ),
    errno.EROFS: (
        "the file system is read-only",
        "remount it read-write or keep the vault on a writable disk, and run it again",
    ),
    errno.EACCES: (
        "permission denied",
        "give the user running ihmt write access to the vault (ls -l), and run it again",
    ),
    errno.EPERM: (
        "the operation is not permitted",
        "give the user running ihmt write access to the vault (ls -l), and run it again",
    ),
    errno.EIO: ("the disk failed to read or write", "check the disk (dmesg), then run 'ihmt doctor'"),
}
# The same failures as another program (git) reports them in its message.
_IN_MESSAGES = [(os.strerror(n), n) for n in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO)]
# SQLite's messages; None: it does not say which (its "disk I/O error" is a full disk as often as a
# failing one, "unable to open database file" a read-only disk as often as permissions): the
# vault's folder is looked at to tell.
_SQLITE = [
    ("database or disk is full", errno.ENOSPC),
    ("attempt to write a readonly database", None),
    ("disk i/o error", None),
    ("unable to open database file", None),
]
MACHINE_FAILURES = (OSError, sqlite3.Error, RuntimeError)  # what `machine_error` may turn into one line
_LOW_SPACE = 4_000_000  # bytes: under this much free, a failed write is the disk being full


def _cause_at(where: str | os.PathLike | None) -> int | None:
    """Why writing at `where` fails, as an errno, when the machine shows it: a read-only file
    system, a file-size limit on this process, a (nearly) full disk, no write permission."""
    path = os.path.abspath(os.fspath(where)) if where is not None else os.getcwd()
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return errno.EROFS
    try:
        import resource

        if resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY:
            return errno.EFBIG
    except (ImportError, OSError, ValueError):  # pragma: no cover - not on this platform
        pass
    if st.f_bavail * st.f_frsize < _LOW_SPACE:
        return errno.ENOSPC
    if not os.access(path, os.W_OK):
        return errno.EACCES
    return None


def machine_error(exc: BaseException, where: str | os.PathLike | None = None) -> MachineError | None:
    """`exc` as one `MachineError` line when it is the machine failing (an OSError, a SQLite
    error, or another program's error naming a full or read-only disk); None when it is not (a bug
    keeps its traceback). `where`: the vault's folder, looked at when the error does not say why."""
    if isinstance(exc, OSError) and exc.errno is not None:
        what, todo = _ERRNO.get(exc.errno, (exc.strerror or type(exc).__name__, "check it and run it again"))
        detail = exc.strerror or os.strerror(exc.errno)
        at = f" at {os.fsdecode(exc.filename)}" if exc.filename is not None else ""
        return MachineError(f"{what} ({detail}){at}; {todo}")
    if isinstance(exc, sqlite3.Error):
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        low = text.lower()
        said = [code for m, code in _SQLITE if m in low]
        if not said:
            return MachineError(
                f"the catalog (SQLite) failed ({text}); run 'ihmt rebuild' to rebuild it from the files"
            )
        cause = said[0] or _cause_at(where) or errno.EIO
        what, todo = _ERRNO[cause]
        return MachineError(f"{what}: the catalog (SQLite) could not be written ({text}); {todo}")
    if not isinstance(exc, RuntimeError):  # another program's failure (git's) comes as one
        return None
    message = str(exc)
    named = next((n for m, n in _IN_MESSAGES if m in message), None)
    if named is not None:
        what, todo = _ERRNO[named]
        program = message.split(":", 1)[0].strip()[:40] or type(exc).__name__
        return MachineError(f"{what} ({os.strerror(named)}; {program}); {todo}")
    return None
