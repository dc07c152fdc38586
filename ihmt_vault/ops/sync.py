"""Sync a vault with a git remote: commit what is pending, pull (merge), push.

Invariants, whatever the two sides did offline:
- No memory is lost. A memory edited on both sides keeps git's merge where it is clean; otherwise
  this side's text stays in place and the other side's is saved beside it as a new memory marked
  as a conflict copy (`conflict_of: <id>`), with a notice. A memory edited on one side and deleted
  on the other is kept, edited.
- No conflict marker is ever left in a memory, and generated summaries never conflict: the
  `ihmt-summary` merge driver keeps either side, and every summary along a changed path is
  regenerated before the merge commit.
- Ids stay unique: they carry random bits (two machines creating memories offline do not collide);
  a conflict copy gets a new id.
- One writer: the whole sync holds the vault lock, and the merge is committed through the one
  write path (a transaction whose commit has the other side as second parent). A merge a crash
  interrupts is finished or aborted by `doctor --repair`.
- A purged memory never comes back. `.ihmt/purged.json` (written by `forget --purge`, committed,
  ids and blob hashes only) is the list of tombstones; a blob is the purged memory when its hash is
  listed or its front matter names a listed id (`id:` or `conflict_of:`). When there are any,
  before anything is merged or pushed:
  * a file waiting to be committed that is a purged memory (put back by hand, restored from a
    backup) stops the sync before it is committed: delete it;
  * the remote's branch is looked at before it lands: a tip we do not have is fetched into a
    private ref first (remote-tracking refs untouched) and, if anything it brings holds a purged
    memory, that fetch is undone and its objects pruned (the repository stays as clean as the
    purge left it), nothing is merged, and the error says how to purge the remote:
    `git push --force-with-lease=<branch>:<its tip> <remote> HEAD:<branch>` (and whether the
    remote has commits of another clone that this would lose), after which every other clone
    must re-clone or run `ihmt forget ID --purge` before it syncs again; `sync status` looks the
    same way;
  * the other way round, when the remote's tombstones (or ours) name a memory this clone's own
    history still holds (a clone that has not purged yet), nothing is merged or pushed and the
    error says to run `ihmt forget ID --purge` here (or re-clone) and sync again;
  * two machines' tombstones merge as their union.

Credentials, transports and remotes are git's own.
"""

from __future__ import annotations

from ..engine.core import Engine
from ..engine.transaction import Transaction
from ..errors import BadInput, VaultError
from ..results import SyncReport, SyncStatus
from ..storage import gitlog, notes, oplog, tree
from ..storage.gitlog import GitError
from . import purge
from .purge import TOMBSTONES, Tombstones
from .reconcile import reconcile


def configure(e: Engine) -> None:
    """Declare the summary merge driver in this clone (init does it; sync makes sure)."""
    e.repo.configure_summary_merges()


def _remote(e: Engine, remote: str | None) -> str:
    remotes = e.repo.remotes()
    if remote:
        if remote not in remotes:
            raise BadInput(f"--remote {remote}: no such git remote; known: {', '.join(remotes) or 'none'}")
        return remote
    if not remotes:
        raise BadInput("this vault has no git remote; add one with 'git remote add origin URL'")
    return "origin" if "origin" in remotes else remotes[0]


def _branch(e: Engine) -> str:
    branch = e.repo.branch()
    if branch is None:
        raise BadInput("the vault's repository is on a detached HEAD; check out a branch before syncing")
    return branch


def status(e: Engine, remote: str | None = None) -> SyncStatus:
    """How far ahead of and behind the remote the vault is (after a fetch), and what is pending."""
    name = _remote(e, remote)
    branch = _branch(e)
    try:
        tombs = purge.tombstones(e)
        if tombs:
            with e.lock.held(what="sync"):  # a refused fetch is pruned: no writer in between
                _fetch(e, name, branch, tombs)
        else:
            e.repo.fetch(name)
    except GitError as err:
        raise VaultError(str(err)) from None
    upstream = f"{name}/{branch}"
    exists = e.repo.rev_exists(upstream)
    ahead, behind = e.repo.ahead_behind(upstream) if exists else (e.repo.commit_count(), 0)
    pending = [p for p in e.repo.dirty() if e.layout.is_memory_path(p)]
    return SyncStatus(name, branch, ahead, behind, len(pending), exists)


