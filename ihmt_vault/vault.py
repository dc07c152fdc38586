"""The vault: the one object every front end talks to.

A `Vault` owns the write transaction. Every operation that changes the vault:

1. takes the vault lock (one writer at a time across processes; `LockTimeout` after the timeout),
2. finishes any operation a crash interrupted (the journal, below),
3. validates all its input before touching the disk (`BadInput`; nothing written),
4. writes files atomically, recording each path in the journal first,
5. refreshes the catalog and regenerates the `index.md` chain of every touched folder bottom-up,
6. commits exactly the paths it touched as one commit with the DESIGN.md trailers,
7. updates the search index, then clears the journal.

Invariants: a memory file is never half-written (atomic rename); a crash at any point leaves
files that are either committed or listed in the journal, which the next write or
`doctor(repair=True)` completes; the catalog and the search index are caches of the files and are
rebuilt when missing, corrupt or behind. Reads never take the lock.
"""
from __future__ import annotations

import json
import os
import re
import struct
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import yaml

from . import gitlog, notes, timeline, tree
from .catalog import Catalog, Row
from .config import CONFIG_PATH, Config
from .errors import BadInput, BrokenFile, NotAVault, NotFound, SecretRefused, VaultError
from .lock import VaultLock
from .notes import Memory
from .transaction import Transaction
from .sensitive import find_secret

CACHE = ".ihmt/cache"
GITIGNORE = ".ihmt/cache/\n.ihmt/vault.lock\n"
# Generated summaries: collapsed in diffs on git hosts, never a merge conflict (regenerated after merges).
GITATTRIBUTES = ("# Generated summaries: collapsed in diffs, regenerated after merges (ihmt sync).\n"
                 "index.md linguist-generated=true merge=ihmt-summary\n")
