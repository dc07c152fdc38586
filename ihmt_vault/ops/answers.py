"""Answering a question: one vault's search counted as a recall, and one search over a vault and
every vault it mounts (`mounts.search`). An archived memory that answers comes back to its folder
(a `restore` commit the answer mentions)."""

from __future__ import annotations

from ..engine.core import Engine
from ..errors import BadInput, Refused
from ..search.result import SearchResult
from ..storage import tree
from ..storage.draft import check_date
from . import mounts as mounts_op
from .lifecycle import restore
from .mounts import Mounts


def search_all(
    mounts: Mounts,
    query: str,
    k: int = 10,
    clue: str | None = None,
    level: int | None = None,
    under: str | None = None,
    detail: str = "compact",
    as_of: str | None = None,
    vault: str | None = None,
) -> SearchResult:
    """Search this vault and every mounted one, or only `vault`; a mounted hit names its vault."""
    return mounts_op.search(mounts, lambda e: search(e, query, k, clue, level, under, detail, as_of), vault)


def search(
    e: Engine,
    query: str,
    k: int = 10,
    clue: str | None = None,
    level: int | None = None,
    under: str | None = None,
    detail: str = "compact",
    as_of: str | None = None,
):
    """One vault's answer to a query, counted as a recall of the memory it answers with."""
    if not isinstance(query, str) or not query.strip():
        raise BadInput("the query is empty; say what to look for")
    if under:
        under = tree.clean_topic(under, e.config.max_depth)
    day = check_date(as_of, "--as-of ") if as_of else None
    result = e.search(
        query, k=k, clue=clue, level=level, under=under, detail=detail, budget_tokens=e.config.search_tokens, as_of=day
    )
    return recalled_by_search(e, result)


def recalled_by_search(e: Engine, result):
    """Count the search's answer as a recall. An answer from the archive comes back to its folder
    at once, as MemoryTree's does (one `restore` commit; the answer says so): decayed is not forgotten."""
    if result.status != "found" or not result.hits or not result.hits[0].id:
        return result
    best = result.hits[0]
    e.recalls.record([best.id])
    if result.archived_fallback and best.folder.split("/")[0] == tree.ARCHIVE:
        try:
            back = restore(e, best.id, why="recalled")
        except Refused:  # a reader's search: the answer stays in the archive
            return result
        best.notices.append(f"Restored from the archive to {back.folder}/.")
        best.path, best.folder = back.path, back.folder
    return result
