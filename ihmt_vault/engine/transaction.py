"""The write transaction: what one operation touched, and how it becomes one commit.

`Engine.transaction()` opens one under the vault lock (see engine.py for the whole write path).
Every path is recorded in the journal *before* it is written, and files are written atomically,
so a crash leaves either the last commit or a journal naming every touched path, which the next
write or `doctor --repair` completes. `finish` refreshes the catalog, regenerates each touched
folder's summary chain bottom-up (writing only what changed), commits exactly the touched paths
with the operation's trailers, updates the search index and clears the journal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from .. import files
from ..config import Config
from ..errors import BadInput, BrokenFile, VaultError
from ..storage import gitlog, notes, tree
from ..storage.catalog import Catalog
from ..storage.draft import Draft
from ..storage.layout import Layout
from ..storage.notes import Memory
from ..storage.recall import Recalls
from ..storage.roles import Gate
from ..storage.sensitive import find_secret
from .journal import Journal


@dataclass
class Recatalogued:
    """What a catalog update means for the search index: documents to (re)index and keys to drop,
    and the catalog generation before and after."""

    before: str | None
    after: str = "0"
    docs: list = field(default_factory=list)
    gone: list[str] = field(default_factory=list)


class Host(Protocol):
    """What a transaction needs of the engine that opens it (the engine is one; naming the parts
    here, not the engine, keeps the write path free of an import circle)."""

    config: Config
    layout: Layout
    repo: gitlog.Repo
    catalog: Catalog
    journal: Journal
    gate: Gate

    @property
    def recalls(self) -> Recalls: ...
    @property
    def index(self) -> Any: ...
    def read(self, rel: str) -> Memory: ...
    def placer(self) -> tree.Placer: ...
    def render_folder(self, folder: str, description: str | None = None) -> str | None: ...
    def recatalog(self, changed: Iterable[str], deleted: Iterable[str], known: dict | None = None) -> Recatalogued: ...
    def reindex(self, r: Recatalogued, summaries: set[str]) -> None: ...
    def rebuild_index(self, generation: str | None = None) -> None: ...


class Transaction:
    """What one operation touched; `finish` turns it into summaries, one commit and fresh caches."""

    def __init__(self, engine: Host, op: str, subject: str, trailers: list, agent: str, journal: bool = True):
        self.e = engine
        self.op = op
        self.subject = subject
        self.trailers = list(trailers)
        self.agent = agent
        self.paths: set[str] = set()  # every vault path written or deleted
        self.written: set[str] = set()  # those this transaction wrote itself (a refusal puts them back)
        self.checked: set[str] = set()  # those taken in (a person's edit, ...) whose writer's role allows them
        self.folders: set[str] = set()  # folders whose summaries must be regenerated
        self.summaries_written: list[str] = []
        # the operation refilled the catalog (a rebuild): the index is rebuilt after the commit
        self.reindex_all = False
        self.commit: str | None = None
        self.merge_parent: str | None = None  # a sync merge: the other side's commit, a second parent
        self.body = ""  # the commit message's body (between subject and trailers)
        self.refused: list[tuple[str, str]] = []  # (path, kind of secret) left out of the commit
        self._journal = journal
        self._placer: tree.Placer | None = None
        self.known: dict[str, tuple[Memory, list[str]]] = {}  # files this operation wrote, parsed
        self.moved: list[tuple[str, str]] = []  # (from path, to path), in order
        self.created: dict[str, tuple[dict, str]] = {}  # new files this operation wrote: (fields, body)
        self.closest: dict[str, list[str]] = {}  # a memory placed without a topic: the next best top folders

    def _record(self, rel: str, change: str = "write") -> None:
        self.e.gate.check(self.op, self.agent, rel, change)  # the roles: `Refused` before the write
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
        return files.atomic_write(self.e.layout.abs(rel), text, expected)

    def copy_in(self, rel: str, source: Path) -> None:
        """Copy a file from outside the vault as it is (an imported note's attachment), journalled
        first and written atomically like every other write."""
        self._record(rel)
        files.atomic_write(self.e.layout.abs(rel), source.read_bytes())

    def remove(self, rel: str) -> None:
        self._record(rel, "delete")
        self.e.layout.abs(rel).unlink(missing_ok=True)
        self.folders.add(rel.rpartition("/")[0])

    def move(self, rel: str, folder: str, stem: str | None = None) -> str:
        """Move a file into `folder` (keeping its name, or as `stem`.md); returns its new path."""
        name = rel.rpartition("/")[2]
        dest = self.free_name(folder, stem or name.removesuffix(".md"))
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
        made = self.created.pop(rel, None)
        dest = self.move(rel, folder)
        if made is not None:  # written by this operation a moment ago: composed again, not parsed and rewritten
            fields, body = made
            fields = {**fields, notes.PLACED: folder} if notes.PLACED in fields else fields
            self.write(dest, notes.compose(fields, body))
            self.created[dest] = (fields, body)
            if kws is not None and m is not None:  # what was parsed, at its new place: not parsed again
                meta = {**m.meta, notes.PLACED: folder} if notes.PLACED in fields else m.meta
                self.known[dest] = (replace(m, path=dest, meta=meta), kws)
        elif m is not None and notes.placed_by_gardener(m):
            self.rewrite(dest, lambda text: notes.update_front_matter(text, {notes.PLACED: folder}, path=dest))
            if kws is not None:  # still known: later splits in this operation read it without the disk
                self.known[dest] = (notes.parse(files.read_exact(self.e.layout.abs(dest)), dest), kws)
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
            placer = None  # set when placement chooses the folder
            if folder is None:
                placer = self._placer = self._placer or self.e.placer()
                folder = placer.place(kws, d.type, text=f"{d.title}\n{d.text}")
            if folder and tree.depth(folder) > self.e.config.max_depth:
                raise BadInput(f"topic {folder}: deeper than max_depth {self.e.config.max_depth}")
            if self._placer:
                self._placer.add(folder, kws)
            rel = self.free_name(folder, notes.slugify(d.title))
            d.id = d.id or notes.new_id()
            if placer is not None:
                self.closest[d.id] = [f for s, f in placer.last if s > 0 and f != folder.split("/")[0]][:3]
            fields = {
                "id": d.id,
                "title": d.title,
                "type": d.type,
                "date": d.date,
                "created": now,
                "tags": d.tags,
                "status": "active",
                "supersedes": d.supersedes or None,
                "source": d.source,
                "pinned": d.pinned,
                **d.extra,
            }
            if d.folder is None:  # placement chose the folder: the gardener may re-file it (`refile`)
                fields[notes.PLACED] = folder
            text = notes.compose(fields, d.text)
            self.created[rel] = (fields, d.text)
            self.write(rel, text)
            created.append(notes.parse(text, rel))
            self.known[rel] = (created[-1], kws)
            if progress:
                progress(n + 1, len(drafts))
        return created

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
        catalogued = e.recatalog(
            [p for p in memory_paths if e.layout.abs(p).exists()],
            [p for p in memory_paths if not e.layout.abs(p).exists()],
            self.known,
        )
        for folder in tree.bottom_up(f for fo in self.folders for f in tree.parents(fo)):
            self._regenerate(folder)
        trailers = [(k, val) for k, val in self.trailers if k != "Agent"] + [("Agent", self.agent)]
        if self.op and not any(k == "Memory-Op" for k, _ in trailers):
            trailers.insert(0, ("Memory-Op", self.op))
        self.commit = e.repo.commit(
            sorted(self.paths), gitlog.message(self.subject, trailers, self.body), merge_parent=self.merge_parent
        )
        try:
            if not self.reindex_all:
                rewritten = {tree.folder_of(p) for p in self.summaries_written}  # unchanged ones stay as indexed
                e.reindex(catalogued, rewritten)
            else:
                e.rebuild_index()
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
            same = files.read_exact(e.layout.abs(rel)) == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:  # only real changes: no needless writes, events or diffs
            self.write(rel, text)
            self.summaries_written.append(rel)
