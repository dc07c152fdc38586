"""`ihmt mcp` through a real MCP client from the SDK, over stdio, against a temporary vault.

Each server is `python -m ihmt_vault mcp --vault PATH` started by the client as a subprocess,
exactly as an agent starts it. Starting one costs about a second (the SDK's import), so each test
starts as few as it can and checks many things on one connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import git

from ihmt_vault import Vault
from ihmt_vault.frontends.cli import main

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.types import Implementation  # noqa: E402

TOOLS = {
    "search_memory",
    "save_memory",
    "memory_brief",
    "read_memory",
    "memory_history",
    "mark_outdated",
    "append_memory",
    "describe_topic",
    "pin_memory",
    "archive_memory",
    "restore_memory",
    "rename_memory",
}
READ_ONLY = {"search_memory", "memory_brief", "read_memory", "memory_history"}


@asynccontextmanager
async def connect(vault: Path, agent: str = "test-agent", mode: str = "auto"):
    """A client session with `ihmt mcp`; mode "legacy" speaks the initialize handshake, as most agents do."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ihmt_vault", "mcp", "--vault", str(vault)], env=dict(os.environ)
    )
    async with Client(
        params, client_info=Implementation(name=agent, version="1.0"), read_timeout_seconds=60, mode=mode
    ) as c:
        yield c


async def call(c, tool: str, **args) -> tuple[str, bool]:
    r = await c.call_tool(tool, args)
    return "\n".join(b.text for b in r.content if b.type == "text"), bool(r.is_error)


async def ok(c, tool: str, **args) -> str:
    text, error = await call(c, tool, **args)
    assert not error, f"{tool}({args}) failed: {text}"
    return text


def tokens(payload) -> int:
    return len(json.dumps(payload, ensure_ascii=False)) // 4


@pytest.fixture
def vault_path(tmp_path):
    Vault.init(tmp_path / "v").close()
    return tmp_path / "v"


def last_trailers(path: Path) -> str:
    return git(path, "log", "-1", "--format=%B")


