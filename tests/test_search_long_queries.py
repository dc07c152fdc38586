"""A long query — a whole dialogue, a pasted paragraph — is not answered by a memory holding much of
it: the decision asks whether the best memory is really linked to it (decision.long_query_link)."""

from __future__ import annotations

from ihmt_vault.search import FOUND, NOT_FOUND, Doc, SearchIndex


def vault(tmp_path) -> SearchIndex:
    """80 memories of one person: every one names them; "recital" and "nervous" are in 8 each
    (fairly rare), "violin" in one only."""
    docs = []
    for i in range(79):
        extra = " recital" if i < 8 else ""
        extra += " nervous" if 8 <= i < 16 else ""
        docs.append(
            Doc(
                key=f"m{i}",
                kind="memory",
                path=f"m{i}.md",
                folder="",
                depth=0,
                title=f"Day {i}",
                body=f"Bart: day{i} thing{i} happened{extra}.",
                id=f"m{i}",
            )
        )
    docs.append(
        Doc(
            key="violin",
            kind="memory",
            path="violin.md",
            folder="",
            depth=0,
            title="Bart's first recital",
            body="Bart: I played the violin at my first school recital and was very nervous; my aunt "
            "Philippa drove from Leeds, we ate pancakes at the harbour cafe, the lights dazzled me.",
            id="violin",
        )
    )
    ix = SearchIndex(tmp_path)
    ix.rebuild(docs, {})
    return ix


DIALOGUE = (
    "Bart: Guess what, tomorrow evening I have a recital with my violin!\n"
    "Assistant: How exciting! Are you practising every afternoon?\n"
    "Bart: Yes, but I keep getting nervous whenever somebody listens. Any tricks?\n"
    "Assistant: Breathe slowly, picture friendly faces, and smile at the audience."
)

STRAY = (
    "Bart: Guess what, my cousin bought an old violin at a flea market!\n"
    "Assistant: How funny! Does anybody in your family sing?\n"
    "Bart: Nobody, it hangs on the kitchen wall like a painting. Weird, right?\n"
    "Assistant: Decorations tell stories too; maybe someday somebody learns it."
)


def test_a_dialogue_sharing_a_rare_word_and_fairly_rare_ones_with_a_memory_finds_it(tmp_path):
    res = vault(tmp_path).search(DIALOGUE)
    assert len(res.words) > 8 and res.coverage < 0.2  # a long query the memory holds little of
    assert (res.status, res.hits[0].id) == (FOUND, "violin")


def test_a_dialogue_sharing_one_rare_word_only_with_a_memory_is_not_found(tmp_path):
    res = vault(tmp_path).search(STRAY)
    assert len(res.words) > 8
    assert res.status == NOT_FOUND