def sync_each(engines: list, agent: str = "sync") -> list:
    """Sync several vaults (mounts: (name, Engine)) each with its own remote; a failure of one is
    its line in the answer, never a reason to skip the others."""
    out: list[tuple[str, SyncReport | str]] = []
    for name, e in engines:
        try:
            out.append((name, sync(e, None, agent)))
        except VaultError as err:
            out.append((name, str(err)))
    return out


def sync(e: Engine, remote: str | None = None, agent: str = "sync") -> SyncReport:
    name = _remote(e, remote)
    branch = _branch(e)
    report = SyncReport(name, branch)
    try:
        with e.lock.held(what="sync"):  # two syncs (or a sync and a save) take turns
            configure(e)
            tombs = purge.tombstones(e)
            _refuse_pending(e, tombs)
            report.committed = reconcile(e, None, agent=agent).changes
            for _attempt in range(3):
                _fetch(e, name, branch, tombs)
                upstream = f"{name}/{branch}"
                _refuse_purged(e, name, branch, upstream, tombs)
                if e.repo.rev_exists(upstream):
                    ahead, behind = e.repo.ahead_behind(upstream)
                    if behind:
                        report.pulled += behind
                        _pull(e, upstream, ahead, report, agent)
                pushed, _why = e.repo.push(name, branch)
                if pushed:
                    report.pushed = True
                    break
            else:
                raise VaultError(f"{name} kept moving while syncing; run 'ihmt sync' again")
    except GitError as err:
        raise VaultError(f"{err}; the vault is as it was before the sync") from None
    e.refresh(force=True)
    return report


def _pull(e: Engine, upstream: str, ahead: int, report: SyncReport, agent: str) -> None:
    before = e.repo.head()
    if not ahead:  # nothing of ours to merge: take theirs as it is
        e.repo.merge_fast_forward(upstream)
        e.catch_up_since(before)
        return
    theirs = e.repo.rev(upstream)
    with e.transaction("merge", f"merge: sync with {upstream}", [("Memory-Op", "merge")], agent) as tx:
        changed, unmerged = e.repo.merge_start(upstream)
        for path in unmerged:
            report.conflicts += _resolve(e, tx, path)
        if TOMBSTONES in changed:  # both machines purged: the union of their tombstones
            both = purge.tombstones(e, "HEAD").union(purge.tombstones(e, theirs))
            tx.write(TOMBSTONES, both.to_text())
        tx.paths.update(changed)
        tx.folders.update(tree.folder_of(p) for p in changed)
        tx.folders.add("")
        _settle(e, tx, [p for p in changed if e.layout.is_memory_path(p) and e.layout.abs(p).is_file()])
        tx.merge_parent = theirs
        tx.body = "\n".join(report.conflicts)
        copies = f", {len(report.conflicts)} conflict copies" if report.conflicts else ""
        oplog.append(tx, f"merged {report.pulled} commits from {upstream}{copies}", op="sync")
    report.merge_commit = tx.commit or e.repo.head()


def _settle(e: Engine, tx: Transaction, merged: list[str]) -> None:
    """What two clean halves can still leave inconsistent, mended in the merge itself: a memory
    archived on one machine and edited or pinned on the other comes back (an edit is a use, and a
    core memory never sinks); a correction made on both machines is recorded on both sides."""
    e.refresh(force=True)  # the catalog knows the merged files' ids
    for m in e.iter_memories(merged):
        rel = m.path
        copies = [r.path for r in e.catalog.by_id(m.id)] if m.id else []
        live = [p for p in copies if p.split("/")[0] != tree.ARCHIVE]
        if len(live) == 1 and len(copies) > 1:
            # archived on one machine, edited in place on the other: the edit (a use) keeps it live
            for p in copies:
                if p != live[0] and e.layout.abs(p).is_file():
                    tx.remove(p)
            if rel != live[0]:
                continue
        if m.pinned and m.folder.split("/")[0] == tree.ARCHIVE:
            tx.edit(m, {"status": "outdated" if m.superseded_by else "active"})
            tx.move(rel, m.folder.partition("/")[2] or "restored")
            continue
        for old in m.supersedes:
            rows = e.catalog.by_id(old)
            if rows and e.layout.abs(rows[0].path).is_file():
                o = e.read(rows[0].path)
                if m.id not in o.superseded_by or o.status == "active":
                    tx.mark_outdated(o, m.id)


