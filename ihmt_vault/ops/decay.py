"""The metabolism: memories that are recalled gain weight, memories left alone sink into `archive/`.

The rule (every number is a setting in `.ihmt/config.toml`):

    weight = decay_start + recalls - max(0, idle_days - decay_idle_days) / 7

where `idle_days` counts from the latest of the memory's `created`, its last recall (recall.py)
and the day this vault began counting. A memory whose weight is at or below `decay_threshold` is
archived by `decay` — never deleted — unless it is:

- younger than `decay_grace_days`;
- core (`pinned: true`): core memories never sink;
- protected: a live memory supersedes it (it is the history of a current fact) or links to it
  with a `[[wikilink]]` (by id, file name or title), while that memory is live.

Past `max_live` live non-core memories, the lowest weights go first. With `archive_expiry_days`
set, archived memories not recalled for that long are deleted (one commit a run, listed; a purge is
never implied: git history keeps them). Each run is one commit (`Memory-Op: decay`, the memories
as `Memory-Id` trailers) and one line in the operations log. It runs on its own at most once a
day, after a write (never during a search), and from the session-start hook (`ihmt decay --auto`).
"""

from __future__ import annotations

import datetime as dt
import re
from contextvars import ContextVar
from dataclasses import dataclass, field

from .. import clock, files
from ..engine.core import Engine
from ..errors import Refused
from ..plugins.hookspecs import hookimpl
from ..results import Committed
from ..storage import oplog, tree
from ..storage.recall import Recalls

_WIKILINK = re.compile(r"\[\[([^\]|#]+)")
LAST_RUN = "last-decay"  # under the cache: when this machine last ran decay
_EPOCH0 = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)  # the floor of "idle since"


@dataclass
class Weighed:
    id: str
    path: str
    title: str
    weight: float
    recalls: int
    idle_days: int
    why: str = ""  # why it stays (core, protected, new) or goes (weight, cap, expired)


@dataclass
class DecayReport:
    archived: list[Weighed] = field(default_factory=list)
    expired: list[Weighed] = field(default_factory=list)
    commit: str | None = None
    dry_run: bool = False

    def to_dict(self) -> dict:
        def row(w: Weighed) -> dict:
            return {
                "id": w.id,
                "path": w.path,
                "title": w.title,
                "weight": round(w.weight, 2),
                "recalls": w.recalls,
                "idle_days": w.idle_days,
                "why": w.why,
            }

        return {
            "archived": [row(w) for w in self.archived],
            "expired": [row(w) for w in self.expired],
            "commit": self.commit,
            "dry_run": self.dry_run,
        }


def weigh(e: Engine, recalls: Recalls) -> list[Weighed]:
    """Every memory's weight now (live and archived), heaviest first."""
    cfg, now = e.config, clock.now()
    e.refresh()
    stats = recalls.all()
    epoch = clock.when(recalls.epoch())
    out = []
    for r in e.catalog.all():
        seen = stats.get(r.id)
        start = max(x for x in (clock.when(r.created), clock.when(seen.last if seen else None), epoch, _EPOCH0) if x)
        idle = max(0, (now - start).days)
        w = cfg.decay_start + (seen.count if seen else 0) - max(0, idle - cfg.decay_idle_days) / 7
        out.append(Weighed(r.id, r.path, r.title, w, seen.count if seen else 0, idle))
    return sorted(out, key=lambda x: (-x.weight, x.path))


def _protected(e: Engine) -> dict[str, str]:
    """Memories a live one supersedes or links to: {id: why}."""
    rows = e.catalog.all()
    live = [r for r in rows if r.status != "archived" and not _archived(r.path)]
    by_name: dict[str, str] = {}  # id, file name or title, casefolded -> id
    for r in rows:
        by_name.setdefault(r.id.casefold(), r.id)
        by_name.setdefault(r.path.rpartition("/")[2].removesuffix(".md").casefold(), r.id)
        by_name.setdefault(r.title.casefold(), r.id)
    out: dict[str, str] = {}
    for r in live:
        for old in r.supersedes:
            out.setdefault(old, f"superseded by {r.id}")
        try:
            body = files.read_exact(e.layout.abs(r.path))
        except (OSError, UnicodeDecodeError):
            continue
        if "[[" in body:
            for target in _WIKILINK.findall(body):
                i = by_name.get(target.strip().casefold())
                if i and i != r.id:
                    out.setdefault(i, f"linked from {r.id}")
    return out


