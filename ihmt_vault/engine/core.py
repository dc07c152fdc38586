"""The engine: what every operation of a vault stands on (package-internal; `Vault` is the API).

It holds the vault's parts — settings, path rules, the git repository, the write lock, the
catalog, the search index, the journal — and offers the operations modules a typed interface to
them: reading memories, keeping the caches fresh, rendering summaries, placing new memories, and
THE write path, `Engine.transaction()`.

The write path. Every operation that changes the vault runs inside one transaction:

1. it takes the vault lock (one writer at a time across processes),
2. finishes any operation a crash interrupted (the journal),
3. the operation validates all its input before touching the disk (`BadInput`; nothing written),
4. writes files atomically, each path first allowed by the vault's roles (roles.py: a `Refused`
   rolls back what the operation wrote, so it changed nothing) and recorded in the journal,
5. `Transaction.finish` refreshes the catalog and regenerates the `index.md` chain of every
   touched folder bottom-up, leaves out any file that must not be committed (broken, or holding
   a secret), commits exactly the paths touched as one commit with the DESIGN.md trailers,
6. updates the search index, then clears the journal.

Invariants: a memory file is never half-written (atomic rename); a crash at any point leaves files
that are either committed or listed in the journal, which the next write or `doctor --repair`
completes; the catalog and the search index are caches of the files, rebuilt when missing,
corrupt or behind. Reads never take the lock and never wait for a writer.
"""

from __future__ import annotations

import struct
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from pathlib import Path

from .. import files
from ..config import Config
from ..errors import BadInput, BrokenFile, NotFound, Refused, VaultError
from ..results import Committed
from ..storage import gitlog, nested, notes, roles, timeline, tree
from ..storage.catalog import Catalog
from ..storage.layout import Layout
from ..storage.lock import VaultLock
from ..storage.notes import Memory
from ..storage.recall import Recalls
from ..storage.sensitive import find_secret
from .freshness import Freshness
from .journal import Journal
from .transaction import Recatalogued, Transaction

CACHE = ".ihmt/cache"
Progress = Callable[[int, int], None]


