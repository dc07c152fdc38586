"""`doctor`: find what is inconsistent in a vault, and repair what can be repaired in one commit.

Findings, by kind:
- interrupted   an operation a crash cut short (the journal is still there): completed
- temp-file     a temporary file left by a killed write: deleted
- broken        a file that cannot be read as a memory: reported, never rewritten (a person's text)
- missing-keys  a hand-written memory without id/title/created: filled in, other keys untouched
- duplicate-id  two files with one id: the later one gets a new id
- outside-tree  a memory at the vault root or deeper than max_depth: moved into the tree
- dangling      supersedes/superseded_by naming an id that is not in the vault: reported
- one-sided     a correction recorded on one side only (e.g. `status: outdated` + `superseded_by`
                set by hand in Obsidian): the other side gets its link, as a save with `replaces` does
- stale-summary an index.md that differs from what its folder generates: regenerated
- uncommitted   memory or summary files changed but not committed: committed as an edit
"""
from __future__ import annotations

import os

from . import notes, tree
from .errors import VaultError


def examine(v) -> list:
    from .vault import Problem
    problems: list[Problem] = []
    if v._journal.exists():
        problems.append(Problem("interrupted", v._journal.relative_to(v.root).as_posix(),
                                "an operation was interrupted before its commit"))
    for dirpath, dirnames, filenames in os.walk(v.root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            if name.endswith(".ihmt-tmp"):
                rel = os.path.relpath(os.path.join(dirpath, name), v.root)
                problems.append(Problem("temp-file", rel, "temporary file left by an interrupted write"))
    v.refresh(force=True)
    ids = set()
    for rel in sorted(v._scan()):
        try:
            m = v._read(rel)
        except VaultError as e:
            problems.append(Problem("broken", rel, str(e), repairable=False))
            continue
        if m.missing:
            problems.append(Problem("missing-keys", rel, f"front matter lacks {', '.join(m.missing)}"))
        if m.id:
            ids.add(m.id)
        depth = tree.depth(m.folder)
        if depth == 0 or depth > v.config.max_depth:
            problems.append(Problem("outside-tree", rel, "memory at the vault root" if depth == 0
                                    else f"deeper than max_depth {v.config.max_depth}"))
    for id_, paths in v.catalog.duplicate_ids():
        problems.append(Problem("duplicate-id", paths[-1], f"id {id_} is also used by {', '.join(paths[:-1])}"))
    for row in v.catalog.all():
        for ref in row.supersedes + row.superseded_by:
            if ref not in ids:
                problems.append(Problem("dangling", row.path, f"refers to id {ref}, which is not in the vault",
                                        repairable=False))
    by_id = {r.id: r for r in v.catalog.all() if r.id}
    for row in by_id.values():
        for newer in row.superseded_by:
            if newer in by_id and row.id not in by_id[newer].supersedes:
                problems.append(Problem("one-sided", by_id[newer].path, f"does not list {row.id} in supersedes"))
        for older in row.supersedes:
            o = by_id.get(older)
            if o and (row.id not in o.superseded_by or o.status == "active"):
                problems.append(Problem("one-sided", o.path, f"is superseded by {row.id} but not marked outdated"))
    for folder in sorted(v._all_folders(), key=lambda f: (-tree.depth(f), f)):
        expected = v._render_folder(folder)
        rel = f"{folder}/{tree.INDEX}" if folder else tree.INDEX
        try:
            actual = notes.read_exact(v._abs(rel))
        except (OSError, UnicodeDecodeError):
            actual = None
        if expected != actual:
            problems.append(Problem("stale-summary", rel, "summary is missing or out of date"))
    broken = {p.path for p in problems if p.kind == "broken"}
    for rel in uncommitted(v):
        if rel not in broken:  # a file that cannot be read is never committed by repair
            problems.append(Problem("uncommitted", rel, "changed but not committed"))
    return problems


def uncommitted(v) -> list[str]:
    """Memory and summary paths that differ from HEAD (or are untracked)."""
    return [p for p in v.repo.dirty() if v._is_memory_path(p) or p.endswith(tree.INDEX)]


def fix(v, problems: list) -> None:
    kinds = {p.kind for p in problems}
    with v._transaction("edit", f"doctor: repair {len([p for p in problems if p.repairable])} problems",
                        [("Memory-Op", "edit")]) as tx:
        for p in problems:
            if p.kind == "temp-file":
                (v.root / p.path).unlink(missing_ok=True)
            elif p.kind == "uncommitted":
                tx.paths.add(p.path)
                tx.folders.add(p.path.rpartition("/")[0])
        for p in problems:
            if p.kind == "missing-keys" and (v.root / p.path).exists():
                m = v._read(p.path)
                fill = {"id": m.id or notes.new_id(), "title": m.title,
                        "created": m.created or _first_commit_time(v, p.path) or notes.now_timestamp()}
                tx.edit(m, {k: fill[k] for k in m.missing})
            elif p.kind == "duplicate-id":
                tx.edit(v._read(p.path), {"id": notes.new_id()})
        _link_corrections(v, tx)
        for p in problems:
            if p.kind == "outside-tree" and (v.root / p.path).exists():
                m = v._read(p.path)
                if tree.depth(m.folder) == 0:
                    dest = v._placer().place(tree.keywords(m.title, m.body, m.tags))
                else:
                    dest = "/".join(m.folder.split("/")[: v.config.max_depth])
                tx.move(p.path, dest)
        if kinds & {"stale-summary", "missing-keys", "duplicate-id", "outside-tree", "uncommitted", "one-sided"}:
            tx.folders.update(v._all_folders())


def _link_corrections(v, tx) -> None:
    """Complete one-sided corrections: both memories of a correction name each other."""
    by_id = {r.id: r for r in v.catalog.all() if r.id}
    for row in list(by_id.values()):
        for newer in row.superseded_by:
            n = by_id.get(newer)
            if n and row.id not in n.supersedes:
                m = v._read(n.path)
                tx.edit(m, {"supersedes": m.supersedes + [row.id]})
                n["supersedes"] = m.supersedes + [row.id]
        for older in row.supersedes:
            o = by_id.get(older)
            if o and (row.id not in o.superseded_by or o.status == "active"):
                m = v._read(o.path)
                by = m.superseded_by + ([row.id] if row.id not in m.superseded_by else [])
                tx.edit(m, {"status": "outdated", "superseded_by": by})
                o["superseded_by"], o["status"] = by, "outdated"


def _first_commit_time(v, rel: str) -> str | None:
    log = v.repo.log(rel)
    if not log:
        return None
    import datetime as dt
    when = dt.datetime.fromisoformat(log[-1].date).astimezone(dt.timezone.utc)
    return when.replace(tzinfo=None, microsecond=0).isoformat() + "Z"