def test_tools_list_is_small_and_every_tool_answers(vault_path):
    async def scenario():
        async with connect(vault_path) as c:
            listed = (await c.list_tools()).tools
            payload = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed]
            assert {t.name for t in listed} == TOOLS
            assert tokens(payload) < 2500, tokens(payload)
            by_name = {t.name: t for t in listed}
            for t in listed:
                assert t.description and len(t.description) < 600, t.name
                assert t.annotations.read_only_hint is (t.name in READ_ONLY), t.name
                schema = t.input_schema  # generated titles are dropped: tokens with no meaning
                assert "title" not in schema and not any("title" in p for p in schema["properties"].values())
            assert by_name["archive_memory"].annotations.destructive_hint is True
            assert by_name["save_memory"].annotations.destructive_hint is False
            assert by_name["search_memory"].input_schema["required"] == ["query"]
            assert set(by_name["save_memory"].input_schema["properties"]) == {
                "content",
                "title",
                "topic",
                "date",
                "tags",
                "type",
                "replaces",
                "vault",
            }
            assert by_name["read_memory"].input_schema["required"] == ["id_or_path"]

            # an empty vault: a brief, and a search that says what to do next
            assert "0 memories" in await ok(c, "memory_brief")
            text = await ok(c, "search_memory", query="postgres on staging")
            assert text.startswith("NOT FOUND") and "Next:" in text

            # saving: where it went, the commit's agent, a correction that outdates the old memory
            text = await ok(
                c,
                "save_memory",
                content="Staging runs PostgreSQL 15 since March 2024.",
                title="Staging runs PostgreSQL 15",
                topic="work/infrastructure",
                date="2024-03-12",
                tags=["database", "staging"],
                type="fact",
            )
            assert 'Saved "Staging runs PostgreSQL 15" in work/infrastructure/' in text
            old_id = text.split("(id ")[1].split(",")[0]
            log = last_trailers(vault_path)
            assert "Agent: test-agent" in log and "Memory-Op: save" in log
            text = await ok(
                c,
                "save_memory",
                content="Staging was upgraded from PostgreSQL 15 to 17 on 2026-02-03.",
                title="Staging runs PostgreSQL 17",
                topic="work/infrastructure",
                date="2026-02-03",
                replaces="staging runs PostgreSQL 15",
            )
            assert "Notice for the user: Marked outdated: Staging runs PostgreSQL 15" in text
            new_id = text.split("(id ")[1].split(",")[0]
            assert "Agent: test-agent" in last_trailers(vault_path)

            text = await ok(c, "search_memory", query="which PostgreSQL version does staging run")
            assert text.startswith("# Staging runs PostgreSQL 17") and "OUTDATED" in text
            text = await ok(c, "search_memory", query="PostgreSQL staging", detail="full")
            assert new_id in text and old_id in text

            # ambiguous: two people with one name
            await ok(
                c,
                "save_memory",
                content="Luis Chen is Ana's climbing partner at the bouldering gym.",
                title="Luis Chen",
                topic="people",
                type="person",
            )
            await ok(
                c,
                "save_memory",
                content="Luis Marín is tienda's database administrator, a contractor.",
                title="Luis Marín",
                topic="people",
                type="person",
            )
            text = await ok(c, "search_memory", query="Luis")
            assert text.startswith("AMBIGUOUS") and "clue" in text and "Next:" in text and "ids:" in text
            text = await ok(c, "search_memory", query="Luis", clue="climbing")
            assert text.startswith("# Luis Chen")

            # reading: a memory in full, a folder's summary with usable paths, the root two levels deep
            text = await ok(c, "read_memory", id_or_path=old_id)
            assert text.startswith("# Staging runs PostgreSQL 15") and "status: outdated" in text
            assert f"OUTDATED: superseded by {new_id}" in text and "Staging runs PostgreSQL 17" in text
            text = await ok(c, "read_memory", id_or_path="work/infrastructure")
            assert "(work/infrastructure/staging-runs-postgresql-17.md)" in text
            assert await ok(
                c, "read_memory", id_or_path="work/infrastructure/staging-runs-postgresql-17.md"
            ) == await ok(c, "read_memory", id_or_path=new_id)
            text = await ok(c, "read_memory", id_or_path="", level=2)
            assert "[folder /]" in text and "[folder work]" in text and "[folder people]" in text

            text = await ok(c, "memory_history", id=old_id)
            assert "outdate" in text or "replace" in text
            assert "test-agent" in text

            # mark_outdated, pin, archive, restore: each one commit by this agent
            luis_chen = await ok(c, "search_memory", query="Luis", clue="climbing", detail="full")
            chen_id = luis_chen.split("id:")[1].split()[0]
            marin_id = (
                (await ok(c, "search_memory", query="Luis", clue="database", detail="full")).split("id:")[1].split()[0]
            )
            assert chen_id != marin_id
            text = await ok(c, "mark_outdated", old_id=marin_id, new_id=chen_id)
            assert text.startswith("Marked OUTDATED") and "Memory-Op: outdate" in last_trailers(vault_path)
            text = await ok(c, "pin_memory", id=new_id)
            assert text.startswith("Pinned")
            assert "## Pinned" in await ok(c, "memory_brief")
            assert (await ok(c, "pin_memory", id=new_id, pinned=False)).startswith("Unpinned")
            text = await ok(c, "archive_memory", id=chen_id)
            assert "archive/people/" in text and "Agent: test-agent" in last_trailers(vault_path)
            text = await ok(c, "restore_memory", id=chen_id)
            assert "now people/" in text

            # errors are one clean line, flagged as errors, never a traceback
            text, error = await call(c, "save_memory", content="the deploy key is AKIA2E0A8F3B244C9986 ok")
            assert error and text.startswith("refused:") and "Traceback" not in text
            for bad in ("/etc/passwd", "../../etc/passwd", str(vault_path.parent / "outside.md")):
                text, error = await call(c, "read_memory", id_or_path=bad)
                assert error and "outside the vault" in text, (bad, text)
            text, error = await call(c, "read_memory", id_or_path="nosuchid123")
            assert error and text.startswith("not found:")
            text, error = await call(c, "search_memory", query="   ")
            assert error and "empty" in text
            text, error = await call(c, "save_memory", content="x", date="someday")
            assert error and "YYYY-MM-DD" in text
        return True

    assert asyncio.run(scenario())
    assert not (vault_path.parent / "outside.md").exists()


