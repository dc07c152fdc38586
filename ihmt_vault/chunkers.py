"""Chunkers: a document cut into memories where it is cut (built-ins; see hookspecs.py).

One invariant for every chunker: a logical block is never cut, and the chunks, joined, are the
document byte for byte (`"".join(c.text for c in chunks) == text`).
"""
from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from .hookspecs import hookimpl


@dataclass
class Chunk:
    """One piece of a document. Chunkers fill what they know; ingest writes it to front matter."""

    text: str
    first_line: int          # 1-based, inclusive
    last_line: int
    heading: str = ""        # the heading the chunk sits under ("" before the first one)
    symbol: str = ""         # code: "class:InventoryService", "method:reserveStock", "imports"
    header: str = ""         # code: the enclosing class's header line(s) when a member is split out
    date: str = ""           # journal: the entry's date (YYYY-MM-DD) found in the text
    oversized: bool = False  # one block bigger than the limit, kept whole


class MarkdownChunker:
    """Markdown by its headings: each heading starts a chunk (with the text up to the next heading
    of the same or a higher level nested in it); code fences, lists and tables are blocks
    markdown-it sees whole, so they are never cut; front matter stays with the first chunk."""

    def __init__(self, max_level: int = 2):
        self.max_level = max_level
        self.md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)

    def chunk(self, text: str, limit: int = 4000) -> list[Chunk]:
        parts = text.split("\n")  # markdown-it counts lines by "\n" only; so do we
        lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        starts = [(0, "")]
        tokens = self.md.parse(text)
        content = False   # anything but front matter before: a heading then starts a new chunk
        for i, t in enumerate(tokens):
            if t.level != 0 or t.type in ("front_matter",) or t.nesting == -1:
                continue
            if t.type == "heading_open" and int(t.tag[1]) <= self.max_level and t.map:
                heading = tokens[i + 1].content if i + 1 < len(tokens) else ""
                if content:
                    starts.append((t.map[0], heading))
                else:
                    starts[0] = (0, heading)
            content = True
        chunks = []
        for n, (start, heading) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
            piece = "".join(lines[start:end])
            if piece:
                chunks.append(Chunk(piece, start + 1, max(start + 1, end), heading))
        return chunks or [Chunk(text, 1, max(1, len(lines)), "")]


@hookimpl
def register_chunkers(register):
    register("markdown", MarkdownChunker())
