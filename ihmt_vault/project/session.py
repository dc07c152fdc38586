"""What one session of an agent holds, for the session tools: the files it was given (so a repeated
`read_file` costs a few tokens), a scratchpad (`note` / `recall`) and the outputs it digested.

A session lives in the MCP server's process, one per `session_id` (the default session when none
is given), and is gone when the process ends: a scratchpad for one piece of work that survives
the agent's context compaction, not long-term memory (that is the vault). Nothing here is written
to disk.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BadInput
from ..search.analysis import analyze
from ..search.result import estimate_tokens
from ..storage import sources
from .digest import digest

MAX_READ = 2_000_000  # bytes: read_file refuses bigger files (use project tools or sed)


@dataclass
class Note:
    n: int
    label: str
    text: str
    at: str
    terms: set[str] = field(default_factory=set)


class Session:
    def __init__(self, root: Path | None = None):
        self.root = (root or Path.cwd()).resolve()
        self.given: dict[Path, str] = {}  # file → the text this session was last given
        self.notes: list[Note] = []

    # -- files ------------------------------------------------------------------------------------
    def read_file(self, path: str, force: bool = False) -> str:
        file = (self.root / Path(path).expanduser()).resolve()
        if not file.is_file():
            raise BadInput(f"{path}: no such file; give a path relative to {self.root} or absolute")
        text, why = sources.read_text(file, MAX_READ)
        if text is None:
            raise BadInput(f"{path}: {why}; read_file gives text files only")
        before = self.given.get(file)
        self.given[file] = text
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if force or before is None:
            return f"{path} ({lines} lines)\n{text}"
        if before == text:
            return f"UNCHANGED {path} ({lines} lines, as given before in this session)"
        diff = "".join(
            difflib.unified_diff(
                before.splitlines(True), text.splitlines(True), f"{path} (given before)", f"{path} (now)", n=2
            )
        )
        if estimate_tokens(diff) >= estimate_tokens(text):  # a rewrite: the file is cheaper than its diff
            return f"{path} ({lines} lines, rewritten since given)\n{text}"
        return f"CHANGED {path} since given; the diff:\n{diff}"

    # -- scratchpad -------------------------------------------------------------------------------
    def note(self, text: str, label: str = "note") -> str:
        if not text or not text.strip():
            raise BadInput("note: the text is empty; give what to keep for later in this session")
        n = len(self.notes) + 1
        self.notes.append(Note(n, label, text, time.strftime("%H:%M:%S"), set(analyze(text)) | set(analyze(label))))
        return (
            f"noted #{n} ({label}, {estimate_tokens(text)} tokens); recall('{label}') or recall(<words>) brings it back"
        )

    def digest_output(self, text: str, label: str = "output", budget_tokens: int = 800) -> str:
        if not text:
            raise BadInput("digest_output: the text is empty")
        self.notes.append(
            Note(len(self.notes) + 1, label, text, time.strftime("%H:%M:%S"), set(analyze(label)) | set(analyze(text)))
        )
        return digest(text, label, budget_tokens)

    def recall(self, query: str, clue: str | None = None, budget_tokens: int = 1500) -> str:
        """The notes (and digested outputs) that match: a label matched exactly gives that note in
        full (the latest of that label); otherwise the notes sharing most words, best first, and for
        a long output only its lines that match."""
        exact = [n for n in self.notes if n.label == query.strip()]
        if exact:
            return self._show(exact[-1], None, budget_tokens)
        wanted = set(analyze(query)) | (set(analyze(clue)) if clue else set())
        if not wanted:
            raise BadInput("recall: give a few words, or the label of a note or an output")
        scored = []
        for note in self.notes:
            overlap = len(wanted & note.terms)
            if clue and not (set(analyze(clue)) & note.terms):
                continue
            if overlap:
                scored.append((overlap, note.n, note))
        if not scored:
            return f"NOT FOUND: no note of this session matches {query!r} ({len(self.notes)} notes)"
        scored.sort(key=lambda x: (-x[0], -x[1]))
        parts, used = [], 0
        for _, _, note in scored[:5]:
            piece = self._show(note, wanted, budget_tokens - used)
            used += estimate_tokens(piece)
            parts.append(piece)
            if used >= budget_tokens:
                break
        return "\n\n".join(parts)

    def _show(self, note: Note, wanted: set[str] | None, budget_tokens: int) -> str:
        head = f"#{note.n} {note.label} ({note.at})"
        text = note.text
        if estimate_tokens(text) > budget_tokens and wanted:  # a long output: only the lines that match
            lines = [f"{i}: {line}" for i, line in enumerate(text.split("\n"), 1) if wanted & set(analyze(line))]
            text = "\n".join(lines)
        if estimate_tokens(text) > budget_tokens:
            text = text[: max(0, budget_tokens * 4 - 40)] + f"\n[cut: recall('{note.label}') with fewer words]"
        return f"{head}\n{text}"
