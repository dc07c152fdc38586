"""One writer at a time per vault, across processes.

Writers (CLI, MCP servers, the watcher, sync) take the vault lock around a whole operation; readers
never take it. The lock is an OS-level `flock` (filelock), so a killed holder releases it at once;
the lock file itself stays (deleting it would let two writers in).

The holder's heartbeat: while it holds the lock, the holder records who it is (pid, host, since,
what) and a heartbeat in a small file under the cache (`lock-holder.json`), refreshed by a daemon
thread every second (a quarter of `lock_timeout` when that is shorter): `beat` (wall clock) and
`mono` (the host's monotonic clock, which every process on one host shares).

Waiting: a writer queued behind a live, working holder waits for it, however long its operation
takes and however many writers are ahead of it: an agent's save that fails is a memory lost, and
on a loaded machine (load 15-20) honest operations take longer than any fixed timeout. A waiter
gives up with a `LockTimeout` naming the holder only when the holder is

- stuck: no heartbeat for `lock_timeout` seconds (it is stopped, SIGSTOP, or frozen); or
- dead: its pid is gone on this host while the lock is still held, for `lock_timeout` seconds (the
  record is stale and whoever holds the lock now does not say so).

A holder that records no heartbeat (an older version, or the moment between taking the lock and
recording) is judged as before: `lock_timeout` bounds how long one such holder keeps the lock.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .. import files
from ..errors import LockTimeout

_STEP = 0.25  # how long one attempt waits before looking at who holds the lock
_BEAT = 1.0  # seconds between a holder's heartbeats (at most)
_HOST = socket.gethostname()


def _alive(pid: object) -> bool:
    """Whether a process of this host with this pid exists (one we may not signal exists too)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class VaultLock:
    def __init__(self, path: Path, timeout: float, holder_file: Path | None = None):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.holder_file = holder_file or path.with_name(path.name + ".holder")
        self.timeout = timeout
        self._lock = FileLock(str(path), thread_local=False)
        self._depth = 0
        self._beating: tuple[threading.Event, threading.Thread] | None = None  # the heartbeat: stop it, join it

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
            self._start_beating(what)
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._stop_beating()
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
            state = self._state(h, limit)
            who = (h.get("pid"), h.get("since")) if h else None
            if state == "stuck":  # no heartbeat for lock_timeout already
                raise LockTimeout(self._stuck_message(h, limit, state)) from None
            if state == "working" or who != seen:  # a live holder, or a new one: its own lock_timeout
                seen, since = who, time.monotonic()
            elif time.monotonic() - since > limit:
                raise LockTimeout(self._stuck_message(h, limit, state)) from None

    @staticmethod
    def _state(h: dict | None, limit: float) -> str:
        """What the holder's record says: working (alive, beating), stuck (no beat for `limit`),
        dead (its pid gone on this host), or unknown (no heartbeat recorded)."""
        if not h or not isinstance(h.get("beat"), (int, float)):
            return "unknown"
        if h.get("host") == _HOST:
            if not _alive(h.get("pid")):
                return "dead"
            mono = h.get("mono")
            age = time.monotonic() - mono if isinstance(mono, (int, float)) else time.time() - h["beat"]
        else:
            age = time.time() - h["beat"]
        return "working" if age <= limit else "stuck"

    def _start_beating(self, what: str) -> None:
        since = time.time()
        self._record(what, since)
        stop = threading.Event()
        every = max(0.05, min(_BEAT, self.timeout / 4)) if self.timeout > 0 else _BEAT

        def beat() -> None:
            while not stop.wait(every):
                self._record(what, since)

        thread = threading.Thread(target=beat, name="ihmt-lock-heartbeat", daemon=True)
        thread.start()
        self._beating = (stop, thread)

    def _stop_beating(self) -> None:
        """Stop the heartbeat and wait for it, so no late beat re-creates the record once it is gone."""
        if self._beating is not None:
            stop, thread = self._beating
            stop.set()
            thread.join(timeout=5)
            self._beating = None

    def _record(self, what: str, since: float) -> None:
        info = {
            "pid": os.getpid(),
            "host": _HOST,
            "since": since,
            "what": what,
            "beat": time.time(),
            "mono": time.monotonic(),
        }
        try:
            files.atomic_write(self.holder_file, json.dumps(info))
        except OSError:  # the record helps waiters judge a wait; the lock itself is the flock
            pass

    def _stuck_message(self, h: dict | None, limit: float, state: str = "unknown") -> str:
        if not h:
            return (
                f"{self.path}: another process has held this vault's lock for over {limit:g}s; "
                f"try again, or raise lock_timeout in .ihmt/config.toml"
            )
        what = f" ({h['what']})" if h.get("what") else ""
        who = f"process {h.get('pid')} on {h.get('host')}{what}"
        if state == "stuck":
            return (
                f"{self.path}: {who} holds this vault's lock and has given no sign of life (its heartbeat) "
                f"for over {limit:g}s: it is stuck; stop it (kill {h.get('pid')}) and try again"
            )
        if state == "dead":
            return (
                f"{self.path}: {who} is gone, yet the lock has been held for over {limit:g}s by a process "
                f"that does not say who it is; stop the other ihmt processes and try again"
            )
        return (
            f"{self.path}: {who} has held this vault's lock for over "
            f"{limit:g}s; if it is stuck, stop it (kill {h.get('pid')}), or raise lock_timeout in .ihmt/config.toml"
        )
