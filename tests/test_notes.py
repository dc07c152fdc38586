"""The memory file format: reading what people write, writing back without disturbing it."""

from ihmt_vault.storage.notes import compose, new_id, parse, slugify, update_front_matter

OBSIDIAN = """---
title: "Luis Marín"
aliases: [Luis, LM]   # how Ana calls him
tags:
  - people
  - dba
cssclasses: wide
date: 2024-05-02
---
# Luis Marín

DBA, lives in Benidorm.
"""


def test_obsidian_file_keeps_unknown_keys_comments_and_style_when_keys_are_added():
    # a new key goes after the last key that precedes it in the design's order (id first, status after date)
    out = update_front_matter(OBSIDIAN, {"id": "01abcdefgh", "status": "active"})
    assert (
        out
        == """---
id: 01abcdefgh
title: "Luis Marín"
aliases: [Luis, LM]   # how Ana calls him
tags:
  - people
  - dba
cssclasses: wide
date: 2024-05-02
status: active
---
# Luis Marín

DBA, lives in Benidorm.
"""
    )


def test_parse_reads_types_explicitly_and_keeps_unknown_keys():
    m = parse(OBSIDIAN, "people/luis-marin.md")
    assert (m.title, m.date, m.tags, m.status, m.type) == (
        "Luis Marín",
        "2024-05-02",
        ["people", "dba"],
        "active",
        "note",
    )
    assert m.meta["aliases"] == ["Luis", "LM"] and m.meta["cssclasses"] == "wide"
    assert m.missing == ("id", "created")


def test_hand_written_file_without_front_matter_is_a_memory_titled_by_its_first_line():
    m = parse("Coffee: flat white, no sugar.\nAlways oat milk.\n", "personal/coffee.md")
    assert m.title == "Coffee: flat white, no sugar."
    assert m.body == "Coffee: flat white, no sugar.\nAlways oat milk.\n"
    assert m.missing == ("id", "title", "created")


def test_file_without_front_matter_gets_a_block_and_an_untouched_body():
    body = "# Idea\n\n  indented   text  \n\n\n"
    assert update_front_matter(body, {"id": "01abcdefgh"}) == "---\nid: 01abcdefgh\n---\n" + body


def test_bom_and_crlf_survive_an_edit():
    text = "\ufeff---\r\ntitle: x\r\n---\r\nbody\r\n"
    out = update_front_matter(text, {"status": "outdated"})
    assert out == "\ufeff---\r\ntitle: x\r\nstatus: outdated\r\n---\r\nbody\r\n"
    assert parse(text, "a.md").title == "x"


def test_ids_and_numbers_are_strings_and_yaml_1_1_values_are_not_reinterpreted_on_rewrite():
    text = "---\nid: '0123'\nversion: 1.10\nflag: no\n---\nx\n"
    assert parse(text, "a.md").id == "0123"
    assert (
        update_front_matter(text, {"status": "active"})
        == "---\nid: '0123'\nstatus: active\nversion: 1.10\nflag: no\n---\nx\n"
    )


def test_compose_writes_the_design_key_order_with_plain_dates():
    text = compose(
        {
            "source": "codex",
            "id": "01abcdefgh",
            "title": "Staging runs PostgreSQL 17",
            "type": "fact",
            "date": "2026-02-03",
            "created": "2026-11-30T10:12:03Z",
            "tags": ["database", "staging"],
            "status": "active",
            "pinned": False,
            "mood": "ok",
        },
        "Staging moved.",
    )
    assert (
        text
        == """---
id: 01abcdefgh
title: Staging runs PostgreSQL 17
type: fact
date: 2026-02-03
created: 2026-11-30T10:12:03Z
tags: [database, staging]
status: active
source: codex
pinned: false
mood: ok
---
Staging moved.
"""
    )


def test_ids_are_unique_and_sort_by_creation_time():
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == 2000
    assert ids == sorted(ids)
    assert new_id(now_ms=1_000) < new_id(now_ms=2_000_000_000_000)


def test_slugs_are_readable_and_safe():
    assert slugify("Staging runs PostgreSQL 17") == "staging-runs-postgresql-17"
    assert slugify("Viaje a Japón: ¿primavera?") == "viaje-a-japon-primavera"
    assert slugify("周末去爬山") == "周末去爬山"
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("CON") == "con-note"
    assert slugify("!!!") == "memory-note"


def test_a_long_first_sentence_is_cut_at_a_clause_and_never_ends_on_a_function_word():
    from ihmt_vault.storage.notes import title_from_body

    assert (
        title_from_body(
            "Sentry project is harbor-backend, alerts go to the #harbor-alerts channel on Slack and to the pager.", "x"
        )
        == "Sentry project is harbor-backend"
    )
    assert (
        title_from_body(
            "Secrets for Harbor live in AWS Secrets Manager under harbor/prod and harbor/staging, read at boot.", "x"
        )
        == "Secrets for Harbor live in AWS Secrets Manager"
    )
