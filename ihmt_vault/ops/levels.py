"""Reading the vault level by level: the brief (level 1), a folder's summary, the tree, listings.

An agent starts with the brief (hmem's level 1): the pinned (core) memories, and per top-level
topic its newest and most recalled memories with their first line and everything else as a count
to drill down (`[+7 →] read_memory('work')`) — within a token budget whatever the vault's size.
Outdated and archived memories are never in it (search still finds them). It drills down one
folder summary, or one memory's nested level, at a time. Reads never take the lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.core import CACHE, Engine
from ..errors import NotFound
from ..storage import nested, notes, tree
from ..storage.catalog import Row
from ..storage.notes import Memory


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@dataclass
class TopicDigest:
    """One top-level topic as the brief sees it: its size, its subtopics, and the memories that
    stand for it (the newest and the most recalled, active ones only)."""

    name: str  # "" for memories at the root
    count: int
    subtopics: list[tuple[str, int]]
    newest: list[Row]
    recalled: list[tuple[Row, int]]


EVERY = 300  # a vault with at most this many live memories may have them all in the brief, a line each


def digests(e: Engine, per_topic: int, every: bool = False) -> list[TopicDigest]:
    """Every top-level topic's digest, biggest first; archived and outdated memories not counted.
    With `every`, each topic's digest holds all its live memories (newest first)."""
    by_folder = e.catalog.counts_by_folder("active")
    tops: dict[str, Counter] = {}
    for folder, n in by_folder.items():
        top, _, rest = folder.partition("/")
        if top == tree.ARCHIVE:
            continue
        tops.setdefault(top, Counter())[rest.partition("/")[0]] += n
    counts = e.recalls.all()
    recalled: dict[str, list[tuple[Row, int]]] = {}
    filled = 0
    for i in sorted(counts, key=lambda i: (-counts[i].count, i)):  # by id: no vault scan
        if filled >= len(tops):  # every topic has its most recalled: the rest need no lookup
            break
        for r in e.catalog.by_id(i):
            top = r.folder.partition("/")[0]
            if r.status == "active" and top in tops and len(recalled.setdefault(top, [])) < per_topic:
                recalled[top].append((r, counts[i].count))
                filled += len(recalled[top]) == per_topic
    out = []
    for top, subs in tops.items():
        limit = EVERY if every else per_topic * 2
        newest = e.catalog.newest_under(top, limit) if top else e.catalog.newest_in("", limit)
        out.append(
            TopicDigest(
                top,
                sum(subs.values()),
                sorted(((k, n) for k, n in subs.items() if k), key=lambda x: -x[1]),
                newest,
                recalled.get(top, []),
            )
        )
    return sorted(out, key=lambda t: (-t.count, t.name))


