"""Facts with precision over recall: no fact from a fragment, an outdated memory's value never
current, and `conflicts` agreeing with `facts`."""

from click.testing import CliRunner

from ihmt_vault.frontends.cli import main
from ihmt_vault.storage.timeline import extract


def values(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.attribute, f.value) for f in extract(text, "user")]


def test_a_fragment_is_no_fact():
    assert values("Production uses the same setup as staging.") == []
    assert values("She logs runs with a Garmin Forerunner 265.") == []
    assert values("Ana runs 5–7 km on Sundays.") == []


def test_a_named_value_is_a_fact_and_a_version_is_not_cut_at_its_dot():
    assert values("Ana uses Neovim 0.11 with LazyVim.") == [("Ana", "uses", "Neovim 0.11")]


def test_a_value_with_dots_in_a_host_name_or_version_stays_whole():
    assert values("Staging uses a single Hetzner CX41 box at staging.harbor.internal.") == [
        ("Staging", "uses", "single Hetzner CX41 box at staging.harbor.internal")
    ]
    assert values("The API runs on Node.js 22.") == [("API", "uses", "Node.js 22")]
    assert values("My stack is Node.js and Vue.js.") == [("user", "stack", "Node.js and Vue.js")]
    assert values("Billing switched from yarn to pnpm 9.1.2. Done.") == [("Billing", "uses", "pnpm 9.1.2")]


def test_what_a_change_replaces_keeps_its_dots_too():
    [fact] = extract("The frontend now uses Vite 6 instead of webpack.js.", "user")
    assert (fact.value, fact.replaces) == ("Vite 6", "webpack.js")


def test_the_value_of_an_outdated_memory_is_never_current(vault):
    old = vault.save("Staging runs PostgreSQL 15.", topic="work", date="2024-01-01")
    vault.save(
        "The staging database was rebuilt; its version is being decided.",
        topic="work",
        date="2025-01-01",
        supersedes=[old.id],
    )
    [line] = vault.facts(subject="staging")
    assert (line.current, [(e.value, e.outdated) for e in line.entries]) == (None, [("PostgreSQL 15", True)])


def test_conflicts_says_how_many_facts_there_are_when_none_changed(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work")
    r = CliRunner().invoke(main, ["conflicts", "--vault", str(vault.root)])
    assert r.output == "no fact changed value (1 facts recorded: 'ihmt facts')\n"


def changes(text: str) -> list[tuple[str, str, bool, str]]:
    return [(f.subject, f.value, f.change, f.replaces) for f in extract(text, "user")]


def test_a_change_of_a_many_valued_attribute_is_read_with_what_it_replaces():
    assert changes("The frontend now uses bun.") == [("frontend", "bun", True, "")]
    assert changes("The frontend uses bun instead of pnpm.") == [("frontend", "bun", True, "pnpm")]
    assert changes("The frontend switched from pnpm to bun.") == [("frontend", "bun", True, "pnpm")]
    assert changes("Staging still runs PostgreSQL 17.") == [("Staging", "PostgreSQL 17", False, "")]


def test_now_uses_outdates_the_subjects_one_other_value(vault):
    old = vault.save("The frontend uses pnpm, never npm.", topic="work", date="2026-01-10")
    new = vault.save("The frontend now uses bun for installs.", topic="work", date="2026-03-01")
    assert vault.get(old.id).status == "outdated"
    assert new.notices[0] == "On 2026-01-10 you said frontend uses = 'pnpm'; on 2026-03-01 you updated it to 'bun'."
    assert [(t.subject, t.current) for t in vault.facts(subject="frontend")] == [
        ("frontend", "bun"),
        ("frontend", None),
    ]
    assert [t.entries[0].value for t in vault.conflicts()] == ["pnpm"]


def test_a_value_a_change_ended_holds_until_the_change(vault):
    vault.save("The frontend uses pnpm, never npm.", topic="work", date="2026-01-10")
    vault.save("The frontend switched from pnpm to bun.", topic="work", date="2026-03-01")
    [ended] = [t for t in vault.facts(subject="frontend") if t.current is None]
    assert [(e.value, e.valid_from, e.valid_to) for e in ended.entries] == [("pnpm", "2026-01-10", "2026-03-01")]


def test_now_uses_with_several_other_values_only_tells_which_may_be_superseded(vault):
    fastapi = vault.save("The backend uses FastAPI.", topic="work", date="2026-01-10")
    redis = vault.save("The backend uses Redis for queues.", topic="work", date="2026-01-11")
    new = vault.save("The backend now uses Litestar.", topic="work", date="2026-04-01")
    told = [n.split()[3] for n in new.notices if n.startswith("May be superseded: ")]
    assert (sorted(told), vault.get(fastapi.id).status, vault.get(redis.id).status) == (
        sorted([fastapi.id, redis.id]),
        "active",
        "active",
    )


def test_a_change_naming_what_it_replaces_outdates_only_that_value(vault):
    fastapi = vault.save("The backend uses FastAPI.", topic="work", date="2026-01-10")
    redis = vault.save("The backend uses Redis for queues.", topic="work", date="2026-01-11")
    vault.save("The backend uses Valkey instead of Redis.", topic="work", date="2026-05-01")
    assert (vault.get(fastapi.id).status, vault.get(redis.id).status) == ("active", "outdated")
