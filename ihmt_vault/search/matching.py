"""How a parsed query becomes Whoosh queries, how they are scored, and what a document matched."""

from __future__ import annotations

import math

from whoosh import scoring
from whoosh.query import And, ConstantScoreQuery, DisjunctionMax, Or, Term

from . import analysis, postings
from .query import ParsedQuery

TITLE_BOOST = 2.0  # a term in the title (or tags) counts this much more than in the body
BM25_K1, BM25_B = 1.0, 0.5  # memories are short and their length is rarely padding
ALL_SCOPES = ("mem", "arc", "sum", "arcsum")
DATE_GROUP = "\x00date"  # the question's date, as one more thing a memory can match
QF_WEIGHT = lambda n: 1.0 + math.log(n)  # noqa: E731  the weight of a word said n times in the query


class _BM25F(scoring.BM25F):
    """BM25F with Robertson's idf: a word in most documents weighs next to nothing (Whoosh's
    default idf, log(N/(df+1)) + 1, never goes below 1 and lets common words add up)."""

    def idf(self, searcher, fieldname, text):
        n = searcher.doc_frequency(fieldname, text)
        big_n = searcher.doc_count_all()
        return math.log(1.0 + (big_n - n + 0.5) / (n + 0.5))


FIELD_B = {"title": 0.5, "stitle": 0.5}


def weighting():
    return _BM25F(B=BM25_B, K1=BM25_K1, **{f"{f}_B": b for f, b in FIELD_B.items()})


def ranked(s, q, limit: int, mask=None):
    """`s.search(q, limit=limit, mask=mask)` as `weighting()` scores it, evaluated in memory."""
    return postings.search(s, q, limit, mask, k1=BM25_K1, b=FIELD_B, default_b=BM25_B)


def run_scoped(s, q, restrict: list, scopes: tuple, limit: int):
    """Search `q` AND the restrictions, within documents of the given scopes.

    Scopes are applied the cheap way round: live memories are most of the index, so when they are
    allowed the few other documents are masked out; otherwise the (few) allowed ones are required.
    A ConstantScoreQuery over a large set costs a pass over all its ids on every query.
    """
    if "mem" in scopes:
        # the memory fields exist only in memories: a query over them alone needs no summary mask
        # (building a mask costs a pass over its documents on every query)
        possible = ("mem", "arc") if fields_of_query(q) <= MEMORY_FIELDS else ALL_SCOPES
        excluded = [x for x in possible if x not in scopes]
        mask = (
            (Or([Term("scope", x) for x in excluded]) if len(excluded) > 1 else Term("scope", excluded[0]))
            if excluded
            else None
        )
        full = And([q] + restrict) if restrict else q
        return ranked(s, full, limit, mask)
    allowed = Or([Term("scope", x) for x in scopes]) if len(scopes) > 1 else Term("scope", scopes[0])
    return ranked(s, And([q] + restrict + [ConstantScoreQuery(allowed, 0.0)]), limit)


MEMORY_FIELDS = frozenset({"title", "body"})
SUMMARY_FIELDS = frozenset({"stitle", "sbody"})


def fields_of_query(q) -> set[str]:
    return {f for f, _ in q.iter_all_terms()}


def text_query(pq: ParsedQuery, summaries: bool = False, memories: bool = True):
    """The query's words over the memory fields (and/or the summary fields).

    A word's spellings (English and Spanish stems of an undecided word) count once: the best of
    them (DisjunctionMax); an identifier's whole form and its parts add up (the exact identifier
    beats a text that only has its parts). The same term in title and body adds up (BM25F-like).
    """
    fields = ([("title", TITLE_BOOST), ("body", 1.0)] if memories else []) + (
        [("stitle", TITLE_BOOST), ("sbody", 1.0)] if summaries else []
    )
    seen: set[str] = set()
    groups = []
    for g in pq.groups:
        terms = [t for t in g.terms if t not in seen]
        seen.update(terms)
        if not terms:
            continue
        qf = QF_WEIGHT(g.count)
        alts = [Or([Term(f, t, boost=b * qf) for f, b in fields]) for t in terms]
        if len(alts) == 1:
            groups.append(alts[0])
        elif g.ident:
            groups.append(Or(alts))
        else:
            groups.append(DisjunctionMax(alts))
    if not groups:
        return None
    return Or(groups) if len(groups) > 1 else groups[0]


def summary_query(pq: ParsedQuery):
    return text_query(pq, summaries=True, memories=False)


def date_query(pq: ParsedQuery):
    wt = pq.when_terms
    if not wt:
        return None
    return Or([Term("when", t) for t in wt])


def _doc_terms(data) -> frozenset[str]:
    lang = data.get("lang", None)
    text = " ".join([data.get("title") or "", " ".join(data.get("tags") or []), data.get("body") or ""])
    return analysis.term_set(text, lang)


def matched_groups(pq: ParsedQuery, data) -> set[str]:
    """The query words (as written) a stored document holds."""
    terms = _doc_terms(data)
    return {g.word for g in pq.groups if any(t in terms for t in g.terms)}


def title_has_all(pq: ParsedQuery, data) -> bool:
    terms = set(analysis.analyze(" ".join([data.get("title") or ""] + list(data.get("tags") or [])), data.get("lang")))
    return all(any(t in terms for t in g.terms) for g in pq.groups)
