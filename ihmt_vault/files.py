"""Writing a file atomically: the one way the package replaces a file's content.

Invariants: a reader (or a crash) sees the old content or the new, never half of either — the new
bytes go to a temporary sibling that is renamed over the file. With `expected`, a write is a
compare-and-swap against the bytes the new content was computed from, and it keeps what a person
typed meanwhile: lines they appended before the rename go on after our content (when our change
left the file's end as it was, as a front-matter edit does); any other change makes the write back
off (nothing written, False: the caller reads again and applies its change to what is there now);
and an append that reaches the old file *after* the comparison (their editor held it open) is
found by reading the old file again through the descriptor kept open across the rename, and put
into the new file. No fsync, like git's own default: the rename is atomic against
crashes of this process, the failure guarded here; after a power loss `doctor --repair` reconciles.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

LATE_WRITE_WAIT = 0.002  # seconds to let a write already under way into the old file land before looking


def atomic_write(file: Path, data: str | bytes, expected: bytes | None = None, mode: int | None = None) -> bool:
    """Write `data` (text as UTF-8, newlines as given) to `file` through a temporary sibling and a rename.

    `expected`: only if the file still holds these bytes (see the module docstring); True when the
    new content stands, with whatever the person appended meanwhile after it. `mode`: permission
    bits for a new file (an existing file keeps its own)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if expected is None:
        _replace(file, raw, mode)
        return True
    extra = b""  # what the person appended since `expected`: it goes on after our content
    for _attempt in range(APPEND_TRIES):
        try:
            old = open(file, "rb")
        except FileNotFoundError:
            return False
        with old:
            now = old.read()
            if now != expected + extra:
                if now.startswith(expected) and _keeps_the_end(expected, raw):
                    extra = now[len(expected) :]
                    continue
                return False
            _replace(file, raw + extra, mode)
            time.sleep(LATE_WRITE_WAIT)
            late = old.read()  # what reached the old file after the comparison: in no file now
        if not late:
            return True
        mine = raw + extra
        for _again in range(APPEND_TRIES):
            try:
                now = file.read_bytes()
            except FileNotFoundError:
                return False
            if not now.startswith(mine):
                return False  # rewritten meanwhile: the caller reads it again
            if atomic_write(file, mine + late + now[len(mine) :], expected=now):
                return True
        return False
    return False


APPEND_TRIES = 50  # a person appending every millisecond still lets a rewrite through


def _keeps_the_end(before: bytes, after: bytes) -> bool:
    """Whether a change left the end of the file as it was (a front-matter edit does): then lines a
    person appended meanwhile belong after the changed content too."""
    tail = before[-256:]
    return bool(tail) and after.endswith(tail)


def _replace(file: Path, raw: bytes, mode: int | None) -> None:
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
        os.replace(tmp, file)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_exact(file: Path) -> str:
    """A file's text exactly as stored: UTF-8, no newline translation (CRLF files stay CRLF)."""
    return file.read_bytes().decode("utf-8")
