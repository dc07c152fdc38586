"""Corrections and facts: marking a memory outdated by a newer one (and undoing that), and the
timelines of the facts memories state.

A correction is recorded on both sides: the old memory gets `status: outdated` and
`superseded_by: [new]`, the new one lists the old in `supersedes`. Both files stay.
"""

from __future__ import annotations

from ..engine.core import Engine
from ..errors import BadInput
from ..storage import timeline
from ..storage.draft import check_date
from ..storage.notes import Memory


def mark_outdated(e: Engine, old_id: str, new_id: str, source: str | None = None) -> Memory:
    old, new = e.get(old_id), e.get(new_id)
    if old.id == new.id:
        raise BadInput(f"{old_id}: a memory cannot supersede itself")
    with e.transaction(
        "outdate",
        f"outdate: {old.title}",
        [("Memory-Id", old.id), ("Memory-Op", "outdate"), ("Supersedes", old.id)],
        source,
    ) as tx:
        tx.mark_outdated(old, new.id)
        if old.id not in new.supersedes:
            tx.edit(new, {"supersedes": new.supersedes + [old.id]})
    return e.get(old.id)


def restore_current(e: Engine, id_or_path: str, source: str | None = None) -> Memory:
    m = e.get(id_or_path)
    if m.status != "outdated":
        raise BadInput(f"{m.path}: is not outdated (status {m.status}); nothing to restore")
    with e.transaction("restore", f"current: {m.title}", [("Memory-Id", m.id), ("Memory-Op", "restore")], source) as tx:
        tx.edit(m, {"status": "active"}, remove=("superseded_by",))
        for newer in m.superseded_by:
            rows = e.catalog.by_id(newer)
            if rows:
                n = e.read(rows[0].path)
                rest = [i for i in n.supersedes if i != m.id]
                tx.edit(n, {"supersedes": rest} if rest else {}, remove=() if rest else ("supersedes",))
    return e.get(m.id)


def facts(e: Engine, subject: str | None = None, at: str | None = None) -> list[timeline.Timeline]:
    e.refresh()
    day = check_date(at, "--at ") if at else None
    where, args = ("WHERE f.slot_subject = ?", (timeline.norm(subject),)) if subject else ("", ())
    lines = timeline.build(e.catalog.facts(where, args), at=day)
    for line in lines:  # a value whose memory was outdated held until the correction became true
        last = line.entries[-1] if line.entries else None
        if last is not None and last.outdated and last.valid_to is None and day is None:
            by = [i for r in e.catalog.by_id(last.memory_id) for i in r.superseded_by or []]
            ends = [r.date or (r.created or "")[:10] for i in by for r in e.catalog.by_id(i)]
            last.valid_to = min((d for d in ends if d), default=None)
    return lines


def conflicts(e: Engine) -> list[timeline.Timeline]:
    # a value that changed in its own timeline, or one a change of a many-valued attribute ended
    return [t for t in facts(e) if len(t.entries) > 1 or t.current is None]
