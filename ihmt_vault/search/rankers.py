"""Optional rankers, fused with the lexical ranking by reciprocal-rank fusion.

A ranker (registered through `hookspecs.register_rankers`, switched on by the vault setting
`rankers`) re-orders the best lexical candidates by its own judgment — a sentence-embedding model,
say. Fusion (Cormack et al., 2009) adds 1 / (RRF_K + rank) over the lexical order and each
ranker's order: a memory both agree on rises, one only a ranker likes can climb without a word
in common being required. Re-ranking by the model alone lost recall here; fusing it gained.
A ranker that fails is left out of that query (the lexical order stands).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

RRF_K = 60          # the usual constant: ranks far down the list count little
POOL = 50           # lexical candidates a ranker re-orders


@dataclass(frozen=True)
class RankItem:
    """What a ranker sees of a candidate."""

    id: str
    title: str
    body: str


class Ranker(Protocol):
    def rank(self, query: str, candidates: Sequence[RankItem]) -> list[int]:
        """The candidates' positions, best first (positions left out keep their lexical place)."""


def fuse(query: str, items: list, rankers: Sequence[Ranker], view) -> list:
    """`items` (best first) re-ordered by reciprocal-rank fusion with each ranker's order over the
    first POOL of them; `view(item) -> RankItem`. The rest keep their order after the pool."""
    if not rankers or len(items) < 2:
        return items
    pool, rest = items[:POOL], items[POOL:]
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
