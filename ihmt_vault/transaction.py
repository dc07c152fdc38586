"""The write transaction: what one operation touched, and how it becomes one commit.

`Vault._transaction` opens one under the vault lock. Every path is recorded in the journal
(`.ihmt/cache/journal.jsonl`) *before* it is written, and files are written atomically, so a crash
leaves either the last commit or a journal naming every touched path, which the next write or
`doctor --repair` completes. `finish` refreshes the catalog, regenerates each touched folder's
summary chain bottom-up (writing only what changed), commits exactly the touched paths with the
operation's trailers, updates the search index and clears the journal.
"""
from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Callable

from . import gitlog, notes, tree
from .errors import BadInput, VaultError
from .notes import Memory


class Transaction:
    """What one operation touched; `finish` turns it into summaries, one commit and fresh caches."""

    def __init__(self, vault, op: str, subject: str, trailers: list, agent: str, journal: bool = True):
        self.v = vault
        self.op = op
        self.subject = subject
        self.trailers = list(trailers)
        self.agent = agent
        self.paths: set[str] = set()       # every vault path written or deleted
        self.folders: set[str] = set()     # folders whose summaries must be regenerated
        self.summaries_written: list[str] = []
        self.reindex_all = False
        self.commit: str | None = None
        self._journal = journal
        self._placer: tree.Placer | None = None
        self.known: dict[str, tuple[Memory, list[str]]] = {}   # files this operation wrote, parsed

    def _record(self, rel: str) -> None:
        if self._journal:
            j = self.v._journal
            if not j.exists():
                j.parent.mkdir(parents=True, exist_ok=True)
                with open(j, "w", encoding="utf-8") as f:
                    f.write(json.dumps({"op": self.op, "subject": self.subject, "agent": self.agent}) + "\n")
            with open(j, "a", encoding="utf-8") as f:
                f.write(json.dumps({"path": rel}) + "\n")
        self.paths.add(rel)

    def write(self, rel: str, text: str) -> None:
        self._record(rel)
        self.known.pop(rel, None)  # rewritten: parse it again when needed
        notes.write_atomic(self.v._abs(rel), text)
        if self.v._is_memory_path(rel):
            self.folders.add(rel.rpartition("/")[0])

    def remove(self, rel: str) -> None:
        self._record(rel)
        self.v._abs(rel).unlink(missing_ok=True)
        self.folders.add(rel.rpartition("/")[0])

    def move(self, rel: str, folder: str) -> str:
        name = rel.rpartition("/")[2]
        dest = self.free_name(folder, name.removesuffix(".md"))
        self._record(rel)
        self._record(dest)
        self.v._abs(dest).parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.v._abs(rel), self.v._abs(dest))
        self.folders.update({rel.rpartition("/")[0], folder})
        if rel in self.known:
            m, kws = self.known.pop(rel)
            self.known[dest] = (replace(m, path=dest), kws)
        return dest

    def edit(self, m: Memory, changes: dict, remove: tuple[str, ...] = ()) -> None:
        text = notes.read_exact(self.v._abs(m.path))
        self.write(m.path, notes.update_front_matter(text, changes, remove, path=m.path))

    def mark_outdated(self, old: Memory, new_id: str) -> None:
        by = old.superseded_by + ([new_id] if new_id not in old.superseded_by else [])
        self.edit(old, {"status": "outdated", "superseded_by": by})

    def free_name(self, folder: str, stem: str) -> str:
        base = f"{folder}/{stem}" if folder else stem
        rel, n = f"{base}.md", 2
        while self.v._abs(rel).exists() or rel in self.paths:
            rel, n = f"{base}-{n}.md", n + 1
        return rel

    def create(self, items: list[dict], progress: Callable[[int, int], None] | None = None) -> list[Memory]:
        """Write new memory files, placing those without a topic."""
        created = []
        now = notes.now_timestamp()
        for n, item in enumerate(items):
            kws = tree.keywords(item["title"], item["text"], item["tags"])
            folder = item["folder"]
            if folder is None:
                self._placer = self._placer or self.v._placer()
                folder = self._placer.place(kws)
            if folder and tree.depth(folder) > self.v.config.max_depth:
                raise BadInput(f"topic {folder}: deeper than max_depth {self.v.config.max_depth}")
            if self._placer:
                self._placer.add(folder, kws)
            id_ = item["id"] or notes.new_id()
            rel = self.free_name(folder, notes.slugify(item["title"]))
            fields = {"id": id_, "title": item["title"], "type": item["type"], "date": item["date"],
                      "created": now, "tags": item["tags"], "status": "active",
                      "supersedes": item["supersedes"] or None, "source": item["source"],
                      "pinned": item["pinned"], **item["extra"]}
            text = notes.compose(fields, item["text"])
            self.write(rel, text)
            created.append(notes.parse(text, rel))
            self.known[rel] = (created[-1], kws)
            if progress:
                progress(n + 1, len(items))
        return created

    def split_crowded(self, folders: set[str]) -> dict[str, list[str]]:
        """Split every crowded folder among `folders` into subtopics; returns {folder: moved ids}."""
        moved: dict[str, list[str]] = {}
        cfg = self.v.config
        queue = sorted(folders)
        while queue:
            folder = queue.pop()
            if not folder or folder.split("/")[0] == tree.ARCHIVE or tree.depth(folder) >= cfg.max_depth:
                continue
            rows = self._rows_in(folder)
            plan = tree.plan_split(rows, set(self.v._subfolders(folder)), cfg.branch_factor)
            for name, paths in plan.items():
                sub = f"{folder}/{name}"
                for rel in paths:
                    self.move(rel, sub)
                    moved.setdefault(folder, []).append(next(r["id"] for r in rows if r["path"] == rel))
                queue.append(sub)
        return moved

    def _rows_in(self, folder: str) -> list[dict]:
        """The folder's memories as they are on disk now (new files included)."""
        rows = []
        for name in sorted(os.listdir(self.v._abs(folder))):
            rel = f"{folder}/{name}"
            if rel in self.known:
                m, kws = self.known[rel]
                rows.append({"path": rel, "id": m.id, "keywords": kws})
            elif self.v._is_memory_path(rel) and self.v._abs(rel).is_file():
                try:
                    m = self.v._read(rel)
                except VaultError:
                    continue
                rows.append({"path": rel, "id": m.id, "keywords": tree.keywords(m.title, m.body, m.tags)})
        return rows

    # -- finishing --------------------------------------------------------------------------------
    def finish(self) -> None:
        v = self.v
        if not (self.paths or self.folders or self.reindex_all):
            v._journal.unlink(missing_ok=True)
            return
        memory_paths = [p for p in self.paths if v._is_memory_path(p)]
        catalogued = v._recatalog([p for p in memory_paths if v._abs(p).exists()],
                                  [p for p in memory_paths if not v._abs(p).exists()], self.known)
        for folder in sorted({f for fo in self.folders for f in tree.parents(fo)}, key=lambda f: (-tree.depth(f), f)):
            self._regenerate(folder)
        trailers = [(k, val) for k, val in self.trailers if k != "Agent"] + [("Agent", self.agent)]
        if self.op and not any(k == "Memory-Op" for k, _ in trailers):
            trailers.insert(0, ("Memory-Op", self.op))
        self.commit = v.repo.commit(sorted(self.paths), gitlog.message(self.subject, trailers))
        try:
            if not self.reindex_all:
                rewritten = {p.rpartition("/")[0] for p in self.summaries_written}  # unchanged ones stay as indexed
                v._reindex(*catalogued, rewritten)
            else:
                v._rebuild_caches()
        except Exception:  # the index is a cache: its failure must not fail an operation already committed
            v.index.invalidate()  # the next search or refresh rebuilds it
        v._journal.unlink(missing_ok=True)

    def _regenerate(self, folder: str) -> None:
        v = self.v
        rel = f"{folder}/{tree.INDEX}" if folder else tree.INDEX
        text = v._render_folder(folder)
        if text is None:  # an emptied topic disappears
            if v._abs(rel).exists():
                self.remove(rel)
                self.summaries_written.append(rel)
            try:
                v._abs(folder).rmdir()
            except OSError:
                pass
            return
        try:
            same = notes.read_exact(v._abs(rel)) == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:  # only real changes: no needless writes, events or diffs
            self.write(rel, text)
            self.summaries_written.append(rel)
