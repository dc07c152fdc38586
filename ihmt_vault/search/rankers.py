"""Optional rankers, fused with the lexical ranking by reciprocal-rank fusion.

A ranker (registered through `hookspecs.register_rankers`, switched on by the vault setting
`rankers`) re-orders the best lexical candidates by its own judgment — a sentence-embedding model,
say. Fusion (Cormack et al., 2009) adds 1 / (RRF_K + rank) over the lexical order and each
ranker's order: a memory both agree on rises, one only a ranker likes can climb without a word
in common being required. Re-ranking by the model alone lost recall here; fusing it over the
whole pool lost too (LoCoMo 0.764 → 0.739 with WordLlama): a model that only judges paraphrase
pulled weak candidates over clear lexical winners. So a ranker re-orders only the candidates
near the best (`NEAR`): it breaks ties the words leave, it cannot overturn a clear answer; and
what was found is decided on the words before fusion. A ranker that fails is left out of that
query (the lexical order stands).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

RRF_K = 60  # the usual constant: ranks far down the list count little
POOL = 50  # lexical candidates a ranker re-orders, at most
NEAR = 0.7  # ... and only those scoring within this ratio of the best: a ranker breaks near ties


@dataclass(frozen=True)
class RankItem:
    """What a ranker sees of a candidate."""

    id: str
    title: str
    body: str


class Ranker(Protocol):
    def rank(self, query: str, candidates: Sequence[RankItem]) -> list[int]:
        """The candidates' positions, best first (positions left out keep their lexical place)."""


def fuse(
    query: str, items: list, rankers: Sequence[Ranker], view, score, near: float = NEAR, pool_size: int = POOL
) -> list:
    """`items` (best first) re-ordered by reciprocal-rank fusion with each ranker's order over the
    candidates scoring within `near` of the best (`score(item)`, at most `pool_size`);
    `view(item) -> RankItem`. The rest keep their order after the pool."""
    if not rankers or len(items) < 2:
        return items
    best = score(items[0])
    n = next((i for i, x in enumerate(items[:pool_size]) if score(x) < near * best), min(len(items), pool_size))
    if n < 2:
        return items
    pool, rest = items[:n], items[n:]
    fused = {i: 1.0 / (RRF_K + i + 1) for i in range(len(pool))}
    seen = [view(x) for x in pool]
    for ranker in rankers:
        try:
            order = [i for i in ranker.rank(query, seen) if isinstance(i, int) and 0 <= i < len(pool)]
        except Exception:  # an optional part: its failure must not fail a search
            continue
        for rank, i in enumerate(dict.fromkeys(order)):
            fused[i] += 1.0 / (RRF_K + rank + 1)
    return [pool[i] for i in sorted(fused, key=lambda i: (-fused[i], i))] + rest
