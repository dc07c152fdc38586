"""Search over a vault: a Whoosh index of memories and folder summaries, queried level by level.

The index is a cache (DESIGN.md): everything in it is derived from the vault's files and can be
rebuilt at any time. The vault owns *when* the index changes (inside its write transaction); this
package owns *how* documents are analysed, stored and ranked. It never reads the vault's files,
never calls git and never imports a front end.

Contract with `ihmt_vault.vault.Vault`:

- `SearchIndex(cache_dir)` opens (lazily) the index under `cache_dir / "index"`.
- `rebuild(docs, state)` recreates the index from scratch; `apply(upserts, deletes, state)` changes
  it incrementally in one Whoosh commit. `state` is a small JSON-able dict the vault uses to know
  what the index reflects; `state()` returns it (None when the index is missing or unreadable).
- `search(...)` answers a query; it never raises for a missing/corrupt index: it raises
  `IndexUnavailable`, and the vault rebuilds and asks again.

How a query is answered (`index.py`):

1. The query becomes term groups (one per word: stems in the query's language, or in both English
   and Spanish when undecidable; identifiers as a whole and by parts; CJK bigrams) and date spans
   ("last May", "in 2023", "yesterday", resolved against today).
2. A flat BM25F ranking over all memories (title and tags weigh `TITLE_BOOST` times the body),
   never pruned; plus the memories in the date range the query names, lifted by `DATE_WEIGHT`.
3. A level-wise descent: from the root (or `under`), one cheap query per level ranks the children
   (sub-folder summaries and memories) of the folders kept so far, keeps a beam of `BEAM` folders
   and goes down. A memory whose folders matched gets up to `FOLDER_WEIGHT` more.
4. Outdated memories × `OUTDATED_FACTOR` and never above their correction, with a notice.
5. Decision: `not_found` when only common/stray words matched; `ambiguous` when several
   memories match all the query's words, in their titles, equally (a clue boosts the memories
   matching it and demotes the others); else `found`.
6. Archived memories are searched only when nothing live is found (`archived_fallback`).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Doc:
    """One searchable document: a memory, or a folder's summary (its index.md)."""

    key: str                    # unique: the memory id, or "dir:" + folder for a summary
    kind: str                   # "memory" | "summary"
    path: str                   # vault-relative POSIX path of the file
    folder: str                 # vault-relative folder ("" for the root)
    depth: int                  # folder depth: 0 for the root, 1 for "work", 2 for "work/infra"
    title: str
    body: str
    id: str = ""                # memory id ("" for a summary)
    tags: list[str] = field(default_factory=list)
    type: str = "note"
    status: str = "active"      # active | outdated | archived
    date: str | None = None     # ISO date (YYYY-MM-DD) or None
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    pinned: bool = False
    source: str = ""            # who saved it / whom it is from
    created: str | None = None  # when it was saved (ISO timestamp): its age when it has no `date`


from .index import SearchIndex, IndexUnavailable  # noqa: E402
from .result import Hit, SearchResult, estimate_tokens, FOUND, AMBIGUOUS, NOT_FOUND  # noqa: E402

__all__ = ["Doc", "SearchIndex", "IndexUnavailable", "Hit", "SearchResult", "estimate_tokens",
           "FOUND", "AMBIGUOUS", "NOT_FOUND"]
