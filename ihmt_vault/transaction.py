"""The write transaction: what one operation touched, and how it becomes one commit.

`Engine.transaction()` opens one under the vault lock (see engine.py for the whole write path).
Every path is recorded in the journal *before* it is written, and files are written atomically,
so a crash leaves either the last commit or a journal naming every touched path, which the next
write or `doctor --repair` completes. `finish` refreshes the catalog, regenerates each touched
folder's summary chain bottom-up (writing only what changed), commits exactly the touched paths
with the operation's trailers, updates the search index and clears the journal.
"""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import gitlog, notes, tree
from .draft import Draft
from .errors import BadInput, BrokenFile, VaultError
from .notes import Memory
from .layout import GARDEN_FILE
from .sensitive import find_secret

if TYPE_CHECKING:  # the engine creates transactions; this only names its type
    from .engine import Engine


OVERFLOW = 2   # branch factors of memories the inbox keeps after a split; the rest goes where placement points


class Transaction:
    """What one operation touched; `finish` turns it into summaries, one commit and fresh caches."""

    def __init__(self, engine: "Engine", op: str, subject: str, trailers: list, agent: str, journal: bool = True):
        self.e = engine
        self.op = op
        self.subject = subject
        self.trailers = list(trailers)
        self.agent = agent
        self.paths: set[str] = set()       # every vault path written or deleted
        self.written: set[str] = set()     # those this transaction wrote itself (a refusal puts them back)
        self.checked: set[str] = set()     # those taken in (a person's edit, ...) whose writer's role allows them
        self.folders: set[str] = set()     # folders whose summaries must be regenerated
        self.summaries_written: list[str] = []
        self.reindex_all = False
        self.commit: str | None = None
        self.merge_parent: str | None = None   # a sync merge: the other side's commit, a second parent
        self.body = ""                          # the commit message's body (between subject and trailers)
        self.refused: list[tuple[str, str]] = []   # (path, kind of secret) left out of the commit
        self._journal = journal
        self._placer: tree.Placer | None = None
        self.known: dict[str, tuple[Memory, list[str]]] = {}   # files this operation wrote, parsed
        self.moved: list[tuple[str, str]] = []    # (from path, to path), in order
        self.closest: dict[str, list[str]] = {}   # a memory placed without a topic: the next best top folders

    def _record(self, rel: str, change: str = "write") -> None:
        self.e.gate.check(self.op, self.agent, rel, change)   # the roles: `Refused` before the write
        self.written.add(rel)
        if self._journal:
            self.e.journal.record(rel, self.op, self.subject, self.agent)
        self.paths.add(rel)

    def allowed(self, rel: str, change: str = "write") -> str | None:
        """Why the roles refuse taking in a change this operation did not write (a person's edit),
        or None; the caller leaves a refused one out and reports it."""
        why = self.e.gate.refusal(self.op, self.agent, rel, change)
        if why is None:
            self.checked.add(rel)
        return why

    def write(self, rel: str, text: str, expected: bytes | None = None) -> bool:
        """Write a file (journalled first); with `expected`, only if it still holds those bytes."""
        self._record(rel)
        self.known.pop(rel, None)  # rewritten: parse it again when needed
        if self.e.layout.is_memory_path(rel):
            self.folders.add(tree.folder_of(rel))
        return notes.write_atomic(self.e.layout.abs(rel), text, expected)

    def copy_in(self, rel: str, source: Path) -> None:
        """Copy a file from outside the vault as it is (an imported note's attachment), journalled
        first and written atomically like every other write."""
        self._record(rel)
        dest = self.e.layout.abs(rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name[:80]}.{os.getpid()}.ihmt-tmp")
        shutil.copyfile(source, tmp)
        os.replace(tmp, dest)

    def remove(self, rel: str) -> None:
        self._record(rel, "delete")
        self.e.layout.abs(rel).unlink(missing_ok=True)
        self.folders.add(rel.rpartition("/")[0])

    def move(self, rel: str, folder: str) -> str:
        name = rel.rpartition("/")[2]
        dest = self.free_name(folder, name.removesuffix(".md"))
        self._record(rel, "move")
        self._record(dest)
        self.e.layout.abs(dest).parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.e.layout.abs(rel), self.e.layout.abs(dest))
        self.moved.append((rel, dest))
        self.folders.update({rel.rpartition("/")[0], folder})
        if rel in self.known:
            m, kws = self.known.pop(rel)
            self.known[dest] = (replace(m, path=dest), kws)
        return dest

    def refile(self, rel: str, folder: str) -> tuple[str, str]:
        """The gardener's move: a memory whose folder placement or the gardener chose (its `placed`
        key names the folder it is in) keeps that mark, now naming its new folder; one a person
        placed (saved with a topic, or moved by hand since) is moved without the mark. (new path, id)"""
        kws = self.known[rel][1] if rel in self.known else None
        try:
            m = self.known[rel][0] if rel in self.known else self.e.read(rel)
        except VaultError:
            m = None
        dest = self.move(rel, folder)
        if m is not None and placed_by_gardener(m):
            self.rewrite(dest, lambda text: notes.update_front_matter(text, {notes.PLACED: folder}, path=dest))
            if kws is not None:   # still known: later splits in this operation read it without the disk
                self.known[dest] = (notes.parse(notes.read_exact(self.e.layout.abs(dest)), dest), kws)
        return dest, m.id if m else ""

    def edit(self, m: Memory, changes: dict, remove: tuple[str, ...] = ()) -> None:
        """Change front-matter keys of a memory file as it is *now* (see `rewrite`)."""
        self.rewrite(m.path, lambda text: notes.update_front_matter(text, changes, remove, path=m.path))

    def rewrite(self, rel: str, change: Callable[[str], str]) -> None:
        """Write `change(text)` of a memory file as it is *now*: a compare-and-swap, so a person's
        edit that lands between our read and our write is re-read and kept."""
        file = self.e.layout.abs(rel)
        for _attempt in range(20):
            before = file.read_bytes()
            try:
                text = before.decode("utf-8")
            except UnicodeDecodeError:
                raise BrokenFile(rel, "is not UTF-8 text", "re-save it as UTF-8") from None
            if self.write(rel, change(text), expected=before):
                return
        raise VaultError(f"{rel}: keeps changing while ihmt updates it; try again in a moment")

    def mark_outdated(self, old: Memory, new_id: str) -> None:
        by = old.superseded_by + ([new_id] if new_id not in old.superseded_by else [])
        self.edit(old, {"status": "outdated", "superseded_by": by})

    def free_name(self, folder: str, stem: str) -> str:
        base = f"{folder}/{stem}" if folder else stem
        rel, n = f"{base}.md", 2
        while self.e.layout.abs(rel).exists() or rel in self.paths:
            rel, n = f"{base}-{n}.md", n + 1
        return rel

    def create(self, drafts: list[Draft], progress: Callable[[int, int], None] | None = None) -> list[Memory]:
        """Write new memory files, placing those without a topic."""
        created = []
        now = notes.now_timestamp()
        for n, d in enumerate(drafts):
            kws = tree.keywords(d.title, d.text, d.tags)
            folder = d.folder
            if folder is None:
                self._placer = self._placer or self.e.placer()
                folder = self._placer.place(kws, d.type)
            if folder and tree.depth(folder) > self.e.config.max_depth:
                raise BadInput(f"topic {folder}: deeper than max_depth {self.e.config.max_depth}")
            if self._placer:
                self._placer.add(folder, kws)
            rel = self.free_name(folder, notes.slugify(d.title))
            d.id = d.id or notes.new_id()
            if d.folder is None:
                self.closest[d.id] = [f for s, f in self._placer.last if s > 0 and f != folder.split("/")[0]][:3]
            fields = {"id": d.id, "title": d.title, "type": d.type, "date": d.date,
                      "created": now, "tags": d.tags, "status": "active", "supersedes": d.supersedes or None,
                      "source": d.source, "pinned": d.pinned, **d.extra}
            if d.folder is None:   # placement chose the folder: the gardener may re-file it (`refile`)
                fields[notes.PLACED] = folder
            text = notes.compose(fields, d.text)
            self.write(rel, text)
            created.append(notes.parse(text, rel))
            self.known[rel] = (created[-1], kws)
            if progress:
                progress(n + 1, len(drafts))
        return created

    def split_crowded(self, folders: set[str]) -> dict[str, list[str]]:
        """Split every crowded folder among `folders` into subtopics; returns {folder: moved ids}.
        What the splits re-file around them can crowd another folder: that one is split too, once."""
        moved: dict[str, list[str]] = {}
        cfg = self.e.config
        vault_theme: set[str] = set()
        live = 0
        if folders:   # what this operation wrote is not in the catalog yet: counted on top of it
            held, n = self.e.catalog.keyword_holders()
            held = held + Counter(w for _m, k in self.known.values() for w in set(k))
            live = n + len(self.known)
            vault_theme = tree.theme(tree.stem_counts(held), live, cfg.branch_factor)
        split, made = self._split_each(sorted(folders), vault_theme, moved)
        refiled = []
        if tree.INBOX in folders:   # split or not, what the inbox still holds beyond its share is filed
            refiled += self.file_overflow()
        if split:
            # early splits are made on few memories, and placement filed others on the few words it
            # knew then: what any folder the gardener made holds that another now fits better goes there
            refiled += self.refile_misplaced(topic_folders(self.e), set(made_folders(self.e)))
            near = set()
            for folder in split:
                parent = tree.folder_of(folder)
                near |= {folder, *self._subfolders(folder), *self._subfolders(parent)}
            tops = {f.split("/")[0] for f in split | set(made)} - {tree.INBOX}
            refiled += self.promote_oversized(tops, live)
            refiled += self.rename_misnamed(near, vault_theme)
        for rel, (_dest, id_) in refiled:
            moved.setdefault(tree.folder_of(rel), []).append(id_)
        # a folder these moves filled past the branch factor would otherwise grow unsplit: saves
        # try a split only in the folder they save into
        filled = {tree.folder_of(dest) for _rel, (dest, _id) in refiled} - split - {tree.INBOX}
        self._split_each(sorted(f for f in filled if len(self.e.layout.memory_names(f)) > cfg.branch_factor),
                         vault_theme, moved)
        return moved

    def _split_each(self, queue: list[str], vault_theme: set[str],
                    moved: dict[str, list[str]]) -> tuple[set[str], dict[str, str]]:
        """Split each folder of `queue`, and the subtopics it makes while they stay crowded; adds the
        ids moved to `moved` (by folder) and records the new subfolders in `GARDEN_FILE`. Returns the
        folders split and {new subfolder: the folder it came from}."""
        cfg = self.e.config
        split: set[str] = set()
        made: dict[str, str] = {}
        while queue:
            folder = queue.pop()
            if not folder or folder.split("/")[0] == tree.ARCHIVE or tree.depth(folder) >= cfg.max_depth:
                continue
            rows = self._rows_in(folder)
            plan = tree.plan_split(rows, set(self.e.layout.subfolders(tree.split_into(folder))), cfg.branch_factor,
                                   vault_theme=vault_theme)
            split |= {folder} if plan else set()
            for name, paths in plan.items():
                sub = f"{tree.split_into(folder)}/{name}".lstrip("/")
                if not self.e.layout.abs(sub).is_dir():
                    made[sub] = folder
                for rel in paths:
                    self.refile(rel, sub)
                    moved.setdefault(folder, []).append(next(r["id"] for r in rows if r["path"] == rel))
                queue.append(sub)
        if made:
            self.record_made({**made_folders(self.e), **made})
        return split, made

    def file_overflow(self) -> list[tuple[str, tuple[str, str]]]:
        """What the inbox still holds beyond OVERFLOW branch factors after a split was tried: the
        memories placement finds any evidence for (`Placer.place` without its threshold) go where
        it points, the best evidence first, so that memories fitting nothing well do not pile up in
        the inbox without bound. The moves: (from path, (to path, id))."""
        excess = len(self.e.layout.memory_names(tree.INBOX)) - OVERFLOW * self.e.config.branch_factor
        if excess <= 0:
            return []
        placer = self.e.placer()
        scored = []
        for r in self._rows_in(tree.INBOX):
            folder = placer.place(r["keywords"], strong=1e-9) if r["movable"] else tree.INBOX
            if folder != tree.INBOX:
                scored.append((-placer.last[0][0], r["path"], folder))
        return [(rel, self.refile(rel, folder)) for _s, rel, folder in sorted(scored)[:excess]]

    def promote_oversized(self, tops: set[str], live: int) -> list[tuple[str, tuple[str, str]]]:
        """A top folder the gardener made that holds more than a quarter of a vault of `live` memories
        (at least 4 branch factors) hands the subfolders the gardener made in it up to the top: one name
        over a quarter of the vault tells little apart, and its memories already clustered apart into
        those subfolders. A name already at the top stays nested; a folder a person made, or one holding
        a memory a person placed, is never moved. The moves: (from path, (to path, id))."""
        if live < 4 * self.e.config.branch_factor:
            return []
        made = made_folders(self.e)
        moves: list[tuple[str, tuple[str, str]]] = []
        for top in sorted(t for t in tops if t in made):
            for sub in self._subfolders(top):
                name = sub.rpartition("/")[2]
                if 4 * self._count_under(top) <= live:
                    break
                if sub not in made or name in (tree.ARCHIVE, tree.INBOX) or self.e.layout.abs(name).exists():
                    continue
                if not all(r["movable"] for f in self._folders_under(sub) for r in self._rows_in(f)):
                    continue   # a memory a person placed there stays where they put it
                for folder in self._folders_under(sub):
                    moves += self._refile_all(folder, name + folder[len(sub):])
                made = {(name + k[len(sub):] if k == sub or k.startswith(sub + "/") else k):
                        (name + v[len(sub):] if v.startswith(sub + "/") else v) for k, v in made.items()}
        if moves:
            self.record_made(made)
        return moves

    def rename_misnamed(self, folders: set[str], vault_theme: set[str] = frozenset()) -> list[tuple[str, tuple[str, str]]]:
        """Rename each folder among `folders` that `rename_plan` finds misnamed; the moves:
        (from path, (to path, id))."""
        made = made_folders(self.e)
        moves: list[tuple[str, tuple[str, str]]] = []
        for folder, dest in rename_plan(self.e, folders, self._rows_in, vault_theme).items():
            moves += self._refile_all(folder, dest)
            made[dest] = made.pop(folder)
        if moves:
            self.record_made(made)
        return moves

    def _refile_all(self, folder: str, dest: str) -> list[tuple[str, tuple[str, str]]]:
        """Every memory directly in `folder` re-filed into `dest`; the moves."""
        return [(rel, self.refile(rel, dest)) for rel in (f"{folder}/{n}" for n in self.e.layout.memory_names(folder))]

    def _folders_under(self, folder: str) -> list[str]:
        out = [folder]
        for sub in self._subfolders(folder):
            out += self._folders_under(sub)
        return out

    def _count_under(self, folder: str) -> int:
        return sum(len(self.e.layout.memory_names(f)) for f in self._folders_under(folder))

    def refile_misplaced(self, folders: set[str], sources: set[str]) -> list[tuple[str, tuple[str, str]]]:
        """Move each memory of a folder among `sources` (the gardener's) whose folder placement or the
        gardener chose, and which another of `folders` clearly fits better (`tree.misplaced`), there;
        the moves: (from path, (to path, id))."""
        rows = [r for f in sorted(folders) for r in self._rows_in(f)]
        return [(rel, self.refile(rel, dest)) for rel, dest in sorted(tree.misplaced(rows, sources).items())]

    def _subfolders(self, folder: str) -> list[str]:
        return subfolders(self.e, folder)

    def record_made(self, made: dict[str, str]) -> None:
        """Write which folders the gardener made ({folder: the folder it was split from}) to
        `GARDEN_FILE`, committed with the moves that made them."""
        text = json.dumps({"made": dict(sorted(made.items()))}, indent=1, ensure_ascii=False) + "\n"
        if not self.e.layout.abs(GARDEN_FILE).is_file() or notes.read_exact(self.e.layout.abs(GARDEN_FILE)) != text:
            self.write(GARDEN_FILE, text)

    def _rows_in(self, folder: str) -> list[dict]:
        return rows_in(self.e, folder, self.known)

    # -- finishing --------------------------------------------------------------------------------
    def finish(self) -> None:
        e = self.e
        if not (self.paths or self.folders or self.reindex_all):
            e.journal.clear()
            return
        if self.merge_parent is None:  # a merge's files came from the other side, whose commits were checked;
            # and what an operation took in without asking (a repair, a recovery) is asked now
            for rel in e.repo.dirty(sorted(self.paths - self.written - self.checked)):
                self.e.gate.check(self.op, self.agent, rel, "write" if self.e.layout.abs(rel).exists() else "delete")
        self._leave_out_secrets()
        if self.paths:
            e.recalls.flush(self.write)  # this machine's recall counts travel with the next commit
        memory_paths = [p for p in self.paths if e.layout.is_memory_path(p)]
        catalogued = e.recatalog([p for p in memory_paths if e.layout.abs(p).exists()],
                                 [p for p in memory_paths if not e.layout.abs(p).exists()], self.known)
        for folder in tree.bottom_up(f for fo in self.folders for f in tree.parents(fo)):
            self._regenerate(folder)
        trailers = [(k, val) for k, val in self.trailers if k != "Agent"] + [("Agent", self.agent)]
        if self.op and not any(k == "Memory-Op" for k, _ in trailers):
            trailers.insert(0, ("Memory-Op", self.op))
        self.commit = e.repo.commit(sorted(self.paths), gitlog.message(self.subject, trailers, self.body),
                                    merge_parent=self.merge_parent)
        try:
            if not self.reindex_all:
                rewritten = {tree.folder_of(p) for p in self.summaries_written}  # unchanged ones stay as indexed
                e.reindex(catalogued, rewritten)
            else:
                e.rebuild_caches()
        except Exception:  # the index is a cache: its failure must not fail an operation already committed
            e.index.invalidate()  # the next search or refresh rebuilds it
        e.journal.clear()

    def _leave_out_secrets(self) -> None:
        """The last guard of the write path: a memory file this operation did not write from a
        validated draft (a hand edit taken in, a file a repair or a recovery commits) whose text holds
        a secret is not committed nor indexed; it stays on disk and is listed in `refused`."""
        for rel in sorted(self.paths):
            file = self.e.layout.abs(rel)
            if rel in self.known or not self.e.layout.is_memory_path(rel) or not file.is_file():
                continue
            try:
                kind = find_secret(file.read_bytes().decode("utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
            if kind:
                self.paths.discard(rel)
                self.refused.append((rel, kind))
                self.e.catalog.delete(rel)

    def _regenerate(self, folder: str) -> None:
        e = self.e
        rel = tree.summary_path(folder)
        text = e.render_folder(folder)
        if text is None:  # an emptied topic disappears
            if e.layout.abs(rel).exists():
                self.remove(rel)
                self.summaries_written.append(rel)
            try:
                e.layout.abs(folder).rmdir()
            except OSError:
                pass
            return
        try:
            same = notes.read_exact(e.layout.abs(rel)) == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:  # only real changes: no needless writes, events or diffs
            self.write(rel, text)
            self.summaries_written.append(rel)




def made_folders(e: "Engine") -> dict[str, str]:
    """{folder: the folder it was split from} for every folder the gardener made (a folder a
    person made is not there, so the gardener never merges it away)."""
    try:
        made = json.loads(e.layout.abs(GARDEN_FILE).read_text(encoding="utf-8")).get("made") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    return {str(k): str(v) for k, v in made.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(made, dict) else {}


def rows_in(e: "Engine", folder: str, known: dict | None = None) -> list[dict]:
    """A folder's memories as they are on disk now (`known`: files an operation wrote, parsed)."""
    rows, known = [], known or {}
    for name in e.layout.memory_names(folder):
        rel = f"{folder}/{name}"
        if rel in known:
            m, kws = known[rel]
            rows.append({"path": rel, "id": m.id, "keywords": kws, "text": _text(m), "movable": placed_by_gardener(m)})
        elif e.layout.abs(rel).is_file():
            try:
                m = e.read(rel)
            except VaultError:
                continue
            rows.append({"path": rel, "id": m.id, "keywords": tree.keywords(m.title, m.body, m.tags),
                         "text": _text(m), "movable": placed_by_gardener(m)})
    return rows


def topic_folders(e: "Engine") -> set[str]:
    """Every folder holding memories, the inbox and the archive aside."""
    return {f for f in e.layout.all_folders() if f and f.split("/")[0] not in (tree.ARCHIVE, tree.INBOX)}


def subfolders(e: "Engine", folder: str) -> list[str]:
    """A folder's subfolders as vault paths (the archive is no subfolder of the root)."""
    return [f"{folder}/{n}" if folder else n for n in e.layout.subfolders(folder) if folder or n != tree.ARCHIVE]


def rename_plan(e: "Engine", folders: set[str], rows_of: Callable[[str], list[dict]],
                vault_theme: set[str] = frozenset()) -> dict[str, str]:
    """{folder: the folder it becomes} for each of `folders` the gardener made whose name its memories
    no longer hold (`tree.misnamed`). Only a folder without subfolders, without a description someone
    wrote, holding only memories placement or the gardener filed, and only to a name still free."""
    made = made_folders(e)
    cands = {f for f in folders if f in made and e.layout.abs(f).is_dir() and not e.layout.subfolders(f)
             and not e.description(f)}
    rows = [r for p in sorted({tree.folder_of(f) for f in cands}) for f in subfolders(e, p) for r in rows_of(f)]
    cands = {f for f in cands if all(r["movable"] for r in rows if tree.folder_of(r["path"]) == f)}
    out = {}
    for folder, name in tree.misnamed(rows, cands, vault_theme).items():
        dest = f"{tree.folder_of(folder)}/{name}".lstrip("/")
        if name not in (tree.ARCHIVE, tree.INBOX) and not e.layout.abs(dest).exists():
            out[folder] = dest
    return out


def placed_by_gardener(m: Memory) -> bool:
    """Whether placement or the gardener chose the folder a memory is in (the gardener may move it
    again): its `placed` key names that folder. Saved with a topic it has none; moved by hand, the
    key names another folder."""
    return m.meta.get(notes.PLACED) == m.folder


def _text(m: Memory) -> str:
    """What a memory says, for clustering: its title counts again unless the body begins with it."""
    return m.body if m.body.lstrip().startswith(m.title.rstrip(".")) else f"{m.title}\n{m.body}"