def _resolve(e: Engine, tx: Transaction, rel: str) -> list[str]:
    """Settle one conflicted path without losing either side; returns notices."""
    ours, theirs = e.repo.conflict_side(2, rel), e.repo.conflict_side(3, rel)
    keep = ours if ours is not None else theirs
    if rel.endswith(tree.INDEX) or not e.layout.is_memory_path(rel):
        if keep is None:
            tx.remove(rel)
        else:
            tx.write(rel, keep)
        return []
    if keep is None:  # moved on both sides (rename/rename): it lives on at each side's new path
        tx.remove(rel)
        return []
    if ours is None or theirs is None:  # edited on one side, deleted on the other: the edit stays
        tx.write(rel, keep)
        return [f"{rel}: deleted on one side and edited on the other; the edited memory is kept."]
    merged = merge_memory(e.repo.conflict_side(1, rel), ours, theirs, rel)
    if merged is not None:  # the two sides changed different keys, or lists both grew: no copy needed
        tx.write(rel, merged)
        return []
    tx.write(rel, ours)
    mine = notes.parse(ours, rel)
    other = notes.parse(theirs, rel)
    stem = rel.rpartition("/")[2].removesuffix(".md")
    folder = tree.folder_of(rel)
    copy_rel = tx.free_name(folder, f"{stem}-conflict-copy")
    same = other.id == mine.id or not other.id
    changes = {
        "id": notes.new_id() if same else other.id,
        "title": f"{other.title} (conflict copy)" if same else other.title,
    }
    if same:
        changes["conflict_of"] = mine.id
    tx.write(copy_rel, notes.update_front_matter(theirs, changes, path=copy_rel))
    return [f"{rel}: edited on both machines; this side's text kept, the other side's saved as {copy_rel}."]


# What wins when both machines set a key differently: a correction is never undone by a merge, a
# core memory never sinks.
_STATUS_RANK = {"active": 0, "archived": 1, "outdated": 2}
_UNION = {"tags", "supersedes", "superseded_by", "aliases"}


def merge_memory(base: str | None, ours: str, theirs: str, rel: str) -> str | None:
    """A three-way merge of a memory edited on both machines, key by key: a key one side changed
    takes that side's value; list keys both changed (tags, supersedes, superseded_by) take both
    values; `status` the stronger (outdated > archived > active); `pinned` true. The body must have
    changed on one side only. None when the two sides really disagree (then a conflict copy)."""
    if base is None:
        return None
    try:
        b, o, t = (notes.parse(x, rel) for x in (base, ours, theirs))
    except VaultError:
        return None
    if o.body != t.body and o.body != b.body and t.body != b.body:
        return None
    changes, removed = {}, []
    for key in list(dict.fromkeys([*o.meta, *t.meta])):
        bv, ov, tv = b.meta.get(key), o.meta.get(key), t.meta.get(key)
        if ov == tv or tv == bv:
            continue
        if ov == bv:
            if tv is None:
                removed.append(key)
            else:
                changes[key] = tv
        elif key in _UNION and isinstance(ov, list) and isinstance(tv, list):
            changes[key] = ov + [x for x in tv if x not in ov]
        elif key == "status" and isinstance(ov, str) and isinstance(tv, str) and {ov, tv} <= set(_STATUS_RANK):
            changes[key] = max(ov, tv, key=_STATUS_RANK.__getitem__)
        elif key == "pinned" and isinstance(ov, bool) and isinstance(tv, bool):
            changes[key] = ov or tv
        else:
            return None
    text = ours if o.body == t.body or t.body == b.body else ours[: len(ours) - len(o.body)] + t.body
    return notes.update_front_matter(text, changes, tuple(removed), path=rel) if changes or removed else text


