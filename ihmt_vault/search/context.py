"""A memory's context: the memories saved just before and after it (in its folder, in the vault).

A conversation saved turn by turn keeps its topic across turns, but a turn often does not name
it: "What was it about?", "For walking or running?", "5 years already!" answer the turn before.
So the best few hits lend a share (`context`, a setting) of their score to their neighbours —
the memory saved just before and the one just after, in the same folder and in the whole vault
(the vault files a conversation's turns by topic, so the turn before may sit elsewhere), within
`SITTING` of it — and a folder neighbour the words alone did not find comes along as a candidate
("context"), answering what its neighbour matched; a vault-wide one only lifts a candidate. Save
order is `created`, then the id (ids are time-ordered).

Neighbours are found in the index's sorted `order` terms ("folder, created, id") and `seq` terms
("created, id"): a folder's terms are read once per segment and kept (`folder_terms`), so the cost
does not grow with the vault.
"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
from collections import OrderedDict

from .candidates import Candidate
from .documents import ORDER_SEP as SEP
from .documents import is_archived, order_key, saved_at, stamp
from .postings import docs, stored
from .scoring import OUTDATED_FACTOR, Scored, as_of_view

SITTING = dt.timedelta(minutes=30)  # two saves further apart than this are not one conversation
TOP = 5  # the best hits whose neighbours are looked at
FOLDER_LIMIT = 5000  # a folder's saves kept per segment, at most
SEQ_SHARE = 0.5  # of a folder neighbour's share, to the vault-wide one, which lifts a candidate and brings none in
# (as agents save: LoCoMo 0.671 → 0.685; at 1, MADial Chinese lost 0.04, a burst of saves being one sitting across
# sessions; bringing one in gave LoCoMo 0.697, but unscoped: a search under a folder would answer from another)
SEQ_LIMIT = 200_000  # the vault's saves kept per segment, at most


def neighbours(s, items: list[Scored], top: int = TOP) -> dict[int, list[tuple[int, float, bool]]]:
    """The neighbours (document numbers) of each of the first `top` items, by the item's position:
    the live memories saved just before and just after it within `SITTING`, in its folder (the
    `order` terms sort as the memories were saved, folder by folder) and in the whole vault (the
    `seq` terms): the turn before may have been filed elsewhere. Each as (document, the share of
    the lent score it gets, whether it may join the candidates): (d, 1, True) in the folder,
    (d, `SEQ_SHARE`, False) elsewhere in the vault."""
    out: dict[int, list[tuple[int, float, bool]]] = {}
    for i, x in enumerate(items[:top]):
        key = order_key(x.data.get("folder") or "", x.data.get("created"), x.data.get("id") or "")
        t = saved_at(x.data.get("created")) if key else None
        if t is None:
            continue
        folder = key.split(SEP)[0] + SEP
        seq = key[len(folder) :]
        found: dict[int, tuple[int, float, bool]] = {}
        for field, prefix, own, weight, joins in (
            ("order", folder, key, 1.0, True),
            ("seq", "", seq, SEQ_SHARE, False),
        ):
            lo, hi = prefix + stamp(t - SITTING), prefix + stamp(t + SITTING) + SEP + "\uffff"
            for d in _walk(s, field, prefix, lo, own, hi) or ():
                if d is not None and d not in found:
                    found[d] = (d, weight, joins)
        if found:
            out[i] = list(found.values())
    return out


def _walk(s, field: str, prefix: str, lo: str, key: str, hi: str) -> tuple[int | None, int | None] | None:
    """(the last live document before `key`, the first live one after it) among the `field` terms
    from `lo` to `hi`; None when `key` is not among them."""
    earlier: list[str] = []
    later: list[str] = []
    seen_self = False
    for leaf, _offset in s.leaf_searchers():
        terms = folder_terms(leaf.reader(), prefix, field)
        start, own = bisect.bisect_left(terms, lo), bisect.bisect_left(terms, key)
        earlier += terms[start:own]
        if own < len(terms) and terms[own] == key:
            seen_self = True
            own += 1
        for term in terms[own:]:
            if term > hi:
                break
            if _live(s, term, field) is not None:
                later.append(term)
                break
    if not seen_self:
        return None
    # a deleted memory's term stays until its segment is merged: it has no live document
    live = functools.partial(_live, s, field=field)
    before = next((d for d in map(live, sorted(earlier, reverse=True)) if d is not None), None)
    return before, (live(min(later)) if later else None)


_FOLDER_TERMS: OrderedDict[tuple[str, str, str], list[str]] = OrderedDict()


def folder_terms(reader, folder: str, field: str = "order") -> list[str]:
    """A segment's `field` terms starting with `folder`, sorted, read once (a segment never changes;
    each term read from Whoosh costs a file read, and the walks around top hits ask the same
    folders). At most `FOLDER_LIMIT` per segment and folder (a bigger folder's first ones: past
    them, no neighbours) — `SEQ_LIMIT` for the whole vault's `seq`."""
    key = (reader.segment().segment_id(), field, folder)
    terms = _FOLDER_TERMS.get(key)
    if terms is None:
        terms = []
        limit = SEQ_LIMIT if field == "seq" else FOLDER_LIMIT
        for n, (name, raw) in enumerate(reader.terms_from(field, folder)):
            term = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if name != field or not term.startswith(folder) or n >= limit:
                break
            terms.append(term)
        _FOLDER_TERMS[key] = terms
        while len(_FOLDER_TERMS) > 4096:
            _FOLDER_TERMS.popitem(last=False)
    return terms


def _live(s, term: str, field: str = "order") -> int | None:
    return next(iter(docs(s, field, term)), None)


def with_context(
    s, items: list[Scored], share: float, scopes: tuple[str, ...], as_of: str | None = None, top: int = TOP
) -> list[Scored]:
    """`items` (best first) with each of the best `top` lending `share` of its score to its
    neighbours; a neighbour not yet a candidate joins (via "context", `lent_by` its neighbour)."""
    if share <= 0 or not items:
        return items
    by_doc = {x.docnum: x for x in items}
    lent: dict[int, tuple[float, Scored]] = {}
    for i, near in neighbours(s, items, top).items():
        x = items[i]
        for d, weight, joins in near:
            if not joins and d not in by_doc:
                continue  # the vault's neighbour lifts a candidate; only the folder's brings one in
            if d not in lent or lent[d][0] < share * weight * x.score:
                lent[d] = (share * weight * x.score, x)
    out = list(items)
    for d, (bonus, by) in lent.items():
        known = by_doc.get(d)
        data = known.data if known is not None else stored(s, d)["data"]
        data = as_of_view(s, data, as_of) if as_of and known is None else data
        if data is None or ("arc" if is_archived(data) else "mem") not in scopes:
            continue
        if data.get("status") == "outdated":
            bonus *= OUTDATED_FACTOR
        if known is not None:
            known.score += bonus
        else:
            out.append(Scored(bonus, d, data, Candidate(bonus, "context"), lent_by=by))
    out.sort(key=lambda x: (-x.score, x.docnum))
    return out
