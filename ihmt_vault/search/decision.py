"""Deciding what a search found (the third stage): `found`, `ambiguous` or `not_found`.

- not_found: only common or stray words matched — the best memory covers too little of what was
  asked (by the words' idf), or none of its matched words is distinctive; for a long query (a
  dialogue), which no memory holds much of, unless its matched rare and fairly rare words weigh
  as much as two rare ones (`long_query_link`);
- ambiguous: several memories match every word of a short question, in their titles, equally,
  and nothing in the question tells them apart (a clue then picks one);
- found: otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import analysis
from .matching import DATE_GROUP, matched_groups, title_has_all
from .postings import memory_df
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
    tied: list[Scored] = field(default_factory=list)  # the ambiguous candidates
    coverage: float = 0.0  # share of the question's weight (idf) the best memory holds
    margin: float = 0.0  # how far the best stands out from the next: 1 - score2/score1


def weights(s, pq: ParsedQuery, n_docs: int) -> dict[str, Weight]:
    out = {}
    for g in pq.groups:
        df = max((memory_df(s, t) for t in g.terms), default=0)
        out[g.word] = Weight(math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)), df)
    if pq.spans:
        out[DATE_GROUP] = Weight(max([w.idf for w in out.values()] + [1.0]), 0)
    return out


def matched(pq: ParsedQuery, top: list[Scored]) -> list[set[str]]:
    """What each top item matched of the question (a correction brought in by its outdated
    predecessor answers what the predecessor matched; a memory brought in by its neighbour in a
    conversation, what the neighbour matched)."""
    out = [matched_groups(pq, x.data) | ({DATE_GROUP} if x.cand.date and pq.spans else set()) for x in top]
    for i, x in enumerate(top):
        if x.lent_by is not None:
            out[i] = out[i] | matched_groups(pq, x.lent_by.data)
        if x.cand.via == "correction":
            for j, other in enumerate(top):
                if x.data.get("id") in (other.data.get("superseded_by") or []):
                    out[i] = out[i] | out[j]
    return out


LONG_QUERY = 8  # query words past which a memory is not expected to hold them all


def memory_coverage(s, pq: ParsedQuery, data, n_docs: int) -> float:
    """The share of a memory's own weight (idf of its words) that the query holds: for a long
    query (a dialogue, a paragraph), whether the memory is *in* it, since no memory holds all of it."""
    own = analysis.term_set(" ".join([data.get("title") or "", data.get("body") or ""]), data.get("lang"))
    if not own:
        return 0.0
    asked = set(analysis.analyze(pq.text))  # all of the query, not only the words picked to search

    def idf(t):
        df = memory_df(s, t)
        return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))

    weights = {t: idf(t) for t in own}
    return sum(w for t, w in weights.items() if t in asked) / (sum(weights.values()) or 1.0)


def idf_at(n_docs: int, df: float) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def long_query_link(w: dict[str, Weight], m0: set[str], n_docs: int, common_df: float) -> bool:
    """Whether the best memory is really linked to a long query (a dialogue, a paragraph), which
    no memory holds much of: its matched words that tell memories apart (in at most twice the
    common share of them) are at least two, and weigh (idf) at least two distinctive words — two
    rare words, or a rare one and fairly rare ones together; one word alone is a stray match."""
    telling = [w[x].idf for x in m0 if w[x].df <= 2 * common_df]
    return len(telling) >= 2 and sum(telling) >= 2 * idf_at(n_docs, common_df)


def decide(s, pq: ParsedQuery, top: list[Scored], not_found_coverage: float = 0.2, tie: float = 0.8) -> Decision:
    """`not_found_coverage`: below it the best memory holds too little of the question;
    `tie`: memories scoring within this ratio of the best may be ambiguous with it."""
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
    if len(pq.groups) > LONG_QUERY:
        cov = max(cov, memory_coverage(s, pq, top[0].data, n_docs))
    s0 = top[0].score
    margin = max(0.0, 1.0 - top[1].score / s0) if len(top) > 1 and s0 > 0 else 1.0
    if groups:
        distinctive = [x for x in m0 if w[x].df <= common_df]
        # a long query (a dialogue) is not answered by one memory holding much of it: two of its
        # distinctive words in the best memory, or their weight in fairly rare ones, are a real link
        linked = len(pq.groups) > LONG_QUERY and (
            len(distinctive) >= 2 or (bool(distinctive) and long_query_link(w, m0, n_docs, common_df))
        )
        if not m0 or (not distinctive and cov < 0.5) or (cov < not_found_coverage and not linked):
            words = ", ".join(sorted(x if x != DATE_GROUP else "the date" for x in m0)) or "nothing"
            return Decision(NOT_FOUND, f"Only common or stray words matched ({words}).", coverage=cov, margin=margin)
    # ambiguity: several memories match the query's distinctive words equally well, and nothing
    # in the question tells them apart
    tied = []
    for x, m in zip(top, found):
        if x.score < tie * s0:
            break
        if m == m0 and set(groups) <= m:
            tied.append(x)
    if len(tied) >= 2 and len(groups) <= 2:
        titles = {(x.data.get("title") or "").strip().lower() for x in tied}
        if len(titles) == len(tied) and all(title_has_all(pq, x.data) for x in tied):
            return Decision(
                AMBIGUOUS, "Several memories match equally; a clue would tell them apart.", tied[:5], cov, margin
            )
    return Decision(FOUND, coverage=cov, margin=margin)


def distinguish(cands: list[Hit], pq: ParsedQuery) -> None:
    """Give each ambiguous candidate the sentence that best tells it apart from the others."""
    own = [analysis.term_set(f"{h.title} {h.body}") for h in cands]
    asked = set(pq.terms)
    for i, h in enumerate(cands):
        others = set().union(*(own[:i] + own[i + 1 :])) if len(own) > 1 else set()
        unique = own[i] - others - asked
        sents = [x for x in SENTENCE.split(h.body or "") if x.strip()][:200]
        best, best_n = h.snippet, 0
        for snt in sents:
            n = len(unique & analysis.term_set(snt))
            if n > best_n:
                best, best_n = " ".join(snt.split()), n
        h.snippet = best if len(best) <= 200 else best[:199] + "…"