def _archived(path: str) -> bool:
    return path.split("/")[0] == tree.ARCHIVE


def plan(e: Engine, recalls: Recalls) -> DecayReport:
    """What a decay run would do now (nothing written)."""
    cfg, now = e.config, clock.now()
    weighed = weigh(e, recalls)  # (it brings the catalog up to date)
    rows = {r.id: r for r in e.catalog.all() if r.id}
    protected = _protected(e)
    report = DecayReport()
    live = []
    for w in weighed:
        r = rows.get(w.id)
        if r is None or r.status == "archived" or _archived(r.path):
            continue
        created = clock.when(r.created)
        if r.pinned or w.id in protected or (created and (now - created).days < cfg.decay_grace_days):
            continue
        live.append(w)
        if w.weight <= cfg.decay_threshold:
            w.why = f"weight {w.weight:.1f} at or below {cfg.decay_threshold:g}"
            report.archived.append(w)
    core = sum(1 for r in rows.values() if r.pinned and not _archived(r.path))
    kept = [w for w in live if w not in report.archived]
    over = len(rows) - core - sum(1 for r in rows.values() if _archived(r.path)) - len(report.archived) - cfg.max_live
    for w in sorted(kept, key=lambda x: (x.weight, x.path))[: max(0, over)]:
        w.why = f"over max_live {cfg.max_live} (weight {w.weight:.1f})"
        report.archived.append(w)
    if cfg.archive_expiry_days:
        for w in weighed:
            r = rows.get(w.id)
            if r is not None and _archived(r.path) and w.idle_days >= cfg.archive_expiry_days and not r.pinned:
                w.why = f"archived and not recalled for {w.idle_days} days"
                report.expired.append(w)
    return report


_RUNNING: ContextVar[bool] = ContextVar("ihmt_decay_running", default=False)  # a run's own commit starts none


def run(e: Engine, dry_run: bool = False, agent: str | None = None) -> DecayReport:
    """Archive what sank, delete what expired: one commit, one line in the operations log. Its own
    commit raises the `after_commit` event before the run is marked done: `_RUNNING` keeps that
    event from starting a second run (which would archive, in a second commit, what this one's
    archiving left unprotected: that waits for the next run)."""
    token = _RUNNING.set(True)
    try:
        return _run(e, dry_run, agent)
    finally:
        _RUNNING.reset(token)


def _run(e: Engine, dry_run: bool, agent: str | None) -> DecayReport:
    recalls = Recalls(e.root)
    report = plan(e, recalls) if recalls.epoch() is not None else DecayReport()  # the first run starts counting
    report.dry_run = dry_run
    if dry_run:
        return report
    with e.transaction("decay", "decay", [("Memory-Op", "decay")], agent or "decay") as tx:
        if recalls.epoch() is None:
            tx.paths.add(recalls.start_epoch())
        for w in report.archived:
            m = e.read(w.path)
            tx.edit(m, {"status": "archived"})
            tx.move(m.path, f"{tree.ARCHIVE}/{m.folder}".rstrip("/"))
        for w in report.expired:
            tx.remove(w.path)
        n, x = len(report.archived), len(report.expired)
        tx.subject = f"decay: archived {n} {'memory' if n == 1 else 'memories'}" + (f", expired {x}" if x else "")
        tx.trailers += [("Memory-Id", w.id) for w in report.archived + report.expired]
        if n or x:
            oplog.append(tx, tx.subject.removeprefix("decay: "), report.archived + report.expired, "decay")
    report.commit = tx.commit
    _mark_run(e)
    return report


def due(e: Engine) -> bool:
    """Whether this machine has not run decay today."""
    try:
        last = (e.root / ".ihmt" / "cache" / LAST_RUN).read_text().strip()
    except OSError:
        return True
    return last < clock.today().isoformat()


def _mark_run(e: Engine) -> None:
    file = e.root / ".ihmt" / "cache" / LAST_RUN
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(clock.today().isoformat() + "\n")


@hookimpl
def after_commit(engine: Engine, change: Committed) -> None:
    """Decay on its own after a write, once a day (`auto_decay`); a member whose role does not
    cover it leaves it to a maintainer."""
    if engine.config.auto_decay and not _RUNNING.get() and due(engine):
        try:
            run(engine)
        except Refused:
            pass