def test_two_servers_save_at_once_and_see_each_other(vault_path):
    async def scenario():
        async with connect(vault_path, "agent-a") as a, connect(vault_path, "agent-b", mode="legacy") as b:
            saves = [
                call(
                    s,
                    "save_memory",
                    content=f"Memory {n} from {name}: the zebrafish{n} protocol.",
                    title=f"Zebrafish {name} {n}",
                    topic="lab",
                )
                for n in range(3)
                for s, name in ((a, "a"), (b, "b"))
            ]
            results = await asyncio.gather(*saves)
            assert all(not error for _, error in results), results
            # each server sees what the other saved, without restarting
            text = await ok(a, "search_memory", query="zebrafish2 protocol from b")
            assert "Zebrafish b 2" in text
            text = await ok(b, "read_memory", id_or_path="lab")
            assert text.count("Zebrafish") >= 6
            # a memory written by hand (not committed) is noticed too
            (vault_path / "lab" / "hand-written.md").write_text(
                "---\ntitle: Axolotl tank\n---\nThe axolotl tank is kept at 16 degrees.\n", encoding="utf-8"
            )
            await asyncio.sleep(1.2)  # refresh_interval: how often a server looks for hand edits
            text = await ok(b, "search_memory", query="axolotl tank temperature")
            assert "Axolotl tank" in text
        return True

    assert asyncio.run(scenario())
    log = git(vault_path, "log", "--format=%(trailers:key=Agent,valueonly)%x00%s").split("\0")
    subjects = git(vault_path, "log", "--format=%s").splitlines()
    assert sum(s.startswith("save: Zebrafish") for s in subjects) == 6
    agents = git(vault_path, "log", "--format=%(trailers:key=Agent,valueonly)").split()
    assert agents.count("agent-a") >= 3 and agents.count("agent-b") >= 3, log


