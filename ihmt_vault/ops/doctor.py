"""`doctor`: find what is inconsistent in a vault, and repair what can be repaired in one commit.

Repair never blocks on one file: a file it cannot parse or rewrite is left where it is and
reported (not repairable, with what to do), and everything else is repaired in the one commit.

Findings, by kind:
- interrupted   an operation a crash cut short (the journal is still there): completed
- set-aside     a journal that could not be replayed, moved aside so the vault goes on: reported
- merge         a sync merge a crash cut short (git's MERGE_HEAD): finished, or aborted when
                files are still in conflict
- purge         a `forget --purge` a crash cut short (its journal under .ihmt/cache/purge/): the
                memory may be deleted while its text is still in history or the caches; finished
                from the step it was at, with its proof (as `forget ID --purge` again does)
- temp-file     a temporary file left by a killed write: deleted
- broken        a file that cannot be read as a memory: reported, never rewritten (a person's text)
- duplicate-key a front matter naming a key twice (`title:` twice): read as YAML 1.1 loaders read
                it (the last one wins) so the memory stays searchable, but reported, never
                rewritten nor committed by repair: which one is meant is the person's call
- missing-keys  a hand-written memory without id/title/created: filled in, other keys untouched
- duplicate-id  two files with one id: the later one gets a new id
- outside-tree  a memory at the vault root or deeper than max_depth: moved into the tree
- dangling      supersedes/superseded_by naming an id that is not in the vault: reported
- cycle         memories that supersede each other (a ↔ b): the newer one (by date) stays the
                correction, the reverse link is removed
- one-sided     a correction recorded on one side only (e.g. `status: outdated` + `superseded_by`
                set by hand in Obsidian): the other side gets its link, as a save with `replaces` does
- stale-summary an index.md that differs from what its folder generates: regenerated
- uncommitted   memory or summary files changed but not committed: committed as an edit
- secret        a file changed by hand whose text holds a secret: reported, never committed
- roles         `.ihmt/roles.toml` does not parse or validate (every write is refused until it is
                fixed and committed): reported
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Set as AbstractSet

import yaml

from .. import files
from ..engine.core import Engine
from ..errors import BrokenFile, VaultError
from ..results import Problem
from ..storage import notes, tree
from . import purge
from .reconcile import refused


def examine(e: Engine) -> list[Problem]:
    problems: list[Problem] = []
    if e.journal.exists():
        problems.append(
            Problem(
                "interrupted",
                e.journal.file.relative_to(e.root).as_posix(),
                "an operation was interrupted before its commit",
            )
        )
    for aside in e.journal.set_aside_files():
        problems.append(
            Problem(
                "set-aside",
                aside.relative_to(e.root).as_posix(),
                "an interrupted operation could not be replayed and was set aside; its files "
                "are on disk (see 'uncommitted'); delete this file once checked",
                repairable=False,
            )
        )
    merging = e.repo.merge_in_progress()
    if merging:
        problems.append(Problem("merge", ".git/MERGE_HEAD", f"a sync merge with {merging[:10]} was interrupted"))
    for key, journal, step in purge.interrupted_purges(e):
        if step == "unreadable":
            problems.append(
                Problem(
                    "purge",
                    journal,
                    "the journal of an interrupted purge cannot be read: run "
                    "'ihmt forget ID --purge' again, then delete it",
                    repairable=False,
                )
            )
        else:
            problems.append(
                Problem(
                    "purge",
                    journal,
                    f"the purge of memory {key} was interrupted (at its '{step}' "
                    f"step): its text may still be in git history or the caches",
                )
            )
    for dirpath, dirnames, filenames in os.walk(e.root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            if name.endswith(".ihmt-tmp"):
                rel = os.path.relpath(os.path.join(dirpath, name), e.root)
                problems.append(Problem("temp-file", rel, "temporary file left by an interrupted write"))
    try:
        e.gate.roles()
    except BrokenFile as err:  # every write is refused until it is fixed: say so first
        problems.append(Problem("roles", err.path, str(err), repairable=False))
    model = e.embedder_status()
    if model.startswith("off"):  # the vector index's model cannot load: search goes by words alone
        problems.append(
            Problem(
                "model",
                ".ihmt/config.toml",
                f"the {e.config.embedder} model is {model}; searching by words alone",
                repairable=False,
            )
        )
    for name, state in e.ranker_status().items():  # an optional ranker that is off: search is lexical
        if state != "active":
            problems.append(
                Problem(
                    "ranker",
                    ".ihmt/config.toml",
                    f"the {name} ranker is {state}; search answers by words alone",
                    repairable=False,
                )
            )
    e.refresh(force=True)
    ids = set()
    pending = uncommitted(e)
    for rel in sorted(e.layout.scan()):
        try:
            m = e.read(rel)
        except VaultError as err:
            problems.append(Problem("broken", rel, str(err), repairable=False))
            continue
        twice = duplicate_keys(e, rel)
        if twice:
            problems.append(twice)
            continue
        secret = refused(e, rel) if rel in pending else None
        if secret:  # a person's file with a secret: reported, never touched nor committed by repair
            problems.append(secret)
            continue
        if m.missing:
            problems.append(Problem("missing-keys", rel, f"front matter lacks {', '.join(m.missing)}"))
        if m.id:
            ids.add(m.id)
        depth = tree.depth(m.folder)
        if depth == 0 or depth > e.config.max_depth:
            problems.append(
                Problem(
                    "outside-tree",
                    rel,
                    "memory at the vault root" if depth == 0 else f"deeper than max_depth {e.config.max_depth}",
                )
            )
    for id_, paths in e.catalog.duplicate_ids():
        problems.append(Problem("duplicate-id", paths[-1], f"id {id_} is also used by {', '.join(paths[:-1])}"))
    for row in e.catalog.all():
        for ref in row.supersedes + row.superseded_by:
            if ref not in ids:
                problems.append(
                    Problem("dangling", row.path, f"refers to id {ref}, which is not in the vault", repairable=False)
                )
    by_id = {r.id: r for r in e.catalog.all() if r.id}
    for loop in supersession_cycles(by_id):
        problems.append(
            Problem(
                "cycle", by_id[loop[0]].path, f"memories {', '.join(loop)} each supersede another of them in a loop"
            )
        )
    for row in by_id.values():
        for newer in row.superseded_by:
            if newer in by_id and row.id not in by_id[newer].supersedes:
                problems.append(Problem("one-sided", by_id[newer].path, f"does not list {row.id} in supersedes"))
        for older in row.supersedes:
            o = by_id.get(older)
            if o and (row.id not in o.superseded_by or o.status == "active"):
                problems.append(Problem("one-sided", o.path, f"is superseded by {row.id} but not marked outdated"))
    for folder in tree.bottom_up(e.layout.all_folders()):
        expected = e.render_folder(folder)
        rel = tree.summary_path(folder)
        try:
            actual = files.read_exact(e.layout.abs(rel))
        except (OSError, UnicodeDecodeError):
            actual = None
        if expected != actual:
            problems.append(Problem("stale-summary", rel, "summary is missing or out of date"))
    held = {p.path for p in problems if p.kind in ("broken", "secret", "duplicate-key")}
    for rel in pending:
        if rel not in held:  # a file that cannot be read, or holds a secret, is never committed by repair
            problems.append(Problem("uncommitted", rel, "changed but not committed"))
    return problems


_TOP_KEY = re.compile(r"^([^\s#'\"{}\[\]:-][^:\n]*?)[ \t]*:(?:[ \t]|$)", re.M)


def duplicate_keys(e: Engine, rel: str) -> Problem | None:
    """A front matter naming a key twice, as a finding naming the key and its lines (None: none)."""
    try:
        block, _body = notes.split_front_matter(files.read_exact(e.layout.abs(rel)))
    except (OSError, UnicodeDecodeError):
        return None
    names = _TOP_KEY.findall(block or "")
    if len(names) == len(set(names)):  # the cheap look first; YAML decides when a name repeats
        return None
    try:
        node = yaml.compose(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    lines: dict[str, list[int]] = {}
    for key, _value in node.value:
        if isinstance(key, yaml.ScalarNode):
            lines.setdefault(key.value, []).append(key.start_mark.line + 2)  # line 1 is the opening ---
    twice = {k: at for k, at in lines.items() if len(at) > 1}
    if not twice:
        return None
    key, at = next(iter(twice.items()))
    return Problem(
        "duplicate-key",
        rel,
        f"front matter names {key!r} {len(at)} times (lines {', '.join(map(str, at))}); the last one is "
        f"read: delete the ones you do not mean, then run 'ihmt doctor --repair' (left as it is until then)",
        repairable=False,
    )


def uncommitted(e: Engine) -> list[str]:
    """Memory and summary paths that differ from HEAD (or are untracked)."""
    return [p for p in e.repo.dirty() if e.layout.is_memory_path(p) or p.endswith(tree.INDEX)]


def fix(e: Engine, problems: list[Problem]) -> list[Problem]:
    """Repair what `examine` found, in one commit; returns the findings it could not repair (a
    file that turned out unparseable or unwritable), each reported as not repairable: it is left
    where it is and out of the commit, and the rest is repaired all the same."""
    failed: list[Problem] = []

    def guarded(p: Problem, repair) -> None:
        try:
            repair()
        except (BrokenFile, OSError) as err:
            why = str(err) if isinstance(err, BrokenFile) else f"{p.path}: {err.strerror or err}"
            failed.append(
                Problem(p.kind, p.path, f"not repaired: {why} (left as it is; the rest was repaired)", repairable=False)
            )

    kinds = {p.kind for p in problems}
    purges = {p.path for p in problems if p.kind == "purge" and p.repairable}
    for key, journal, _step in purge.interrupted_purges(e):  # first: it rewrites history
        if journal in purges:
            purge.finish_purge(e, key)
    merging = e.repo.merge_in_progress()
    if merging and e.repo.unmerged():
        e.repo.merge_abort()  # conflicts a crash left unresolved: start the sync again later
        merging = None
    with e.transaction(
        "edit", f"doctor: repair {len([p for p in problems if p.repairable])} problems", [("Memory-Op", "edit")]
    ) as tx:
        if merging:  # every file of the merge is in place: commit it as the merge it is
            tx.merge_parent = merging
            tx.subject = f"merge: finish an interrupted sync with {merging[:10]}"
            tx.trailers = [("Memory-Op", "merge")]
            tx.paths.update(e.repo.merge_changes())
            tx.folders.update(tree.folder_of(p) for p in tx.paths)
        for p in problems:
            if p.kind == "temp-file":
                (e.root / p.path).unlink(missing_ok=True)
            elif p.kind == "uncommitted":
                tx.paths.add(p.path)
                tx.folders.add(tree.folder_of(p.path))
        for p in problems:
            if p.kind == "missing-keys" and (e.root / p.path).exists():
                guarded(p, lambda p=p: _fill_keys(e, tx, p.path))
            elif p.kind == "duplicate-id":
                guarded(p, lambda p=p: tx.edit(e.read(p.path), {"id": notes.new_id()}))
        _link_corrections(e, tx, skip=_break_cycles(e, tx))
        for p in problems:
            if p.kind == "outside-tree" and (e.root / p.path).exists():
                guarded(p, lambda p=p: _into_tree(e, tx, p.path))
        for p in failed:  # a file repair could not handle stays out of the commit, as it is
            tx.paths.discard(p.path)
        if kinds & {
            "stale-summary",
            "missing-keys",
            "duplicate-id",
            "outside-tree",
            "uncommitted",
            "one-sided",
            "cycle",
        }:
            tx.folders.update(e.layout.all_folders())
    return failed


def _fill_keys(e: Engine, tx, rel: str) -> None:
    m = e.read(rel)
    fill = {
        "id": m.id or notes.new_id(),
        "title": m.title,
        "created": m.created or _first_commit_time(e, rel) or notes.now_timestamp(),
    }
    tx.edit(m, {k: fill[k] for k in m.missing})


def _into_tree(e: Engine, tx, rel: str) -> None:
    m = e.read(rel)
    if tree.depth(m.folder) == 0:
        dest = e.placer().place(tree.keywords(m.title, m.body, m.tags))
    else:
        dest = "/".join(m.folder.split("/")[: e.config.max_depth])
    tx.move(rel, dest)


def supersession_cycles(by_id: dict) -> list[list[str]]:
    """Loops of memories each claiming to supersede the next (a → b → a), each loop once."""
    loops, state = [], {}  # state: 1 = on the current path, 2 = done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in by_id[node].supersedes:
            if nxt not in by_id:
                continue
            if state.get(nxt) == 1:
                loops.append(path[path.index(nxt) :] + [node] if nxt in path else [nxt, node])
            elif nxt not in state:
                visit(nxt, path + [node])
        state[node] = 2

    for start in sorted(by_id):
        if start not in state:
            visit(start, [])
    return [sorted(set(loop)) for loop in loops]


def _break_cycles(e: Engine, tx) -> set[str]:
    """In a loop of corrections the newest memory (by date) stays the correction: the others no
    longer claim to supersede it, and it is current. Returns the ids of the loops' members."""
    by_id = {r.id: r for r in e.catalog.all() if r.id}
    members: set[str] = set()
    for loop in supersession_cycles(by_id):
        members.update(loop)
        newest = max(loop, key=lambda i: (by_id[i].date or "", by_id[i].created or "", i))
        for other in loop:
            if other != newest and newest in by_id[other].supersedes:
                m = e.read(by_id[other].path)
                rest = [i for i in m.supersedes if i != newest]
                tx.edit(m, {"supersedes": rest} if rest else {}, remove=() if rest else ("supersedes",))
            if other != newest and other in by_id[newest].supersedes:
                tx.mark_outdated(e.read(by_id[other].path), newest)
        n = e.read(by_id[newest].path)
        by = [i for i in n.superseded_by if i not in loop]
        tx.edit(
            n,
            {"status": "active" if not by else n.status, **({"superseded_by": by} if by else {})},
            remove=() if by else ("superseded_by",),
        )
    return members