def compose_brief(
    title: str,
    live: int,
    hidden: int,
    pinned: list[Row],
    topics: list[TopicDigest],
    budget_tokens: int,
    mounts: Sequence[tuple[str, list[TopicDigest]]] = (),
) -> str:
    """The brief within `budget_tokens` (chars/4): pinned memories, then, as hmem's overview does,
    every live memory's title on a line of its own under its topic while they all fit (titles cut
    to share the budget); else per topic its newest and most recalled memories with their first
    line and the rest as a count to drill down — in less detail (two each, one each, none) until it
    fits, and the smallest topics last as a count."""
    budget = budget_tokens * 4

    def memory_line(r: Row, mark: str) -> str:
        first = notes.shorten(r.first_line, 100)
        text = r.title if not first or first.startswith(r.title.rstrip(".…")) else f"{r.title}: {first}"
        return f"- {mark} {notes.shorten(text, 140)} ({r.id})"

    def topic_block(t: TopicDigest, k: int, shown: set[str], prefix: str = "") -> list[str]:
        lines = [_heading(prefix, t)]
        listed = []
        for r, n in t.recalled[:k]:
            if r.id not in shown:
                listed.append(memory_line(r, f"{n}×"))
                shown.add(r.id)
        for r in t.newest:
            if len(listed) >= 2 * k:
                break
            if r.id not in shown:
                listed.append(memory_line(r, r.date or (r.created or "")[:10] or "new"))
                shown.add(r.id)
        rest = t.count - len(listed) - sum(1 for r in pinned if r.folder.partition("/")[0] == t.name)
        lines += listed
        if rest > 0:
            lines.append(f"[+{rest} →] read_memory('{prefix}{t.name}')")
        return lines

    head = [
        f"# {title}: {_plural(live, 'memory', 'memories')}"
        + (f" ({hidden} outdated or archived: searchable, not listed)" if hidden else ""),
        "search_memory finds any memory; read_memory(path) drills down.",
    ]
    pins: list[str] = ["", "## Pinned"] if pinned else []
    for n, r in enumerate(pinned):  # core memories first, but never more than a third of the budget
        line = memory_line(r, "core")
        if sum(len(x) + 1 for x in pins) + len(line) > budget // 3:
            pins.append(f"[+{len(pinned) - n} pinned →] search_memory finds them")
            break
        pins.append(line)

    def rich(t: TopicDigest, r: Row) -> str:  # a memory's line when every one fits with its mark and id
        times = next((n for x, n in t.recalled if x.id == r.id), 0)
        return memory_line(r, f"{times}×" if times else r.date or (r.created or "")[:10] or "new")

    every = _every_title(head, pins, pinned, topics, mounts, budget, live, rich)
    if every is not None:
        return "\n".join(every) + "\n"
    for k in (2, 1, 0):
        shown = {r.id for r in pinned}
        body: list[str] = []
        for t in topics:
            body += [""] + topic_block(t, k, shown)
        for name, mounted in mounts:
            body += ["", f"# mounted: {name}"]
            for t in mounted:
                body += [""] + topic_block(t, k, shown, f"{name}:")
        lines = head + pins + body
        if sum(len(x) + 1 for x in lines) <= budget or k == 0:
            break
    out, used = [], 0
    for n, line in enumerate(lines):
        if used + len(line) + 1 > budget - 60:
            left = sum(1 for x in lines[n:] if x.startswith("## "))
            out.append(
                f"[+{left} more topics →] read_memory('') lists them all"
                if left
                else "[+more →] search_memory or read_memory"
            )
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out).rstrip("\n") + "\n"


def _every_title(
    head: list[str],
    pins: list[str],
    pinned: list[Row],
    topics: list[TopicDigest],
    mounts: Sequence[tuple[str, list[TopicDigest]]],
    budget: int,
    live: int,
    rich: Callable[[TopicDigest, Row], str],
) -> list[str] | None:
    """The brief listing every live memory — with its date or recalls and id when that fits, else
    by its title cut to share the budget — or None when they do not all fit."""
    shown = {r.id for r in pinned}
    groups = [("", t) for t in topics] + [(f"{name}:", t) for name, ts in mounts for t in ts]

    def ordered(t: TopicDigest) -> list[Row]:  # the most recalled first, as the detailed brief has them
        first = [r for r, _n in t.recalled if r.id not in shown]
        return first + [r for r in t.newest if r.id not in shown and r.id not in {x.id for x in first}]

    rows = [(prefix, t, ordered(t)) for prefix, t in groups]
    listed = sum(len(rs) for _p, _t, rs in rows)
    if not listed or live > EVERY:  # above EVERY the digests hold only each topic's newest
        return None
    headings = [_heading(p, t) for p, t, _rs in rows]
    fixed = sum(len(x) + 1 for x in head + pins + headings) + 2 * len(rows) + 80
    width = (budget - fixed) // listed - 3  # "- " and the newline
    if width < 24:
        return None

    def listing(line: Callable[[TopicDigest, Row], str]) -> list[str]:
        out, mount = head + pins, ""
        for heading, (prefix, t, rs) in zip(headings, rows):
            if prefix != mount:
                out += ["", f"# mounted: {prefix.rstrip(':')}"]
                mount = prefix
            out += ["", heading] + [line(t, r) for r in rs]
        return out

    full = listing(rich)
    if sum(len(x) + 1 for x in full) <= budget:
        return full
    lines = listing(lambda _t, r: f"- {notes.shorten(r.title, width)}")
    if sum(len(x) + 1 for x in lines) > budget:
        return None
    return lines + ["", "read_memory(<topic>) shows a topic's memories with their ids."]


def _heading(prefix: str, t: TopicDigest) -> str:
    subs = ", ".join(f"{s} {n}" for s, n in t.subtopics[:6]) + (", …" if len(t.subtopics) > 6 else "")
    where = f"{prefix}{t.name}/" if t.name else (prefix or "/")
    return f"## {where} — {_plural(t.count, 'memory', 'memories')}" + (f" ({subs})" if subs else "")


