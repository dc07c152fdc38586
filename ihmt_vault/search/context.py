"""A memory's context: the memories saved just before and after it in its folder, in one sitting.

A conversation saved turn by turn keeps its topic across turns, but a turn often does not name
it: "What was it about?", "For walking or running?", "5 years already!" answer the turn before.
So the best few hits lend a share (`context`, a setting) of their score to their neighbours —
the memory saved just before and the one just after, in the same folder, within `SITTING` of it —
and a neighbour the words alone did not find comes along as a candidate ("context"), answering
what its neighbour matched. Save order is `created`, then the id (ids are time-ordered).

Neighbours are found in the index's sorted `order` terms ("folder, created, id"), a few terms
read per hit, so the cost does not grow with the vault.
"""
from __future__ import annotations

import datetime as dt
import functools

from .candidates import Candidate
from .documents import ORDER_SEP as SEP, is_archived, order_key, saved_at, stamp
from .postings import stored
from .scoring import OUTDATED_FACTOR, Scored, as_of_view

SITTING = dt.timedelta(minutes=30)   # two saves further apart than this are not one conversation
TOP = 5                              # the best hits whose neighbours are looked at
LIMIT = 400                          # memories read around them, at most


def neighbours(s, items: list[Scored], top: int = TOP) -> dict[int, list[int]]:
    """The neighbours (document numbers) of each of the first `top` items, by the item's position.

    The `order` terms sort as the memories were saved, folder by folder: a memory's neighbours are
    the terms just before and after its own, walked in the index's term list from `SITTING`
    before it (at most `LIMIT` terms)."""
    reader = s.reader()
    out: dict[int, list[int]] = {}
    for i, x in enumerate(items[:top]):
        key = order_key(x.data.get("folder") or "", x.data.get("created"), x.data.get("id") or "")
        t = saved_at(x.data.get("created")) if key else None
        if t is None:
            continue
        folder = key.split(SEP)[0] + SEP
        lo, hi = folder + stamp(t - SITTING), folder + stamp(t + SITTING) + SEP + "\uffff"
        earlier: list[str] = []
        after = None
        seen_self = False
        for n, (field, raw) in enumerate(reader.terms_from("order", lo)):
            term = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if field != "order" or term > hi or n > LIMIT:   # the walk goes on into the next field
                break
            if term == key:
                seen_self = True
            elif not seen_self:
                earlier.append(term)
            elif (after := _live(reader, term)) is not None:
                break
        if seen_self:
            # a deleted memory's term stays until its segment is merged: it has no live document
            before = next((d for d in map(functools.partial(_live, reader), reversed(earlier)) if d is not None), None)
            out[i] = [d for d in (before, after) if d is not None]
    return out


def _live(reader, term: str) -> int | None:
    m = reader.postings("order", term)
    return m.id() if m.is_active() else None


def with_context(s, items: list[Scored], share: float, scopes: tuple[str, ...], as_of: str | None = None,
                 top: int = TOP) -> list[Scored]:
    """`items` (best first) with each of the best `top` lending `share` of its score to its
    neighbours; a neighbour not yet a candidate joins (via "context", `lent_by` its neighbour)."""
    if share <= 0 or not items:
        return items
    by_doc = {x.docnum: x for x in items}
    lent: dict[int, tuple[float, Scored]] = {}
    for i, docs in neighbours(s, items, top).items():
        x = items[i]
        for d in docs:
            if d not in lent or lent[d][0] < share * x.score:
                lent[d] = (share * x.score, x)
    out = list(items)
    for d, (bonus, by) in lent.items():
        x = by_doc.get(d)
        data = x.data if x is not None else stored(s, d)["data"]
        data = as_of_view(s, data, as_of) if as_of and x is None else data
        if data is None or ("arc" if is_archived(data) else "mem") not in scopes:
            continue
        if data.get("status") == "outdated":
            bonus *= OUTDATED_FACTOR
        if x is not None:
            x.score += bonus
        else:
            out.append(Scored(bonus, d, data, Candidate(bonus, "context"), lent_by=by))
    out.sort(key=lambda x: (-x.score, x.docnum))
    return out
