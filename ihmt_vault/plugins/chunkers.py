"""Chunkers for documents: Markdown, narrative prose, dated journals and chats, processes (recipes,
runbooks). Built-ins, registered through the same hook as plugins' (see hookspecs.py); source code
has its own module (`code.py`).

One invariant for every chunker and every text: a logical block is never cut, and the chunks,
joined, are the text byte for byte (`"".join(c.text for c in chunks) == text`). A block bigger than
the limit is kept whole and marked `oversized`; only narrative prose, whose block is a paragraph,
cuts an oversized paragraph, and then only at a sentence's end. Chunkers never raise on any text.

Each chunker finds where blocks *start* (a character offset, with what it knows there: a heading, a
date, whether a chunk must start there) and `pack` turns the starts into chunks: every block runs
to the next start, so blank lines stay with the block before them and nothing falls between.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from .hookspecs import hookimpl

LIMIT = 4000  # characters: a chunk is a memory a person reads in one go


@dataclass
class Chunk:
    """One piece of a document. Chunkers fill what they know; ingest writes it to front matter."""

    text: str
    first_line: int  # 1-based, inclusive
    last_line: int
    heading: str = ""  # the heading the chunk sits under ("" before the first one)
    symbol: str = ""  # code: "class:InventoryService", "method:reserveStock", "imports"
    header: str = ""  # code: the enclosing class's header line(s) when a member is split out
    date: str = ""  # journal: the entry's date (YYYY-MM-DD) found in the text
    oversized: bool = False  # one block bigger than the limit, kept whole


@dataclass
class Start:
    """Where a block starts, and what is known there."""

    at: int  # character offset
    hard: bool = False  # a chunk must start here
    glue: bool = False  # the next block may not start a chunk (a heading stays with its text)
    heading: str | None = None  # a heading starting here
    date: str | None = None  # a dated entry starting here: a change of date is a hard boundary


def line_offsets(text: str) -> list[int]:
    """The offset where each line starts (lines end at "\\n" only, so CRLF stays inside a line)."""
    return [0] + [m.end() for m in re.finditer("\n", text) if m.end() < len(text)]


def lines_of(text: str):
    """(offset, line without its newline) for each line."""
    offsets = line_offsets(text)
    for n, at in enumerate(offsets):
        end = offsets[n + 1] if n + 1 < len(offsets) else len(text)
        yield at, text[at:end].rstrip("\n")


def pack(text: str, starts: list[Start], limit: int) -> list[Chunk]:
    """Blocks (from each start to the next) packed into chunks of at most `limit` characters."""
    if not text:
        return []
    by_offset = {0: Start(0)}
    by_offset.update({s.at: s for s in starts if 0 <= s.at < len(text)})
    blocks = sorted(by_offset.values(), key=lambda s: s.at)
    offsets = line_offsets(text)

    def line_of(pos: int) -> int:
        return bisect.bisect_right(offsets, pos)

    chunks: list[Chunk] = []
    heading = ""  # the heading in effect
    begin, size, glued = 0, 0, False
    chunk_heading, chunk_date = "", ""
    for i, s in enumerate(blocks):
        end = blocks[i + 1].at if i + 1 < len(blocks) else len(text)
        new_date = s.date is not None and s.date != chunk_date
        if i == 0 or s.hard or new_date or (not glued and size + end - s.at > limit):
            if i:
                chunks.append(_chunk(text, begin, s.at, line_of, chunk_heading, chunk_date, limit))
            begin, size = s.at, 0
            chunk_heading = s.heading if s.heading is not None else heading
            chunk_date = s.date or ""
        if s.heading is not None:
            heading = s.heading
        size += end - s.at
        glued = s.glue and "\n" not in text[s.at : end].strip()  # a heading alone: it holds on to what follows
    chunks.append(_chunk(text, begin, len(text), line_of, chunk_heading, chunk_date, limit))
    return chunks


def _chunk(text: str, begin: int, end: int, line_of, heading: str, date: str, limit: int) -> Chunk:
    piece = text[begin:end]
    return Chunk(piece, line_of(begin), line_of(end - 1), heading, date=date, oversized=len(piece) > limit)


# --- Markdown ------------------------------------------------------------------------------------


class MarkdownChunker:
    """Markdown by its headings and blocks (markdown-it): a heading of level `max_level` or higher
    always starts a chunk; a section bigger than the limit is cut between its blocks (paragraphs,
    code fences, lists, tables, deeper headings — each whole, a heading kept with what follows it);
    front matter stays with the first chunk."""

    def __init__(self, max_level: int = 2):
        self.max_level = max_level
        self.md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)

    def chunk(self, text: str, limit: int = LIMIT) -> list[Chunk]:
        offsets = line_offsets(text)
        starts: list[Start] = []
        tokens = self.md.parse(text)
        content = False  # anything but front matter before: a top heading then starts a new chunk
        for i, t in enumerate(tokens):
            if t.level != 0 or t.nesting == -1 or not t.map or t.type == "front_matter":
                continue
            at = offsets[t.map[0]] if t.map[0] < len(offsets) else len(text)
            if t.type == "heading_open":
                title = tokens[i + 1].content if i + 1 < len(tokens) else ""
                top = int(t.tag[1]) <= self.max_level
                starts.append(
                    Start(at if content else 0, hard=top and content, glue=True, heading=title if top else None)
                )
            else:
                starts.append(Start(at if content else 0))
            content = True
        return pack(text, starts, limit)


# --- narrative -----------------------------------------------------------------------------------

_SEPARATOR = re.compile(r"^[ \t]*(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|#{1,6}[ \t].*|§)[ \t]*\r?$")
_CHAPTER = re.compile(
    r"^[ \t]*(?:(?:chapter|cap[íi]tulo|part|parte|libro|book)\b[^\n]{0,60}"
    r"|第[0-9一二三四五六七八九十百千零〇两]+[章节回卷部][^\n]{0,40})\r?$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*[ \t]+(?=\S)|(?<=[。！？])")


class NarrativeChunker:
    """Prose by paragraphs: paragraphs are packed up to the limit; a scene break (`***`, `---`) or
    a chapter heading ("Chapter 3", "Capítulo 3", "第三章") always starts a chunk; only a paragraph
    bigger than the limit is cut, at sentence ends."""

    def chunk(self, text: str, limit: int = LIMIT) -> list[Chunk]:
        starts: list[Start] = []
        blank = True
        for at, line in lines_of(text):
            if not line.strip():
                blank = True
                continue
            if _SEPARATOR.match(line) or _CHAPTER.match(line):
                heading = line.strip().lstrip("#").strip()
                starts.append(Start(at, hard=True, glue=True, heading=heading if re.search(r"\w", heading) else None))
            elif blank:
                starts.append(Start(at))
            blank = False
        # an oversized paragraph starts a chunk of its own, and its sentences become blocks
        bounds = [Start(0)] + starts + [Start(len(text))]
        for s, nxt in zip(bounds, bounds[1:]):
            if nxt.at - s.at > limit:
                s.hard = True
                starts += [Start(m.end()) for m in _SENTENCE_END.finditer(text, s.at, nxt.at)]
        return pack(text, starts, limit)


# --- journals and chats --------------------------------------------------------------------------

_ENTRY_LEAD = re.compile(r"^[\s#>*\-\[(|]*(?:[^\W\d_]{2,12}[.,]?\s+)?$")


def entry_date(line: str) -> str | None:
    """The day a line opens an entry for ("2024-05-01 …", "## May 3, 2024", "[2023-01-05 10:22] Bob:",
    "1 de mayo de 2024:", "2024年5月1日"), or None. Only an explicit date with its year counts."""
    from ..search.dates import find_dates  # the dates module is loaded only for journals

    head = line[:60]
    if not re.search(r"\d", head):
        return None
    for span in find_dates(head, None):
        if span.grain == "day" and _ENTRY_LEAD.match(head[: span.chars[0]]):
            return span.start.isoformat()
    return None


class JournalChunker:
    """A dated journal or chat log: a line that starts with a date opens an entry; an entry is never
    cut (an oversized one is kept whole), entries of the same day are packed up to the limit, and a
    change of date always starts a chunk. Each chunk carries its entries' date."""

    def chunk(self, text: str, limit: int = LIMIT) -> list[Chunk]:
        starts = [Start(at, date=day) for at, line in lines_of(text) if (day := entry_date(line))]
        return pack(text, starts, limit)


