"""Scoring the gathered candidates (the second stage): text score × folder affinity × date × clue ×
status, corrections above what they correct, and the hits a result shows.

Outdated memories weigh `OUTDATED_FACTOR` and never rank above their correction; a correction the
words alone did not find comes along with its outdated predecessor. `as_of` answers as things
stood that day: later memories are left out, and a memory corrected only later counts as current.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from whoosh.query import Term

from . import analysis
from .candidates import Candidate, Gathered
from .documents import ancestors, is_archived
from .postings import stored
from .query import ParsedQuery
from .result import Hit

FOLDER_WEIGHT = 0.25  # how much a memory's folder matching the query lifts it
DATE_WEIGHT = 2.0  # lift of a memory dated (or naming a date) in the range the query names
OUTDATED_FACTOR = 0.5  # outdated memories sink below their correction
SAME_SUBJECT = 0.5  # share of the smaller memory's words the other holds: about the same subject
NEWER_WINDOW = 5  # the top hits compared for a newer version of the same subject
CLUE_MATCH, CLUE_MISS = 2.0, 0.5


@dataclass
class Scored:
    score: float
    docnum: int
    data: dict  # the stored document
    cand: Candidate
    newer: Scored | None = None  # a newer memory about the same subject that may change this one
    lent_by: Scored | None = None  # the neighbour that brought it in (via "context")


def score(s, g: Gathered, cq: ParsedQuery | None, as_of: str | None) -> list[Scored]:
    """Every candidate scored, best first (ties by document number: stable)."""
    items = []
    for docnum, c in g.candidates.items():
        data = stored(s, docnum)["data"]
        if as_of:
            data = as_of_view(s, data, as_of)
            if data is None:
                continue
        aff = max((g.folder_score.get(f, 0.0) for f in ancestors(data["folder"])[1:]), default=0.0)
        value = c.bm25 * (1.0 + FOLDER_WEIGHT * aff)
        if c.date:
            value *= 1.0 + DATE_WEIGHT
        if cq is not None:
            value *= CLUE_MATCH if c.clue else CLUE_MISS
        if data.get("status") == "outdated":
            value *= OUTDATED_FACTOR
        items.append(Scored(value, docnum, data, c))
    items.sort(key=lambda x: (-x.score, x.docnum))
    return items


def with_corrections(s, items: list[Scored], k: int, scopes: tuple[str, ...], as_of: str | None) -> list[Scored]:
    """The ranking with every outdated hit's correction present and above it."""
    return corrections_first(items + missing_corrections(s, items[: max(k, 10)], scopes, as_of))


def when_of(data: dict) -> str:
    return data.get("date") or data.get("since") or ""


def newer_first(
    items: list[Scored], pq: ParsedQuery, window: int = NEWER_WINDOW, same: float = SAME_SUBJECT
) -> list[Scored]:
    """The current version first, without an explicit `supersedes`: of two top hits that hold the
    same words of the question and are about the same subject (each holds `same` of the other's
    words, the smaller's measure), the newer is moved just above the older, which carries a "may
    be outdated" notice. Dateless memories, exact duplicates and a memory of the time the
    question names are left as they are."""
    asked = set(pq.terms)
    terms = {
        id(x): analysis.term_set(f"{x.data.get('title') or ''} {x.data.get('body') or ''}", x.data.get("lang"))
        for x in items[:window]
    }

    def same_subject(old: Scored, new: Scored) -> bool:
        a, b = terms[id(old)], terms[id(new)]
        return bool(a and b and a != b) and (a & asked) == (b & asked) and len(a & b) >= same * min(len(a), len(b))

    return newer_above(items, window, same_subject)


def newer_above(
    items: list[Scored], window: int, same_subject: Callable[[Scored, Scored], bool], keep: bool = False
) -> list[Scored]:
    """Of two hits among the first `window` that `same_subject` says are about one subject, the
    newer (its `when_of`) is moved just above the older, whose `newer` names it (with `keep`, a
    `newer` already named stays). An outdated older memory, a dateless one, and a pair of which the
    question names the time of one are left as they are."""
    out = list(items)
    top = out[:window]
    for i, old in enumerate(top):
        if old.data.get("status") == "outdated" or not when_of(old.data):
            continue
        for new in top[i + 1 :]:
            if when_of(new.data) <= when_of(old.data) or old.cand.date != new.cand.date:
                continue  # not newer; or the question names the time of one of them
            if not same_subject(old, new):
                continue
            old.newer = (old.newer or new) if keep else new
            out.remove(new)
            out.insert(out.index(old), new)
            break
    return out


