"""Gathering the memories that may answer a query (the first of three stages: gather, score, decide).

Four sources, each a query keeping a bounded number of hits (evaluated by `postings.py`):

1. a flat ranking over all memories, never pruned;
2. the memories in the date range the question names (lifted later), and those of that time that
   share no word with it (kept low);
3. a level-wise descent: from the root (or `under`), the child folders are ranked by their summaries
   (all scored by one query) and a beam is kept at each level; the memories of every folder reached
   are read once;
4. with a clue, the memories matching both question and clue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from whoosh.query import And, ConstantScoreQuery, Or, Term

from .matching import (
    QF_WEIGHT,
    SUMMARY_FIELDS,
    date_query,
    fields_of_query,
    ranked,
    run_scoped,
    summary_query,
    text_query,
)
from .postings import memory_df, stored
from .query import ParsedQuery

FLAT_LIMIT = 80  # memories taken from the flat ranking (never pruned by the descent)
LEVEL_LIMIT = 40  # children read per level of the descent
BEAM = 3  # folders kept per level
MAX_DEPTH = 6
MAX_GROUPS = 24  # words of a long query kept (those that carry it) — bounds its work
NAMED_WEIGHT = 1.5  # a name, an identifier or a number weighs this much more when words are picked
DATE_ONLY = 0.1  # a memory matching only the question's date, relative to its date score


@dataclass
class Candidate:
    bm25: float
    via: str = "flat"  # flat | descent | both | correction
    date: bool = False  # in the date range the question names
    clue: bool = False  # matches the clue too


@dataclass
class Gathered:
    candidates: dict[int, Candidate] = field(default_factory=dict)  # by Whoosh document number
    folder_score: dict[str, float] = field(default_factory=dict)  # folders the descent kept (0-1)
    reads: int = 0  # documents scored
    message: str = ""  # why there is nothing


def bounded(s, pq: ParsedQuery) -> ParsedQuery:
    """A long query (a pasted paragraph, a whole dialogue, an indirect next message) keeps the
    `MAX_GROUPS` words that carry it — the ones a memory matching them would be told apart by:
    rare in the vault (idf), said more than once, names and identifiers — so the work per query
    is bounded whatever its length. Words no memory holds are dropped first."""
    if len(pq.groups) <= MAX_GROUPS:
        return pq
    n = max(1, s.doc_count())
    weight = {}
    for g in pq.groups:
        df = max(memory_df(s, t) for t in g.terms)
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        named = g.ident or (g.word[:1].isupper() and not g.word.isupper()) or any(c.isdigit() for c in g.word)
        weight[g.word] = (df > 0, idf * QF_WEIGHT(g.count) * (NAMED_WEIGHT if named else 1.0))
    keep = {g.word for g in sorted(pq.groups, key=lambda g: weight[g.word], reverse=True)[:MAX_GROUPS]}
    return ParsedQuery(pq.text, [g for g in pq.groups if g.word in keep], pq.spans)


def gather(
    s, pq: ParsedQuery, cq: ParsedQuery | None, level, under: str, scopes: tuple[str, ...], beam: int = BEAM
) -> Gathered:
    out = Gathered()
    tq, dq = text_query(pq), date_query(pq)
    if tq is None and dq is None:
        out.message = "The question has no searchable words (only common words)."
        return out
    base = tq if tq is not None else dq
    restrict = []
    if under:
        restrict.append(ConstantScoreQuery(Term("anc", under), 0.0))
    if level is not None:
        restrict.append(ConstantScoreQuery(Term("depth", str(level)), 0.0))
    cand = out.candidates

    def take(hits, via):
        for h in hits:
            c = cand.get(h.docnum)
            if c is None:
                cand[h.docnum] = Candidate(float(h.score), via)
            elif c.via != via:
                c.via = "both"

    flat = run_scoped(s, base, restrict, scopes, FLAT_LIMIT)
    take(flat, "flat")
    out.reads = flat.scored_length()
    if dq is not None and tq is not None:
        dated = run_scoped(s, tq, restrict + [ConstantScoreQuery(dq, 0.0)], scopes, FLAT_LIMIT)
        take(dated, "flat")
        for h in dated:
            cand[h.docnum].date = True
        out.reads += dated.scored_length()
        # memories of that time that share no word with the question still count, below the others
        only_date = run_scoped(s, dq, restrict, scopes, FLAT_LIMIT // 2)
        for h in only_date:
            if h.docnum not in cand:
                cand[h.docnum] = Candidate(DATE_ONLY * float(h.score), "flat", date=True)
        out.reads += only_date.scored_length()
    elif dq is not None:
        for c in cand.values():
            c.date = True
    level_q = summary_query(pq) if tq is not None else dq
    out.folder_score, reads = descend(s, level_q, base, scopes, under, cand, beam)
    out.reads += reads
    if cq is not None:
        clq = text_query(cq)
        if clq is not None:
            both = run_scoped(s, And([base, clq]), restrict, scopes, FLAT_LIMIT)
            take(both, "flat")
            out.reads += both.scored_length()
            for h in both:
                cand[h.docnum].clue = True
    if not cand:
        out.message = "No memory contains the question's words."
    return out


SUMMARY_LIMIT = 2000  # folder summaries scored in the descent's one query


def descend(
    s, q, memory_q, scopes, start: str, cand: dict[int, Candidate], beam: int = BEAM
) -> tuple[dict[str, float], int]:
    """Walk the tree from `start`: rank the child folders by their summaries, keep a beam, go
    down; then read the memories of every folder reached with one query.

    A summary's score does not depend on which other summaries are asked, so every summary under
    `start` is scored by one query and the level-by-level beam walks those scores: two queries
    whatever the depth (one per level before)."""
    sum_scopes = {"mem": "sum", "arc": "arcsum"}
    kinds = tuple(sum_scopes[x] for x in scopes)
    folder_score: dict[str, float] = {}
    reached: set[str] = {start}
    reads = 0
    if q is not None:
        # only the summaries of the searched kind: summary fields are in summaries alone, so the
        # other kind is masked; a date query matches memories too, so the kind is required
        restrict = [ConstantScoreQuery(Term("anc", start), 0.0)] if start else []
        if fields_of_query(q) <= SUMMARY_FIELDS:
            other = [Term("scope", k) for k in ("sum", "arcsum") if k not in kinds]
            mask = Or(other) if len(other) > 1 else (other[0] if other else None)
        else:
            mask = None
            restrict.append(ConstantScoreQuery(Or([Term("scope", k) for k in kinds]), 0.0))
        hits = ranked(s, And([q] + restrict) if restrict else q, SUMMARY_LIMIT, mask)
        reads += hits.scored_length()
        children: dict[str, list[tuple[float, str]]] = {}
        for docnum, score in hits.items():
            f = stored(s, docnum)["folder"]  # kept per segment: reading it unpickles the summary
            if f == start or not f.startswith(start):
                continue
            children.setdefault(f.rsplit("/", 1)[0] if "/" in f else "", []).append((float(score), f))
        frontier = [start]
        for _ in range(MAX_DEPTH):
            subs = sorted((x for f in frontier for x in children.get(f, ())), reverse=True)[:LEVEL_LIMIT]
            if not subs:
                break
            best = subs[0][0] or 1.0
            frontier = []
            for sc, f in subs[:beam]:
                if sc < 0.3 * best:
                    break
                folder_score[f] = max(folder_score.get(f, 0.0), sc / best)
                frontier.append(f)
                reached.add(f)
    par = Or([Term("parent", f) for f in sorted(reached)]) if len(reached) > 1 else Term("parent", start)
    hits = run_scoped(s, memory_q, [ConstantScoreQuery(par, 0.0)], scopes, LEVEL_LIMIT * 2)
    reads += hits.scored_length()
    for h in hits:
        c = cand.get(h.docnum)
        if c is None:
            cand[h.docnum] = Candidate(float(h.score), "descent")
        elif c.via == "flat":
            c.via = "both"
    return folder_score, reads
