"""Search over a vault: a Whoosh index of memories and folder summaries, queried level by level.

The index is a cache (DESIGN.md): everything in it is derived from the vault's files and can be
rebuilt at any time. The vault owns *when* the index changes (inside its write transaction); this
package owns *how* documents are analysed, stored and ranked. It never reads the vault's files,
never calls git and never imports a front end.

Contract with `ihmt_vault.vault.Vault`:

- `SearchIndex(cache_dir)` opens (lazily) the index under `cache_dir / "index"`.
- `rebuild(docs, state)` recreates the index from scratch; `apply(upserts, deletes, state)` changes
  it incrementally in one Whoosh commit (a summary whose searchable text is unchanged is not
  rewritten; small segments are merged by `segment_policy`, so search does not slow down after
  many single saves). `state` is a small JSON-able dict the vault uses to know
  what the index reflects; `state()` returns it (None when the index is missing or unreadable).
- `search(...)` answers a query; it never raises for a missing/corrupt index: it raises
  `IndexUnavailable`, and the vault rebuilds and asks again.

How a query is answered (`index.py` puts the stages together):

1. The query becomes term groups (one per word: stems in the query's language, or in both English
   and Spanish when undecidable; identifiers as a whole and by parts; CJK bigrams) and date spans
   ("last May", "in 2023", "yesterday", resolved against today).
2. Gather (`candidates.py`): a flat BM25F ranking over all memories (title and tags weigh
   `TITLE_BOOST` times the body), never pruned; the memories in the date range the query names;
   a level-wise descent from the root (or `under`): the child folders are ranked by their summaries
   (every summary scored by one query) and a beam of `BEAM` is kept per level; with a clue, what
   matches both. A query evaluates three such rankings (more with a date or a clue), over postings
   kept in memory per segment (`postings.py`), not through Whoosh's matchers.
3. Score (`scoring.py`): text score × folder affinity (`FOLDER_WEIGHT`) × date (`DATE_WEIGHT`) ×
   clue; outdated memories × `OUTDATED_FACTOR` and never above their correction, with a notice.
   Context (`context.py`): the best five hits lend `context` (0.5) of their score to the
   memories saved just before and after them in their folder, in one sitting (a turn of a
   conversation often answers the one before without naming its topic).
4. Decide (`decision.py`), on the lexical order: `not_found` when only common/stray words
   matched; `ambiguous` when several memories match all the query's words, in their titles,
   equally (a clue boosts the memories matching it and demotes the others); else `found`.
5. Fuse (`rankers.py`): optional rankers (a model, say) re-order the candidates near the best by
   reciprocal-rank fusion.
6. Archived memories are searched only when nothing live is found (`archived_fallback`).
"""

from __future__ import annotations

from .documents import Doc
from .index import IndexUnavailable, SearchIndex
from .rankers import Ranker, RankItem
from .result import AMBIGUOUS, FOUND, NOT_FOUND, Hit, SearchResult, estimate_tokens
from .settings import SearchSettings

__all__ = [
    "Doc",
    "SearchIndex",
    "IndexUnavailable",
    "Hit",
    "SearchResult",
    "estimate_tokens",
    "Ranker",
    "RankItem",
    "SearchSettings",
    "FOUND",
    "AMBIGUOUS",
    "NOT_FOUND",
]
