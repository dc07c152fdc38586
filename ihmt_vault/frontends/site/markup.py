"""Memory text placed into generated Markdown and the theme's HTML: escaped, and code left alone."""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")


def md_text(text: str) -> str:
    """Plain text made safe inside Markdown (link labels, list items)."""
    text = html.escape(str(text), quote=False)
    return re.sub(r"([\\`*_\[\]{}|])", r"\\\1", text)


def plain(text) -> str:
    """A memory's value (title, tag) where the theme puts it as HTML: nav entries, <title>, search index."""
    return html.escape(str(text), quote=False)


def safe_line(line: str) -> str:
    """A line quoted from a memory into generated Markdown (a summary's first lines): its Markdown
    formatting and wikilinks are kept, its raw HTML shows as text (code spans are left as they are)."""

    def escape(chunk: str) -> str:  # wikilinks are left whole: rewrite_links escapes their labels itself
        out, pos = [], 0
        for m in WIKILINK.finditer(chunk):
            out += [html.escape(chunk[pos : m.start()], quote=False), m.group(0)]
            pos = m.end()
        return "".join(out) + html.escape(chunk[pos:], quote=False)

    return outside_code(line, escape)


def outside_code(text: str, fn) -> str:
    """Apply `fn` to the parts of Markdown `text` that are not code (fenced blocks or inline spans)."""
    out: list[str] = []
    prose: list[str] = []
    fence = None

    def flush():
        if prose:
            chunk = "".join(prose)
            pos = 0
            for m in _INLINE_CODE.finditer(chunk):
                out.append(fn(chunk[pos : m.start()]))
                out.append(m.group(0))
                pos = m.end()
            out.append(fn(chunk[pos:]))
            prose.clear()

    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            flush()
            fence = m.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)) :]
            ):
                fence = None
        else:
            prose.append(line)
    flush()
    return "".join(out)
