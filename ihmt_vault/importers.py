"""Importers: other stores' memories as the fields of a save (built-ins; see hookspecs.py).

Every importer reads, never writes, what it imports from: originals stay untouched. Errors are a
`BadInput` naming the file (and line) and what to do.
"""
from __future__ import annotations

import json
from pathlib import Path

from .errors import BadInput
from .hookspecs import hookimpl


class JsonLines:
    """`ihmt import FILE.jsonl`: one JSON object per line with the fields of a save."""

    def read(self, path: Path) -> list[dict]:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(f"{path}: cannot be read as UTF-8 text ({e.__class__.__name__}); give a .jsonl file") from None
        items = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                raise BadInput(f"{path}: line {n} is not JSON ({e.msg}); fix that line and import again") from None
            if not isinstance(item, dict):
                raise BadInput(f"{path}: line {n} is not a JSON object with a 'text' key")
            items.append({**item, "where": f"line {n}"})
        return items


@hookimpl
def register_importers(register):
    register("jsonl", JsonLines())
