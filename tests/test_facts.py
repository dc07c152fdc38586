"""Facts with precision over recall: no fact from a fragment, an outdated memory's value never
current, and `conflicts` agreeing with `facts`."""
from click.testing import CliRunner

from ihmt_vault.cli import main
from ihmt_vault.timeline import extract


def values(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.attribute, f.value) for f in extract(text, "user")]


def test_a_fragment_is_no_fact():
    assert values("Production uses the same setup as staging.") == []
    assert values("She logs runs with a Garmin Forerunner 265.") == []
    assert values("Ana runs 5–7 km on Sundays.") == []


def test_a_named_value_is_a_fact_and_a_version_is_not_cut_at_its_dot():
    assert values("Ana uses Neovim 0.11 with LazyVim.") == [("Ana", "uses", "Neovim 0.11")]


def test_the_value_of_an_outdated_memory_is_never_current(vault):
    old = vault.save("Staging runs PostgreSQL 15.", topic="work", date="2024-01-01")
    vault.save("The staging database was rebuilt; its version is being decided.", topic="work",
               date="2025-01-01", supersedes=[old.id])
    [line] = vault.facts(subject="staging")
    assert (line.current, [(e.value, e.outdated) for e in line.entries]) == (None, [("PostgreSQL 15", True)])


def test_conflicts_says_how_many_facts_there_are_when_none_changed(vault):
    vault.save("Staging runs PostgreSQL 17.", topic="work")
    r = CliRunner().invoke(main, ["conflicts", "--vault", str(vault.root)])
    assert r.output == "no fact changed value (1 facts recorded: 'ihmt facts')\n"
