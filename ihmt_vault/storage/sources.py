"""Files outside the vault that ingest and the project tools read: which ones a folder holds, and
their text.

A walk skips what is not a project's own: hidden files and folders, dependencies and build output
(`node_modules`, `__pycache__`, `dist`, `build`, `target`), virtual environments (a `pyvenv.cfg`)
and vaults (a `.ihmt/` folder). Reading never raises: a file that is too big, binary or not UTF-8
comes back as the reason it was not read.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_FILE = 10_000_000  # bytes: a bigger file is data, not a document
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "dist", "build", "target"})


def walk(folder: Path):
    """Every file of a folder worth reading, in a stable order."""
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in SKIP_DIRS
            and not (here / d / "pyvenv.cfg").exists()
            and not (here / d / ".ihmt").is_dir()
        )
        for name in sorted(filenames):
            if not name.startswith(".") and (here / name).is_file():
                yield here / name


def read_text(file: Path, max_bytes: int = MAX_FILE) -> tuple[str | None, str]:
    """(the file's text, "") or (None, why it was not read: too big, binary, unreadable)."""
    try:
        size = file.stat().st_size
        if size > max_bytes:
            return None, f"too big ({size // 1_000_000} MB; the limit is {max_bytes // 1_000_000} MB)"
        data = file.read_bytes()
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err.__class__.__name__})"
    if b"\0" in data[:8192]:
        return None, "binary"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "binary or not UTF-8 text"
