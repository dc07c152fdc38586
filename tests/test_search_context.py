"""A memory's neighbours in a conversation (saved just before and after it, in its folder and in the
vault, in one sitting) share its topic."""

import datetime as dt

from ihmt_vault.search import FOUND, Doc, SearchIndex


def turn(key, folder, body, created):
    return Doc(
        key=key,
        kind="memory",
        path=f"{folder}/{key}.md",
        folder=folder,
        depth=1,
        title=body[:40],
        body=body,
        id=key,
        created=created,
    )


CHAT = [
    turn("c1", "chat", "Caroline: I went to a poetry reading about transgender stories.", "2023-05-08T13:56:00Z"),
    turn("c2", "chat", "Melanie: Nope, never been to one. What made it so special?", "2023-05-08T13:56:20Z"),
    turn("c3", "chat", "Caroline: Everyone shared their own journey, it felt like home.", "2023-05-08T13:57:10Z"),
    turn("c4", "chat", "Melanie: My kids built a sandcastle at the beach on Sunday.", "2023-05-08T13:58:00Z"),
    turn("c5", "chat", "Caroline: Lovely! The tide washed it away by evening.", "2023-05-08T13:58:30Z"),
    turn("other", "notes", "Groceries: bread, milk and tomatoes.", "2023-05-08T13:56:10Z"),
]


def build(tmp_path, docs, **kw):
    ix = SearchIndex(tmp_path / "cache", today=dt.date(2023, 6, 1), **kw)
    ix.rebuild(docs, {"generation": "1"})
    return ix


def test_the_turn_after_a_hit_comes_along_though_it_shares_no_word_with_the_question(tmp_path):
    res = build(tmp_path, CHAT).search("poetry reading")
    assert res.status == FOUND
    assert [h.id for h in res.hits[:2]] == ["c1", "c2"]
    assert res.hits[1].via == "context"


def test_neighbours_are_the_turns_just_before_and_after_in_the_same_folder(tmp_path):
    ids = [h.id for h in build(tmp_path, CHAT).search("journey home").hits]
    # c3's neighbours are c2 and c4; c1 (two turns away) and the note saved in another folder are not
    assert ids == ["c3", "c2", "c4"]


def test_the_turn_after_a_hit_is_lifted_though_the_vault_filed_it_in_another_folder(tmp_path):
    docs = [
        turn("a", "hobbies", "Caroline: I signed up for a pottery class at the old mill.", "2023-05-08T10:00:00Z"),
        turn("later", "calendar", "Caroline: The class is on Thursday.", "2023-05-08T12:00:00Z"),
        turn("b", "calendar", "Caroline: The class is on Tuesday.", "2023-05-08T10:00:30Z"),
    ]
    hits = build(tmp_path, docs).search("pottery class").hits
    assert [h.id for h in hits] == ["a", "b", "later"]  # b was said just after a; later, two hours on


def test_a_turn_the_words_did_not_find_in_another_folder_does_not_come_along(tmp_path):
    docs = [
        turn("a", "hobbies", "Caroline: I signed up for a pottery class.", "2023-05-08T10:00:00Z"),
        turn("b", "calendar", "Caroline: Next Tuesday at six, in the old mill.", "2023-05-08T10:00:30Z"),
    ]
    assert [h.id for h in build(tmp_path, docs).search("pottery class").hits] == ["a"]


def test_memories_saved_more_than_half_an_hour_apart_are_not_one_conversation(tmp_path):
    docs = [
        turn("a", "chat", "Bart: I adopted a puppy named Toby.", "2023-05-08T10:00:00Z"),
        turn("b", "chat", "Assistant: How lovely, enjoy the walks!", "2023-05-08T11:00:00Z"),
    ]
    assert [h.id for h in build(tmp_path, docs).search("puppy Toby").hits] == ["a"]


def test_a_deleted_neighbour_is_passed_over_for_the_next_turn(tmp_path):
    ix = build(tmp_path, CHAT)
    ix.apply([], ["c2"], {"generation": "2"})
    assert [h.id for h in ix.search("poetry reading").hits] == ["c1", "c3"]


def test_context_zero_turns_neighbours_off(tmp_path):
    from ihmt_vault.search import SearchSettings

    ix = build(tmp_path, CHAT, settings=SearchSettings(context=0.0))
    assert [h.id for h in ix.search("poetry reading").hits] == ["c1"]


def test_a_memory_without_a_save_time_has_no_neighbours(tmp_path):
    docs = [
        turn("a", "chat", "Bart: I adopted a puppy named Toby.", None),
        turn("b", "chat", "Assistant: How lovely, enjoy the walks!", None),
    ]
    assert [h.id for h in build(tmp_path, docs).search("puppy Toby").hits] == ["a"]


def test_consecutive_saves_in_a_vault_are_neighbours_and_the_setting_reaches_the_search(tmp_path):
    from ihmt_vault import Vault

    root = tmp_path / "v"
    with Vault.init(root) as v:
        v.save("Caroline went to a poetry reading about transgender stories.", topic="chat")
        v.save("Melanie never went to one and asked what made it special.", topic="chat")
        assert [h.title for h in v.search("poetry reading").hits][:2] == [
            "Caroline went to a poetry reading about transgender stories.",
            "Melanie never went to one and asked what made it special.",
        ]
    (root / ".ihmt" / "config.toml").write_text("[vault]\nsearch_context = 0\n")
    with Vault.open(root) as v:
        assert len(v.search("poetry reading").hits) == 1


def test_search_context_must_be_a_share():
    import pytest

    from ihmt_vault.config import Config
    from ihmt_vault.errors import BadInput

    with pytest.raises(BadInput, match="search_context must be between 0 and 1, not 1.5"):
        Config(search_context=1.5)


class Backwards:
    def rank(self, query, candidates):
        return list(reversed(range(len(candidates))))


def test_a_ranker_reorders_near_ties_but_not_a_clear_winner():
    from ihmt_vault.search import RankItem
    from ihmt_vault.search.rankers import fuse

    view = lambda x: RankItem(x[0], x[0], x[0])  # noqa: E731
    score = lambda x: x[1]  # noqa: E731
    near = [("a", 1.0), ("b", 0.95), ("c", 0.9)]
    assert [x[0] for x in fuse("q", near, [Backwards()], view, score)] == ["a", "c", "b"]
    clear = [("a", 1.0), ("b", 0.3), ("c", 0.2)]
    assert [x[0] for x in fuse("q", clear, [Backwards()], view, score)] == ["a", "b", "c"]


def test_a_clear_lexical_winner_stays_first_and_found_with_a_ranker_fused_in(tmp_path):
    lexical = build(tmp_path / "a", CHAT).search("sandcastle beach")
    fused = build(tmp_path / "b", CHAT, rankers=[Backwards()]).search("sandcastle beach")
    assert (lexical.status, fused.status) == (FOUND, FOUND)
    assert lexical.hits[0].id == fused.hits[0].id == "c4"
