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


def filled(tmp_path, setting: str | None = None, memories: list[str] = MEMORIES) -> Vault:
    Vault.init(tmp_path / "v").close()
    if setting is not None:
        config = tmp_path / "v/.ihmt/config.toml"
        config.write_text(config.read_text().replace('embedder = "wordllama"', f'embedder = "{setting}"'))
    v = Vault.open(tmp_path / "v")
    for text in memories:
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


# Lexical variants: the words alone (the model off), so what finds the memory is the vault's vocabulary.
VARIANTS = [
    "Production runs PostgreSQL 17 on the db-prod-1 host.",
    "The staging page lists every plugin we program against.",
    "Kubernetes deploys go through Argo CD.",
    "Credentials live in AWS Secrets Manager.",
    "Kafka carries the event stream.",
    "The host is staging-1.",
    "Web deploys: deploys go out Fridays.",
]


def by_words(tmp_path) -> Vault:
    return filled(tmp_path, "", VARIANTS)


def test_an_abbreviation_finds_the_word_it_shortens_beside_the_questions_other_words(tmp_path):
    v = by_words(tmp_path)
    r = v.search("which pg host")
    assert r.hits[0].title == "Production runs PostgreSQL 17 on the db-prod-1 host."
    v.close()


def test_a_numeronym_finds_the_word_it_counts(tmp_path):
    v = by_words(tmp_path)
    r = v.search("k8s deploys")
    assert r.hits[0].title == "Kubernetes deploys go through Argo CD."
    v.close()


def test_a_clipped_word_alone_finds_the_word_it_starts(tmp_path):
    v = by_words(tmp_path)
    r = v.search("where are the creds")
    assert (r.status, r.hits[0].title) == ("found", "Credentials live in AWS Secrets Manager.")
    v.close()


def test_letters_alone_bring_no_variant_the_questions_other_words_do_not_share(tmp_path):
    v = by_words(tmp_path)
    r = v.search("pg event stream")
    assert r.hits[0].title == "Kafka carries the event stream."
    assert "Production runs PostgreSQL 17 on the db-prod-1 host." not in [h.title for h in r.hits]
    v.close()


def test_a_memory_saved_after_a_search_is_found_by_its_meaning_in_the_same_process(tmp_path):
    v = filled(tmp_path)
    v.search("standup time")  # the vectors are read once here
    v.memories.save("Our rowing club meets on the river at dawn.", topic="life")
    r = v.search("boat sport")
    assert r.hits[0].title == "Our rowing club meets on the river at dawn."
    v.close()


def test_a_memory_forgotten_after_a_search_is_not_found_by_its_meaning_in_the_same_process(tmp_path):
    v = filled(tmp_path)
    laptop = v.search("buying a computer").hits[0]
    v.memories.forget(laptop.id)
    assert laptop.id not in [h.id for h in v.search("buying a computer").hits]
    v.close()


def _doc(key: str, title: str, folder: str = "work"):
    from ihmt_vault.search import Doc

    return Doc(key=key, kind="memory", path=f"{folder}/{key}.md", folder=folder, depth=1, title=title, body=title)


def test_the_vectors_a_process_keeps_after_its_own_writes_are_the_ones_stored(tmp_path):
    from ihmt_vault.plugins.semantic import WordLlamaEmbedder
    from ihmt_vault.search.vectors import VectorIndex

    first = [_doc(f"m{i}", f"Note {i} about the nightly backup job.") for i in range(3)]
    later = [_doc(f"n{i}", f"Our rowing club meets on the river, week {i}.", "life") for i in range(80)]
    kept = VectorIndex(tmp_path, WordLlamaEmbedder())
    kept.rebuild(first, "g1")
    kept.nearest("backup")  # loaded: the writes below follow it row by row, past its first capacity
    kept.apply(later, [], "g2")
    kept.apply([_doc("m1", "The espresso machine on floor two is broken.")], ["m0", "n5"], "g3")
    fresh = VectorIndex(tmp_path, WordLlamaEmbedder())

    def top(v, question):
        return [(key, round(cos, 5)) for key, cos, _z in v.nearest(question, k=5)]

    for question in ("coffee machine broken", "boat sport on the river", "backup job"):
        assert top(kept, question) == top(fresh, question)
    assert kept.nearest("coffee machine broken", k=1)[0][0] == "m1"
    assert {"m0", "n5"}.isdisjoint(key for key, _cos, _z in kept.nearest("backup job rowing river", k=100))
    assert kept.folders_near("boat sport").keys() == fresh.folders_near("boat sport").keys() == {"work", "life"}
