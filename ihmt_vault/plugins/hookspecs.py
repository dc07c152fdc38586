"""The one door for extensions: importers, chunkers and rankers, as pluggy hook specifications.

A plugin is a module or object with `@hookimpl` functions, registered through the `ihmt` entry
point group (`[project.entry-points.ihmt] name = "package.module"`) or `plugins.manager().register`.
Each hook receives a `register(name, thing)` callable; the built-ins (`importers/`,
`chunkers.py`) come in through the same hooks.

- an importer has `read(path: Path) -> list[Item]` (`draft.Item`; plain dicts of a save's fields
  are taken too): the memories found in another tool's store — the fields of a save (text, title,
  topic, date, tags, type, pinned, supersedes, id, extra), a `key` other items' `supersedes` may
  name, `archived`, an initial weight (`recalls` at `last_recall`), `attachments` to copy and
  `where` for messages. It only reads `path`; what it cannot read is a `BadInput` naming the file.
  The vault validates the items into drafts and saves them as one commit. An importer may also have
  `recognises(path) -> bool`, which `--format auto` asks, and a `what` line describing its store;
- a chunker has `chunk(text: str, limit: int) -> list[Chunk]` (`chunkers.Chunk`): a document cut
  where it is cut, the chunks joining back into the text byte for byte; `limit` is the size in
  characters above which a block is kept whole and marked `oversized`;
- an embedder has `name` (recorded with the vectors), `embed(texts) -> array` (one normalised
  float32 row per text) and may have `problem() -> str | None` (why it cannot load): the vector
  index's model (`search/vectors.py`), chosen by the `embedder` setting;
- a ranker has `rank(query: str, candidates: list[RankItem]) -> list[int]`: the candidates'
  positions best first; the search fuses its order with the lexical one (reciprocal-rank fusion).

One event: `after_commit(engine, change)` is called once after an operation committed (`change`
is a `results.Committed`), in the manner of mkdocs' `on_*` events. What an implementation writes
is an operation of its own (decay, `ops/decay.py`, is one: the composition root registers it); it
is not called again for that operation's own commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from ..storage.draft import Item

PROJECT = "ihmt"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class Importer(Protocol):
    """What `register_importers` registers (see above); `recognises(path)` and `what` are optional."""

    def read(self, path: Path) -> Sequence[Item | dict]:
        """The memories found in the store at `path`."""
        ...


class Specs:
    @hookspec
    def register_importers(self, register):
        """Call register(name, importer) for each importer this plugin brings."""

    @hookspec
    def register_chunkers(self, register):
        """Call register(name, chunker) for each chunker this plugin brings."""

    @hookspec
    def register_rankers(self, register):
        """Call register(name, ranker) for each ranker this plugin brings."""

    @hookspec
    def register_embedders(self, register):
        """Call register(name, embedder) for each embedding model this plugin brings."""

    @hookspec
    def after_commit(self, engine, change):
        """React to an operation that committed (`change`: a `results.Committed`)."""