def brief(
    e: Engine, budget_tokens: int | None = None, per_topic: int = 2, mounts: Sequence[tuple[str, Engine]] = ()
) -> str:
    e.refresh()
    live = e.catalog.count("WHERE status = 'active'")
    hidden = e.catalog.count() - live
    pinned = [r for r in e.catalog.pinned() if r.status == "active"]
    for _, m in mounts:
        m.refresh()
    return compose_brief(
        e.config.title,
        live,
        hidden,
        pinned,
        digests(e, per_topic, every=live <= EVERY),
        budget_tokens or e.config.brief_tokens,
        [(n, digests(m, per_topic, every=live <= EVERY)) for n, m in mounts],
    )


def read(e: Engine, id_or_path: str, level: int, source: str | None = None) -> tuple[Memory, str]:
    """A memory read down to `level` of its tree (a recall, as a read in full is)."""
    from . import lifecycle

    m = lifecycle.show(e, id_or_path, source)
    return m, nested.render(m.body, level)


def read_folder(e: Engine, folder: str = "") -> str:
    rel = tree.clean_topic(folder, e.config.max_depth) if folder.strip().strip("/") else ""
    file = e.layout.abs(tree.summary_path(rel))
    if not file.is_file():
        raise NotFound(f"{folder or '/'}: no such topic; see 'ihmt tree'")
    return file.read_text(encoding="utf-8")


def topic_tree(e: Engine, depth: int = 2) -> dict:
    """Topics with their memory counts, `depth` levels down. `archive/` is not a topic (the root
    counts what it holds as `archived`), nor is a folder without memories (attachments, say). A
    folder at the last level shown says what it holds below: `more_topics`, `more_memories` (and
    `more`, their sum)."""
    e.refresh()
    by_folder: dict[str, list[Row]] = {}
    archived = 0
    for r in e.catalog.all():
        if r.folder == tree.ARCHIVE or r.folder.startswith(tree.ARCHIVE + "/"):
            archived += 1
        else:
            by_folder.setdefault(r.folder, []).append(r)

    def count_under(folder: str) -> int:
        return sum(len(v) for k, v in by_folder.items() if not folder or k == folder or k.startswith(folder + "/"))

    def node(folder: str, level: int) -> dict:
        subs = [f"{folder}/{s}" if folder else s for s in e.layout.subfolders(folder)]
        subs = [s for s in subs if s != tree.ARCHIVE and count_under(s)]
        rows = sorted(by_folder.get(folder, []), key=tree.sort_key)
        n = {
            "path": folder,
            "title": tree.humanize(folder.rpartition("/")[2]) or e.config.title,
            "count": count_under(folder),
            "children": [],
            "memories": [],
        }
        if level < depth:
            n["children"] = [node(s, level + 1) for s in subs]
            n["memories"] = [
                {
                    "id": r.id,
                    "title": r.title,
                    "date": r.date,
                    "status": r.status,
                    "pinned": bool(r.pinned),
                    "path": r.path,
                }
                for r in rows
            ]
        else:
            n["more"] = len(subs) + len(rows)
            n["more_topics"], n["more_memories"] = len(subs), len(rows)
        return n

    root = node("", 0)
    if archived:
        root["archived"] = archived
    return root


def memories(e: Engine, under: str = "") -> list[dict]:
    e.refresh()
    folder = tree.clean_topic(under, e.config.max_depth) if under else ""
    return [dict(r) for r in sorted(e.catalog.under(folder), key=lambda r: r.path)]


def stats(e: Engine) -> dict:
    e.refresh()
    rows = e.catalog.all()
    size = sum(
        f.stat().st_size
        for f in e.root.rglob("*")
        if f.is_file() and ".git" not in f.parts and CACHE not in f.as_posix()
    )
    cache = sum(f.stat().st_size for f in (e.root / CACHE).rglob("*") if f.is_file())
    return {
        "vault": str(e.root),
        "memories": len(rows),
        "status": dict(sorted(Counter(r.status for r in rows).items())),
        "types": dict(sorted(Counter(r.type for r in rows).items())),
        "topics": len({r.folder for r in rows}),
        "pinned": sum(1 for r in rows if r.pinned),
        "files_bytes": size,
        "cache_bytes": cache,
        "head": e.repo.head(),
        "rankers": e.ranker_status(),
    }