# --- processes: recipes, runbooks, protocols -----------------------------------------------------

_HEADING = re.compile(r"^(?:#{1,6}[ \t]+\S.*|[^\s\-*•\d][^\n]{0,60}:[ \t]*\r?|[A-ZÁÉÍÓÚÑ][A-ZÁÉÍÓÚÑ \t]{2,40}\r?)$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•·][ \t]|\d{1,3}[.)][ \t]|[a-z][.)][ \t]|第[0-9一二三四五六七八九十]+步|步骤)")


class ProcessChunker:
    """A recipe, runbook or protocol: its sections (a heading — `## Steps`, "Ingredientes:",
    "INSTRUCTIONS" — and what follows) are packed up to the limit; a heading is never separated
    from its list, and a list of steps is never cut, even when blank lines part its items."""

    def chunk(self, text: str, limit: int = LIMIT) -> list[Chunk]:
        starts: list[Start] = []
        blank, in_list = True, False
        for at, line in lines_of(text):
            if not line.strip():
                blank = True
                continue
            item = bool(_LIST_ITEM.match(line))
            if _HEADING.match(line) and not item:
                title = line.strip().lstrip("#").strip().rstrip(":").strip()
                starts.append(Start(at, hard=line.startswith("# "), glue=True, heading=title))
                in_list = False
            elif blank and not (item and in_list):
                starts.append(Start(at))
                in_list = item
            elif item:
                in_list = True
            blank = False
        return pack(text, starts, limit)


@hookimpl
def register_chunkers(register):
    register("markdown", MarkdownChunker())
    register("narrative", NarrativeChunker())
    register("journal", JournalChunker())
    register("process", ProcessChunker())
