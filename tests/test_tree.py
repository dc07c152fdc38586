"""A tree a person would keep: titles, file names, placement, the gardener, summaries, corrections."""
from ihmt_vault.notes import slugify, title_from_body


def test_a_generated_title_is_the_first_sentence():
    body = "We decided to store timestamps in UTC. DST bugs cost us a week in March."
    assert title_from_body(body, "x") == "We decided to store timestamps in UTC."


def test_a_long_first_sentence_is_cut_at_a_word_boundary_without_an_ellipsis():
    body = "langchain - Building applications with LLMs through composability and many more words."
    assert title_from_body(body, "x") == "langchain - Building applications with LLMs through"


def test_a_version_number_does_not_end_the_first_sentence():
    assert title_from_body("Ana uses Neovim 0.11 with lazy.nvim. She likes it.", "x") == "Ana uses Neovim 0.11 with lazy.nvim."


def test_the_first_heading_is_the_title():
    assert title_from_body("# Deploy checklist\n\nRun the migrations first.", "x") == "Deploy checklist"


def test_a_file_name_is_never_cut_mid_word():
    assert slugify("Staging runs PostgreSQL 17 and also many more things beyond that which we need") == \
        "staging-runs-postgresql-17-and-also-many-more-things-beyond"
