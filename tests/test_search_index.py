"""The index as a cache: state, rebuild, incremental apply, missing or corrupt index, budget."""

import shutil

import pytest

from ihmt_vault.search import AMBIGUOUS, FOUND, Doc, IndexUnavailable, SearchIndex, estimate_tokens


def mem(key, title, body, folder="notes", **kw):
    return Doc(
        key=key, kind="memory", path=f"{folder}/{key}.md", folder=folder, depth=1, title=title, body=body, id=key, **kw
    )


DOCS = [
    mem("a", "Staging database", "Staging runs PostgreSQL 17."),
    mem("b", "Lunch", "Team lunch on Fridays."),
    Doc(
        key="dir:notes",
        kind="summary",
        path="notes/index.md",
        folder="notes",
        depth=1,
        title="Notes",
        body="Staging database, lunch.",
    ),
]


def test_state_is_none_before_build_and_returned_after(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    assert ix.state() is None
    ix.rebuild(DOCS, {"generation": "7", "head": "abc"})
    assert ix.state() == {"generation": "7", "head": "abc"}
    ix.apply([], [], {"generation": "8"})
    assert ix.state() == {"generation": "8"}


def test_search_on_a_missing_index_raises_index_unavailable(tmp_path):
    with pytest.raises(IndexUnavailable):
        SearchIndex(tmp_path / "cache").search("staging")


def test_deleted_index_raises_index_unavailable_and_rebuild_works(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild(DOCS, {"generation": "1"})
    assert ix.search("staging").hits[0].id == "a"
    ix.close()
    shutil.rmtree(tmp_path / "cache" / "index")
    fresh = SearchIndex(tmp_path / "cache")
    assert fresh.state() is None
    with pytest.raises(IndexUnavailable):
        fresh.search("staging")
    fresh.rebuild(DOCS, {"generation": "2"})
    assert fresh.search("staging").hits[0].id == "a"
    assert fresh.state() == {"generation": "2"}


def test_index_deleted_under_a_long_lived_searcher_raises_index_unavailable(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild(DOCS, {})
    ix.search("staging")
    shutil.rmtree(tmp_path / "cache" / "index")
    with pytest.raises(IndexUnavailable):
        ix.search("staging")
    ix.rebuild(DOCS, {})
    assert ix.search("staging").hits[0].id == "a"


def test_corrupt_index_raises_index_unavailable(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild(DOCS, {})
    ix.close()
    for f in (tmp_path / "cache" / "index").glob("*.toc"):
        f.write_bytes(b"garbage")
    with pytest.raises(IndexUnavailable):
        SearchIndex(tmp_path / "cache").search("staging")
    again = SearchIndex(tmp_path / "cache")
    again.rebuild(DOCS, {})
    assert again.search("staging").hits[0].id == "a"


def test_apply_upserts_and_deletes_in_one_call(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild(DOCS, {})
    assert ix.search("lunch").hits[0].id == "b"
    ix.apply(
        [
            mem("a", "Staging database", "Staging runs PostgreSQL 18 now."),
            mem("c", "Bike", "The bike lock code is in the drawer."),
        ],
        ["b"],
        {"generation": "3"},
    )
    assert [h.id for h in ix.search("lunch").hits] == []
    assert ix.search("postgresql 18").hits[0].id == "a"
    assert "PostgreSQL 18" in ix.search("staging").hits[0].body
    assert ix.search("bike lock").hits[0].id == "c"
    assert ix.state() == {"generation": "3"}


def test_rank_folders_orders_children_by_their_summaries(tmp_path):
    docs = [
        Doc(key="dir:", kind="summary", path="index.md", folder="", depth=0, title="Vault", body="Everything."),
        Doc(
            key="dir:work",
            kind="summary",
            path="work/index.md",
            folder="work",
            depth=1,
            title="Work",
            body="Databases, staging servers, deploys, code review.",
        ),
        Doc(
            key="dir:life",
            kind="summary",
            path="life/index.md",
            folder="life",
            depth=1,
            title="Life",
            body="Family, cooking, the bike, holidays.",
        ),
        Doc(
            key="dir:work/db",
            kind="summary",
            path="work/db/index.md",
            folder="work/db",
            depth=2,
            title="Databases",
            body="PostgreSQL, backups.",
        ),
    ]
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild(docs, {})
    ranked = ix.rank_folders("the staging database needs a deploy freeze", "")
    assert [f for f, _ in ranked] == ["work"]
    assert ranked[0][1] > 0
    assert [f for f, _ in ix.rank_folders("postgresql backups", "work")] == ["work/db"]
    assert ix.rank_folders("holidays with family", "")[0][0] == "life"


WORDS = (
    "deploy server database backup staging cache queue worker invoice customer order payment "
    "refund warehouse shipping label printer router switch firewall vpn certificate"
).split()


def long_memory(i):
    body = " ".join(f"{WORDS[(i + j) % len(WORDS)]} detail number {j} of memory {i}." for j in range(40))
    return mem(
        f"m{i:04d}",
        f"Operations log {i} about {WORDS[i % len(WORDS)]} and {WORDS[(i * 7) % len(WORDS)]}",
        body,
        folder=f"ops/f{i % 20}",
    )


def test_compact_output_stays_within_budget_with_2000_long_memories(tmp_path):
    ix = SearchIndex(tmp_path / "cache")
    ix.rebuild([long_memory(i) for i in range(2000)], {})
    for q in ("operations log 1234 deploy", "deploy database backup", "invoice customer refund payment", "certificate"):
        res = ix.search(q)
        text = res.render()
        assert res.status in (FOUND, AMBIGUOUS)
        assert len(res.hits) == 10
        assert res.tokens == estimate_tokens(text) <= 900
        if q == "operations log 1234 deploy":
            assert res.status == FOUND
            assert text.startswith("# Operations log 1234")
        assert len(res.render("full")) <= 900 * 4
        assert res.render(budget_tokens=300) and estimate_tokens(res.render(budget_tokens=300)) <= 300
    assert res.to_dict()["hits"][0]["id"] == res.hits[0].id