# -- tombstones: a purged memory never comes back ----------------------------------------------------
def _refuse_pending(e: Engine, tombs: Tombstones) -> None:
    """A file waiting to be committed that is a purged memory stops the sync before it is committed."""
    if not tombs:
        return
    for rel in e.repo.dirty():
        file = e.layout.abs(rel)
        try:
            data = file.read_bytes() if file.is_file() else None
        except OSError:
            continue
        which = data is not None and tombs.holds(gitlog.blob_hash(data), data)
        if which:
            raise VaultError(
                f"{rel}: is memory {which}, which was purged from this vault; delete the file (nothing was synced)"
            )


def _first_purged(e: Engine, tombs: Tombstones, *revs: str) -> str | None:
    """The purged memory the first blob of `revs` that holds one is (rev-list arguments), or None."""
    for sha, data in e.repo.blobs(*revs):
        which = tombs.holds(sha, data)
        if which:
            return which
    return None


def _replaced_commits(e: Engine) -> set[str]:
    file = e.root / purge.PURGE_DIR / purge.REWRITTEN
    try:
        return set(file.read_text(encoding="utf-8").split())
    except OSError:
        return set()


def _fetch(e: Engine, name: str, branch: str, tombs: Tombstones) -> None:
    """Fetch `name`; when this vault has purged memories, what the remote brings is looked at first
    and refused (fetch undone, objects pruned) when it holds one of them."""
    if not tombs:
        e.repo.fetch(name)
        return
    tip = e.repo.remote_tip(name, branch)
    if tip is None or e.repo.rev_exists(f"{tip}^{{commit}}"):
        e.repo.fetch(name)  # nothing there, or nothing new to us (what we hold is looked at after)
        return
    replaced = _replaced_commits(e)  # (a tip among them is not refused unseen: another clone's purge may differ)
    incoming = e.repo.fetch_quarantined(name, branch)
    which = _first_purged(e, tombs, incoming, "--not", "HEAD")
    if which:
        foreign = (
            len([c for c in e.repo.rev_list(incoming, "--not", "HEAD") if c not in replaced]) if replaced else None
        )
        e.repo.drop_quarantine(prune=True)
        raise VaultError(_remote_holds(name, branch, tip, which, foreign))
    e.repo.drop_quarantine(prune=False)
    e.repo.fetch(name)


def _refuse_purged(e: Engine, name: str, branch: str, upstream: str, tombs: Tombstones) -> None:
    """Neither side may bring back a memory either side purged."""
    exists = e.repo.rev_exists(upstream)
    every = tombs.union(purge.tombstones(e, upstream)) if exists else tombs
    if not every:
        return
    if exists:
        which = _first_purged(e, every, upstream, "--not", "HEAD")
        if which:
            raise VaultError(_remote_holds(name, branch, e.repo.rev(upstream), which, None))
    which = _first_purged(e, every, "HEAD", "--not", upstream if exists else f"--remotes={name}")
    if which:
        raise VaultError(
            f"memory {which} was purged (.ihmt/purged.json) but this clone's history still holds it: "
            f"nothing was merged or pushed; run 'ihmt forget {which} --purge' here (or re-clone "
            f"from {name}), then 'ihmt sync'"
        )


def _remote_holds(name: str, branch: str, tip: str, which: str, foreign: int | None) -> str:
    lose = (
        "it has nothing this vault lacks, so "
        if foreign == 0
        else f"it also has {foreign} commits another clone made on the old history (purge that clone and sync "
        f"from it first, or lose them): "
        if foreign
        else ""
    )
    return (
        f"{name}/{branch} still holds memory {which}, which was purged here: nothing was merged or pushed; "
        f"{lose}overwrite it with 'git push --force-with-lease={branch}:{tip} {name} HEAD:{branch}', then "
        f"re-clone every other copy or run 'ihmt forget {which} --purge' in it before its next sync"
    )
