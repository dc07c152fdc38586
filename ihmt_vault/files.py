"""Writing a file atomically: the one way the package replaces a file's content.

Invariants: a reader (or a crash) sees the old content or the new, never half of either — the new
bytes go to a temporary sibling that is renamed over the file. With `expected`, a write is a
compare-and-swap against the bytes the new content was computed from, and it keeps what a person
typed meanwhile: a change that lands before the rename makes the write back off (nothing written,
False); an append that reaches the old file *after* the comparison (their editor held it open) is
found by reading the old file again through the descriptor kept open across the rename, and put
back into the file, and the write answers False too — the caller reads again and applies its
change to what is there now. No fsync, like git's own default: the rename is atomic against
crashes of this process, the failure guarded here; after a power loss `doctor --repair` reconciles.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

LATE_WRITE_WAIT = 0.002  # seconds to let a write already under way into the old file land before looking


def atomic_write(file: Path, data: str | bytes, expected: bytes | None = None, mode: int | None = None) -> bool:
    """Write `data` (text as UTF-8, newlines as given) to `file` through a temporary sibling and a rename.

    `expected`: only if the file still holds exactly these bytes (see the module docstring); True
    when the new content stands. `mode`: permission bits for a new file (an existing file keeps its own)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    file.parent.mkdir(parents=True, exist_ok=True)
    # A short temporary name: a 250-character file name plus a suffix would pass the OS's limit.
    tmp = file.with_name(f".{file.name[:80]}.{os.getpid()}.ihmt-tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
        try:
            os.chmod(tmp, os.stat(file).st_mode & 0o7777)
        except FileNotFoundError:
            if mode is not None:
                os.chmod(tmp, mode)
        if expected is None:
            os.replace(tmp, file)
            return True
        try:
            old = open(file, "rb")
        except FileNotFoundError:
            tmp.unlink(missing_ok=True)
            return False
        with old:
            if old.read() != expected:
                tmp.unlink(missing_ok=True)
                return False
            os.replace(tmp, file)
            time.sleep(LATE_WRITE_WAIT)
            late = old.read()  # what reached the old file after the comparison: it is in no file now
        if late:
            _put_back(file, expected + late, raw)
            return False
        return True
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _put_back(file: Path, theirs: bytes, ours: bytes) -> None:
    """The file as the person left it (`theirs`: the old content with their late append), keeping
    anything they appended to our new file since; if they rewrote the file meanwhile, theirs stands."""
    for _attempt in range(20):
        try:
            now = file.read_bytes()
        except FileNotFoundError:
            return
        if not now.startswith(ours):
            return
        if atomic_write(file, theirs + now[len(ours) :], expected=now):
            return


def read_exact(file: Path) -> str:
    """A file's text exactly as stored: UTF-8, no newline translation (CRLF files stay CRLF)."""
    return file.read_bytes().decode("utf-8")
