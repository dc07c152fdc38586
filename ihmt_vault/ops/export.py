"""Export: the vault's memories back out, so keeping them here is never a trap.

- `jsonl`: one JSON object a line per memory with every field (id, title, topic, date, created,
  tags, type, pinned, status, supersedes, superseded_by, source, facts, extra, text), the archive's
  topic given without its `archive/` prefix and `status: archived`; `ihmt import --format jsonl`
  reads it back into an equal vault (same ids, titles, texts, topics, statuses, corrections).
- `markdown`: one plain Markdown document a person can read anywhere: a heading per topic, a
  heading per memory with a line of its date, type, tags and status, then its text (its own
  headings moved below the memory's).

Only catalogued memories are exported: a file the vault refused (a secret in it, broken front
matter) is not in the catalog, so it never leaves this way. Errors: an unknown format, or an output
path inside the vault (it would be taken in as a memory), is a `BadInput`; nothing is written then.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import clock, files
from ..engine.core import Engine
from ..errors import BadInput
from ..results import ExportReport
from ..storage import tree
from ..storage.notes import Memory

FORMATS = ("jsonl", "markdown")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})(\s.*)$")


def export(e: Engine, format: str, out: Path | None = None) -> ExportReport:
    if format not in FORMATS:
        raise BadInput(f"--format {format!r}: use one of {', '.join(FORMATS)}")
    if out is not None:
        target = out.resolve()
        if e.layout.holds(target):
            raise BadInput(f"{out}: is inside the vault, where it would be taken in as a memory; write it elsewhere")
        if target.is_dir():
            raise BadInput(f"{out}: is a folder; give a file name")
    e.refresh(force=True)
    memories = list(e.iter_memories(sorted(r.path for r in e.catalog.all())))
    text = jsonl(memories) if format == "jsonl" else markdown(memories, e.config.title)
    if out is None:
        return ExportReport(format, len(memories), text=text)
    try:
        files.atomic_write(out, text)
    except OSError as err:
        raise BadInput(f"{out}: cannot be written ({err.strerror or err}); give another path") from None
    return ExportReport(format, len(memories), path=str(out))


def _topic(m: Memory) -> str:
    parts = m.folder.split("/")
    return "/".join(parts[1:]) if parts[0] == tree.ARCHIVE else m.folder


def jsonl(memories: list[Memory]) -> str:
    lines = []
    for m in memories:
        d = m.to_dict()
        extra = dict(d.pop("extra", {}))
        row = {
            "id": m.id,
            "title": m.title,
            "topic": _topic(m),
            "date": m.date,
            "created": m.created,
            "tags": m.tags,
            "type": m.type,
            "pinned": m.pinned,
            "status": m.status,
            "supersedes": m.supersedes,
            "superseded_by": m.superseded_by,
            "source": m.source,
            "facts": extra.pop("facts", None),
            "extra": extra or None,
            "text": m.body,
        }
        lines.append(json.dumps({k: v for k, v in row.items() if v not in (None, [], "")}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def markdown(memories: list[Memory], title: str) -> str:
    titles = {m.id: m.title for m in memories}
    out = [
        f"# {title}",
        "",
        f"Exported from IHMT Vault on {clock.today().isoformat()}: "
        f"{len(memories)} {'memory' if len(memories) == 1 else 'memories'}.",
        "",
    ]
    topic = None
    for m in sorted(memories, key=lambda m: (m.folder, m.date or "", m.title)):
        if m.folder != topic:
            topic = m.folder
            out += [f"## {topic or '(top level)'}", ""]
        facts = [
            m.date,
            m.type,
            "tags: " + ", ".join(m.tags) if m.tags else None,
            "pinned" if m.pinned else None,
            m.status if m.status != "active" else None,
        ]
        if m.superseded_by:
            facts.append("superseded by " + ", ".join(titles.get(i, i) for i in m.superseded_by))
        out += [f"### {m.title}", "", "*" + " · ".join(f for f in facts if f) + "*", "", _demoted(m.body).rstrip(), ""]
    return "\n".join(out).rstrip() + "\n"


def _demoted(body: str) -> str:
    """A memory's own headings three levels down, below the memory's heading (code left alone)."""
    lines, fenced = [], False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (h := _HEADING.match(line)):
            line = "#" * min(6, len(h.group(1)) + 3) + h.group(2)
        lines.append(line)
    return "\n".join(lines)
