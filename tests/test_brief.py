"""The brief (level 1): per topic its newest and most recalled memories, pinned ones, the rest as a
count to drill down; outdated and archived never in it; within its budget whatever the size."""

import pytest

from ihmt_vault.ops.levels import TopicDigest, compose_brief
from ihmt_vault.search import estimate_tokens
from ihmt_vault.storage.catalog import Row


def row(n: int, topic: str) -> Row:
    return Row(
        id=f"m{n:07d}",
        title=f"Memory {n} about {topic}",
        first_line=f"Memory {n} about {topic}, with a first line long enough to cost what a real one costs in tokens.",
        date="2026-01-01",
        created="",
    )


def synthetic(total: int, topics: int) -> list[TopicDigest]:
    per = total // topics
    return [
        TopicDigest(
            f"topic{t}",
            per,
            [(f"sub{s}", per // 4) for s in range(4)],
            [row(t * per + i, f"topic{t}") for i in range(4)],
            [(row(t * per + 9, f"topic{t}"), 7)],
        )
        for t in range(topics)
    ]


@pytest.mark.parametrize("total,topics", [(200, 6), (2_000, 14), (50_000, 40)])
def test_the_brief_fits_its_budget_at_every_size(total, topics):
    text = compose_brief("Memory", total, 0, [], synthetic(total, topics), 2000)
    assert estimate_tokens(text) <= 2000
    assert text.count("## topic") == topics or "more topics →" in text


def test_a_small_vault_lists_every_memory_under_its_topic_newest_first(vault):
    for n in range(6):
        vault.save(f"Server {n} runs Debian {10 + n}.", topic="work/infra", date=f"2026-0{n + 1}-01")
    vault.save("Prefers tea to coffee.", topic="personal", date="2025-01-01")
    text = vault.brief()
    assert "## work/ — 6 memories (infra 6)\n- 2026-06-01 Server 5 runs Debian 15." in text
    assert all(f"Server {n} runs Debian {10 + n}." in text for n in range(6)) and "[+" not in text
    assert "## personal/ — 1 memory\n- 2025-01-01 Prefers tea to coffee." in text


def test_at_two_hundred_memories_the_brief_lists_every_one_within_two_thousand_tokens(vault):
    vault.save_many(
        [
            {"text": f"Service {n} listens on port {8000 + n} and logs to journald.", "topic": f"ops/service-{n % 8}"}
            for n in range(200)
        ]
    )
    text = vault.brief(budget_tokens=2000)
    assert len(text) <= 2000 * 4
    assert all(f"Service {n} listens" in text for n in range(200))


def test_pinned_and_recalled_memories_are_shown_and_outdated_ones_never(vault):
    core = vault.save("Answer in British English.", topic="personal", pinned=True)
    old = vault.save("Staging runs PostgreSQL 15.", topic="work", date="2024-01-01")
    new = vault.save("Staging runs PostgreSQL 17.", topic="work", date="2026-01-01", supersedes=[old.id])
    vault.search("which PostgreSQL does staging run")
    text = vault.brief()
    assert f"## Pinned\n- core Answer in British English. ({core.id})" in text
    assert f"- 1× Staging runs PostgreSQL 17. ({new.id})" in text
    assert old.id not in text and "(1 outdated or archived: searchable, not listed)" in text