class Engine:
    """One open vault's parts and the write path; see the module docstring."""

    def __init__(self, root: Path, config: Config):
        self.root = root
        self.config = config
        self.layout = Layout(root)
        self.repo = gitlog.Repo(root)
        self.lock = VaultLock(root / ".ihmt" / "vault.lock", config.lock_timeout, root / CACHE / "lock-holder.json")
        self.catalog = Catalog(root / CACHE / "catalog.sqlite")
        self.journal = Journal(root / CACHE / "journal.jsonl")
        self.freshness = Freshness(self.layout, self.catalog, self.repo)
        self.gate = roles.Gate(self.repo)
        self._index = None
        self._recalls: Recalls | None = None
        self._after_running = False  # an `after_commit` reaction's own commits raise no new event
        self._warned: set[str] = set()  # why an optional part is off, once said
        self._last_refresh = float("-inf")
        self._seen_head = ""  # HEAD at the last refresh: another process's commit triggers a new one
        self._summaries_read: dict[str, tuple[tuple[int, int, int], dict]] = {}  # folder → (file version, front matter)

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None
        self.catalog.close()
        self.repo.close()

    @property
    def index(self):
        if self._index is None:
            from ..search import (  # Whoosh is loaded only by what searches
                SearchIndex,
                SearchSettings,
            )

            c = self.config
            self._index = SearchIndex(
                self.root / CACHE,
                rankers=self._rankers(),
                settings=SearchSettings(
                    beam=c.search_beam,
                    not_found_coverage=c.search_not_found_coverage,
                    tie=c.search_tie,
                    same_subject=c.search_same_subject,
                    context=c.search_context,
                ),
                embedder=self.embedder(),
            )
        return self._index

    def embedder(self):
        """The vector index's model the settings name (`embedder`), from the plugins; None when the
        setting is empty or the model cannot load — then search goes by words alone, and says so once."""
        model, why = self._embedder()
        if why:
            if why not in self._warned:  # one warning a cause: a ranker on the same model has said it already
                warnings.warn(
                    f"ihmt: the {self.config.embedder} model is off ({why}); searching by words alone", stacklevel=2
                )
            return None
        return model

    def _embedder(self) -> tuple[object | None, str | None]:
        """(the model the `embedder` setting names, why it cannot serve); (None, None) when none is named."""
        name = self.config.embedder
        if not name:
            return None, None
        from ..plugins import manager as plugins

        model = plugins.embedders_by_name().get(name)
        why = "no such embedder" if model is None else (model.problem() if hasattr(model, "problem") else None)
        return model, why

    @property
    def recalls(self) -> Recalls:
        if self._recalls is None:
            self._recalls = Recalls(self.root)
        return self._recalls

    def _rankers(self) -> list:
        """The optional rankers the settings name, from the plugins (a missing one is an error)."""
        if not self.config.rankers:
            return []
        from ..plugins import manager as plugins

        found = plugins.rankers_by_name()
        out = []
        for name in self.config.rankers:
            ranker = plugins.pick("ranker", found, name)
            ranker = ranker.for_vault(self.root / CACHE) if hasattr(ranker, "for_vault") else ranker
            why = ranker.problem() if hasattr(ranker, "problem") else None
            if why:  # an optional part: search goes on without it, and says so once
                warnings.warn(f"ihmt: the {name} ranker is off ({why}); searching by words alone", stacklevel=2)
                self._warned.add(why)
                continue
            out.append(ranker)
        return out

    def embedder_status(self) -> str:
        """The vector index's model: "active", "off: why", or "none" (the setting is empty)."""
        model, why = self._embedder()
        return f"off: {why}" if why else "active" if model is not None else "none"

    def ranker_status(self) -> dict[str, str]:
        """Each ranker the settings name: "active", or "off: why"."""
        from ..plugins import manager as plugins

        found = plugins.rankers_by_name()
        status = {}
        for name in self.config.rankers:
            ranker = found.get(name)
            why = "no such ranker" if ranker is None else (ranker.problem() if hasattr(ranker, "problem") else None)
            status[name] = f"off: {why}" if why else "active"
        return status

    # -- reading ----------------------------------------------------------------------------------
    def read(self, rel: str) -> Memory:
        try:
            return notes.read_memory(self.layout.abs(rel), rel)
        except FileNotFoundError:
            raise NotFound(f"{rel}: no such memory file") from None
        except IsADirectoryError:
            raise BadInput(f"{rel}: is a folder; give a memory file or use 'ihmt tree'") from None

    def resolve(self, id_or_path: str) -> str:
        """The vault-relative path of a memory given its id or its path."""
        ref = id_or_path.strip() if isinstance(id_or_path, str) else ""
        if not ref or any(c in ref for c in "\0\n\r"):  # no id or path holds these (and messages are one line)
            raise BadInput("give a memory id or a path inside the vault (one line)")
        rel = self.layout.safe_rel(ref)
        if rel and self.layout.is_memory_path(rel) and self.layout.abs(rel).is_file():
            return rel
        self.refresh()
        rows = self.catalog.by_id(ref)
        if not rows or not self.layout.abs(rows[0].path).is_file():  # new or moved by hand a moment ago
            self.refresh(force=True)
            rows = self.catalog.by_id(ref)
        if len(rows) > 1:
            raise VaultError(
                f"id {ref} is used by {len(rows)} files ({', '.join(r.path for r in rows)}); run 'ihmt doctor --repair'"
            )
        if not rows:
            raise NotFound(f"{ref}: no memory with this id or path; try 'ihmt search'")
        return rows[0].path

    def get(self, id_or_path: str) -> Memory:
        return self.read(self.resolve(id_or_path))

    def iter_memories(self, paths: Iterable[str]) -> Iterator[Memory]:
        """The memories at these vault paths as they are now; one gone or unreadable since it was
        listed (a broken hand edit: doctor reports it) is skipped."""
        for rel in paths:
            try:
                yield self.read(rel)
            except VaultError:
                continue

    def folder_info(self, folder: str) -> tree.FolderInfo | None:
        """What a parent lists of a subfolder, from the subfolder's index.md (fresh: bottom-up order)."""
        meta = self._summary_meta(folder)
        name = folder.rpartition("/")[2]
        count = meta.get("memories")
        if not isinstance(count, int):
            count = self.catalog.count("WHERE folder = ? OR folder LIKE ?", (folder, folder + "/%"))
        if not count:
            return None
        return tree.FolderInfo(
            name=name,
            title=str(meta.get("title") or tree.humanize(name)),
            count=count,
            keywords=[str(k) for k in meta.get("keywords") or []],
        )

    def _summary_meta(self, folder: str) -> dict:
        """A folder's index.md front matter, parsed once per version of the file (placement asks
        dozens of folders a save, and YAML is slow): keyed by the file's size and change time."""
        path = self.layout.abs(tree.summary_path(folder))
        try:
            st = path.stat()
            version = (st.st_ino, st.st_size, st.st_mtime_ns)
            known = self._summaries_read.get(folder)
            if known is not None and known[0] == version:
                return known[1]
            block, _ = notes.split_front_matter(path.read_text(encoding="utf-8"))
            meta = notes.front_matter_or_empty(block)
        except (OSError, UnicodeDecodeError):
            return {}
        self._summaries_read[folder] = (version, meta)
        return meta

    def render_folder(self, folder: str, description: str | None = None) -> str | None:
        """The index.md a folder should have now (None: an empty topic, to be removed)."""
        subs = [
            i
            for name in self.layout.subfolders(folder)
            if (i := self.folder_info(f"{folder}/{name}" if folder else name))
        ]
        rows = self.catalog.in_folder(folder)
        if folder and not rows and not subs:
            return None
        title = self.config.title if not folder else tree.humanize(folder.rpartition("/")[2])
        described = self.description(folder) if description is None else description
        text, _ = tree.render_summary(
            folder, title, rows, subs, lambda i: next(iter(self.catalog.by_id(i)), None), described
        )
        return text

    def description(self, folder: str) -> str:
        """The description a person or an agent wrote in a folder's index.md ('' when none)."""
        try:
            return tree.description_of(self.layout.abs(tree.summary_path(folder)).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return ""

    def placer(self) -> tree.Placer:
        """Placement of new memories by descending the tree (one per transaction)."""
        return tree.Placer(
            self.layout.subfolders,
            self.folder_info,
            self.config.branch_factor,
            self.config.max_depth,
            self.catalog.keyword_holders,
            self.index.folders_near,
        )

    # -- the caches -------------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        """Bring the catalog and the search index up to date with files changed outside the tool.

        Runs when another process committed, else at most every `refresh_interval` seconds, and only
        if the vault lock is free at once: readers never wait for a writer (whose own changes are
        indexed by the writer itself).
        """
        head = self.repo.head_fast()
        if (
            not force
            and head == self._seen_head
            and time.monotonic() - self._last_refresh < self.config.refresh_interval
        ):
            return
        try:
            with self.lock.held(timeout=None if force else 0):
                self._catch_up()
        except VaultError:
            return
        self.mark_fresh()

    def mark_fresh(self) -> None:
        """The caches reflect the files as of now (a writer's own changes are indexed by it)."""
        self._last_refresh = time.monotonic()
        self._seen_head = self.repo.head_fast()

    def _catch_up(self) -> None:
        state = self.index.state()
        if state is None or state.get("generation") != self.catalog.meta("generation"):
            self.rebuild_caches()  # the index is missing, damaged or behind: start over
            return
        look = self.freshness.look()
        if look.changed or look.deleted:
            self.update_caches(look.changed, look.deleted)
        with self.catalog.transaction():  # only now: a crash before this looks at those folders again
            self.catalog.set_dirs(look.dirs, replace_all=look.replace_all)
            self.catalog.drop_dirs(look.gone_dirs)

    def catch_up_since(self, before: str | None) -> None:
        """After HEAD moved under us (a merge, a checkout): the caches follow every file that changed."""
        changed = self.repo.changed_since(before) if before else None
        if changed is None:
            self.rebuild_caches()
            return
        memories = [p for p in changed if self.layout.is_memory_path(p)]
        self.update_caches(
            [p for p in memories if self.layout.abs(p).exists()],
            [p for p in memories if not self.layout.abs(p).exists()],
            {tree.folder_of(p) for p in changed if p.endswith(tree.INDEX)},
        )

    def catalog_file(self, rel: str, known: tuple[Memory, list[str]] | None = None) -> Memory | None:
        """Parse a file (unless this operation just wrote it: `known`) and put it in the catalog; a
        broken file, or one whose text holds a secret, is left out (doctor reports it)."""
        try:
            m = known[0] if known else self.read(rel)
            st = self.layout.abs(rel).stat()
        except (BrokenFile, NotFound, FileNotFoundError):
            self.catalog.delete(rel)
            return None
        if not known and find_secret(f"{m.title}\n{' '.join(m.tags)}\n{m.body}"):
            self.catalog.delete(rel)  # a person's file holding a secret: not indexed, not summarised
            return None
        kws = known[1] if known else tree.keywords(m.title, m.body, m.tags)
        self.catalog.upsert(m, notes.first_line(m.body), kws, st.st_mtime_ns, st.st_size, facts_of(m))
        return m

    def update_caches(
        self, changed: Iterable[str], deleted: Iterable[str], summaries: AbstractSet[str] = frozenset()
    ) -> None:
        self.reindex(self.recatalog(changed, deleted), summaries)

    def recatalog(self, changed: Iterable[str], deleted: Iterable[str], known: dict | None = None) -> Recatalogued:
        """Update the catalog for these files; what the search index must then do."""
        out = Recatalogued(before=self.catalog.meta("generation"))
        with self.catalog.transaction():
            for rel in deleted:
                row = self.catalog.by_path(rel)
                self.catalog.delete(rel)
                if row:
                    out.gone.append(row.id or f"path:{rel}")
            for rel in changed:
                old = self.catalog.by_path(rel)
                m = self.catalog_file(rel, (known or {}).get(rel))
                if old and (m is None or (old.id or f"path:{rel}") != (m.id or f"path:{rel}")):
                    out.gone.append(old.id or f"path:{rel}")
                if m:
                    out.docs.append(memory_doc(m))
            out.after = self._bump_generation()
        return out

    def reindex(self, r: Recatalogued, summaries: AbstractSet[str]) -> None:
        """Apply catalog changes to the search index (with the summaries of `summaries` folders)."""
        state = self.index.state()
        if state is None or state.get("generation") != r.before:
            self.rebuild_index(r.after)  # the index missed changes (lost, or a crash): start over
            return
        docs, gone = list(r.docs), list(r.gone)
        for folder in summaries:
            doc = self.summary_doc(folder)
            if doc:
                docs.append(doc)
            else:
                gone.append(f"dir:{folder}")
        from ..search import IndexUnavailable

        try:
            self.index.apply(docs, gone, {"generation": r.after})
        except (IndexUnavailable, OSError):  # lost or damaged under us (a cache): start over
            self.rebuild_index(r.after)

    def _bump_generation(self) -> str:
        """Count catalog changes; the search index records the count it reflects."""
        generation = str(int(self.catalog.meta("generation") or 0) + 1)
        self.catalog.set_meta("generation", generation)
        return generation

    def rebuild_caches(self, progress: Progress | None = None) -> int:
        """Refill the catalog and the search index from the files; returns the number of memories."""
        count = self.refill_catalog(progress)
        self.rebuild_index()
        return count

    def refill_catalog(self, progress: Progress | None = None) -> int:
        """Refill the catalog from the files, the search index left behind (`rebuild_index` follows,
        or the next refresh: its generation is old); returns the number of memories."""
        dirs: dict[str, int] = {}
        paths = sorted(self.layout.scan(dirs=dirs))
        with self.catalog.transaction():
            self.catalog.clear()
            self.catalog.set_dirs(dirs, replace_all=True)
            for i, rel in enumerate(paths):
                self.catalog_file(rel)
                if progress:
                    progress(i + 1, len(paths))
            self._bump_generation()
        return len(paths)

    def rebuild_index(self, generation: str | None = None) -> None:
        """Refill the search index from the catalog (recording `generation`, by default the catalog's)."""
        generation = generation or str(self.catalog.meta("generation") or 0)

        def docs():
            for m in self.iter_memories(row.path for row in self.catalog.all()):
                yield memory_doc(m)
            for folder in sorted(self.layout.all_folders()):
                doc = self.summary_doc(folder)
                if doc:
                    yield doc

        self.index.rebuild(docs(), {"generation": generation})

    def summary_doc(self, folder: str):
        from ..search import Doc

        rel = tree.summary_path(folder)
        try:
            text = self.layout.abs(rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        block, body = notes.split_front_matter(text)
        meta = notes.front_matter_or_empty(block)
        return Doc(
            key=f"dir:{folder}",
            kind="summary",
            path=rel,
            folder=folder,
            depth=tree.depth(folder),
            title=str(meta.get("title") or tree.humanize(folder.rpartition("/")[2]) or self.config.title),
            body=body,
            tags=[str(k) for k in meta.get("keywords") or []],
        )

    def compact_index(self) -> bool:
        """Merge the search index into one segment if it has several and no one is writing (what a
        long-lived process does when idle); True when it merged."""
        from ..search import IndexUnavailable

        try:
            if self.index.state() is None or self.index.segments() <= 1:
                return False
            with self.lock.held(timeout=0):
                self.index.optimize()
            return True
        except (VaultError, IndexUnavailable, OSError):
            return False

    # -- searching --------------------------------------------------------------------------------
    def search(self, query: str, **ask):
        """Ask the search index; a damaged index is a cache: rebuilt from the files and asked again."""
        from ..search import IndexUnavailable

        damaged = (IndexUnavailable, OSError, ValueError, EOFError, KeyError, struct.error)
        self.refresh()
        for _attempt in range(3):
            try:
                return nested.focus_best(self.index.search(query, **ask))
            except damaged:
                with self.lock.held():
                    self.rebuild_caches()
        try:
            return nested.focus_best(self.index.search(query, **ask))
        except damaged as e:
            raise VaultError(
                f"{self.root / CACHE}: the search index keeps being damaged ({e}); "
                f"is another program deleting it? Run 'ihmt rebuild'"
            ) from None

    # -- the write path ---------------------------------------------------------------------------
    @contextmanager
    def transaction(self, op: str, subject: str, trailers: Sequence[tuple[str, str]] = (), agent: str | None = None):
        """Run one operation as one commit (see the module docstring); yields the `Transaction`."""
        with self.lock.held(what=op or "init"), self.gate.held():
            self.recover()
            tx = Transaction(self, op, subject, list(trailers), agent or self.config.default_source)
            try:
                yield tx
                tx.finish()
            except Refused:
                self._abandon(tx)
                raise
        self.mark_fresh()
        if tx.commit and not self._after_running:
            self._after_commit(Committed(tx.op, tx.commit, sorted(tx.paths), tx.agent))

    def _after_commit(self, change: Committed) -> None:
        """The `after_commit` event (hookspecs.py): what reacts (decay) writes too, so once, not in a loop."""
        from ..plugins.manager import manager

        self._after_running = True
        try:
            manager().hook.after_commit(engine=self, change=change)
        finally:
            self._after_running = False

    def recover(self) -> list[str]:
        """Finish an operation a crash interrupted: commit what the journal says it touched. A journal
        that cannot be replayed is set aside (doctor reports it), never a permanent block."""
        try:
            entry = self.journal.read()
        except (ValueError, UnicodeDecodeError):
            self.journal.set_aside()
            return []
        if entry is None:
            return []
        if entry.op == "import" and not self._committed(entry.paths):
            self._roll_back(entry.paths)  # an import is all of its memories or none: run it again
        tx = Transaction(self, entry.op, entry.subject, [("Recovered", "true")], entry.agent, journal=False)
        tx.paths.update(entry.paths)
        tx.folders.update(tree.folder_of(p) for p in entry.paths if self.layout.is_memory_path(p))
        try:
            tx.finish()
        except (VaultError, gitlog.GitError, OSError, ValueError):
            self.journal.set_aside()
            return []
        return entry.paths

    def _abandon(self, tx: Transaction) -> None:
        """A refused operation changes nothing: what it wrote goes back to HEAD's, its journal goes."""
        self._roll_back(sorted(tx.written))
        self.journal.clear()
        memories = [p for p in tx.written if self.layout.is_memory_path(p)]
        self.update_caches(
            [p for p in memories if self.layout.abs(p).exists()],
            [p for p in memories if not self.layout.abs(p).exists()],
        )

    def _committed(self, paths: list[str]) -> bool:
        """Whether every one of these files is as HEAD has it (the operation's commit landed)."""
        for rel in paths:
            file = self.layout.abs(rel)
            try:
                now = files.read_exact(file) if file.exists() else None
            except (OSError, UnicodeDecodeError):
                return False
            if now != self.repo.show("HEAD", rel):
                return False
        return True

    def _roll_back(self, paths: list[str]) -> None:
        """Put these files back as HEAD has them (new ones removed)."""
        for rel in paths:
            before = self.repo.show("HEAD", rel)
            if before is None:
                self.layout.abs(rel).unlink(missing_ok=True)
            else:
                files.atomic_write(self.layout.abs(rel), before)


def facts_of(m: Memory) -> list[timeline.Fact]:
    """A memory's facts: the ones recorded in its front matter, else the ones its text states."""
    who = timeline.speaker(m.body, m.meta, m.source)
    recorded = timeline.from_meta(m.meta, who)
    if recorded is not None:
        return recorded
    return timeline.extract(f"{m.title}.\n{m.body}" if m.title not in m.body else m.body, who)


def memory_doc(m: Memory):
    from ..search import Doc

    return Doc(
        key=m.id or f"path:{m.path}",
        kind="memory",
        path=m.path,
        folder=m.folder,
        depth=tree.depth(m.folder),
        title=m.title,
        body=m.body,
        id=m.id,
        tags=m.tags,
        type=m.type,
        status=m.status,
        date=m.date,
        supersedes=m.supersedes,
        superseded_by=m.superseded_by,
        pinned=m.pinned,
        source=m.source,
        created=m.created,
    )
