"""`ihmt setup AGENT` on a fake home folder (HOME is a temp folder, see conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ihmt_vault.frontends import agents
from ihmt_vault.frontends.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Where each agent's MCP config (user scope) lands under HOME, and how our entry reads there.
USER_CONFIG = {
    "claude-code": ".claude.json",
    "codex": ".codex/config.toml",
    "opencode": ".config/opencode/opencode.json",
    "cursor": ".cursor/mcp.json",
    "gemini-cli": ".gemini/settings.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "vscode": ".config/Code/User/mcp.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
    "antigravity": ".gemini/antigravity/mcp_config.json",
    "hermes": ".hermes/config.yaml",
}
USER_INSTRUCTIONS = {
    "claude-code": ".claude/CLAUDE.md",
    "codex": ".codex/AGENTS.md",
    "opencode": ".config/opencode/AGENTS.md",
    "gemini-cli": ".gemini/GEMINI.md",
    "antigravity": ".gemini/GEMINI.md",
}
PROJECT_CONFIG = {
    "claude-code": ".mcp.json",
    "codex": ".codex/config.toml",
    "opencode": "opencode.json",
    "cursor": ".cursor/mcp.json",
    "gemini-cli": ".gemini/settings.json",
    "vscode": ".vscode/mcp.json",
}
PROJECT_INSTRUCTIONS = {
    "claude-code": "CLAUDE.md",
    "codex": "AGENTS.md",
    "opencode": "AGENTS.md",
    "cursor": ".cursor/rules/ihmt-memory.mdc",
    "gemini-cli": "GEMINI.md",
    "vscode": ".github/copilot-instructions.md",
}


@pytest.fixture(autouse=True)
def project(tmp_path, monkeypatch):
    for var in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA"):
        monkeypatch.delenv(var, raising=False)
    proj = tmp_path / "project"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run(*args: str):
    r = CliRunner().invoke(main, ["setup", *args])
    return r


def entry(agent: str, path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if agent == "codex":
        return tomllib.loads(text)["mcp_servers"]["ihmt"]
    if agent == "hermes":
        return yaml.safe_load(text)["mcp_servers"]["ihmt"]
    key = {"vscode": "servers", "opencode": "mcp"}.get(agent, "mcpServers")
    return json.loads(text)[key]["ihmt"]


def argv(agent: str, e: dict) -> list[str]:
    if agent == "opencode":
        assert e["type"] == "local" and e["enabled"] is True
        return e["command"]
    if agent in ("vscode", "claude-code"):
        assert e["type"] == "stdio"
    return [e["command"], *e["args"]]


@pytest.mark.parametrize("agent", agents.NAMES)
def test_setup_writes_the_agents_own_file_and_a_second_run_changes_nothing(agent, isolated_home, project, tmp_path):
    vault = tmp_path / "my vault"
    r = run(agent, "--vault", str(vault))
    assert r.exit_code == 0, r.output
    config = isolated_home / USER_CONFIG[agent]
    command = argv(agent, entry(agent, config))
    assert command[1:] == ["mcp", "--vault", str(vault.resolve())]
    assert Path(command[0]).name in ("ihmt", "ihmt.exe") and Path(command[0]).is_absolute()
    assert f"created mcp config: {config}" in r.output
    assert '"ihmt"' in r.output or "[mcp_servers.ihmt]" in r.output or "mcp_servers:\n  ihmt:\n" in r.output
    if agent in USER_INSTRUCTIONS:
        text = (isolated_home / USER_INSTRUCTIONS[agent]).read_text()
        assert text.startswith(agents.MARK_START) and "AMBIGUOUS" in text and "OUTDATED" in text
        assert "Never save" in r.output  # the block it appended is printed too
    else:
        assert "skipped instructions" in r.output
    if agent == "claude-code":
        settings = json.loads((isolated_home / ".claude/settings.json").read_text())
        [group] = settings["hooks"]["SessionStart"]
        assert group["hooks"][0]["command"].endswith(f"claude-code-session-start.sh --vault '{vault.resolve()}'")
    assert not list(project.iterdir()), "user scope writes nothing in the project"

    before = files(isolated_home)
    r = run(agent, "--vault", str(vault))
    assert r.exit_code == 0 and "already set up, nothing to change" in r.output
    assert files(isolated_home) == before  # nothing written, no backup made


@pytest.mark.parametrize(
    "agent", [a for a in agents.NAMES if a not in ("claude-desktop", "windsurf", "antigravity", "hermes")]
)
def test_project_scope_writes_in_the_current_directory(agent, isolated_home, project):
    r = run(agent, "--scope", "project")
    assert r.exit_code == 0, r.output
    command = argv(agent, entry(agent, project / PROJECT_CONFIG[agent]))
    assert command == ["ihmt", "mcp"]  # ihmt from the PATH; the default vault lies outside the project: none named
    instructions = (project / PROJECT_INSTRUCTIONS[agent]).read_text()
    assert agents.MARK_START in instructions
    if agent == "cursor":
        assert instructions.startswith("---\ndescription:") and "alwaysApply: true" in instructions
    if agent == "claude-code":
        assert "SessionStart" in (project / ".claude/settings.json").read_text()
    before = files(project)
    assert run(agent, "--scope", "project").exit_code == 0 and files(project) == before


@pytest.mark.parametrize("agent", agents.NAMES)
def test_dry_run_prints_the_same_and_writes_nothing(agent, isolated_home, project, tmp_path):
    srv = str(tmp_path / "srv" / "vault")  # a real run creates the vault: inside the test's folder
    before_home, before_project = files(isolated_home), files(project)
    r = run(agent, "--dry-run", "--vault", srv)
    assert r.exit_code == 0, r.output
    assert "would create mcp config" in r.output and f"would create vault: {srv}" in r.output
    assert files(isolated_home) == before_home and files(project) == before_project
    assert not (tmp_path / "srv").exists()
    r = CliRunner().invoke(main, ["setup", agent, "--dry-run", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["dry_run"] is True
    dry = run(agent, "--dry-run", "--vault", srv).output
    real = run(agent, "--vault", srv).output
    assert dry.replace("would create", "created").splitlines() == real.splitlines()[:-1]  # the same, bar "restart"


def test_merge_keeps_every_key_and_backs_up_what_it_edits(isolated_home, tmp_path):
    v, other = str(tmp_path / "v"), str(tmp_path / "other")
    claude = isolated_home / ".claude.json"
    original = json.dumps(
        {
            "numStartups": 12,
            "projects": {"/x": {"mcpServers": {}}},
            "mcpServers": {"github": {"command": "gh-mcp", "args": []}},
        },
        indent=4,
    )
    claude.write_text(original)
    claude.chmod(0o600)
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "CLAUDE.md").write_text("# My rules\n\nUse tabs.\n")
    r = run("claude-code", "--vault", v, "--no-hook")
    assert r.exit_code == 0, r.output
    data = json.loads(claude.read_text())
    assert data["numStartups"] == 12 and data["projects"] == {"/x": {"mcpServers": {}}}
    assert set(data["mcpServers"]) == {"github", "ihmt"}
    assert claude.read_text().startswith('{\n    "numStartups"')  # its indentation kept
    assert claude.stat().st_mode & 0o777 == 0o600  # and its mode
    rules = (isolated_home / ".claude" / "CLAUDE.md").read_text()
    assert rules.startswith("# My rules\n\nUse tabs.\n\n" + agents.MARK_START)
    assert not (isolated_home / ".claude" / "settings.json").exists()  # --no-hook
    backups = [p for p in (isolated_home / ".ihmt" / "backups").rglob("*") if p.is_file()]
    assert sorted(p.name for p in backups) == [".claude.json", "CLAUDE.md"]
    assert next(p for p in backups if p.name == ".claude.json").read_text() == original
    assert "(backup: " in r.output

    # another vault: our entry is replaced, the block stays one block
    r = run("claude-code", "--vault", other, "--no-hook")
    assert r.exit_code == 0 and "updated mcp config" in r.output
    assert json.loads(claude.read_text())["mcpServers"]["ihmt"]["args"] == ["mcp", "--vault", other]
    assert (isolated_home / ".claude" / "CLAUDE.md").read_text().count(agents.MARK_START) == 1

    # an edited block is brought back to the template's text, the rest of the file kept
    md = isolated_home / ".claude" / "CLAUDE.md"
    md.write_text(md.read_text().replace("Search before you answer", "Search rarely") + "\nMore of mine.\n")
    r = run("claude-code", "--vault", other, "--no-hook")
    text = md.read_text()
    assert "updated instructions" in r.output and "Search before you answer" in text
    assert text.endswith("\nMore of mine.\n") and "Search rarely" not in text


def test_a_json_file_with_comments_is_left_alone(isolated_home):
    cursor = isolated_home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text('{\n  // my servers\n  "mcpServers": {}\n}\n')
    r = run("cursor")
    assert r.exit_code == 2 and "not plain JSON" in r.output and "by hand" in r.output
    assert cursor.read_text() == '{\n  // my servers\n  "mcpServers": {}\n}\n'


def test_codex_toml_keeps_the_rest_of_the_file_byte_for_byte(isolated_home, tmp_path):
    v = str(tmp_path / "v")
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    head = 'model = "o3"  # my model\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n\n'
    ours = '[mcp_servers.ihmt]\ncommand = "old"\nargs = [\n  "mcp",\n]\nstartup_timeout_sec = 20\n\n'
    tail = '[mcp_servers.ihmt.env]\nX = "1"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    config.write_text(head + ours + tail)
    r = run("codex", "--vault", v)
    assert r.exit_code == 0, r.output
    text = config.read_text()
    assert text.startswith(head) and text.endswith(tail)
    data = tomllib.loads(text)
    assert data["mcp_servers"]["ihmt"]["args"] == ["mcp", "--vault", v]
    assert data["mcp_servers"]["ihmt"]["startup_timeout_sec"] == 20 and data["mcp_servers"]["ihmt"]["env"] == {"X": "1"}
    assert data["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    before = config.read_bytes()
    assert run("codex", "--vault", v).exit_code == 0 and config.read_bytes() == before

    config.write_text('[mcp_servers]\nihmt = { command = "x", args = [] }\n')
    r = run("codex", "--vault", v)
    assert r.exit_code == 2 and "by hand" in r.output
    assert config.read_text() == '[mcp_servers]\nihmt = { command = "x", args = [] }\n'


def test_list_shows_what_is_configured(isolated_home, tmp_path):
    assert run("codex", "--vault", str(tmp_path / "v")).exit_code == 0
    r = run("--list", "--json")
    rows = {(x["agent"], x["scope"]): x for x in json.loads(r.output)}
    assert rows[("codex", "user")]["server"].endswith(f"mcp --vault {tmp_path / 'v'}")
    assert rows[("codex", "user")]["instructions"]
    assert rows[("cursor", "user")]["server"] is None
    assert ("claude-desktop", "project") not in rows
    r = run("--list")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0].split() == ["agent", "scope", "mcp", "server", "instructions", "hook", "config", "file"]
    assert lines[3].split() == [
        "codex",
        "user",
        "set",
        "up",
        "set",
        "up",
        "n/a",
        str(isolated_home / ".codex/config.toml"),
    ]
    assert lines[1].split()[:7] == ["claude-code", "user", "not", "set", "up", "not", "set"]
    assert "no agent is set up yet" not in r.output


def test_list_before_any_setup_says_not_set_up_and_how_to_start(isolated_home):
    r = run("--list")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0] == "agent           scope    mcp server  instructions  hook        config file"
    assert (
        lines[1] == f"claude-code     user     not set up  not set up    not set up  {isolated_home / '.claude.json'}"
    )
    assert (
        lines[7]
        == f"cursor          user     not set up  n/a           n/a         {isolated_home / '.cursor/mcp.json'}"
    )
    assert lines[-1] == "no agent is set up yet: ihmt setup AGENT connects one"
    assert "-  " not in r.output


def test_unknown_agent_and_missing_scope_are_one_line_errors():
    r = run("emacs")
    assert r.exit_code == 2 and "unknown agent 'emacs'" in r.output and "claude-code" in r.output
    r = run("claude-desktop", "--scope", "project")
    assert r.exit_code == 2 and "no project scope" in r.output
    r = run()
    assert r.exit_code == 2 and "name the agent" in r.output


def test_claude_desktop_and_vscode_paths_per_platform(tmp_path):
    mac = agents.Env(tmp_path, tmp_path / "p", "darwin", {})
    assert (
        agents.AGENTS["claude-desktop"].config("user", mac)
        == tmp_path / "Library/Application Support/Claude/claude_desktop_config.json"
    )
    assert agents.AGENTS["vscode"].config("user", mac) == tmp_path / "Library/Application Support/Code/User/mcp.json"
    win = agents.Env(tmp_path, tmp_path / "p", "win32", {"APPDATA": str(tmp_path / "AppData")})
    assert agents.AGENTS["claude-desktop"].config("user", win) == tmp_path / "AppData/Claude/claude_desktop_config.json"
    linux = agents.Env(
        tmp_path,
        tmp_path / "p",
        "linux",
        {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODEX_HOME": str(tmp_path / "cx")},
    )
    assert agents.AGENTS["opencode"].config("user", linux) == tmp_path / "xdg/opencode/opencode.json"
    assert agents.AGENTS["codex"].config("user", linux) == tmp_path / "cx/config.toml"


def test_the_hook_it_installs_prints_the_brief(isolated_home, tmp_path):
    from ihmt_vault import Vault

    Vault.init(tmp_path / "v").close()
    assert run("claude-code", "--vault", str(tmp_path / "v")).exit_code == 0
    settings = json.loads((isolated_home / ".claude/settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    if not Path(agents.ihmt_executable()).is_file():
        pytest.skip("no ihmt executable next to this Python")
    out = subprocess.run(command, shell=True, capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("# Memory: 0 memories"), out.stderr


def test_setup_creates_a_vault_that_does_not_exist_yet_and_says_so(tmp_path):
    vault = tmp_path / "new-vault"
    r = run("codex", "--vault", str(vault))
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"created vault: {vault}\n")
    assert (vault / ".ihmt/config.toml").is_file()


def test_setup_refuses_a_folder_that_is_not_a_vault_and_writes_nothing(isolated_home, tmp_path):
    (tmp_path / "code").mkdir()
    (tmp_path / "code/main.py").write_text("print('hi')\n")
    before = files(isolated_home)
    r = run("codex", "--vault", str(tmp_path / "code"))
    assert r.exit_code == 2
    assert r.output == (
        f"error: {tmp_path / 'code'}: exists and is not a vault; nothing was written: give the path "
        f"of a vault (or a new folder), or make this one a vault with 'ihmt init {tmp_path / 'code'}'\n"
    )
    assert files(isolated_home) == before and not (tmp_path / "code/.ihmt").exists()


def test_the_hook_prints_nothing_and_succeeds_when_the_vault_is_gone(isolated_home, tmp_path):
    """A session start never fails: with the vault missing the wrapper prints nothing, exit 0."""
    assert run("claude-code", "--vault", str(tmp_path / "v")).exit_code == 0
    import shutil

    shutil.rmtree(tmp_path / "v")
    command = json.loads((isolated_home / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0][
        "command"
    ]
    out = subprocess.run(command, shell=True, capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_project_scope_names_a_vault_inside_the_project_relative_to_it(project):
    r = run("claude-code", "--scope", "project", "--vault", str(project / "memory"))
    assert r.exit_code == 0, r.output
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["ihmt"] == {
        "type": "stdio",
        "command": "ihmt",
        "args": ["mcp", "--vault", "memory"],
    }
    hook = json.loads((project / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    assert hook["command"] == 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/ihmt-session-start.sh --vault memory'
    assert (project / ".claude/hooks/ihmt-session-start.sh").read_text() == agents.hook_script_path().read_text()
    assert (
        "next: For a teammate: these files name 'ihmt' on the PATH and the vault memory/ in this project "
        "(commit it with the project); they install ihmt (INSTALL.md) and run nothing else.\n" in r.output
    )
    assert "next: Claude Code asks once whether to use the MCP servers in .mcp.json: approve ihmt" in r.output


def test_project_scope_names_no_vault_outside_the_project_and_says_how_to_find_it(project, tmp_path):
    r = run("gemini-cli", "--scope", "project", "--vault", str(tmp_path / "elsewhere"))
    assert r.exit_code == 0, r.output
    assert json.loads((project / ".gemini/settings.json").read_text())["mcpServers"]["ihmt"] == {
        "command": "ihmt",
        "args": ["mcp"],
        "timeout": agents.GEMINI_TIMEOUT_MS,
    }
    assert f"next: On this machine, set IHMT_VAULT={tmp_path / 'elsewhere'} where the agent starts" in r.output
    assert (
        "next: Gemini CLI starts MCP servers and reads a project's .gemini/settings.json only in a trusted "
        "folder when folder trust is on: trust the folder when it asks.\n" in r.output
    )


def test_codex_tools_are_approved_unless_the_table_says_otherwise(isolated_home, tmp_path):
    v = str(tmp_path / "v")
    assert run("codex", "--vault", v).exit_code == 0
    config = isolated_home / ".codex/config.toml"
    assert tomllib.loads(config.read_text())["mcp_servers"]["ihmt"]["default_tools_approval_mode"] == "approve"
    config.write_text(config.read_text().replace('"approve"', '"prompt"'))
    r = run("codex", "--vault", v)
    assert "already set up, nothing to change" in r.output
    assert tomllib.loads(config.read_text())["mcp_servers"]["ihmt"]["default_tools_approval_mode"] == "prompt"


def test_cursor_names_the_instructions_file_that_ships_with_the_package(tmp_path):
    r = run("cursor", "--vault", str(tmp_path / "v"))
    assert r.exit_code == 0, r.output
    template = agents.instructions_path()
    assert f"paste the text of {template} there" in r.output
    assert template.is_file() and template.read_text().startswith("## Long-term memory (IHMT Vault)")


def test_windsurf_has_a_user_config_only(isolated_home, tmp_path):
    r = run("windsurf", "--vault", str(tmp_path / "v"))
    assert r.exit_code == 0, r.output
    assert entry("windsurf", isolated_home / ".codeium/windsurf/mcp_config.json")["args"] == [
        "mcp",
        "--vault",
        str(tmp_path / "v"),
    ]
    r = run("windsurf", "--scope", "project")
    assert r.exit_code == 2 and "Windsurf has no project scope; use --scope user" in r.output


def test_the_hook_scripts_are_a_real_folder_when_installed():
    """`ihmt_vault._hooks` is a regular package (hooks/__init__.py): installed from a wheel, its
    folder is a path that `ihmt init` copies the git hooks from and the session-start hook runs."""
    from importlib import resources

    shipped = Path(str(resources.files("ihmt_vault._hooks")))
    assert (shipped / "git-pre-commit").is_file() and (shipped / agents.HOOK_SCRIPT).is_file()


def test_hermes_keeps_its_config_comments_and_other_servers(isolated_home, tmp_path):
    config = isolated_home / ".hermes/config.yaml"
    config.parent.mkdir()
    config.write_text(
        '# my hermes\nmodel: claude\nmcp_servers:\n  time:\n    command: "uvx"   # clock\n    args: ["t"]\n'
    )
    v = str(tmp_path / "v")
    r = run("hermes", "--vault", v)
    assert r.exit_code == 0, r.output
    command = agents.ihmt_executable()
    assert config.read_text() == (
        '# my hermes\nmodel: claude\nmcp_servers:\n  time:\n    command: "uvx"   # clock\n    args: ["t"]\n'
        f"  ihmt:\n    command: {command}\n    args:\n    - mcp\n    - --vault\n    - {v}\n"
    )
    before = config.read_bytes()
    r = run("hermes", "--vault", v)
    assert r.exit_code == 0 and "already set up, nothing to change" in r.output and config.read_bytes() == before
    assert "next: Hermes Agent connects to its MCP servers when it starts: restart it (hermes chat)." in r.output


def test_hermes_config_that_is_not_yaml_is_refused_with_the_entry_to_add(isolated_home, tmp_path):
    config = isolated_home / ".hermes/config.yaml"
    config.parent.mkdir()
    config.write_text("mcp_servers: [unclosed\n")
    r = run("hermes", "--vault", str(tmp_path / "v"))
    assert r.exit_code == 2 and "is not valid YAML" in r.output and "mcp_servers:\n  ihmt:" in r.output
    assert config.read_text() == "mcp_servers: [unclosed\n"


def test_antigravity_and_hermes_have_no_project_scope():
    for agent in ("antigravity", "hermes"):
        r = run(agent, "--scope", "project")
        assert r.exit_code == 2 and "has no project scope; use --scope user" in r.output