def test_a_missing_vault_is_one_line_not_a_server(tmp_path):
    r = CliRunner().invoke(main, ["mcp", "--vault", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "no such folder" in r.output


def test_brief_command_prints_the_brief_within_budget(vault):
    vault.save("Ana prefers concise answers.", title="Concise answers", topic="personal", pinned=True)
    r = CliRunner().invoke(main, ["brief", "--vault", str(vault.root)])
    assert r.exit_code == 0 and "## Pinned" in r.output and "Concise answers" in r.output
    r = CliRunner().invoke(main, ["brief", "--vault", str(vault.root), "--json", "--tokens", "100"])
    assert r.exit_code == 0 and len(json.loads(r.output)["brief"]) <= 400


def test_brief_stays_within_2000_tokens_at_any_size(tmp_path):
    v = Vault.init(tmp_path / "big")
    v.save_many(
        [
            {
                "text": f"Fact number {n} about topic{n % 60}: " + "a long first line, " * 20,
                "title": f"Fact {n}",
                "topic": f"t{n % 60}/s{n % 7}",
                "pinned": n % 3 == 0,
            }
            for n in range(240)
        ]
    )
    from ihmt_vault.frontends.mcp_server import BRIEF_TOKENS, Tools

    text = Tools(v).memory_brief()
    assert len(text) <= BRIEF_TOKENS * 4 and "pinned →]" in text and ("## t59/" in text or "more topics →]" in text)
    v.close()


def test_agent_name_falls_back_to_mcp_and_is_one_safe_line():
    from ihmt_vault.frontends.mcp_server import agent_name

    class Info:
        def __init__(self, name):
            self.client_info = type("I", (), {"name": name})()

    class Ctx:
        def __init__(self, name):
            self.session = type("S", (), {"client_params": Info(name) if name is not None else None})()

    assert agent_name(None) == "mcp"
    assert agent_name(Ctx(None)) == "mcp"
    assert agent_name(Ctx("claude-code")) == "claude-code"
    assert agent_name(Ctx("evil\nAgent: root")) == "evilAgent root"
    assert agent_name(Ctx("\n\n")) == "mcp"


def test_the_project_and_session_toolsets_answer_over_stdio_when_asked_for(vault_path, tmp_path):
    project = tmp_path / "shop"
    project.mkdir()
    (project / "retry.py").write_text(
        'def with_retries(call):\n    """Call again after a timeout."""\n'
        "    return call()\n\n\ndef parse_price(text):\n    return float(text)\n"
    )
    params = StdioServerParameters(
        command=sys.executable,
        cwd=str(project),
        env=dict(os.environ),
        args=["-m", "ihmt_vault", "mcp", "--vault", str(vault_path), "--tools", "memory,project,session"],
    )

    async def scenario():
        async with Client(params, client_info=Implementation(name="coder", version="1"), read_timeout_seconds=60) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == TOOLS | {"project_map", "find_code", "read_file", "note", "recall", "digest_output"}
            assert (await ok(c, "project_map", detail="symbols")).split("\n")[1:] == [
                "retry.py  32 tok  python",
                "  function:with_retries 1-3",
                "  function:parse_price 6-7",
            ]
            assert (await ok(c, "find_code", query="retry after a timeout")).startswith(
                "retry.py:1-3 function:with_retries"
            )
            assert (await ok(c, "read_file", path="retry.py")).startswith("retry.py (7 lines)\ndef with_retries")
            assert (await ok(c, "read_file", path="retry.py")).startswith("UNCHANGED retry.py")
            assert (await ok(c, "read_file", path="retry.py", session_id="other")).startswith("retry.py (7 lines)")
            await ok(c, "note", text="parse_price ignores currency symbols", label="todo")
            assert (await ok(c, "recall", query="todo")).endswith("parse_price ignores currency symbols")
            digest = await ok(c, "digest_output", text="start\n" + "ok\n" * 500 + "FAILED t.py::test_x\n", label="run")
            assert "FAILED t.py::test_x" in digest and len(digest) < 1000
            text, error = await call(c, "project_map", path="nowhere")
            assert error and text.startswith("error: ") and "not a folder" in text

    asyncio.run(scenario())


def test_an_unknown_toolset_is_one_clear_line(vault_path):
    result = CliRunner().invoke(main, ["mcp", "--vault", str(vault_path), "--tools", "memory,shell"])
    assert result.exit_code == 2 and result.output.strip().endswith(
        "--tools 'memory,shell': choose among memory, project, session (comma-separated)"
    )


def test_nested_entries_are_read_level_by_level_and_appended_to_over_stdio(vault_path):
    async def scenario():
        async with connect(vault_path) as c:
            text = await ok(
                c,
                "save_memory",
                content="Release steps\n\tBuild\n\t\tmake release\n\tShip\n",
                title="Release steps",
                topic="work",
            )
            mid = text.split("(id ")[1].split(",")[0]
            assert (await ok(c, "read_memory", id_or_path=mid, level=2)).endswith(
                "Release steps\n- Build  (1) [+1 →]\n- Ship  (2)\n"
            )
            assert (
                await ok(c, "append_memory", id=mid, content="Tell the team", under="2")
                == f'Appended to "Release steps" ({mid}).'
            )
            assert (await ok(c, "read_memory", id_or_path=mid, level=3)).endswith(
                "- Ship  (2)\n  - Tell the team  (2.1)\n"
            )
            assert "Agent: test-agent" in last_trailers(vault_path)

    asyncio.run(scenario())
