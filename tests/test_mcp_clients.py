"""What the real clients need from `ihmt mcp` and from the configs `ihmt setup` writes, checked
without them (no npm, no network). `python bench/clients.py` runs the clients themselves.

Gemini CLI (read in its bundle, 0.61): `gemini mcp list` connects with
`config.timeout ?? MCP_LIST_DEFAULT_TIMEOUT_MSEC` (5,000 ms) and, when that fails, prints
Disconnected and swallows the error (`catch { ...; return MCPServerStatus.DISCONNECTED; }`), so
even --debug says nothing; a session sends initialize (roots capability), then prompts/list,
tools/list and resources/list, and pipes the server's stderr into a stream it reads only with
--debug.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ihmt_vault import Vault
from ihmt_vault.frontends import agents

GEMINI_LIST_TIMEOUT_MS = 5_000  # MCP_LIST_DEFAULT_TIMEOUT_MSEC
GEMINI_DEFAULT_TIMEOUT_MS = 600_000  # MCP_DEFAULT_TIMEOUT_MSEC: what a tool call gets when unset


def env(home: Path, cwd: Path) -> agents.Env:
    return agents.Env(home, cwd, "linux", {})


def gemini_entry(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["ihmt"]


@pytest.mark.parametrize("scope", ["user", "project"])
def test_gemini_settings_give_the_server_more_than_gemini_mcp_list_s_five_seconds(scope, isolated_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    vault = tmp_path / "vault"
    agents.setup("gemini-cli", scope, vault, env=env(isolated_home, project), executable="/opt/ihmt/bin/ihmt")
    settings = (isolated_home if scope == "user" else project) / ".gemini" / "settings.json"
    entry = gemini_entry(settings)
    if scope == "user":
        assert entry["command"] == "/opt/ihmt/bin/ihmt"
        assert entry["args"] == ["mcp", "--vault", str(vault.resolve())]
    else:
        assert (entry["command"], entry["args"]) == ("ihmt", ["mcp"])
    timeout = entry["timeout"]  # milliseconds, as Gemini CLI reads it
    assert isinstance(timeout, int) and not isinstance(timeout, bool)
    assert GEMINI_LIST_TIMEOUT_MS * 6 <= timeout <= GEMINI_DEFAULT_TIMEOUT_MS


def test_an_older_gemini_entry_gains_the_timeout_and_a_timeout_of_the_person_s_stays(isolated_home, tmp_path):
    settings = isolated_home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    vault = tmp_path / "vault"
    command, args = "/opt/ihmt/bin/ihmt", ["mcp", "--vault", str(vault.resolve())]
    settings.write_text(json.dumps({"theme": "dark", "mcpServers": {"ihmt": {"command": command, "args": args}}}))
    e = env(isolated_home, tmp_path)
    [change] = [
        c for c in agents.setup("gemini-cli", "user", vault, env=e, executable=command) if c.kind == "mcp config"
    ]
    assert change.action == "update" and gemini_entry(settings)["timeout"] == agents.GEMINI_TIMEOUT_MS

    data = json.loads(settings.read_text())
    data["mcpServers"]["ihmt"]["timeout"] = 120_000
    settings.write_text(json.dumps(data))
    [change] = [
        c for c in agents.setup("gemini-cli", "user", vault, env=e, executable=command) if c.kind == "mcp config"
    ]
    assert change.action == "unchanged" and '"timeout": 120000' in change.snippet
    assert json.loads(settings.read_text())["theme"] == "dark" and gemini_entry(settings)["timeout"] == 120_000


# -- the server as Gemini CLI speaks to it ------------------------------------------------------------
GEMINI_INIT = {
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "gemini-cli-mcp-client", "version": "0.61.0"},
    },
    "jsonrpc": "2.0",
    "id": 0,
}
# The keys of Gemini's function-declaration Schema (the subset every Gemini API path accepts):
# no $ref/$defs, anyOf/oneOf/allOf, titles or additionalProperties.
SCHEMA_KEYS = {"type", "description", "enum", "default", "items", "minimum", "maximum", "properties", "required"}


def schema_problems(node, where: str = "") -> list[str]:
    if not isinstance(node, dict):
        return [f"{where}: not an object"]
    problems = [f"{where}: {k}" for k in node if k not in SCHEMA_KEYS]
    if not isinstance(node.get("type"), str):
        problems.append(f"{where}: type {node.get('type')!r}")
    for name, sub in (node.get("properties") or {}).items():
        problems += schema_problems(sub, f"{where}.{name}")
    if "items" in node:
        problems += schema_problems(node["items"], f"{where}[]")
    return problems


def test_the_server_answers_gemini_cli_s_handshake_and_every_tool_schema_is_one_gemini_takes(tmp_path):
    Vault.init(tmp_path / "v").close()
    err = tmp_path / "stderr"
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ihmt_vault", "mcp", "--vault", str(tmp_path / "v")]
            + ["--tools", "memory,project,session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=tmp_path,
        )
    try:
        replies = {}

        def send(message: dict) -> None:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()

        lines: queue.Queue[bytes] = queue.Queue()  # a reader thread: several answers can come in one read
        threading.Thread(
            target=lambda: [lines.put(line) for line in iter(proc.stdout.readline, b"")], daemon=True
        ).start()

        def answer(ident: int) -> dict:
            while ident not in replies:
                try:
                    message = json.loads(lines.get(timeout=60))
                except queue.Empty:
                    raise AssertionError(f"no answer to request {ident}") from None
                replies[message.get("id")] = message
            return replies[ident]

        send(GEMINI_INIT)
        init = answer(0)["result"]
        assert init["protocolVersion"] == "2025-06-18"
        assert {"tools", "prompts", "resources"} <= set(init["capabilities"])
        send({"method": "notifications/initialized", "jsonrpc": "2.0"})
        for ident, method in enumerate(("prompts/list", "tools/list", "resources/list"), 1):
            send({"method": method, "params": {}, "jsonrpc": "2.0", "id": ident})
        assert answer(1)["result"]["prompts"] == [] and answer(3)["result"]["resources"] == []
        tools = answer(2)["result"]["tools"]
        assert len(tools) > 12  # the three toolsets
        for t in tools:
            # Gemini calls it mcp_<server>_<tool>, at most 63 characters, else it truncates the name
            assert re.fullmatch(r"[a-z][a-z0-9_]*", t["name"]) and len(f"mcp_ihmt_{t['name']}") <= 63
            assert t["inputSchema"]["type"] == "object"
            assert schema_problems(t["inputSchema"], t["name"]) == []
        send({"method": "ping", "jsonrpc": "2.0", "id": 4})
        assert answer(4)["result"] == {}
    finally:
        proc.kill()
        proc.wait()
    # Gemini drains the server's stderr only with --debug: a server that writes there fills the pipe and stops
    assert err.read_bytes() == b""