def _link_corrections(e: Engine, tx, skip: AbstractSet[str] = frozenset()) -> None:
    """Complete one-sided corrections: both memories of a correction name each other (the
    members of a loop just broken, `skip`, are left as `_break_cycles` made them)."""
    by_id = {r.id: r for r in e.catalog.all() if r.id and r.id not in skip}
    for row in list(by_id.values()):
        for newer in row.superseded_by:
            n = by_id.get(newer)
            if n and row.id not in n.supersedes:
                m = e.read(n.path)
                tx.edit(m, {"supersedes": m.supersedes + [row.id]})
                n["supersedes"] = m.supersedes + [row.id]
        for older in row.supersedes:
            o = by_id.get(older)
            if o and (row.id not in o.superseded_by or o.status == "active"):
                m = e.read(o.path)
                by = m.superseded_by + ([row.id] if row.id not in m.superseded_by else [])
                tx.edit(m, {"status": "outdated", "superseded_by": by})
                o["superseded_by"], o["status"] = by, "outdated"


def _first_commit_time(e: Engine, rel: str) -> str | None:
    log = e.repo.log(rel)
    if not log:
        return None
    when = dt.datetime.fromisoformat(log[-1].date).astimezone(dt.timezone.utc)
    return when.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def run(e: Engine, repair: bool = False) -> list[Problem]:
    """What is inconsistent (`examine`); with `repair`, fixed in one commit (`fix`)."""
    problems = examine(e)
    if repair and any(p.repairable for p in problems):
        failed = {(p.kind, p.path): p for p in fix(e, problems)}
        problems = [failed.get((p.kind, p.path), p) for p in problems]
    return problems
