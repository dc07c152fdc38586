"""The optional model: a sentence-embedding ranker fused into search, off by default, never a
reason for a search to fail."""

import warnings

import pytest
from click.testing import CliRunner

from ihmt_vault import Vault
from ihmt_vault.frontends.cli import main
from ihmt_vault.plugins import semantic
from ihmt_vault.search import RankItem

pytest.importorskip("wordllama", reason="the semantic extra is not installed")


def with_rankers(root, names):
    config = root / ".ihmt" / "config.toml"
    config.write_text(config.read_text().replace("rankers = []", f"rankers = {names!r}".replace("'", '"')))


def test_the_model_puts_the_candidate_that_means_the_same_first():
    candidates = [
        RankItem("a", "Climbing", "Ana likes climbing on weekends."),
        RankItem("b", "Staging database", "Staging runs PostgreSQL 17."),
    ]
    assert semantic.SemanticRanker().rank("which database version is on staging", candidates) == [1, 0]


def test_a_chinese_query_gets_no_vote_from_a_model_that_does_not_read_chinese():
    assert semantic.SemanticRanker().rank("周末去爬山", [RankItem("a", "爬山", "周末去爬山了")]) == []


def test_a_vault_with_the_model_searches_and_caches_each_memorys_embedding(tmp_path):
    Vault.init(tmp_path / "v").close()
    with_rankers(tmp_path / "v", ["semantic"])
    with Vault.open(tmp_path / "v") as v:
        v.save("Staging runs PostgreSQL 17.", topic="work")
        v.save("Production runs PostgreSQL 16.", topic="work")
        assert v.search("PostgreSQL on staging").hits[0].title == "Staging runs PostgreSQL 17."
    assert (tmp_path / "v" / ".ihmt" / "cache" / "embeddings.sqlite").stat().st_size > 0
    r = CliRunner().invoke(main, ["doctor", "--vault", str(tmp_path / "v")])
    assert "search rankers active: semantic" in r.output


def test_a_broken_model_is_left_out_with_one_warning_and_search_stays_lexical(tmp_path, monkeypatch):
    def broken():
        raise ImportError("no wordllama", name="wordllama")

    semantic._model.cache_clear()
    monkeypatch.setattr(semantic, "_model", broken)
    Vault.init(tmp_path / "v").close()
    with_rankers(tmp_path / "v", ["semantic"])
    with warnings.catch_warnings(record=True) as caught, Vault.open(tmp_path / "v") as v:
        warnings.simplefilter("always")
        v.save("Staging runs PostgreSQL 17.", topic="work")
        assert v.search("PostgreSQL on staging").hits[0].title == "Staging runs PostgreSQL 17."
        assert [str(w.message) for w in caught] == [
            "ihmt: the semantic ranker is off (wordllama is not installed: pip install 'ihmt-vault[semantic]'); "
            "searching by words alone"
        ]
        assert [p.message for p in v.doctor() if p.kind == "ranker"] == [
            "the semantic ranker is off: wordllama is not installed: pip install 'ihmt-vault[semantic]'; "
            "search answers by words alone"
        ]
