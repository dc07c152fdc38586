"""The write-ahead journal: which paths the operation in progress is touching.

Every path is recorded here *before* it is written, so a crash leaves either the last commit or a
journal naming every touched path; the next write (or `doctor --repair`) commits them. The file
is `.ihmt/cache/journal.jsonl`: a header line `{"op", "subject", "agent"}` then one `{"path"}` line
per path.

Invariant: a journal never blocks the vault. An entry that cannot be replayed (unreadable, or one
whose replay fails) is set aside next to it as `journal-<time>.set-aside.jsonl`, reported by
`doctor`, and the vault goes on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    """What an interrupted operation was doing."""

    op: str = "edit"
    subject: str = "repair"
    agent: str = "ihmt"
    paths: list[str] = field(default_factory=list)


class Journal:
    def __init__(self, file: Path):
        self.file = file

    def exists(self) -> bool:
        return self.file.exists()

    def record(self, rel: str, op: str, subject: str, agent: str) -> None:
        if not self.file.exists():
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with open(self.file, "w", encoding="utf-8") as f:
                f.write(json.dumps({"op": op, "subject": subject, "agent": agent}) + "\n")
        with open(self.file, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": rel}) + "\n")

    def read(self) -> Entry | None:
        """The interrupted operation, or None when there is none. Raises ValueError when the
        journal cannot be read (then `set_aside` it)."""
        if not self.file.exists():
            return None
        lines = [
            json.loads(line)
            for line in self.file.read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("{")
        ]
        if not lines:
            self.clear()
            return None
        head = lines[0]
        paths = [p["path"] for p in lines[1:] if isinstance(p, dict) and isinstance(p.get("path"), str)]
        if not isinstance(head, dict) or any("\0" in p for p in paths):
            raise ValueError("the journal holds an entry that cannot be a vault path")
        return Entry(
            str(head.get("op", "edit")), str(head.get("subject", "repair")), str(head.get("agent", "ihmt")), paths
        )

    def clear(self) -> None:
        self.file.unlink(missing_ok=True)

    def set_aside(self) -> Path:
        """Move an unreplayable journal out of the way; returns where it went."""
        dest = self.file.with_name(f"journal-{time.strftime('%Y%m%dT%H%M%S')}.set-aside.jsonl")
        self.file.replace(dest)
        return dest

    def set_aside_files(self) -> list[Path]:
        return sorted(self.file.parent.glob("journal-*.set-aside.jsonl"))