def corrections_first(items: list[Scored]) -> list[Scored]:
    """An outdated memory never ranks above the memory that corrects it."""
    out = list(items)
    moved = True
    guard = 0
    while moved and guard < 50:
        moved = False
        guard += 1
        pos = {x.data.get("id"): i for i, x in enumerate(out) if x.data.get("id")}
        for i, x in enumerate(out):
            if x.data.get("status") != "outdated":
                continue
            for cid in x.data.get("superseded_by") or []:
                j = pos.get(cid)
                if j is not None and j > i:
                    out.insert(j, out.pop(i))
                    moved = True
                    break
            if moved:
                break
    return out


def missing_corrections(s, items: list[Scored], scopes, as_of) -> list[Scored]:
    """The corrections of outdated hits that the words alone did not find: the current fact
    must come with its outdated predecessor, and rank above it."""
    present = {x.data.get("id") for x in items}
    extra = []
    for x in items:
        if x.data.get("status") != "outdated":
            continue
        for cid in x.data.get("superseded_by") or []:
            n = s.document_number(id=cid) if cid not in present else None
            if n is None:
                continue
            corr = stored(s, n)["data"]
            archived = is_archived(corr)
            corr = as_of_view(s, corr, as_of) if as_of else corr
            if corr is None or ("arc" if archived else "mem") not in scopes:
                continue
            present.add(cid)
            extra.append(Scored(x.score, n, corr, Candidate(x.score, "correction")))
    return extra


def as_of_view(s, data: dict, day: str) -> dict | None:
    """A memory as it stood on `day`: None if not yet true then; current if corrected only later."""
    if (data.get("since") or "") > day:
        return None
    if data.get("status") == "outdated":
        corrections = [s.document_number(id=cid) for cid in data.get("superseded_by") or []]
        earlier = [n for n in corrections if n is not None and (stored(s, n)["data"].get("since") or "") <= day]
        if not earlier:
            return {**data, "status": "active", "superseded_by": []}
    return data


def outdated_notice(s, data) -> str:
    corr = None
    for cid in data.get("superseded_by") or []:
        docnum = s.document_number(id=cid)
        if docnum is not None:
            corr = stored(s, docnum)["data"]
            break
    if corr is None and data.get("id"):
        found = s.search(Term("sup", data["id"]), limit=1)
        if len(found):
            corr = found[0]["data"]
    if corr is None:
        who = ", ".join(data.get("superseded_by") or []) or "a newer memory"
        return f"OUTDATED: superseded by {who}"
    when = f" ({corr.get('date')})" if corr.get("date") else ""
    return f"OUTDATED: superseded by {corr.get('id')}{when} — {corr.get('title')}"


def make_hit(s, x: Scored, pq: ParsedQuery) -> Hit:
    data = x.data
    folder = data.get("folder", "")
    notices = [outdated_notice(s, data)] if data.get("status") == "outdated" else []
    if x.newer is not None and not notices:
        when = when_of(x.newer.data)
        notices.append(f"may be outdated: {x.newer.data.get('id')}" + (f" ({when})" if when else ""))
    return Hit(
        id=data.get("id") or "",
        title=data.get("title") or "",
        path=data.get("path") or "",
        snippet=snippet(data.get("body") or "", pq),
        score=round(x.score, 4),
        status=data.get("status") or "active",
        date=data.get("date"),
        notices=notices,
        trail=ancestors(folder)[1:],
        body=data.get("body") or "",
        folder=folder,
        via=x.cand.via,
    )


SENTENCE = re.compile(r"(?<=[.!?。！？\n])\s*")


def snippet(body: str, pq: ParsedQuery, limit: int = 200) -> str:
    """The sentence of a memory that holds most of the query's words."""
    if not body:
        return ""
    sents = [x for x in SENTENCE.split(body) if x.strip()][:200]
    if not sents:
        return body[:limit]
    want = set(pq.terms)
    best, best_n = sents[0], -1
    for snt in sents:
        n = len(want & analysis.term_set(snt))
        if n > best_n:
            best, best_n = snt, n
    best = " ".join(best.split())
    return best if len(best) <= limit else best[: limit - 1] + "…"
