"""Deciding what a search found (the third stage): `found`, `ambiguous` or `not_found`.

- not_found: only common or stray words matched — the best memory covers too little of what was
  asked (by the words' idf), or none of its matched words is distinctive;
- ambiguous: several memories match every word of a short question, in their titles, equally,
  and nothing in the question tells them apart (a clue then picks one);
- found: otherwise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import analysis
from .matching import DATE_GROUP, matched_groups, title_has_all
from .query import ParsedQuery
from .result import AMBIGUOUS, FOUND, NOT_FOUND, Hit
from .scoring import SENTENCE, Scored


@dataclass(frozen=True)
class Weight:
    """How much a query word tells: its idf, and in how many memories it appears."""

    idf: float
    df: int


@dataclass
class Decision:
    status: str
    message: str = ""
    tied: list[Scored] | None = None      # the ambiguous candidates
    coverage: float = 0.0                 # share of the question's weight (idf) the best memory holds


def weights(s, pq: ParsedQuery, n_docs: int) -> dict[str, Weight]:
    out = {}
    for g in pq.groups:
        df = max((max(s.doc_frequency("body", t), s.doc_frequency("title", t)) for t in g.terms), default=0)
        out[g.word] = Weight(math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)), df)
    if pq.spans:
        out[DATE_GROUP] = Weight(max([w.idf for w in out.values()] + [1.0]), 0)
    return out


def matched(pq: ParsedQuery, top: list[Scored]) -> list[set[str]]:
    """What each top item matched of the question (a correction brought in by its outdated
    predecessor answers what the predecessor matched)."""
    out = [matched_groups(pq, x.data) | ({DATE_GROUP} if x.cand.date and pq.spans else set()) for x in top]
    for i, x in enumerate(top):
        if x.cand.via == "correction":
            for j, other in enumerate(top):
                if x.data.get("id") in (other.data.get("superseded_by") or []):
                    out[i] = out[i] | out[j]
    return out


def decide(s, pq: ParsedQuery, top: list[Scored]) -> Decision:
    if not top:
        return Decision(NOT_FOUND, "No memory contains the question's words.")
    n_docs = max(1, s.doc_frequency("scope", "mem") or s.doc_count())
    w = weights(s, pq, n_docs)
    found = matched(pq, top)
    groups = [g.word for g in pq.groups] + ([DATE_GROUP] if pq.spans else [])
    total = sum(w[x].idf for x in groups) or 1.0
    common_df = max(5, 0.05 * n_docs)
    m0 = found[0]
    cov = sum(w[x].idf for x in m0) / total if groups else 0.0
    if groups:
        distinctive = [x for x in m0 if w[x].df <= common_df]
        if not m0 or (not distinctive and cov < 0.5) or cov < 0.2:
            words = ", ".join(sorted(x if x != DATE_GROUP else "the date" for x in m0)) or "nothing"
            return Decision(NOT_FOUND, f"Only common or stray words matched ({words}).", coverage=cov)
    # ambiguity: several memories match the query's distinctive words equally well, and nothing
    # in the question tells them apart
    s0 = top[0].score
    tied = []
    for x, m in zip(top, found):
        if x.score < 0.8 * s0:
            break
        if m == m0 and set(groups) <= m:
            tied.append(x)
    if len(tied) >= 2 and len(groups) <= 2:
        titles = {(x.data.get("title") or "").strip().lower() for x in tied}
        if len(titles) == len(tied) and all(title_has_all(pq, x.data) for x in tied):
            return Decision(AMBIGUOUS, "Several memories match equally; a clue would tell them apart.", tied[:5], cov)
    return Decision(FOUND, coverage=cov)


def distinguish(cands: list[Hit], pq: ParsedQuery) -> None:
    """Give each ambiguous candidate the sentence that best tells it apart from the others."""
    own = [set(analysis.analyze(f"{h.title} {h.body}")) for h in cands]
    asked = set(pq.terms)
    for i, h in enumerate(cands):
        others = set().union(*(own[:i] + own[i + 1:])) if len(own) > 1 else set()
        unique = own[i] - others - asked
        sents = [x for x in SENTENCE.split(h.body or "") if x.strip()][:200]
        best, best_n = h.snippet, 0
        for snt in sents:
            n = len(unique & set(analysis.analyze(snt)))
            if n > best_n:
                best, best_n = " ".join(snt.split()), n
        h.snippet = best if len(best) <= 200 else best[:199] + "…"
