"""`ihmt watch`: a person edits memories in any editor, the vault takes the edits in.

A thin shell over `Vault.reconcile`: watchdog events are filtered (editors' temporary and swap
files, `.git/`, `.ihmt/`, dot-files), collected, and after a quiet moment (the debounce) handed to
`reconcile` as one batch — a `git checkout` of 1,000 files is one reconciliation. Reconciling is
idempotent and writes a file only when its content changes, so the watcher's own writes cannot
loop; events for paths it just wrote with the same modification time are dropped anyway.

Watches: the vault root non-recursively plus each top-level folder recursively, so `.git/` (which
`git pull` fills with events) is never watched (STACK-NOTES.md, watchdog).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from ..errors import VaultError
from ..results import ReconcileReport
from ..vault import Vault

IDLE_MERGE = 30.0  # seconds without a change after which the watcher merges the search index

EVENTS = [
    FileCreatedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


def ignored(rel: str) -> bool:
    """Editors' temporary files, swap files, backups, and everything hidden."""
    parts = rel.split("/")
    name = parts[-1]
    return (
        any(p.startswith((".", "#")) for p in parts)
        or name.endswith(("~", ".swp", ".swx", ".tmp", ".ihmt-tmp"))
        or name == "4913"
        or "___jb_" in name
        or name.endswith("#")
    )


class Watcher(FileSystemEventHandler):
    def __init__(self, vault: Vault, debounce: float = 0.4, log: Callable[[str], None] = print, max_wait: float = 3.0):
        self.v = vault
        self.debounce = debounce
        self.max_wait = max_wait
        self.log = log
        self.pending: set[str] = set()
        self.first = self.last = 0.0
        self.compacted = True  # the index was merged since the last change (or nothing changed yet)
        self.tended_at = ""  # HEAD when the gardener last found nothing queued
        self.own: dict[str, int] = {}  # path -> mtime_ns of what our last reconcile wrote
        self.cond = threading.Condition()
        self.observer = Observer()
        self.watched: set[str] = set()

    # -- events -----------------------------------------------------------------------------------
    def on_any_event(self, event) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            try:
                rel = Path(str(raw)).relative_to(self.v.root).as_posix()
            except ValueError:
                continue
            if rel == "." or ignored(rel):
                continue
            if event.is_directory and "/" not in rel and isinstance(event, DirCreatedEvent):
                self._watch_top(rel)
            if not event.is_directory and not rel.endswith(".md"):
                continue
            if self._is_own(rel):
                continue
            with self.cond:
                now = time.monotonic()
                if not self.pending:
                    self.first = now
                self.pending.add(rel)
                self.last = now
                self.cond.notify()

    def _is_own(self, rel: str) -> bool:
        stamp = self.own.get(rel)
        if stamp is None:
            return False
        try:
            return (self.v.root / rel).stat().st_mtime_ns == stamp
        except OSError:
            return False

    def _watch_top(self, name: str) -> None:
        if name in self.watched or name.startswith("."):
            return
        self.watched.add(name)
        self.observer.schedule(self, str(self.v.root / name), recursive=True, event_filter=EVENTS)

    # -- reconciling ------------------------------------------------------------------------------
    def reconcile(self, paths: list[str] | None) -> ReconcileReport | None:
        try:
            report = self.v.maintenance.reconcile(paths)
        except VaultError as e:  # the vault is busy, say: keep the batch for the next round
            self.log(f"{time.strftime('%H:%M:%S')} error: {e}; will try again")
            if paths:
                with self.cond:
                    if not self.pending:
                        self.first = time.monotonic()
                    self.pending.update(paths)
                    self.last = time.monotonic()
            return None
        stamp = time.strftime("%H:%M:%S")
        for c in report.changes:
            where = f"{c.moved_from} → {c.path}" if c.moved_from else c.path
            self.log(f"{stamp} {c.op:<6} {where}  {c.title}")
        for p in report.problems:
            self.log(f"{stamp} skipped {p.message}")
        self.own = {}
        for rel in report.written:
            try:
                self.own[rel] = (self.v.root / rel).stat().st_mtime_ns
            except OSError:
                pass
        return report

    def _tend(self) -> None:
        """A quiet moment: one slice of the gardener's queue, if a save or an edit queued some
        (a folder grown past the branch factor); looked at again only once the vault changed."""
        head = self.v.repo.head_fast()
        if head == self.tended_at:
            return
        try:
            report = self.v.topics.tend(source="watch")
        except VaultError as e:
            self.log(f"{time.strftime('%H:%M:%S')} gardener: {e}")
            return
        if report is None:
            self.tended_at = head  # nothing queued as of this commit
        if report is not None and report.moved:
            self.log(f"{time.strftime('%H:%M:%S')} gardener: moved {len(report.moved)} memories")

    def start(self) -> None:
        self.observer.schedule(self, str(self.v.root), recursive=False, event_filter=EVENTS)
        for child in sorted(self.v.root.iterdir()):
            if child.is_dir() and not child.name.startswith("."):
                self._watch_top(child.name)
        self.observer.start()

    def run(self, stop: threading.Event | None = None) -> None:
        """Reconcile what changed while nobody watched, then follow events until `stop` is set."""
        stop = stop or threading.Event()
        self.start()
        self.reconcile(None)
        self.log(f"{time.strftime('%H:%M:%S')} watching {self.v.root}")
        try:
            while not stop.is_set():
                with self.cond:
                    if not self.pending:
                        self.cond.wait(timeout=0.5)
                        idle = bool(self.last) and time.monotonic() - self.last >= IDLE_MERGE
                        compact, self.compacted = idle and not self.compacted, self.compacted or idle
                    else:
                        compact = False
                if compact:
                    self.v.maintenance.compact_index()  # quiet for a while: one index segment, the fastest search
                elif not self.pending:
                    self._tend()
                with self.cond:
                    if not self.pending:
                        continue
                    self.compacted = False
                    now = time.monotonic()
                    quiet = now - self.last >= self.debounce
                    if not quiet and now - self.first < self.max_wait:
                        self.cond.wait(timeout=self.debounce - (now - self.last))
                        continue
                    batch, self.pending = sorted(self.pending), set()
                self.reconcile(batch)
        finally:
            self.observer.stop()
            self.observer.join(timeout=5)


