"""One writer at a time per vault, across processes.

Writers (CLI, MCP servers, the watcher) take the vault lock around a whole operation; readers
never take it. A writer that cannot get it within the configured timeout gets a `LockTimeout`
naming the lock file, never a traceback. The lock is an OS-level `flock`, so a killed holder
releases it at once; the lock file itself stays (deleting it would let two writers in).
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import LockTimeout


class VaultLock:
    def __init__(self, path: Path, timeout: float):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.timeout = timeout
        self._lock = FileLock(str(path), thread_local=False)

    @contextmanager
    def held(self, timeout: float | None = None):
        """Hold the lock; `timeout=0` tries once (a reader that must not wait)."""
        try:
            self._lock.acquire(timeout=self.timeout if timeout is None else timeout, poll_interval=0.02)
        except Timeout:
            raise LockTimeout(f"{self.path}: another process has been writing to this vault for "
                              f"over {self.timeout:g}s; try again, or raise lock_timeout in .ihmt/config.toml") from None
        try:
            yield
        finally:
            self._lock.release()
