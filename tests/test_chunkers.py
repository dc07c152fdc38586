"""The document chunkers: a block is never cut, and the chunks join back into the text byte for byte."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt_vault.plugins.chunkers import JournalChunker, MarkdownChunker, NarrativeChunker, ProcessChunker, entry_date

CHUNKERS = [MarkdownChunker(), NarrativeChunker(), JournalChunker(), ProcessChunker()]


def texts(chunks):
    return [c.text for c in chunks]


# -- Markdown --------------------------------------------------------------------------------------
GUIDE = """---
tags: [guide]
---
# Guide

Intro paragraph.

## Install

```bash
# not a heading
pip install ihmt-vault
```

## Use

| command | what |
|---|---|
| save | remember |

- one
- two
"""


def test_markdown_starts_a_chunk_at_each_top_heading_and_keeps_front_matter_first():
    chunks = MarkdownChunker().chunk(GUIDE)
    assert [c.heading for c in chunks] == ["Guide", "Install", "Use"]
    assert chunks[0].text.startswith("---\ntags: [guide]\n---\n# Guide\n")
    assert [(c.first_line, c.last_line) for c in chunks] == [(1, 7), (8, 14), (15, 22)]


def test_markdown_never_cuts_a_fence_a_table_or_a_list_however_small_the_limit():
    chunks = MarkdownChunker().chunk(GUIDE, limit=10)
    assert "```bash\n# not a heading\npip install ihmt-vault\n```\n" in "".join(
        c.text for c in chunks if "```bash" in c.text
    )
    [table] = [c.text for c in chunks if "| command" in c.text]
    assert "| save | remember |\n" in table
    [items] = [c.text for c in chunks if "- one" in c.text]
    assert "- one\n- two\n" in items
    assert "".join(texts(chunks)) == GUIDE


def test_markdown_keeps_a_heading_with_the_block_that_follows_it():
    chunks = MarkdownChunker().chunk(GUIDE, limit=10)
    assert not any(c.text.strip().startswith("#") and c.text.strip().count("\n") == 0 for c in chunks)


# -- narrative -------------------------------------------------------------------------------------
STORY = """Chapter 1

It was late. The rain kept falling on the roofs of the old town.

She closed the door.

***

Morning came.

Capítulo 2

Llegó el tren.

第三章

他来了。
"""


def test_narrative_scene_breaks_and_chapters_in_three_languages_start_chunks():
    chunks = NarrativeChunker().chunk(STORY)
    assert [c.text.splitlines()[0] for c in chunks] == ["Chapter 1", "***", "Capítulo 2", "第三章"]
    assert [c.heading for c in chunks] == ["Chapter 1", "Chapter 1", "Capítulo 2", "第三章"]


def test_narrative_cuts_only_an_oversized_paragraph_and_only_at_sentence_ends():
    paragraph = " ".join(f"Sentence number {n} ends here." for n in range(30)) + "\n"
    text = "Short one.\n\n" + paragraph
    chunks = NarrativeChunker().chunk(text, limit=200)
    assert chunks[0].text == "Short one.\n\n"
    assert all(c.text.rstrip().endswith(".") for c in chunks)
    assert all(len(c.text) <= 200 for c in chunks)
    assert "".join(texts(chunks)) == text


# -- journals and chats ----------------------------------------------------------------------------
JOURNAL = """Trip notes

2024-05-01 Left Madrid at nine.
Arrived late.

2024-05-01 Dinner in Valencia.

## May 3, 2024
Back home.

[2024-05-04 10:22] Bob: hi
[2024-05-04 10:23] Ana: hello
3 de mayo de 2025: llegamos.
2025年5月6日 去了北京。
"""


def test_a_change_of_date_starts_a_chunk_and_each_chunk_carries_its_date():
    chunks = JournalChunker().chunk(JOURNAL)
    assert [(c.date, c.first_line, c.last_line) for c in chunks] == [
        ("", 1, 2),
        ("2024-05-01", 3, 7),
        ("2024-05-03", 8, 10),
        ("2024-05-04", 11, 12),
        ("2025-05-03", 13, 13),
        ("2025-05-06", 14, 14),
    ]


def test_a_dated_entry_bigger_than_the_limit_is_kept_whole_and_marked_oversized():
    entry = "2024-05-01 " + "word " * 100 + "\n"
    chunks = JournalChunker().chunk(entry + "2024-05-02 short\n", limit=200)
    assert [(c.text, c.oversized) for c in chunks] == [(entry, True), ("2024-05-02 short\n", False)]


def test_only_an_explicit_date_at_the_start_of_a_line_opens_an_entry():
    assert [
        entry_date(s)
        for s in (
            "Monday, 12 June 2023: rain",
            "- 2023-06-12 ran 5k",
            "yesterday I ran",
            "We met on 2023-06-12.",
            "Version 2.0 is out",
        )
    ] == ["2023-06-12", "2023-06-12", None, None, None]


# -- processes -------------------------------------------------------------------------------------
PAELLA = """# Paella valenciana

Ingredientes:
- 400 g de arroz
- un pollo

Pasos:

1. Sofreír el pollo.

2. Añadir el arroz.

3. Esperar veinte minutos.

Servir caliente.
"""


def test_a_recipe_keeps_each_list_with_its_heading_and_never_cuts_the_steps():
    chunks = ProcessChunker().chunk(PAELLA, limit=60)
    [steps] = [c for c in chunks if "Pasos:" in c.text]
    assert steps.text.startswith("Pasos:\n\n1. Sofreír el pollo.\n\n2. Añadir el arroz.\n\n3. Esperar")
    [ingredients] = [c for c in chunks if "Ingredientes:" in c.text]
    assert "- 400 g de arroz\n- un pollo\n" in ingredients.text
    assert steps.heading == "Pasos"


def test_a_small_recipe_is_one_chunk():
    assert texts(ProcessChunker().chunk(PAELLA)) == [PAELLA]


# -- the invariant ---------------------------------------------------------------------------------
PIECES = st.sampled_from(
    [
        "\n",
        "\n\n",
        "\r\n",
        "# ",
        "## H\n",
        "***\n",
        "```\n",
        "- item\n",
        "1. step\n",
        "2024-05-01 ",
        "Chapter 2\n",
        "Pasos:\n",
        "| a | b |\n|---|---|\n",
        "---\n",
        "。",
        ". ",
        "word ",
        "中文",
        "\t",
        " ",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(PIECES, max_size=60), st.integers(min_value=1, max_value=300))
def test_every_chunker_joins_any_text_back_byte_for_byte(pieces, limit):
    text = "".join(pieces)
    for chunker in CHUNKERS:
        chunks = chunker.chunk(text, limit)
        assert "".join(texts(chunks)) == text
        assert all(c.text for c in chunks)
        assert all(1 <= c.first_line <= c.last_line for c in chunks)
