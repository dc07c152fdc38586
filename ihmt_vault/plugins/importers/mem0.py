"""`mem0`: mem0's memories as its `get_all()` or export JSON gives them (FORMATS.md): a list of
memories, or an object holding them under `results` (or `memories`), each
`{id, memory, hash, metadata, categories, created_at, updated_at, user_id, agent_id, run_id, ...}`;
JSON lines of such objects too.

Each memory is a memory: its text is `memory`, its date the day it was created, its categories its
tags; whose memory it is (`user_id`, `agent_id`, `run_id`, `app_id`), its mem0 id and its metadata
are kept as front matter (`mem0:`), and `user_id` is who "I" is in it (`about`). The vault places
them (mem0 has no topics)."""

from __future__ import annotations

from pathlib import Path

from ...errors import BadInput
from ...storage.draft import Item
from .reading import day_of, first_json_line, json_document, json_lines, peek_json

WHAT = "mem0's memories as JSON (get_all() or an export: a list, or {'results': [...]}, of {id, memory, ...})"
_OWNERS = ("user_id", "agent_id", "run_id", "app_id")


def _memories(value) -> list | None:
    """The list of memories a mem0 document holds, or None when it is not one."""
    if isinstance(value, dict):
        value = next((value[k] for k in ("results", "memories") if isinstance(value.get(k), list)), None)
    if not isinstance(value, list) or not value:
        return None
    first = value[0]
    return value if isinstance(first, dict) and isinstance(first.get("memory"), str) else None


class Mem0:
    what = "mem0's memories (get_all() or export JSON: {id, memory, hash, metadata, categories, ...})"

    def recognises(self, path: Path) -> bool:
        if path.is_file() and path.suffix.lower() == ".jsonl":
            line = first_json_line(path)
            return line is not None and isinstance(line.get("memory"), str) and "text" not in line
        return _memories(peek_json(path, (".json",))) is not None

    def read(self, path: Path) -> list[Item]:
        if path.suffix.lower() == ".jsonl":
            found = [(f"{path.name} line {n}", m) for n, m in json_lines(path, WHAT)]
        else:
            memories = _memories(json_document(path, WHAT))
            if memories is None:
                raise BadInput(f"{path}: holds no mem0 memories (objects with a 'memory' text); give {WHAT}")
            found = [(f"{path.name} memory {n}", m) for n, m in enumerate(memories, 1)]
        items = []
        for where, m in found:
            if not isinstance(m, dict):
                raise BadInput(f"{path}: {where.partition(' ')[2]} is not a JSON object; give {WHAT}")
            text = m.get("memory")
            if not isinstance(text, str) or not text.strip():
                continue
            kept = {k: m[k] for k in ("id", *_OWNERS) if m.get(k) not in (None, "")}
            if isinstance(m.get("metadata"), dict) and m["metadata"]:
                kept["metadata"] = m["metadata"]
            extra: dict = {"mem0": kept} if kept else {}
            if m.get("user_id"):
                extra["about"] = str(m["user_id"])
            categories = m.get("categories")
            items.append(
                Item(
                    text=text.strip() + "\n",
                    date=day_of(m.get("created_at")),
                    tags=[str(c) for c in categories if str(c).strip()] if isinstance(categories, list) else (),
                    key=str(m["id"]) if m.get("id") else None,
                    extra=extra,
                    where=where,
                )
            )
        return items
