"""Found by meaning: the vector index brings in the memory a question means when it shares no
word with it; without the model, search goes by words with one warning; the vectors are a cache."""

import warnings

from ihmt_vault import Vault

MEMORIES = [
    "Production runs PostgreSQL 17 on db-prod-1.",
    "make up starts postgres and redis for local development.",
    "Team standup is at 09:30 every weekday.",
    "Ana bought a new laptop for the team in March.",
    "We deploy with Argo CD from the main branch.",
]


def filled(tmp_path, setting: str | None = None) -> Vault:
    Vault.init(tmp_path / "v").close()
    if setting is not None:
        config = tmp_path / "v/.ihmt/config.toml"
        config.write_text(config.read_text().replace('embedder = "wordllama"', f'embedder = "{setting}"'))
    v = Vault.open(tmp_path / "v")
    for text in MEMORIES:
        v.memories.save(text, topic="work")
    return v


def test_a_memory_sharing_no_word_with_the_question_is_found_by_its_meaning(tmp_path):
    v = filled(tmp_path)
    r = v.search("buying a computer")
    assert r.hits[0].title == "Ana bought a new laptop for the team in March."
    v.close()


def test_with_the_model_missing_search_goes_by_words_with_one_warning(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = filled(tmp_path, "no-such-model")
        r = v.search("standup time")
        v.search("which postgres does production run")
    assert r.hits[0].title == "Team standup is at 09:30 every weekday."
    assert [str(w.message) for w in caught if "model" in str(w.message)] == [
        "ihmt: the no-such-model model is off (no such embedder); searching by words alone"
    ]
    assert any(p.kind == "model" for p in v.maintenance.doctor())
    v.close()


def test_the_vectors_lost_in_a_crash_are_rebuilt_and_give_the_same_answers(tmp_path):
    v = filled(tmp_path)
    before = [h.id for h in v.search("buying a computer").hits]
    vectors = v.engine.index.vectors
    vectors.close()
    (vectors.folder / "vectors.sqlite").unlink()  # as if the process died before writing them
    assert [h.id for h in v.search("buying a computer").hits] == before
    v.maintenance.rebuild()
    assert [h.id for h in v.search("buying a computer").hits] == before
    v.close()
