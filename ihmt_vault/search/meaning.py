"""Stage 2b: the words' candidates and the meaning's, fused into one ranking, and the decision revised.

The vector index (`vectors.py`) brings the memories nearest the question in meaning, whether or
not they share a word with it. How much it may move the lexical ranking depends on how sure the
words are (measured on LoCoMo, MADial and paraphrase-dev, whose questions share at most one word
with their answers):

- the words found an answer (`FOUND`) holding at least `SURE_COVERAGE` of the question: their order
  stands, and a memory the model finds clearly nearer than the rest (its cosine `Z0` standard
  deviations above the vault's) gains a little (`BONUS` of the best lexical score per standard
  deviation beyond it) — the model breaks ties and lifts what the words half found; on dialogue,
  where a small static model judges poorly, it cannot overturn a clear lexical answer;
- the words found nothing sure (`NOT_FOUND`, `AMBIGUOUS`, or an answer holding less of the question:
  a question in other words shares one word with its answer, if any): reciprocal-rank fusion of the
  two orders with the meaning weighted `VECTOR_WEIGHT` (Cormack et al. 2009, k = `RRF_K`), so a
  memory the words missed can be the answer; and when the nearest memory stands `Z_FOUND` standard
  deviations above the rest, the answer is found by meaning, not NOT FOUND.

A memory only the model brought in has no lexical score: it enters with its stored fields, as
the words' candidates do, and the corrections and same-subject rules apply to it afterwards.
"""

from __future__ import annotations

from .candidates import Candidate
from .decision import Decision
from .postings import stored
from .result import AMBIGUOUS, FOUND, NOT_FOUND
from .scoring import Scored, as_of_view, newer_above

POOL = 50  # the meaning's candidates, at most
RRF_K = 10  # small: the first ranks of each order count most (fused orders are short here)
VECTOR_WEIGHT = 1.0  # the meaning's vote against the words' 1 when the words are unsure (1.5: LoCoMo −0.01)
Z0 = 1.0  # a cosine this many standard deviations above the vault's starts to count...
BONUS = 0.05  # ... and each one beyond adds this share of the best lexical score (0.1: LoCoMo −0.01)
SAME_MEANING = 0.5  # two memories this near in meaning are about one subject (pairs of a changed fact: p25
# 0.53; any two memories of one project: p99 0.52)
WINDOW = 10  # the top hits where a newer memory about the same subject is put above the older
SURE_COVERAGE = 0.4  # a lexical answer holding less of the question's words is fused as an unsure one
# (measured as agents save: paraphrase-dev 0.675 → 0.738, LoCoMo 0.669 → 0.674, MADial en 0.882 → 0.921)
Z_FOUND = 4.0  # the nearest memory this far above the rest answers when the words did not


def key_of(data: dict) -> str:
    return data.get("id") or f"path:{data.get('path')}"


def fuse(
    s,
    items: list[Scored],
    near: list[tuple[str, float, float]],
    verdict: Decision,
    as_of: str | None,
    level: int | None,
) -> tuple[list[Scored], Decision]:
    """`items` (the words' candidates, best first) fused with `near` (the vector index's
    (key, cosine, z), best first); the verdict revised when the meaning answers what the words did not."""
    if not near:
        return items, verdict
    by_key = {key_of(x.data): x for x in items}
    z_of = {key: z for key, _cos, z in near}
    order: list[Scored] = []
    for key, _cos, _z in near:
        x = by_key.get(key) or _brought_in(s, key, as_of, level)
        if x is not None:
            by_key.setdefault(key, x)
            order.append(x)
    if verdict.status == FOUND and items and verdict.coverage >= SURE_COVERAGE:
        lexical = {id(x) for x in items}  # beside a sure answer, only what the model finds clearly near comes in
        order = [x for x in order if id(x) in lexical or z_of.get(key_of(x.data), 0.0) > Z0]
        top = items[0].score or 1.0
        fused = {id(x): x.score + BONUS * top * max(0.0, z_of.get(key_of(x.data), 0.0) - Z0) for x in [*items, *order]}
    else:
        fused = {}
        for rank, x in enumerate(items):
            fused[id(x)] = fused.get(id(x), 0.0) + 1.0 / (RRF_K + rank + 1)
        for rank, x in enumerate(order):
            fused[id(x)] = fused.get(id(x), 0.0) + VECTOR_WEIGHT / (RRF_K + rank + 1)
        if near[0][2] >= Z_FOUND and verdict.status == NOT_FOUND and order:
            verdict = Decision(
                FOUND,
                "Found by meaning: no memory holds the question's words, this one is closest to it in sense.",
                coverage=verdict.coverage,
            )
    everyone = {id(x): x for x in [*items, *order]}
    ranked = sorted(everyone.values(), key=lambda x: -fused[id(x)])
    for x in ranked:
        x.score = round(fused[id(x)], 6)
    if verdict.status == AMBIGUOUS and ranked and ranked[0] is not (items[0] if items else None):
        verdict = Decision(FOUND, verdict.message, coverage=verdict.coverage)  # the meaning broke the tie
    return ranked, verdict


def _brought_in(s, key: str, as_of: str | None, level: int | None) -> Scored | None:
    """A memory only the vector index found, as a candidate with its stored fields."""
    docnum = s.document_number(key=key)
    if docnum is None:
        return None
    data = stored(s, docnum)["data"]
    if as_of:
        data = as_of_view(s, data, as_of)
        if data is None:
            return None
    if level is not None and str(data.get("folder", "")).count("/") + (1 if data.get("folder") else 0) != level:
        return None
    return Scored(score=0.0, docnum=docnum, data=data, cand=Candidate(bm25=0.0, via="meaning"))


def newer_first(items: list[Scored], vectors: dict) -> list[Scored]:
    """A changed fact's newer memory above the older one, whether or not a correction links them:
    of two top hits about the same subject in meaning (cosine ≥ `SAME_MEANING`), the newer (by its
    date, else when saved) is moved just above the older, which carries a "may be outdated" notice
    (`scoring.newer_above`). An outdated newer one is left where the corrections put it."""

    def same_subject(old: Scored, new: Scored) -> bool:
        va, vb = vectors.get(key_of(old.data)), vectors.get(key_of(new.data))
        if va is None or vb is None or new.data.get("status") == "outdated":
            return False
        return SAME_MEANING <= float(va @ vb) <= 0.999  # above: the same text twice

    return newer_above(items, WINDOW, same_subject, keep=True)