# Files at the vault root that are documentation, not memories.
ROOT_DOCS = {"readme.md", "claude.md", "agents.md", "license.md", "changelog.md"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")

Progress = Callable[[int, int], None]


def expand(path: str | Path) -> Path:
    """`~` and `~user` expanded where they can be; "~nosuchuser" stays a literal name."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def default_path() -> Path:
    env = os.environ.get("IHMT_VAULT")
    return expand(env) if env else Path.home() / ".ihmt" / "vault"


@dataclass
class Problem:
    """A finding of `doctor`: what is wrong, where, and whether `repair` fixes it."""

    kind: str
    path: str
    message: str
    repairable: bool = True

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "message": self.message, "repairable": self.repairable}


@dataclass
class Change:
    """One commit in a memory's history."""

    sha: str
    date: str
    op: str
    agent: str
    subject: str
    path: str = ""
    diff: str | None = None
    ids: list[str] = field(default_factory=list)   # the memories it touched (Memory-Id trailers)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Vault:
    # -- opening ----------------------------------------------------------------------------------
    def __init__(self, root: Path, config: Config):
        self.root = root
        self.config = config
        self.repo = gitlog.Repo(root)
        self.lock = VaultLock(root / ".ihmt" / "vault.lock", config.lock_timeout)
        self.catalog = Catalog(root / CACHE / "catalog.sqlite")
        self._index = None
        self._last_refresh = float("-inf")
        self._seen_head = ""   # HEAD at the last refresh: another process's commit triggers a new one

    @classmethod
    def init(cls, path: str | Path, title: str | None = None, own_repo: bool = False) -> "Vault":
        """Create a vault at `path` (idempotent: an existing vault is opened, never clobbered).

        Inside an existing git work tree the vault is a folder of that repository, unless
        `own_repo`: then it gets a repository of its own (the demo does, wherever it is run).
        """
        root = expand(path)
        if (root / CONFIG_PATH).exists():
            return cls.open(root)
        if root.exists() and not root.is_dir():
            raise BadInput(f"{root}: exists and is not a folder; choose another path")
        root.mkdir(parents=True, exist_ok=True)
        root = root.resolve()
        if own_repo or gitlog.work_tree_of(root) is None:
            gitlog.init_repo(root)
        config = Config(title=title) if title else Config()
        written = []
        for rel, text in ((CONFIG_PATH, config.to_toml()), (".gitignore", GITIGNORE),
                          (".gitattributes", GITATTRIBUTES)):
            file = root / rel
            if not file.exists():
                notes.write_atomic(file, text)
                written.append(rel)
            elif rel == ".gitignore" and ".ihmt/cache/" not in file.read_text(encoding="utf-8", errors="replace"):
                notes.write_atomic(file, file.read_text(encoding="utf-8") .rstrip("\n") + "\n" + GITIGNORE)
                written.append(rel)
        vault = cls(root, config)
        from . import githooks, sync
        sync.configure(vault)
        githooks.install(vault)
        with vault._transaction("", f"init: {config.title}", []) as tx:  # no memory, no Memory-Op
            tx.paths.update(written)
            tx.paths.update(vault._scan())  # a folder of notes becomes a vault with its notes
            tx.folders.add("")
            tx.folders.update(vault._all_folders())
        return vault

    @classmethod
    def open(cls, path: str | Path | None = None) -> "Vault":
        """Open the vault at `path`; with no path, `$IHMT_VAULT` or `~/.ihmt/vault` (created on first use)."""
        if path is None:
            root = default_path()
            if not (root / CONFIG_PATH).exists():
                return cls.init(root)
        else:
            root = expand(path)
        if not root.is_dir():
            raise NotAVault(f"{root}: no such folder; create a vault with 'ihmt init {root}'")
        if not (root / CONFIG_PATH).exists():
            raise NotAVault(f"{root}: not a vault (no {CONFIG_PATH}); create one with 'ihmt init {root}'")
        root = root.resolve()
        if gitlog.work_tree_of(root) is None:
            raise NotAVault(f"{root}: the vault is not inside a git repository; run 'git init' there")
        return cls(root, Config.load(root))

    def close(self):
        if self._index is not None:
            self._index.close()
            self._index = None
        self.catalog.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def index(self):
        if self._index is None:
            from .search import SearchIndex  # Whoosh is loaded only by what searches
            self._index = SearchIndex(self.root / CACHE)
        return self._index

    # -- files ------------------------------------------------------------------------------------
    def _abs(self, rel: str) -> Path:
        return self.root / rel

    def _is_memory_path(self, rel: str) -> bool:
        parts = rel.split("/")
        if not rel.endswith(".md") or parts[-1] == tree.INDEX:
            return False
        if any(p.startswith(".") for p in parts):
            return False
        return not (len(parts) == 1 and parts[0].lower() in ROOT_DOCS)

    def _scan(self, scope: list[str] | None = None, dirs: dict[str, int] | None = None) -> dict[str, tuple[int, int]]:
        """Every memory file on disk (or in `scope`: files and folders) with its (mtime_ns, size);
        the folders walked go into `dirs` with their modification times."""
        found = {}
        stack = [("", self.root)]
        if scope is not None:
            stack = []
            for rel in scope:
                full = self._abs(rel)
                if full.is_dir() and not full.is_symlink():
                    stack.append((rel + "/", full))
                elif self._is_memory_path(rel) and full.is_file():
                    st = full.lstat()
                    found[rel] = (st.st_mtime_ns, st.st_size)
        while stack:
            prefix, folder = stack.pop()
            try:
                if dirs is not None:
                    dirs[prefix.rstrip("/")] = os.stat(folder).st_mtime_ns
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for e in entries:
                if e.name.startswith("."):
                    continue
                rel = f"{prefix}{e.name}"
                if e.is_dir(follow_symlinks=False):
                    stack.append((rel + "/", e.path))
                elif self._is_memory_path(rel):
                    st = e.stat(follow_symlinks=False)
                    found[rel] = (st.st_mtime_ns, st.st_size)
        return found

    def _all_folders(self) -> set[str]:
        folders = {""}
        for rel in self._scan():
            folders.update(tree.parents(rel.rpartition("/")[0]))
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            rel = Path(dirpath).relative_to(self.root).as_posix()
            if rel != "." and tree.INDEX in filenames:
                folders.add(rel)
        return folders

    def _subfolders(self, folder: str) -> list[str]:
        try:
            entries = os.scandir(self._abs(folder) if folder else self.root)
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))
        except OSError:
            return []

    def _read(self, rel: str) -> Memory:
        file = self._abs(rel)
        try:
            return notes.read_memory(file, rel)
        except FileNotFoundError:
            raise NotFound(f"{rel}: no such memory file") from None
        except IsADirectoryError:
            raise BadInput(f"{rel}: is a folder; give a memory file or use 'ihmt tree'") from None

    def _catalog_file(self, rel: str, known: tuple[Memory, list[str]] | None = None) -> Memory | None:
        """Parse a file (unless this operation just wrote it: `known`) and put it in the catalog; a
        broken file is left out (doctor reports it)."""
        try:
            m = known[0] if known else self._read(rel)
            st = self._abs(rel).stat()
        except (BrokenFile, NotFound, FileNotFoundError):
            self.catalog.delete(rel)
            return None
        kws = known[1] if known else tree.keywords(m.title, m.body, m.tags)
        self.catalog.upsert(m, notes.first_line(m.body), kws, st.st_mtime_ns, st.st_size, facts_of(m))
        return m

    # -- freshness --------------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        """Bring the catalog and the search index up to date with files changed outside the tool.

        Runs when another process committed, else at most every `refresh_interval` seconds, and
        only if the vault lock is free at once:
        readers never wait for a writer (whose own changes are indexed by the writer itself).
        """
        head = self.repo.head_fast()
        if not force and head == self._seen_head and time.monotonic() - self._last_refresh < self.config.refresh_interval:
            return
        try:
            with self.lock.held(timeout=None if force else 0):
                self._sync_caches()
        except VaultError:
            return
        self._last_refresh = time.monotonic()
        self._seen_head = head

    def _sync_caches(self) -> None:
        state = self.index.state()
        if state is None or state.get("generation") != self.catalog.meta("generation"):
            self._rebuild_caches()  # the index is missing, damaged or behind: start over
            return
        look = self._maybe_changed()
        replace_all = look is None
        if replace_all:  # no record of the folders yet: look at everything once
            dirs: dict[str, int] = {}
            on_disk = self._scan(dirs=dirs)
            known = self.catalog.stamps()
            changed = [p for p, st in on_disk.items() if known.get(p) != st]
            deleted = [p for p in known if p not in on_disk]
            gone: list[str] = []
        else:
            candidates, dirs, gone = look
            changed, deleted = [], []
            for rel in sorted(candidates):
                try:
                    st = self._abs(rel).lstat()
                except OSError:
                    if self.catalog.stamp(rel) is not None:
                        deleted.append(rel)
                    continue
                if self._is_memory_path(rel) and (st.st_mtime_ns, st.st_size) != self.catalog.stamp(rel):
                    changed.append(rel)
        if changed or deleted:
            self._update_caches(changed, deleted, set())
        with self.catalog.transaction():  # only now: a crash before this looks at those folders again
            self.catalog.set_dirs(dirs, replace_all=replace_all)
            self.catalog.drop_dirs(gone)

    def _maybe_changed(self) -> tuple[set[str], dict[str, int], list[str]] | None:
        """Paths that may differ from the catalog, found cheaply: files git sees edited in place, and
        the entries of every folder whose modification time moved (a file was added, removed or
        renamed there — which is also how editors' atomic saves and git checkouts show). None when
        the folders were never recorded. Returns (paths, folder times to record, folders gone)."""
        dirs = self.catalog.dirs()
        if not dirs:
            return None
        candidates = set(self.repo.modified())
        moved, gone = {}, []
        for d, mtime in dirs.items():
            try:
                now = os.stat(self._abs(d) if d else self.root).st_mtime_ns
            except OSError:
                gone.append(d)
                continue
            if now != mtime:
                moved[d] = now
        if not moved and not gone:
            return candidates, {}, []
        candidates.update(self.catalog.in_folders(list(moved) + gone))
        fresh: dict[str, int] = {}
        for d in moved:
            for e in os.scandir(self._abs(d) if d else self.root):
                rel = f"{d}/{e.name}" if d else e.name
                if e.name.startswith("."):
                    continue
                if e.is_dir(follow_symlinks=False):
                    if rel not in dirs:  # a new folder: everything in it is new
                        candidates.update(self._scan([rel], dirs=fresh))
                elif self._is_memory_path(rel):
                    candidates.add(rel)
        for d in gone:
            candidates.update(r.path for r in self.catalog.under(d))
        gone += [d for d in dirs if any(d.startswith(g + "/") for g in gone)]
        return candidates, {**moved, **fresh}, gone

    def _update_caches(self, changed: Iterable[str], deleted: Iterable[str], summaries: set[str]) -> None:
        self._reindex(*self._recatalog(changed, deleted), summaries)

    def _recatalog(self, changed: Iterable[str], deleted: Iterable[str], known: dict | None = None
                   ) -> tuple[list, list[str], str | None, str]:
        """Update the catalog for these files: (docs to index, keys to drop, generation before, after)."""
        docs, gone = [], []
        before = self.catalog.meta("generation")
        with self.catalog.transaction():
            for rel in deleted:
                row = self.catalog.by_path(rel)
                self.catalog.delete(rel)
                if row:
                    gone.append(row.id or f"path:{rel}")
            for rel in changed:
                old = self.catalog.by_path(rel)
                m = self._catalog_file(rel, (known or {}).get(rel))
                if old and (m is None or (old.id or f"path:{rel}") != (m.id or f"path:{rel}")):
                    gone.append(old.id or f"path:{rel}")
                if m:
                    docs.append(_memory_doc(m))
            generation = self._bump_generation()
        return docs, gone, before, generation

    def _reindex(self, docs: list, gone: list[str], before: str | None, generation: str, summaries: set[str]) -> None:
        """Apply catalog changes to the search index (with the summaries of `summaries` folders)."""
        state = self.index.state()
        if state is None or state.get("generation") != before:
            self._rebuild_index(generation)  # the index missed changes (lost, or a crash): start over
            return
        for folder in summaries:
            doc = self._summary_doc(folder)
            if doc:
                docs.append(doc)
            else:
                gone.append(f"dir:{folder}")
        from .search import IndexUnavailable
        try:
            self.index.apply(docs, gone, {"generation": generation})
        except (IndexUnavailable, OSError):  # lost or damaged under us (a cache): start over
            self._rebuild_index(generation)

    def _bump_generation(self) -> str:
        """Count catalog changes; the search index records the count it reflects."""
        generation = str(int(self.catalog.meta("generation") or 0) + 1)
        self.catalog.set_meta("generation", generation)
        return generation

    def _rebuild_caches(self, progress: Progress | None = None) -> int:
        """Refill the catalog and the search index from the files."""
        dirs: dict[str, int] = {}
        paths = sorted(self._scan(dirs=dirs))
        with self.catalog.transaction():
            self.catalog.clear()
            self.catalog.set_dirs(dirs, replace_all=True)
            for i, rel in enumerate(paths):
                self._catalog_file(rel)
                if progress:
                    progress(i + 1, len(paths))
            generation = self._bump_generation()
        self._rebuild_index(generation)
        return len(paths)

    def _rebuild_index(self, generation: str) -> None:
        def docs():
            for row in self.catalog.all():
                try:
                    yield _memory_doc(self._read(row.path))
                except VaultError:
                    continue
            for folder in sorted(self._all_folders()):
                doc = self._summary_doc(folder)
                if doc:
                    yield doc
        self.index.rebuild(docs(), {"generation": generation})

    def _placer(self) -> tree.Placer:
        """Placement of new memories by descending the tree (one per transaction)."""
        return tree.Placer(self._subfolders, lambda f: _folder_info(self, f), self.config.branch_factor,
                           self.config.max_depth)

    def _render_folder(self, folder: str) -> str | None:
        """The index.md a folder should have now (None: an empty topic, to be removed)."""
        subs = [i for name in self._subfolders(folder)
                if (i := _folder_info(self, f"{folder}/{name}" if folder else name))]
        rows = self.catalog.in_folder(folder)
        if folder and not rows and not subs:
            return None
        title = self.config.title if not folder else tree.humanize(folder.rpartition("/")[2])
        text, _ = tree.render_summary(folder, title, rows, subs, lambda i: (self.catalog.by_id(i) or [None])[0])
        return text

    def _summary_doc(self, folder: str):
        from .search import Doc
        rel = f"{folder}/{tree.INDEX}" if folder else tree.INDEX
        try:
            text = self._abs(rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        block, body = notes.split_front_matter(text)
        meta = _safe_yaml(block)
        return Doc(key=f"dir:{folder}", kind="summary", path=rel, folder=folder, depth=tree.depth(folder),
                   title=str(meta.get("title") or tree.humanize(folder.rpartition("/")[2]) or self.config.title),
                   body=body, tags=[str(k) for k in meta.get("keywords") or []])

    # -- the write transaction --------------------------------------------------------------------
    @contextmanager
    def _transaction(self, op: str, subject: str, trailers: list[tuple[str, str]], agent: str | None = None):
        with self.lock.held():
            self._recover()
            tx = Transaction(self, op, subject, trailers, agent or self.config.default_source)
            yield tx
            tx.finish()
        self._last_refresh = time.monotonic()
        self._seen_head = self.repo.head_fast()

    @property
    def _journal(self) -> Path:
        return self.root / CACHE / "journal.jsonl"

    def _recover(self) -> list[str]:
        """Finish an operation a crash interrupted: commit what the journal says it touched."""
        if not self._journal.exists():
            return []
        lines = [json.loads(l) for l in self._journal.read_text(encoding="utf-8").splitlines() if l.strip().startswith("{")]
        if not lines:
            self._journal.unlink()
            return []
        head, paths = lines[0], [l["path"] for l in lines[1:] if "path" in l]
        tx = Transaction(self, head.get("op", "edit"), head.get("subject", "repair"), [("Recovered", "true")],
                 head.get("agent", "ihmt"), journal=False)
        tx.paths.update(paths)
        tx.folders.update(p.rpartition("/")[0] for p in paths if self._is_memory_path(p))
        tx.finish()
        return paths

    # -- reading ----------------------------------------------------------------------------------
    def resolve(self, id_or_path: str) -> str:
        """The vault-relative path of a memory given its id or its path."""
        ref = id_or_path.strip()
        if not ref or "\0" in ref:
            raise BadInput("give a memory id or a path inside the vault")
        rel = self._safe_rel(ref)
        if rel and self._is_memory_path(rel) and self._abs(rel).is_file():
            return rel
        self.refresh()
        rows = self.catalog.by_id(ref)
        if not rows or not self._abs(rows[0].path).is_file():  # new or moved by hand a moment ago
            self.refresh(force=True)
            rows = self.catalog.by_id(ref)
        if len(rows) > 1:
            raise VaultError(f"id {ref} is used by {len(rows)} files ({', '.join(r.path for r in rows)}); run 'ihmt doctor --repair'")
        if not rows:
            raise NotFound(f"{ref}: no memory with this id or path; try 'ihmt search'")
        return rows[0].path

    def _safe_rel(self, ref: str) -> str | None:
        """`ref` as a vault-relative path if it names one inside the vault, else None."""
        p = expand(ref)
        full = (p if p.is_absolute() else self.root / p).resolve()
        try:
            rel = full.relative_to(self.root).as_posix()
        except ValueError:
            if "/" in ref or p.is_absolute():
                raise BadInput(f"{ref}: is outside the vault {self.root}; give a path inside it") from None
            return None
        return rel

    def get(self, id_or_path: str, at: str | None = None) -> Memory:
        """A memory as it is now, or as it was at the end of the day `at` (YYYY-MM-DD), from git."""
        rel = self.resolve(id_or_path)
        if at is None:
            return self._read(rel)
        day = _check_date(at, "--at ")
        commits = self.repo.log(rel, follow=True, until=f"{day} 23:59:59")
        if not commits or not commits[0].paths:
            raise NotFound(f"{id_or_path}: this memory did not exist yet on {day}")
        text = self.repo.show(commits[0].sha, commits[0].paths[0])
        if text is None:
            raise NotFound(f"{id_or_path}: this memory had been deleted by {day}")
        return notes.parse(text, commits[0].paths[0])

    def history(self, id_or_path: str, diff: bool = False) -> list[Change]:
        """Every commit that touched a memory, newest first, following moves; with `diff`, what changed."""
        rel = self.resolve(id_or_path)
        log = self.repo.log(rel, follow=True)
        paths = [c.paths[0] if c.paths else rel for c in log]
        changes = []
        for i, c in enumerate(log):
            before = paths[i + 1] if i + 1 < len(paths) else paths[i]  # a move: diff old → new name
            changes.append(Change(c.sha, c.date, c.op, c.agent, c.subject, paths[i],
                                  self.repo.patch(c.sha, paths[i], before) if diff else None))
        return changes

    def changes(self, limit: int = 50) -> list[Change]:
        """The vault's most recent operations, newest first, from the git log."""
        return [Change(c.sha, c.date, c.op, c.agent, c.subject, ", ".join(c.paths[:3]),
                       ids=c.trailers.get("Memory-Id", [])) for c in self.repo.log(max_count=limit)]

    def tree(self, depth: int = 2) -> dict:
        """The topic tree down to `depth` levels: folders with counts, memories as title lines."""
        self.refresh()
        by_folder: dict[str, list[Row]] = {}
        for r in self.catalog.all():
            by_folder.setdefault(r.folder, []).append(r)

        def node(folder: str, level: int) -> dict:
            subs = [f"{folder}/{s}" if folder else s for s in self._subfolders(folder)]
            rows = sorted(by_folder.get(folder, []), key=tree._sort_key)
            count = sum(len(v) for k, v in by_folder.items() if k == folder or k.startswith(folder + "/") or not folder)
            n = {"path": folder, "title": tree.humanize(folder.rpartition("/")[2]) or self.config.title,
                 "count": count, "children": [], "memories": []}
            if level < depth:
                n["children"] = [node(s, level + 1) for s in subs]
                n["memories"] = [{"id": r.id, "title": r.title, "date": r.date, "status": r.status,
                                  "pinned": bool(r.pinned), "path": r.path} for r in rows]
            else:
                n["more"] = len(subs) + len(rows)
            return n

        return node("", 0)

    def memories(self, under: str = "") -> list[dict]:
        """Every memory in a folder and below (all of them by default): id, title, path, date, status..."""
        self.refresh()
        folder = tree.clean_topic(under, self.config.max_depth) if under else ""
        return [dict(r) for r in sorted(self.catalog.under(folder), key=lambda r: r.path)]

    def stats(self) -> dict:
        self.refresh()
        rows = self.catalog.all()
        size = sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file() and ".git" not in f.parts
                   and CACHE not in f.as_posix())
        cache = sum(f.stat().st_size for f in (self.root / CACHE).rglob("*") if f.is_file())
        return {
            "vault": str(self.root),
            "memories": len(rows),
            "status": dict(sorted(Counter(r.status for r in rows).items())),
            "types": dict(sorted(Counter(r.type for r in rows).items())),
            "topics": len({r.folder for r in rows}),
            "pinned": sum(1 for r in rows if r.pinned),
            "files_bytes": size,
            "cache_bytes": cache,
            "head": self.repo.head(),
        }

    def search(self, query: str, k: int = 10, clue: str | None = None, level: int | None = None,
               under: str | None = None, detail: str = "compact", as_of: str | None = None):
        """Search the vault (see `ihmt_vault.search`); `as_of` answers as things stood on that day."""
        from .search import IndexUnavailable
        if not query or not query.strip():
            raise BadInput("the query is empty; say what to look for")
        if under:
            under = tree.clean_topic(under, self.config.max_depth)
        day = _check_date(as_of, "--as-of ") if as_of else None
        self.refresh()
        ask = dict(k=k, clue=clue, level=level, under=under, detail=detail, budget_tokens=self.config.search_tokens,
                   as_of=day)
        damaged = (IndexUnavailable, OSError, ValueError, EOFError, KeyError, struct.error)
        for attempt in range(3):
            try:
                return self.index.search(query, **ask)
            except damaged:  # the index is a cache: rebuild it from the files and ask again
                with self.lock.held():
                    self._rebuild_caches()
        try:
            return self.index.search(query, **ask)
        except damaged as e:
            raise VaultError(f"{self.root / CACHE}: the search index keeps being damaged ({e}); "
                             f"is another program deleting it? Run 'ihmt rebuild'") from None

    # -- writing ----------------------------------------------------------------------------------
    def save(self, text: str, title: str | None = None, topic: str | None = None, date: str | None = None,
             tags: Iterable[str] = (), type: str | None = None, source: str | None = None,
             pinned: bool = False, supersedes: Iterable[str] = (), replaces: str | None = None,
             facts: list[dict] | None = None) -> Memory:
        """Save one memory; it is filed under `topic`, or where it fits best. One commit.

        `supersedes` names the ids this memory corrects; `replaces` describes the memory it corrects
        in a few words, found by search: one clear match is marked outdated, several are listed in
        `notices` (nothing marked), none is said so. `facts` ([{subject, attribute, value}]) are
        recorded in front matter; without them the text's facts are extracted. A fact that
        contradicts the current value of its timeline outdates the memory that stated it, with a
        notice; repeating it is a confirmation. The saved memory carries all these `notices`.
        """
        item = self._validate({"text": text, "title": title, "topic": topic, "date": date, "tags": tags,
                               "type": type, "source": source, "pinned": pinned, "supersedes": supersedes,
                               "extra": {"facts": _check_facts(facts)} if facts is not None else {}}, "")
        if replaces is not None and not replaces.strip():
            raise BadInput("replaces is empty; describe the memory this one corrects in a few words")
        agent = item["source"]
        notices: list[str] = []
        with self._transaction("save", f"save: {item['title']}", [], agent) as tx:
            old = [self.get(i) for i in item["supersedes"]]
            if replaces:
                found, notice = self._find_replaced(replaces)
                old += [f for f in found if f.id not in {o.id for o in old}]
                notices += [notice] if notice else []
            contradicted, fact_notices = self._check_facts_against_timeline(item)
            old += [c for c in contradicted if c.id not in {o.id for o in old}]
            notices += fact_notices
            item["supersedes"] = [o.id for o in old]
            [memory] = tx.create([item])
            tx.trailers += [("Memory-Id", memory.id), ("Memory-Op", "replace" if old else "save")]
            if old:
                tx.op = "replace"
                tx.trailers.append(("Supersedes", ", ".join(o.id for o in old)))
                for o in old:
                    tx.mark_outdated(o, memory.id)
        self._split_if_crowded({memory.folder}, agent)
        saved = self.get(memory.id)
        saved.notices = notices + [f"Marked outdated: {o.title} ({o.id})." for o in old]
        return saved

    def _check_facts_against_timeline(self, item: dict) -> tuple[list[Memory], list[str]]:
        """Memories a new memory's facts contradict, and what to tell the caller."""
        import datetime as dt
        probe = Memory(id="", title=item["title"], path="", body=item["text"], source=item["source"], meta=item["extra"])
        day = item["date"] or dt.date.today().isoformat()
        contradicted, said = [], []
        for fact in facts_of(probe):
            records = [(f, d, i, t) for f, d, i, t, st in self.catalog.facts(
                "WHERE f.slot_subject = ? AND f.slot_attribute = ? AND f.slot_thing = ? AND m.status != 'archived'",
                timeline.slot(fact))]
            lines = timeline.build(records)
            if not lines or not lines[0].entries:
                continue
            line, current = lines[0], lines[0].entries[-1]
            if timeline.norm(current.value) == timeline.norm(fact.value):
                said.append(f"Confirms what was said on {current.valid_from}: {line.subject} {line.attribute} = "
                            f"'{current.value}'.")
            elif day >= current.valid_from:
                said.append(timeline.contradiction_notice(line, fact, day))
                for mid in [current.memory_id, *current.confirmations]:  # every memory that still says it
                    m = self.get(mid)
                    if m.status == "active" and m.id not in {c.id for c in contradicted}:
                        contradicted.append(m)
        return contradicted, said

    def facts(self, subject: str | None = None, at: str | None = None) -> list[timeline.Timeline]:
        """Every fact's timeline (oldest value first), or one subject's; with `at`, as of that day."""
        self.refresh()
        day = _check_date(at, "--at ") if at else None
        where, args = ("WHERE f.slot_subject = ?", (timeline.norm(subject),)) if subject else ("", ())
        return timeline.build([(f, d, i, t) for f, d, i, t, _ in self.catalog.facts(where, args)], at=day)

    def conflicts(self) -> list[timeline.Timeline]:
        """The facts whose value changed over time."""
        return [t for t in self.facts() if len(t.entries) > 1]

    def _find_replaced(self, description: str) -> tuple[list[Memory], str | None]:
        """The memory a correction replaces, by search: ([memory], None), or ([], what to tell the caller)."""
        result = self.search(description, k=5)
        live = [h for h in result.hits if h.status == "active"]
        if result.status == "found" and live:
            best = self.get(live[0].id)
            wanted = set(tree.tokens(description))
            have = set(tree.tokens(f"{best.title} {' '.join(best.tags)} {best.body}"))
            # Marking a memory outdated is a strong act: most of the description's words must be in it.
            if wanted and len(wanted & have) / len(wanted) > 0.5:
                return [best], None
        if result.status == "ambiguous":
            options = "; ".join(f"{c.id} — {c.title}" for c in (result.candidates or result.hits)[:5])
            return [], (f"Several memories match {description!r}: {options}. Nothing was marked outdated; "
                        f"call mark_outdated(old_id, new_id) with the right one.")
        return [], f"Nothing found to replace for {description!r}; saved as a new memory."

    def save_many(self, items: list[dict], source: str | None = None, progress: Progress | None = None) -> list[Memory]:
        """Save many memories as one commit (`Memory-Op: import`); ids in the order given."""
        if not items:
            raise BadInput("nothing to save: the list of memories is empty")
        checked = [self._validate({**i, "source": i.get("source") or source}, f"item {n + 1}: ")
                   for n, i in enumerate(items)]
        ids = [i["id"] for i in checked if i.get("id")]
        if len(ids) != len(set(ids)):
            raise BadInput("two items carry the same id; ids must be unique")
        agent = source or self.config.default_source
        with self._transaction("import", f"import: {len(checked)} memories", [], agent) as tx:
            for i in ids:
                if self.catalog.by_id(i):
                    raise BadInput(f"id {i} is already in the vault; leave id out to get a new one")
            for n, item in enumerate(checked):
                for old in item["supersedes"]:
                    if old not in ids and not self.catalog.by_id(old):
                        raise BadInput(f"item {n + 1}: supersedes {old}, which is neither in the vault nor in this import")
            created = tx.create(checked, progress)
            in_batch = {m.id: m for m in created}
            for m in created:  # corrections within the import, or of memories already in the vault
                for old in m.supersedes:
                    tx.mark_outdated(self._read(in_batch[old].path) if old in in_batch else self.get(old), m.id)
            tx.trailers += [("Memory-Op", "import"), ("Memory-Count", str(len(created)))]
            tx.trailers += [("Memory-Id", m.id) for m in created]
            tx.split_crowded({m.folder for m in created})
        where = {m.id: m.path for m, _ in tx.known.values()}
        return [m if where.get(m.id) == m.path else self.get(m.id) for m in created]

    def mark_outdated(self, old_id: str, new_id: str, source: str | None = None) -> Memory:
        """Flag `old_id` as outdated, superseded by `new_id` (both keep their files). One commit."""
        old, new = self.get(old_id), self.get(new_id)
        if old.id == new.id:
            raise BadInput(f"{old_id}: a memory cannot supersede itself")
        with self._transaction("outdate", f"outdate: {old.title}",
                               [("Memory-Id", old.id), ("Memory-Op", "outdate"), ("Supersedes", old.id)],
                               source) as tx:
            tx.mark_outdated(old, new.id)
            if old.id not in new.supersedes:
                tx.edit(new, {"supersedes": new.supersedes + [old.id]})
        return self.get(old.id)

    def restore_current(self, id_or_path: str, source: str | None = None) -> Memory:
        """Undo `mark_outdated`: the memory is current again and its correction no longer supersedes it."""
        m = self.get(id_or_path)
        if m.status != "outdated":
            raise BadInput(f"{m.path}: is not outdated (status {m.status}); nothing to restore")
        with self._transaction("restore", f"current: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")],
                               source) as tx:
            tx.edit(m, {"status": "active"}, remove=("superseded_by",))
            for newer in m.superseded_by:
                rows = self.catalog.by_id(newer)
                if rows:
                    n = self._read(rows[0].path)
                    rest = [i for i in n.supersedes if i != m.id]
                    tx.edit(n, {"supersedes": rest} if rest else {}, remove=() if rest else ("supersedes",))
        return self.get(m.id)

    def undo(self, source: str | None = None) -> dict:
        """Revert the last operation with a new commit (history is never rewritten)."""
        with self._transaction("edit", "undo", [("Memory-Op", "edit")], source) as tx:
            last = self.repo.log(max_count=1)
            head = self.repo.head()
            if not last or last[0].sha != head:
                raise BadInput("the last commit of this repository is not a vault operation; use git revert")
            c = last[0]
            if "Memory-Op" not in c.trailers and not c.subject.startswith(("init:", "undo:", "rebuild:", "doctor:", "move:")):
                raise BadInput(f"the last commit ({c.sha[:10]} {c.subject!r}) was not made by ihmt; use git revert")
            if c.subject.startswith("init:"):
                raise BadInput("nothing to undo: the last commit created the vault")
            dirty = [p for p in c.paths if self.repo.show("HEAD", p) != _text_or_none(self._abs(p))]
            if dirty:
                raise BadInput(f"{dirty[0]}: has changes since the last operation; commit or discard them first")
            for p in c.paths:
                before = self.repo.show(f"{c.sha}^", p)
                if before is None:
                    tx.remove(p)
                else:
                    tx.write(p, before)
            tx.subject = f"undo: {c.subject}"
            tx.trailers += [("Memory-Id", i) for i in c.trailers.get("Memory-Id", [])] + [("Reverts", c.sha)]
        return {"reverted": c.sha, "subject": c.subject, "commit": tx.commit}

    def forget(self, id_or_path: str, purge: bool = False, confirm: Callable[[int], bool] | None = None,
               source: str | None = None) -> dict:
        """Forget a memory. Without `purge` it is archived (kept, out of the way). With `purge` its
        file is deleted and git history is rewritten so its text is in no commit; `confirm(n)` is
        asked first with the number of commits that change. A purged vault must be force-pushed and
        other clones re-cloned (their copies still hold the text).
        """
        m = self.get(id_or_path)
        if not purge:
            archived = self.archive(m.id, source=source)
            return {"id": m.id, "purged": False, "path": archived.path}
        paths = sorted({c.paths[0] for c in self.repo.log(m.path, follow=True) if c.paths} | {m.path})
        first = self.repo.log(m.path, follow=True)
        count = gitlog.commits_touching_since(self.repo, first[-1].sha) + 1 if first else 1
        if confirm is not None and not confirm(count):
            return {"id": m.id, "purged": False, "cancelled": True, "commits": count}
        needles = [m.title, *{p.rpartition("/")[2] for p in paths}, notes.first_line(m.body)[:40],
                   *[line.strip() for line in m.body.splitlines() if len(line.strip()) >= 12]]
        with self._transaction("edit", f"forget: purged memory {m.id}", [("Memory-Id", m.id), ("Memory-Op", "edit")],
                               source) as tx:
            tx.remove(m.path)
        rewritten = gitlog.rewrite_history(self.repo, m.id, needles)
        with self.lock.held():
            self._rebuild_caches()  # deleted documents linger in index segments until rebuilt
        return {"id": m.id, "purged": True, "commits": rewritten}

    def pin(self, id_or_path: str, pinned: bool = True, source: str | None = None) -> Memory:
        """Pin (a core memory: never decays, always in the brief) or unpin a memory. One commit."""
        m = self.get(id_or_path)
        if m.pinned == pinned:
            return m
        with self._transaction("edit", f"{'pin' if pinned else 'unpin'}: {m.title}",
                               [("Memory-Id", m.id), ("Memory-Op", "edit")], source) as tx:
            tx.edit(m, {"pinned": pinned})
        return self.get(m.id)

    def archive(self, id_or_path: str, source: str | None = None) -> Memory:
        """Move a memory into `archive/` (same sub-path), status archived: kept and searchable, out of the way."""
        m = self.get(id_or_path)
        if m.folder.split("/")[0] == tree.ARCHIVE:
            raise BadInput(f"{m.path}: is already archived; use restore to bring it back")
        if m.pinned:
            raise BadInput(f"{m.path}: is pinned (a core memory); unpin it first")
        with self._transaction("archive", f"archive: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "archive")],
                               source) as tx:
            tx.edit(m, {"status": "archived"})
            dest = tx.move(m.path, f"{tree.ARCHIVE}/{m.folder}".rstrip("/"))
        return self._read(dest)

    def restore(self, id_or_path: str, source: str | None = None) -> Memory:
        """Bring an archived memory back to the folder it was archived from, status active."""
        m = self.get(id_or_path)
        if m.folder.split("/")[0] != tree.ARCHIVE:
            raise BadInput(f"{m.path}: is not archived; only memories under {tree.ARCHIVE}/ can be restored")
        home = m.folder.partition("/")[2] or "restored"
        with self._transaction("restore", f"restore: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")],
                               source) as tx:
            tx.edit(m, {"status": "outdated" if m.superseded_by else "active"})
            dest = tx.move(m.path, home)
        return self._read(dest)

    def read_folder(self, folder: str = "") -> str:
        """A folder's summary (its index.md): one level of the tree, to drill down from."""
        rel = tree.clean_topic(folder, self.config.max_depth) if folder.strip().strip("/") else ""
        file = self._abs(f"{rel}/{tree.INDEX}" if rel else tree.INDEX)
        if not file.is_file():
            raise NotFound(f"{folder or '/'}: no such topic; see 'ihmt tree'")
        return file.read_text(encoding="utf-8")

    def brief(self, budget_tokens: int | None = None, recent: int = 8) -> str:
        """The top level for the start of a session: topics, pinned and recent memories, within a budget.

        One line per top-level topic (count, keywords, "[+N]" for what lies below), every pinned
        memory, then the most recent ones. Cut to `budget_tokens` (chars/4) whatever the vault size.
        """
        self.refresh()
        budget = (budget_tokens or self.config.brief_tokens) * 4
        live = self.catalog.count("WHERE status != 'archived'")
        lines = [f"# {self.config.title}: {live} memories"]
        topics = [i for name in self._subfolders("") if name != tree.ARCHIVE and (i := _folder_info(self, name))]
        if topics:
            lines += ["", "## Topics (read_memory(path) to drill down)"]
            for t in topics:
                below = len(self._subfolders(t.name))
                more = f" [+{below} subtopics]" if below else ""
                lines.append(f"- {t.name}/ — {t.count} memories{more}: {', '.join(t.keywords[:6])}")
        pinned = self.catalog.pinned()
        if pinned:
            lines += ["", "## Pinned"]
            lines += [f"- {r.title}: {notes.shorten(r.first_line, 160)} ({r.id})" for r in pinned]
        shown = {r.id for r in pinned}
        fresh = [r for r in self.catalog.recent(recent + len(shown)) if r.id not in shown][:recent]
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

    def rebuild(self, progress: Progress | None = None) -> dict:
        """Regenerate every summary, the catalog and the search index from the memory files."""
        with self._transaction("edit", "rebuild: regenerate summaries", [("Memory-Op", "edit")]) as tx:
            count = self._rebuild_caches(progress)
            tx.folders.update(self._all_folders())
            tx.reindex_all = True
        return {"memories": count, "summaries_changed": len(tx.summaries_written), "commit": tx.commit}

    def reconcile(self, paths: Iterable[str] | None = None, agent: str = "watch") -> dict:
        """Take in what changed on disk outside the tool — a person's edits, a `git pull` — as one commit.

        `paths` (vault-relative or absolute; folders allowed) limits the look to what an editor
        touched; None looks at everything. New or edited memories get what their front matter
        lacks (id, created, title; the person's keys untouched), a copied file a new id, a moved
        one keeps its id; deletions leave the index and the summaries. Summaries along every
        changed path are regenerated. A file that cannot be read is not committed nor indexed: it
        is reported in `problems` and taken in once fixed. Returns {changes, problems, commit}.
        """
        with self._transaction("edit", "edit", [], agent) as tx:
            changes, problems = self._take_in(tx, paths)
            ops = {c["op"] for c in changes}
            tx.op = ops.pop() if len(ops) == 1 else "edit"
            if len(changes) == 1:
                tx.subject = f"{tx.op}: {changes[0]['title']}"
            elif changes:
                tx.subject = f"{tx.op}: {len(changes)} memories changed by hand"
            else:
                tx.subject = "edit: regenerate summaries"
            tx.trailers += [("Memory-Op", tx.op)] + [("Memory-Id", c["id"]) for c in changes if c["id"]]
        return {"changes": changes, "problems": [p.to_dict() for p in problems], "commit": tx.commit,
                "written": sorted(tx.paths)}

    def _take_in(self, tx: Transaction, paths: Iterable[str] | None) -> tuple[list[dict], list[Problem]]:
        scope = None if paths is None else sorted({r for p in paths if (r := self._rel_or_none(p)) is not None})
        on_disk = self._scan(scope)
        known = self.catalog.stamps()
        if scope is None:
            looked = set(on_disk) | set(known)
        else:
            looked = set(on_disk) | {p for p in known if any(p == s or p.startswith(s + "/") for s in scope)}
        dirty = set(self.repo.dirty(scope)) if scope is None or scope else set()
        candidates = {p for p in looked if p in dirty or on_disk.get(p) != known.get(p)}
        for p in dirty:  # a summary edited by hand or brought by git: its folder is regenerated
            if p.endswith(tree.INDEX):
                tx.folders.add(p.rpartition("/")[0] if "/" in p else "")
                tx.paths.add(p)
        gone = {p for p in candidates if p not in on_disk and self._is_memory_path(p)}
        id_of_gone = {(self.catalog.by_path(p) or {}).get("id"): p for p in gone}
        changes, problems = [], []
        for rel in sorted(candidates - gone):
            if not self._is_memory_path(rel):
                continue
            try:
                m = self._read(rel)
            except BrokenFile as e:
                problems.append(Problem("broken", rel, str(e), repairable=False))
                self.catalog.delete(rel)  # not indexed until fixed; the next look takes it in
                tx.folders.add(rel.rpartition("/")[0])
                continue
            fill = {}
            if "title" in m.missing:
                fill["title"] = m.title
            if "created" in m.missing:
                fill["created"] = notes.now_timestamp()
            op, old_path = "edit", None
            moved_from = [r.path for r in self.catalog.by_id(m.id) if r.path != rel and not self._abs(r.path).exists()] \
                if m.id else []
            if m.id and m.id in id_of_gone:
                op, old_path = "move", id_of_gone.pop(m.id)
            elif moved_from:  # its old name was deleted in another batch of events (a move across folders)
                op, old_path = "move", moved_from[0]
            elif not m.id and (self.catalog.by_path(rel) or {}).get("id"):
                fill["id"] = self.catalog.by_path(rel)["id"]  # the id was dropped by an edit: identity stays
            elif not m.id or any(r.path != rel and self._abs(r.path).exists() for r in self.catalog.by_id(m.id)):
                fill["id"] = notes.new_id()  # new by hand, or a copy of another memory
            if fill:
                try:
                    tx.edit(m, fill)
                except BrokenFile as e:  # readable, but not writable back safely (duplicate keys...)
                    problems.append(Problem("broken", rel, str(e), repairable=False))
                    self.catalog.delete(rel)
                    continue
            tx.paths.add(rel)
            tx.folders.add(m.folder)
            if not fill and rel not in dirty and not old_path:
                continue  # committed already (a pull, a clone): indexed and summarised, not a change
            if old_path:
                tx.paths.add(old_path)
                tx.folders.add(old_path.rpartition("/")[0])
                gone.discard(old_path)
            changes.append({"op": op, "path": rel, "id": fill.get("id", m.id), "title": m.title, "from": old_path})
        for rel in sorted(gone):
            row = self.catalog.by_path(rel) or {}
            tx.paths.add(rel)
            tx.folders.add(rel.rpartition("/")[0])
            changes.append({"op": "delete", "path": rel, "id": row.get("id", ""), "title": row.get("title", rel),
                            "from": None})
        return changes, problems

    def _rel_or_none(self, path: str) -> str | None:
        p = Path(path)
        full = p if p.is_absolute() else self.root / p
        try:
            rel = full.resolve().relative_to(self.root).as_posix() if full.exists() else \
                full.parent.resolve().joinpath(full.name).relative_to(self.root).as_posix()
        except ValueError:
            return None
        parts = rel.split("/")
        return None if rel == "." or any(x.startswith(".") for x in parts) else rel

    def doctor(self, repair: bool = False) -> list[Problem]:
        from .doctor import examine, fix
        problems = examine(self)
        if repair and any(p.repairable for p in problems):
            fix(self, problems)
        return problems

    # -- helpers for writes -----------------------------------------------------------------------
    def _validate(self, item: dict, where: str) -> dict:
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            raise BadInput(f"{where}the memory text is empty; give the text to remember")
        if "\0" in text:
            raise BadInput(f"{where}the memory text contains a NUL byte; memories are plain text")
        if len(text.encode("utf-8")) > notes.MAX_BYTES:
            raise BadInput(f"{where}the text is larger than {notes.MAX_BYTES // 1_000_000} MB; a memory is a note: "
                           f"save a summary and keep the file elsewhere")
        secret = find_secret(f"{item.get('title') or ''}\n{text}")
        if secret:
            raise SecretRefused(f"{where}the text contains what looks like {secret}; memories are committed to "
                                f"git in plain text: remove it (keep a pointer such as 'in 1Password') and save again")
        title = item.get("title")
        title = notes.shorten(str(title), 120) if title else notes.title_from_body(text, "Untitled")
        topic = item.get("topic")
        folder = tree.clean_topic(topic, self.config.max_depth) if topic and str(topic).strip() else None
        date = _check_date(item["date"], where) if item.get("date") else None
        type_ = (item.get("type") or "note").strip().lower()
        if type_ not in notes.TYPES:
            raise BadInput(f"{where}type {type_!r} is unknown; use one of {', '.join(notes.TYPES)}")
        tags = item.get("tags") or []
        if isinstance(tags, str):
            tags = [t for t in re.split(r"[,\s]+", tags) if t]
        tags = [str(t).strip().lstrip("#") for t in tags if str(t).strip().lstrip("#")]
        id_ = item.get("id")
        if id_ is not None and not notes.ID_PATTERN.match(str(id_)):
            raise BadInput(f"{where}id {id_!r} is not valid; ids are 6-32 lowercase letters and digits")
        return {"text": text if text.endswith("\n") else text + "\n", "title": title, "folder": folder,
                "date": date, "tags": tags, "type": type_, "source": item.get("source") or self.config.default_source,
                "pinned": bool(item.get("pinned")), "supersedes": [str(s) for s in item.get("supersedes") or []],
                "id": str(id_) if id_ else None, "extra": item.get("extra") or {}}

    def _split_if_crowded(self, folders: set[str], agent: str) -> None:
        """After a save: split a folder that outgrew the branch factor. A folder whose memories share
        no keyword stays crowded, so a split is tried when it passes the branch factor and then every
        half branch factor more, not at every save (each try reads the whole folder)."""
        bf = self.config.branch_factor

        def due(folder: str) -> bool:
            n = sum(1 for name in os.listdir(self._abs(folder)) if name.endswith(".md") and name != tree.INDEX)
            return n > bf and (n - bf - 1) % max(1, bf // 2) == 0

        crowded = [f for f in folders if f and due(f)]
        if not crowded:
            return
        with self._transaction("move", "move: split crowded topics", [("Memory-Op", "move")], agent) as tx:
            moved = tx.split_crowded(set(crowded))
            if moved:
                tx.subject = f"move: split {', '.join(sorted(moved)) or 'root'} into subtopics"
                tx.trailers += [("Memory-Id", i) for i in moved[next(iter(moved))]] if len(moved) == 1 else []


def facts_of(m: Memory) -> list[timeline.Fact]:
    """A memory's facts: the ones recorded in its front matter, else the ones its text states."""
    who = timeline.speaker(m.body, m.meta, m.source)
    recorded = timeline.from_meta(m.meta, who)
    if recorded is not None:
        return recorded
    return timeline.extract(f"{m.title}.\n{m.body}" if m.title not in m.body else m.body, who)


def _check_facts(facts) -> list[dict]:
    if not isinstance(facts, (list, tuple)):
        raise BadInput("facts must be a list of {subject, attribute, value}")
    out = []
    for n, f in enumerate(facts, 1):
        if not isinstance(f, dict) or not str(f.get("attribute") or "").strip() or str(f.get("value") or "").strip() == "":
            raise BadInput(f"fact {n}: needs an attribute and a value, e.g. {{subject: user, attribute: location, value: Madrid}}")
        out.append({"subject": str(f.get("subject") or "I"), "attribute": str(f["attribute"]).strip().lower(),
                    "value": str(f["value"]).strip()})
    return out


def _check_date(value, where: str = "") -> str:
    """An ISO date (YYYY-MM-DD) from a caller, or a BadInput naming the argument."""
    import datetime as dt
    text = str(value).strip()
    if not _DATE.match(text):
        raise BadInput(f"{where}date {text!r} is not an ISO date; use YYYY-MM-DD")
    try:
        return dt.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise BadInput(f"{where}date {text!r} is not a real date; use YYYY-MM-DD") from None


def _text_or_none(file: Path) -> str | None:
    try:
        return notes.read_exact(file)
    except (OSError, UnicodeDecodeError):
        return None


def _safe_yaml(block: str | None) -> dict:
    if not block:
        return {}
    try:
        meta = yaml.load(block, Loader=notes._Loader)
    except yaml.YAMLError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _memory_doc(m: Memory):
    from .search import Doc
    return Doc(key=m.id or f"path:{m.path}", kind="memory", path=m.path, folder=m.folder,
               depth=tree.depth(m.folder), title=m.title, body=m.body, id=m.id, tags=m.tags, type=m.type,
               status=m.status, date=m.date, supersedes=m.supersedes, superseded_by=m.superseded_by,
               pinned=m.pinned, source=m.source, created=m.created)


def _folder_info(v: Vault, folder: str) -> tree.FolderInfo | None:
    """What a parent lists of a subfolder, from the subfolder's index.md (fresh: bottom-up order)."""
    try:
        block, _ = notes.split_front_matter(v._abs(f"{folder}/{tree.INDEX}").read_text(encoding="utf-8"))
        meta = _safe_yaml(block)
    except (OSError, UnicodeDecodeError):
        meta = {}
    name = folder.rpartition("/")[2]
    count = meta.get("memories")
    if not isinstance(count, int):
        count = v.catalog.count("WHERE folder = ? OR folder LIKE ?", (folder, folder + "/%"))
    if not count:
        return None
    return tree.FolderInfo(name=name, title=str(meta.get("title") or tree.humanize(name)), count=count,
                           keywords=[str(k) for k in meta.get("keywords") or []])
