"""One writer at a time per vault, across processes.

Writers (CLI, MCP servers, the watcher, sync) take the vault lock around a whole operation; readers
never take it. The lock is an OS-level `flock` (filelock), so a killed holder releases it at once;
the lock file itself stays (deleting it would let two writers in).

Waiting: a writer queued behind a live holder gets through, however many writers are ahead of
it — an agent's save that fails is a memory lost. The holder records who it is (pid, host, since,
what) in a small file under the cache; `lock_timeout` bounds how long *one holder* may keep the lock, not
how long a writer waits in the queue. Only a holder that keeps it longer (stuck) makes a waiter
give up, with a `LockTimeout` naming that process.
"""

from __future__ import annotations

import json
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .. import files
from ..errors import LockTimeout

_STEP = 0.25  # how long one attempt waits before looking at who holds the lock


class VaultLock:
    def __init__(self, path: Path, timeout: float, holder_file: Path | None = None):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.holder_file = holder_file or path.with_name(path.name + ".holder")
        self.timeout = timeout
        self._lock = FileLock(str(path), thread_local=False)
        self._depth = 0

    def holder(self) -> dict | None:
        """Who holds the lock now (as it recorded itself), or None."""
        try:
            data = json.loads(self.holder_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    @contextmanager
    def held(self, timeout: float | None = None, what: str = ""):
        """Hold the lock; `timeout=0` tries once (a reader that must not wait)."""
        limit = self.timeout if timeout is None else timeout
        self._acquire(limit)
        self._depth += 1
        if self._depth == 1:
            self._record(what)
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self.holder_file.unlink(missing_ok=True)
            self._lock.release()

    def _acquire(self, limit: float) -> None:
        if limit <= 0 or self._depth:
            try:
                self._lock.acquire(timeout=0 if not self._depth else -1, poll_interval=0.02)
                return
            except Timeout:
                raise LockTimeout(f"{self.path}: another process is writing to this vault; try again") from None
        seen, since = None, time.monotonic()
        while True:
            try:
                self._lock.acquire(timeout=_STEP, poll_interval=0.02)
                return
            except Timeout:
                pass
            h = self.holder()
            who = (h.get("pid"), h.get("since")) if h else None
            if who != seen:  # a new holder: it gets its own lock_timeout
                seen, since = who, time.monotonic()
            elif time.monotonic() - since > limit:
                raise LockTimeout(self._stuck_message(h, limit)) from None

    def _record(self, what: str) -> None:
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time(), "what": what}
        try:
            files.atomic_write(self.holder_file, json.dumps(info))
        except OSError:  # the record helps waiters explain a wait; the lock itself is the flock
            pass

    def _stuck_message(self, h: dict | None, limit: float) -> str:
        if not h:
            return (
                f"{self.path}: another process has held this vault's lock for over {limit:g}s; "
                f"try again, or raise lock_timeout in .ihmt/config.toml"
            )
        what = f" ({h['what']})" if h.get("what") else ""
        return (
            f"{self.path}: process {h.get('pid')} on {h.get('host')}{what} has held this vault's lock for over "
            f"{limit:g}s; if it is stuck, stop it (kill {h.get('pid')}), or raise lock_timeout in .ihmt/config.toml"
        )