class _Changed(FileSystemEventHandler):
    """Any change under the ingested paths, hidden files and folders aside: a signal, no detail
    (ingest finds what changed itself, by comparing chunks)."""

    def __init__(self, roots: list[Path]):
        self.roots = roots
        self.when = 0.0
        self.cond = threading.Condition()

    def on_any_event(self, event) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = Path(str(raw)) if raw else None
            if path is None or any(p.startswith(".") for p in path.parts[-3:]):
                continue
            if any(path == r or r in path.parents for r in self.roots):
                with self.cond:
                    self.when = time.monotonic()
                    self.cond.notify()


def watch_sources(
    paths: list[Path],
    ingest: Callable[[], None],
    debounce: float = 0.5,
    log: Callable[[str], None] = print,
    stop: threading.Event | None = None,
) -> None:
    """`ihmt ingest --watch`: call `ingest` again after each quiet moment that follows a change
    under `paths`, until `stop` is set (or Ctrl-C)."""
    stop = stop or threading.Event()
    roots = [p.expanduser().resolve() for p in paths]
    handler = _Changed(roots)
    observer = Observer()
    for root in roots:
        observer.schedule(handler, str(root if root.is_dir() else root.parent), recursive=root.is_dir())
    observer.start()
    log(f"{time.strftime('%H:%M:%S')} watching {', '.join(map(str, roots))}")
    try:
        while not stop.is_set():
            with handler.cond:
                if not handler.when:
                    handler.cond.wait(timeout=0.5)
                    continue
                wait = debounce - (time.monotonic() - handler.when)
                if wait > 0:
                    handler.cond.wait(timeout=wait)
                    continue
                handler.when = 0.0
            try:
                ingest()
            except VaultError as e:  # busy, say: the next change tries again
                log(f"{time.strftime('%H:%M:%S')} error: {e}")
    except KeyboardInterrupt:
        pass
    finally:
        observer.stop()
        observer.join(timeout=5)
