"""The in-memory evaluation of our query shapes gives Whoosh's scores, sees deletions, and scores
DisjunctionMax as the best of its parts (where Whoosh's matcher mixes in another document's)."""

from __future__ import annotations

import pytest
from whoosh.index import open_dir
from whoosh.query import And, ConstantScoreQuery, DisjunctionMax, Or, Term

from ihmt_vault.search import Doc, SearchIndex
from ihmt_vault.search.matching import ranked, weighting

BODIES = [
    "The nginx proxy timeout is thirty seconds on staging.",
    "Staging runs PostgreSQL 17; production runs PostgreSQL 16.",
    "The proxy in front of the API is nginx, and its logs rotate daily.",
    "Backups of PostgreSQL run nightly to the object store.",
    "Deploys go out on Tuesdays after the staging smoke test.",
]


def _index(tmp_path, bodies=BODIES) -> SearchIndex:
    ix = SearchIndex(tmp_path)
    docs = [
        Doc(
            key=f"m{i}",
            kind="memory",
            path=f"work/m{i}.md",
            folder="work",
            depth=1,
            title=f"Note {i}",
            body=b,
            id=f"m{i}",
        )
        for i, b in enumerate(bodies)
    ]
    ix.rebuild(docs, {"generation": "1"})
    return ix


def _searcher(tmp_path):
    return open_dir(str(tmp_path / "index")).searcher(weighting=weighting())


def _both(tmp_path, q, mask=None):
    with _searcher(tmp_path) as s:
        ours = [(h.docnum, round(h.score, 9)) for h in ranked(s, q, 10, mask)]
        whoosh = [(h.docnum, round(float(h.score), 9)) for h in s.search(q, limit=10, mask=mask)]
    return ours, whoosh


@pytest.mark.parametrize(
    "q",
    [
        Term("body", "nginx"),
        Or([Term("title", "note", boost=2.0), Term("body", "postgresql"), Term("body", "stage")]),
        And([Or([Term("body", "proxi"), Term("body", "nginx")]), ConstantScoreQuery(Term("folder", "work"), 0.0)]),
        Or([Term("body", "postgresql", boost=1.7), Term("body", "nightli")]),
    ],
    ids=["term", "or-with-boosts", "and-with-a-constant", "or-boosted-twice"],
)
def test_a_query_scores_as_whoosh_scores_it(tmp_path, q):
    _index(tmp_path)
    ours, whoosh = _both(tmp_path, q)
    assert ours == whoosh and ours


def test_a_mask_leaves_its_documents_out_as_in_whoosh(tmp_path):
    _index(tmp_path)
    ours, whoosh = _both(tmp_path, Term("body", "postgresql"), mask=Term("id", "m1"))
    assert ours == whoosh and [d for d, _ in ours] == [3]


def test_disjunction_max_is_the_best_of_its_parts_for_each_document(tmp_path):
    _index(tmp_path)
    q = DisjunctionMax([Term("body", "nginx"), Term("body", "backup")])
    with _searcher(tmp_path) as s:
        alone = {h.docnum: h.score for q1 in q.subqueries for h in ranked(s, q1, 10)}
        assert {h.docnum: h.score for h in ranked(s, q, 10)} == alone  # no document holds both


def test_a_memory_updated_in_an_older_segment_is_not_found_by_its_old_text(tmp_path):
    ix = _index(tmp_path)
    assert [h.id for h in ix.search("object store backups", k=1).hits] == ["m3"]
    ix.apply(
        [
            Doc(
                key="m3",
                kind="memory",
                path="work/m3.md",
                folder="work",
                depth=1,
                title="Note 3",
                body="Snapshots of the volumes are taken hourly.",
                id="m3",
            )
        ],
        [],
        {"generation": "2"},
    )
    assert ix.search("object store backups").hits == []
    assert [h.id for h in ix.search("volume snapshots hourly", k=1).hits] == ["m3"]
