"""Search stays fast after many saves: few segments, summaries rewritten only when their searchable
text changes, a bounded number of searcher calls per query, and a copied vault refreshed once."""

from __future__ import annotations

import shutil

from whoosh.index import open_dir
from whoosh.searching import Searcher

from ihmt_vault import Vault
from ihmt_vault.search import Doc, SearchIndex
from ihmt_vault.search.index import SMALL_SEGMENTS


def _summary(body: str) -> Doc:
    return Doc(key="dir:work", kind="summary", path="work/index.md", folder="work", depth=1, title="Work", body=body)


def _memory(i: int) -> Doc:
    return Doc(
        key=f"m{i}",
        kind="memory",
        path=f"work/m{i}.md",
        folder="work",
        depth=1,
        title=f"Note {i}",
        body=f"The nginx proxy timeout is {i} seconds.",
        id=f"m{i}",
    )


def test_a_summary_whose_only_change_is_a_count_is_not_rewritten(tmp_path):
    ix = SearchIndex(tmp_path)
    ix.rebuild([_summary("# Work\n\nAbout nginx, proxy. 3 memories.")], {"generation": "1"})
    assert ix.apply([_summary("# Work\n\nAbout nginx, proxy. 4 memories.")], [], {"generation": "2"}) == 0
    assert ix.apply([_summary("# Work\n\nAbout nginx, redis. 5 memories.")], [], {"generation": "3"}) == 1
    assert ix.state() == {"generation": "3"}


def test_many_single_updates_leave_few_index_segments(tmp_path):
    ix = SearchIndex(tmp_path)
    ix.rebuild([_memory(i) for i in range(50)], {"generation": "0"})
    for i in range(40):
        ix.apply([_memory(100 + i)], [], {"generation": str(i + 1)})
    with open_dir(str(tmp_path / "index")).reader() as r:
        assert len(list(r.leaf_readers())) <= SMALL_SEGMENTS + 1
    assert [h.id for h in ix.search("timeout 139 seconds", k=1).hits] == ["m139"]


def test_a_query_over_a_deep_tree_is_evaluated_without_a_whoosh_matcher_walk(tmp_path, monkeypatch):
    v = Vault.init(tmp_path / "v")
    v.save("Staging runs PostgreSQL 17 since the upgrade.", topic="work/infra/db/staging")
    v.save("Marta reviews code in the morning.", topic="people/team")
    calls = []
    real = Searcher.search
    monkeypatch.setattr(Searcher, "search", lambda self, *a, **kw: calls.append(1) or real(self, *a, **kw))
    r = v.search("which PostgreSQL does staging run")
    v.close()
    assert r.hits[0].title.startswith("Staging runs PostgreSQL 17")
    assert calls == []  # flat ranking, summaries and the folders reached: all over postings in memory


def test_a_copied_vault_refreshes_git_stat_data_once_then_looks_at_nothing(tmp_path):
    v = Vault.init(tmp_path / "v")
    v.save_many([{"text": f"Fact number {i} about the build cache."} for i in range(30)])
    v.engine.refresh(force=True)  # the folders' times are recorded: later looks use git
    v.close()
    shutil.copytree(tmp_path / "v", tmp_path / "copy", symlinks=True)  # new inodes, same mtimes
    c = Vault.open(tmp_path / "copy")
    first = c.engine.freshness.look()
    second = c.engine.freshness.look()
    c.close()
    assert (first.examined >= 30, first.stat_refreshed, first.changed) == (True, True, [])
    assert (second.examined, second.stat_refreshed, second.changed) == (0, False, [])


def test_an_idle_compaction_leaves_one_segment_and_then_has_nothing_to_do(tmp_path):
    v = Vault.init(tmp_path / "v")
    for i in range(2):  # each save's commit adds a small segment (merged once there are more)
        v.save(f"Deploy note {i}: the worker restarts after deploys.")
    before = v.engine.index.segments()
    assert (before > 1, v.compact_index(), v.engine.index.segments(), v.compact_index()) == (True, True, 1, False)
    assert v.search("worker restarts after deploys").status == "found"
    v.close()
