"""The search's tunable settings, in one place: the vault passes them from its `Config`
(`.ihmt/config.toml`, read by the composition root only); the defaults are the measured ones."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchSettings:
    beam: int = 3  # folders kept per level of the descent
    not_found_coverage: float = 0.2  # below this share of the question, the best memory does not answer
    tie: float = 0.8  # memories within this score ratio of the best may be ambiguous with it
    same_subject: float = 0.5  # word overlap making two memories about one subject (newer first)
    context: float = 0.5  # share of a top hit's score lent to the memories saved next to it
