"""The catalog's keyword counts (what placement weighs a word by) and keyword lookups follow every write: its own
connection's kept as they happen, another connection's read again."""

from __future__ import annotations

from ihmt_vault.storage.catalog import Catalog
from ihmt_vault.storage.notes import Memory


def _memory(path: str, status: str = "active") -> Memory:
    return Memory(id=path[:-3], title=path, path=path, body="x", status=status)


def test_keyword_counts_follow_saves_edits_archiving_and_deletes(tmp_path):
    c = Catalog(tmp_path / "catalog.sqlite")
    c.upsert(_memory("a.md"), "", ["redis", "cache"], 1, 1)
    assert c.keyword_holders() == ({"redis": 1, "cache": 1}, 1)
    c.upsert(_memory("b.md"), "", ["redis"], 1, 1)
    c.upsert(_memory("a.md"), "", ["nginx"], 2, 1)  # edited
    c.upsert(_memory("b.md", status="archived"), "", ["redis"], 2, 1)  # archived: not live
    held, n = c.keyword_holders()
    assert ({w: k for w, k in held.items() if k}, n) == ({"nginx": 1}, 1)
    c.delete("a.md")
    held, n = c.keyword_holders()
    assert ({w: k for w, k in held.items() if k}, n) == ({}, 0)


def test_another_connections_write_is_counted(tmp_path):
    mine, theirs = Catalog(tmp_path / "catalog.sqlite"), Catalog(tmp_path / "catalog.sqlite")
    mine.upsert(_memory("a.md"), "", ["redis"], 1, 1)
    assert mine.keyword_holders() == ({"redis": 1}, 1)
    theirs.upsert(_memory("b.md"), "", ["redis", "cache"], 1, 1)
    assert mine.keyword_holders() == ({"redis": 2, "cache": 1}, 2)


def test_a_rolled_back_write_is_not_counted(tmp_path):
    c = Catalog(tmp_path / "catalog.sqlite")
    c.keyword_holders()
    try:
        with c.transaction():
            c.upsert(_memory("a.md"), "", ["redis"], 1, 1)
            raise RuntimeError("the operation failed")
    except RuntimeError:
        pass
    assert c.keyword_holders() == ({}, 0)


def test_the_memories_holding_a_keyword_follow_edits_archiving_and_deletes(tmp_path):
    c = Catalog(tmp_path / "catalog.sqlite")
    c.upsert(_memory("a.md"), "", ["redis", "cache"], 1, 1)
    c.upsert(_memory("b.md"), "", ["redis"], 1, 1)
    c.upsert(_memory("c.md"), "", ["redis_cache", "redis%"], 1, 1)  # holds neither word whole
    c.upsert(_memory("d.md", status="archived"), "", ["redis"], 1, 1)
    assert sorted(r.path for r in c.holding("redis", 10)) == ["a.md", "b.md"]
    c.upsert(_memory("a.md"), "", ["nginx"], 2, 1)  # edited: no longer about redis
    c.delete("b.md")
    assert ([r.path for r in c.holding("redis", 10)], [r.path for r in c.holding("nginx", 10)]) == ([], ["a.md"])


def test_a_title_is_found_whatever_its_case(tmp_path):
    c = Catalog(tmp_path / "catalog.sqlite")
    c.upsert(_memory("Nightly Backup.md"), "", [], 1, 1)
    assert [r.path for r in c.by_title("nightly backup.md")] == ["Nightly Backup.md"]
