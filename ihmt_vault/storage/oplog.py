"""The operations log: one dated line per thing the vault did on its own — decay, restore from the
archive, expiry, the gardener, sync — in `operations.md` at the vault's root, written by code (never
by an agent), readable in any editor, on a git host and in the site.
"""

from __future__ import annotations

from .. import clock, files

FILE = "operations.md"
HEAD = (
    "# Operations\n\nWhat the vault did on its own: decay, restores from the archive, expiry, the gardener, "
    "syncs. Written by ihmt, one line each, newest last.\n\n"
)
SHOWN = 12  # memories named on one line; the rest as a count


def line(op: str, summary: str, items=()) -> str:
    names = [f"{getattr(i, 'title', '')} ({getattr(i, 'id', i)})" for i in items]
    more = f", and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    listed = f": {'; '.join(names[:SHOWN])}{more}" if names else ""
    return f"- {clock.now().strftime('%Y-%m-%d %H:%M')} UTC · {op} · {summary}{listed}\n"


def append(tx, summary: str, items=(), op: str = "") -> None:
    """Add a line to the log as part of the transaction `tx` (so it is in the operation's commit)."""
    file = tx.e.layout.abs(FILE)
    try:
        text = files.read_exact(file)
    except (OSError, UnicodeDecodeError):
        text = HEAD
    tx.write(FILE, (text if text.endswith("\n") else text + "\n") + line(op or tx.op, summary, items))
