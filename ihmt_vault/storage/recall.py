"""Recall statistics: which memories are used, how often, and when last.

A memory is *recalled* when a search returns it as the answer, or when it is read in full (`show`,
MCP `read_memory`); not when it is only a one-line "other match". Each machine appends one line per
recall to its own file, `.ihmt/stats/<machine>.jsonl` (`{"id", "at"}`), committed with the next
operation that commits anything (until then they wait in the cache): a search never costs a commit,
the figures survive `ihmt rebuild` and a lost cache (they are not in the cache), and a sync between
machines never conflicts, since each machine writes only its own file. Reading merges every
machine's file: counts add up, the latest time wins.

`epoch.txt` in the same folder records when this vault began counting (written at the first
decay): a memory's idle time is measured from the later of its `created`, its last recall and the
epoch, so a vault adopted with old notes is not emptied on its first day.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from .. import clock, files

STATS = ".ihmt/stats"


@dataclass(frozen=True)
class Recall:
    count: int
    last: str  # ISO timestamp of the latest recall


def machine_id() -> str:
    """This machine's name for its stats file: host name and a random part kept in ~/.ihmt."""
    file = Path.home() / ".ihmt" / "machine-id"
    try:
        ident = file.read_text().strip()
    except OSError:
        ident = ""
    if not re.fullmatch(r"[a-z0-9-]{4,64}", ident):
        host = re.sub(r"[^a-z0-9]+", "-", socket.gethostname().lower()).strip("-")[:24] or "machine"
        ident = f"{host}-{secrets.token_hex(4)}"
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(ident + "\n")
        except OSError:
            pass
    return ident


class Recalls:
    def __init__(self, root: Path):
        self.folder = root / STATS
        self.rel = f"{STATS}/{machine_id()}.jsonl"
        self.file = root / self.rel
        # Recalls wait here until the next operation commits them (so `git status` stays clean
        # between operations); a lost cache loses only those not yet committed.
        self.pending = root / ".ihmt" / "cache" / "recalls.pending.jsonl"
        self._cache: tuple[tuple, dict[str, Recall]] | None = None

    def record(self, ids) -> None:
        """Count a recall of each id (appends; no lock needed: each line is one small write)."""
        lines = "".join(json.dumps({"id": i, "at": clock.stamp()}) + "\n" for i in dict.fromkeys(ids) if i)
        if not lines:
            return
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        with open(self.pending, "a", encoding="utf-8") as f:
            f.write(lines)

    def record_earlier(self, counts: dict[str, tuple[int, str]]) -> None:
        """Count recalls that happened elsewhere before: {id: (how many, ISO time of the last)} (an
        imported store's own use of its memories, its initial weight)."""
        lines = "".join(json.dumps({"id": i, "at": at}) + "\n" for i, (n, at) in counts.items() for _ in range(n))
        if not lines:
            return
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        with open(self.pending, "a", encoding="utf-8") as f:
            f.write(lines)

    def flush(self, write) -> bool:
        """Move the pending recalls into this machine's stats file with `write(rel, text)` (the
        transaction's, so they are journalled and committed); False when there were none."""
        try:
            waiting = self.pending.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if not waiting.strip():
            return False
        try:
            kept = self.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            kept = ""
        write(self.rel, kept + ("" if not kept or kept.endswith("\n") else "\n") + waiting)
        self.pending.unlink(missing_ok=True)  # after the journalled write: never counted twice
        return True

    def files(self) -> list[Path]:
        try:
            found = sorted(p for p in self.folder.iterdir() if p.suffix == ".jsonl")
        except OSError:
            found = []
        return found + ([self.pending] if self.pending.exists() else [])

    def all(self) -> dict[str, Recall]:
        """Every memory's recalls, all machines merged (cached until a stats file changes)."""
        files = self.files()
        key = tuple((p.name, *self._stamp(p)) for p in files)
        if self._cache and self._cache[0] == key:
            return self._cache[1]
        counts: dict[str, list] = {}
        for p in files:
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for line in text.splitlines():
                try:
                    row = json.loads(line)
                    i, at = str(row["id"]), str(row["at"])
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by a crash, or a person's typo: the others still count
                c = counts.setdefault(i, [0, ""])
                c[0] += 1
                c[1] = max(c[1], at)
        out = {i: Recall(n, last) for i, (n, last) in counts.items()}
        self._cache = (key, out)
        return out

    @staticmethod
    def _stamp(p: Path) -> tuple[int, int]:
        try:
            st = p.stat()
            return st.st_size, st.st_mtime_ns
        except OSError:
            return 0, 0

    def epoch(self) -> str | None:
        try:
            return (self.folder / "epoch.txt").read_text().strip() or None
        except OSError:
            return None

    def start_epoch(self) -> str:
        """Begin counting now (the first decay); returns the epoch's vault path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        files.atomic_write(self.folder / "epoch.txt", clock.stamp() + "\n")
        return f"{STATS}/epoch.txt"
