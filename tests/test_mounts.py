"""Several vaults at once: a private vault mounting a team's shared vault."""

import subprocess

import pytest
from conftest import commits, git

from ihmt_vault import Vault
from ihmt_vault.errors import BadInput


@pytest.fixture
def team(tmp_path):
    """A team vault cloned from a bare remote, with one memory."""
    bare = tmp_path / "team.git"
    with Vault.init(tmp_path / "seed") as seed:
        seed.save("Deploys go out on Tuesdays after the standup.", title="Deploy day", topic="ops")
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "seed"), str(bare))
    return bare


@pytest.fixture
def private(tmp_path, team):
    v = Vault.init(tmp_path / "mine")
    v.save("I prefer deploying with a checklist open.", title="Deploy checklist habit", topic="personal")
    v.mount("team", str(tmp_path / "team"), remote=str(team))
    yield v
    v.close()


def test_mounting_clones_the_shared_vault_and_records_it_in_one_commit(private, tmp_path):
    assert (tmp_path / "team" / "ops").is_dir()
    assert commits(private.root)[0] == f"mount: team ({tmp_path / 'team'})"
    assert '[[mount]]\nname = "team"' in (private.root / ".ihmt/config.toml").read_text()
    with Vault.open(private.root) as again:
        assert list(again.mounts.declared) == ["team"]


def test_search_spans_both_vaults_and_names_where_each_hit_lives(private):
    result = private.search("deploy")
    assert sorted((h.vault, h.title) for h in result.hits) == [("", "Deploy checklist habit"), ("team", "Deploy day")]
    team_hit = private.search("which day do deploys go out").hits[0]
    assert (team_hit.vault, team_hit.title) == ("team", "Deploy day")
    assert "path: team:ops/deploy-day.md" in private.search("which day do deploys go out").render()


def test_search_in_one_vault_only(private):
    assert {h.vault for h in private.search("deploy", vault="private").hits} == {""}
    assert {h.vault for h in private.search("deploy", vault="team").hits} == {"team"}


def test_a_mounted_memory_is_read_by_its_vault_and_path(private):
    assert private.show("team:ops/deploy-day.md").title == "Deploy day"
    hit = private.search("which day do deploys go out").hits[0]
    assert private.show(hit.id).title == "Deploy day"


def test_a_save_goes_to_the_private_vault_unless_its_topic_or_the_caller_names_a_mount(private, tmp_path):
    mine = private.save("My standup notes go in a paper notebook.", topic="personal")
    shared = private.save("The on-call rota changes on Mondays.", topic="team/ops")
    named = private.save("Code freeze starts on 20 December.", topic="release", vault="team")
    assert (mine.path, shared.path, named.path) == (
        "personal/my-standup-notes-go-in-a-paper-notebook.md",
        "ops/the-on-call-rota-changes-on-mondays.md",
        "release/code-freeze-starts-on-20-december.md",
    )
    assert shared.notices[0] == "Saved in the mounted vault 'team'."
    assert (tmp_path / "team" / shared.path).is_file() and not (private.root / "team").exists()


def test_a_private_memory_never_leaves_the_private_vault(private, tmp_path, team):
    private.save("My salary review is in March.", title="Salary review", topic="personal")
    private.save("The staging database is PostgreSQL 17.", topic="team/infra")
    reports = dict(private.sync_mounts())
    assert reports["team"].pushed
    everything = subprocess.run(["git", "log", "-p", "--all"], cwd=team, capture_output=True, text=True).stdout
    assert "PostgreSQL 17" in everything and "salary" not in everything.lower()


def test_the_brief_shows_each_mounts_top_level_within_the_one_budget(private):
    text = private.brief(budget_tokens=400)
    assert "## personal/ — 1 memory" in text and "# mounted: team" in text and "## team:ops/ — 1 memory" in text
    assert len(text) <= 400 * 4


def test_mount_errors_are_one_clear_line_and_change_nothing(private, tmp_path):
    before = commits(private.root)
    with pytest.raises(BadInput, match="a mount called 'team' exists"):
        private.mount("team", str(tmp_path / "elsewhere"))
    with pytest.raises(BadInput, match="not a vault"):
        private.mount("docs", str(tmp_path))
    with pytest.raises(BadInput, match="no mounted vault called 'nope'"):
        private.save("x", vault="nope")
    assert commits(private.root) == before


def test_unmounting_keeps_the_folder(private, tmp_path):
    private.unmount("team")
    assert (tmp_path / "team" / "ops").is_dir() and not private.mounts.declared
    assert {h.vault for h in private.search("deploy").hits} == {""}


def test_an_mcp_server_started_on_the_private_vault_sees_its_mounts(private):
    import asyncio
    import os
    import sys

    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, env=dict(os.environ), args=["-m", "ihmt_vault", "mcp", "--vault", str(private.root)]
    )

    async def scenario():
        async with Client(params, read_timeout_seconds=60) as c:
            found = await c.call_tool("search_memory", {"query": "which day do deploys go out"})
            saved = await c.call_tool(
                "save_memory", {"content": "Retros are on Fridays.", "vault": "team", "topic": "rituals"}
            )
            return found.content[0].text, saved.content[0].text

    found, saved = asyncio.run(scenario())
    assert found.startswith("# Deploy day") and "path: team:ops/deploy-day.md" in found
    assert "Notice for the user: Saved in the mounted vault 'team'." in saved
