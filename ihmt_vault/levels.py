"""Reading the vault level by level: the brief (level 1), a folder's summary, the tree, listings.

An agent starts with the brief — one line per top-level topic, the pinned (core) memories and the
recent ones, within a token budget whatever the vault's size — and drills down one folder summary
at a time. Reads never take the lock.
"""
from __future__ import annotations

from collections import Counter

from . import nested, notes, tree
from .engine import CACHE, Engine
from .errors import NotFound
from .catalog import Row
from .notes import Memory


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def brief(e: Engine, budget_tokens: int | None = None, recent: int = 8) -> str:
    e.refresh()
    budget = (budget_tokens or e.config.brief_tokens) * 4
    live = e.catalog.count("WHERE status != 'archived'")
    lines = [f"# {e.config.title}: {live} {'memory' if live == 1 else 'memories'}"]
    topics = [i for name in e.layout.subfolders("") if name != tree.ARCHIVE and (i := e.folder_info(name))]
    if topics:
        lines += ["", "## Topics (read_memory(path) to drill down)"]
        for t in topics:
            below = sum(1 for s in e.layout.subfolders(t.name) if e.folder_info(f"{t.name}/{s}"))
            more = f" [+{_plural(below, 'subtopic', 'subtopics')}]" if below else ""
            lines.append(f"- {t.name}/ — {_plural(t.count, 'memory', 'memories')}{more}: {', '.join(t.keywords[:6])}")
    pinned = e.catalog.pinned()
    if pinned:
        lines += ["", "## Pinned"]
        lines += [f"- {r.title}: {notes.shorten(r.first_line, 160)} ({r.id})" for r in pinned]
    shown = {r.id for r in pinned}
    counts = e.recalls.all()
    recalled = []   # the most recalled live memories: looked up by id, most recalled first (no vault scan)
    for i in sorted(counts, key=lambda i: (-counts[i].count, i)):
        if len(recalled) == recent:
            break
        rows = [r for r in e.catalog.by_id(i) if r.status == "active" and r.folder.split("/")[0] != tree.ARCHIVE]
        if rows and i not in shown:
            recalled.append(rows[0])
    if recalled:
        lines += ["", "## Most recalled"]
        lines += [f"- {r.title}: {notes.shorten(r.first_line, 120)} ({r.id}, {counts[r.id].count}x)" for r in recalled]
        shown |= {r.id for r in recalled}
    fresh = [r for r in e.catalog.recent(recent + len(shown)) if r.id not in shown][:recent]
    if fresh:
        lines += ["", "## Recent"]
        lines += [f"- {r.date or (r.created or '')[:10]} {r.title} ({r.id}, {r.folder}/)" for r in fresh]
    out, used = [], 0
    for line in lines:
        if used + len(line) + 1 > budget - 40:
            out.append(f"[+{len(lines) - len(out)} more lines: use search_memory or read_memory]")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out) + "\n"


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
        n = {"path": folder, "title": tree.humanize(folder.rpartition("/")[2]) or e.config.title,
             "count": count_under(folder), "children": [], "memories": []}
        if level < depth:
            n["children"] = [node(s, level + 1) for s in subs]
            n["memories"] = [{"id": r.id, "title": r.title, "date": r.date, "status": r.status,
                              "pinned": bool(r.pinned), "path": r.path} for r in rows]
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
    size = sum(f.stat().st_size for f in e.root.rglob("*") if f.is_file() and ".git" not in f.parts
               and CACHE not in f.as_posix())
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
    }
