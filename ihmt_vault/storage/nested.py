"""Nested entries: a memory's body as a tree of levels, read level by level (hmem's idea).

A body's level 1 is its text before the first list; a Markdown bullet list (`-`, `*` or `+`, two or
more spaces of indent per level) holds levels 2 to 5, so the file stays a plain nested list that
Obsidian and any editor show as such. An agent may write levels as hmem does, with tab-indented
lines; `from_tabs` turns them into that list when the memory is saved.

A node is named by its path of 1-based positions: `2` is the second top-level item, `2.1` its first
child. `render(body, level)` gives the tree down to `level` with `[+N →]` where children were cut;
`append(body, under, text)` inserts children at the end of a node's subtree without touching a byte
of the rest; `focus(body, terms)` gives the node that holds most of a query's terms with its
ancestors' lines, for a search hit on a nested node.

Bad input (a path that names no node, a level outside 1..5, a tab-indented line or an appended
entry below level 5) is a `BadInput`: a sixth level is refused where it is written, never flattened
into the fifth. A list deeper than that written by hand keeps its depth: level 5 shows all of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import BadInput

MAX_LEVEL = 5
_ITEM = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?P<text>.*)$")


@dataclass
class Node:
    text: str  # the item's first line (without its marker)
    depth: int  # 2 for a top-level item, 3 for its children…
    start: int  # line index of the item in the body
    end: int = 0  # line index after its subtree
    children: list[Node] = field(default_factory=list)
    path: str = ""


def _indent_width(s: str) -> int:
    return len(s.replace("\t", "    "))


def parse(body: str) -> tuple[list[str], list[Node]]:
    """(the level-1 lines, the top-level nodes). Only a list after the level-1 text is a tree."""
    lines = body.split("\n")
    fenced = _in_fence(lines)
    head: list[str] = []
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []  # (indent, node)
    i = 0
    while i < len(lines) and (fenced[i] or not _ITEM.match(lines[i])):
        head.append(lines[i])
        i += 1
    last: Node | None = None
    for n in range(i, len(lines)):
        m = None if fenced[n] else _ITEM.match(lines[n])
        if not m:
            if last is not None:
                last.end = n + 1  # a continuation or blank line belongs to the item above
            continue
        indent = _indent_width(m.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        depth = 2 + len(stack)  # deeper than MAX_LEVEL only by hand: kept, shown at level 5
        node = Node(m.group("text").strip(), depth, n, n + 1)
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((indent, node))
        last = node
    _close(roots, "")
    return head, roots


def _in_fence(lines: list[str]) -> list[bool]:
    """Which lines sit inside a code fence: a `- ` there is code (YAML, say), not an entry."""
    out, fence = [], ""
    for line in lines:
        mark = re.match(r"^[ \t]*(`{3,}|~{3,})", line)
        if fence:
            out.append(True)
            if mark and mark.group(1)[0] == fence[0] and len(mark.group(1)) >= len(fence):
                fence = ""
        else:
            out.append(bool(mark))
            fence = mark.group(1) if mark else ""
    return out


def _close(nodes: list[Node], prefix: str) -> int:
    """Number the nodes and make each subtree end where its last descendant ends."""
    end = 0
    for k, node in enumerate(nodes, 1):
        node.path = f"{prefix}{k}"
        node.end = max(node.end, _close(node.children, node.path + "."))
        end = max(end, node.end)
    return end


def is_tree(body: str) -> bool:
    return bool(parse(body)[1])


def from_tabs(text: str) -> str:
    """hmem's write format — a line per node, one tab of indent per level below level 1 — as a
    Markdown nested list; text without tab-indented lines is returned as it is."""
    lines = text.split("\n")
    if not any(line.startswith("\t") and line.strip() for line in lines):
        return text
    out: list[str] = []
    seen_item = False
    for number, line in enumerate(lines, 1):
        tabs = len(line) - len(line.lstrip("\t"))
        if tabs > MAX_LEVEL - 1 and line.strip():
            raise BadInput(
                f"line {number} ({line.strip()[:60]!r}): {tabs} tabs is level {tabs + 1}; entries go down to "
                f"level {MAX_LEVEL} ({MAX_LEVEL - 1} tabs): indent it less"
            )
        if tabs and line.strip():
            depth = tabs
            if not seen_item and out and out[-1].strip():
                out.append("")
            out.append("  " * (depth - 1) + "- " + line.strip())
            seen_item = True
        else:
            out.append(line)
    return "\n".join(out)


def find(roots: list[Node], path: str) -> Node:
    nodes, node = roots, None
    for part in path.split("."):
        if not part.isdigit() or not 1 <= int(part) <= len(nodes):
            raise BadInput(f"under {path!r}: no such entry; read the memory with a level to see its entries' paths")
        node = nodes[int(part) - 1]
        nodes = node.children
    assert node is not None
    return node


def render(body: str, level: int) -> str:
    """The body down to `level` (1 = only the level-1 text), each item with its path, and
    `[+N →]` after an item whose N descendants were cut. Level 5, the deepest, shows everything
    (a list written deeper by hand too)."""
    if not 1 <= level <= MAX_LEVEL:
        raise BadInput(f"level {level}: give a level from 1 to {MAX_LEVEL}")
    head, roots = parse(body)
    out = ["\n".join(head).rstrip()]

    def count(n: Node) -> int:
        return len(n.children) + sum(count(c) for c in n.children)

    def walk(nodes: list[Node]) -> None:
        for n in nodes:
            if n.depth > level and level < MAX_LEVEL:
                continue
            cut = count(n) if n.depth == level < MAX_LEVEL else 0
            out.append("  " * (n.depth - 2) + f"- {n.text}  ({n.path})" + (f" [+{cut} →]" if cut else ""))
            walk(n.children)

    if level == 1 and roots:
        out.append(f"[+{len(roots) + sum(count(r) for r in roots)} →] read at level 2 for the entries")
    else:
        walk(roots)
    return "\n".join(x for x in out if x) + "\n"


def append(body: str, under: str | None, text: str) -> str:
    """`body` with `text` added as children of the node at `under` (None: new top-level entries);
    the lines before and after are kept byte for byte. `text` may hold several lines, tab-indented
    lines being deeper levels. The new entries follow the node's last line, not the blank lines
    after it, so a tight list stays tight and the final newline stays final."""
    lines = body.split("\n")
    head, roots = parse(body)
    if under:
        node = find(roots, under)
        at, depth = _before_blanks(lines, node.start, node.end), node.depth + 1
        line = lines[node.start]
        indent = line[: len(line) - len(line.lstrip(" \t"))] + "  "
    else:
        at = _before_blanks(lines, roots[-1].start, roots[-1].end) if roots else len(lines)
        depth, indent = 2, ""
        if not roots:
            while at > 0 and lines[at - 1] == "":
                at -= 1
            lines[at:at] = [""]
            at += 1
    if depth > MAX_LEVEL:
        raise BadInput(f"under {under!r}: that entry is at level {MAX_LEVEL}, the deepest; add to its parent")
    new = []
    for line in text.strip("\n").split("\n"):
        if not line.strip():
            continue
        tabs = len(line) - len(line.lstrip("\t"))
        if depth + tabs > MAX_LEVEL:
            raise BadInput(
                f"{line.strip()[:60]!r} would be level {depth + tabs}; entries go down to level {MAX_LEVEL}: "
                "indent it less"
            )
        new.append(indent + "  " * tabs + "- " + line.strip())
    if not new:
        raise BadInput("the content is empty; give the entries to add")
    lines[at:at] = new
    return "\n".join(lines)


def _before_blanks(lines: list[str], start: int, end: int) -> int:
    """Where a subtree's lines `start:end` end once the blank lines it closes with are left out."""
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def focus(body: str, terms: set[str]) -> str | None:
    """The node holding most of the query's terms, with its ancestors' lines and its own subtree;
    None when the body is not a tree or the level-1 text answers as well."""
    from ..search.analysis import analyze

    head, roots = parse(body)
    if not roots or not terms:
        return None
    lines = body.split("\n")
    best: tuple[Node, list[Node]] | None = None
    best_hits = len(terms & set(analyze("\n".join(head))))
    stack: list[tuple[Node, list[Node]]] = [(r, []) for r in roots]
    while stack:
        node, ancestors = stack.pop()
        hits = len(terms & set(analyze("\n".join(lines[node.start : node.end]))))
        own = len(terms & set(analyze(node.text)))
        if own and hits > best_hits or (best is not None and hits == best_hits and node.depth > best[0].depth and own):
            best, best_hits = (node, ancestors), hits
        stack += [(c, ancestors + [node]) for c in node.children]
    if best is None:
        return None
    node, ancestors = best
    out = ["\n".join(head).strip()]
    out += ["  " * (a.depth - 2) + f"- {a.text}  ({a.path})" for a in ancestors]
    out += lines[node.start : node.end]
    return "\n".join(x for x in out if x.strip()) + f"\n[entry {node.path}; read_memory(id, level=5) for the rest]"


def focus_best(result):
    """A search result whose best memory is a tree: its body narrowed to the entry that answers,
    with that entry's ancestors (the rest stays one read_memory away)."""
    if result.status != "found" or not result.hits or not result.hits[0].body:
        return result
    from ..search.analysis import analyze

    best = result.hits[0]
    narrowed = focus(best.body, set(analyze(result.query)))
    if narrowed is not None:
        best.body = narrowed
    return result
