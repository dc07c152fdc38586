"""`ihmt setup AGENT`: connect a coding agent to the vault, in the agent's own files.

For each agent this knows where its MCP configuration lives (per scope: `user` = every project,
`project` = the current directory) and in which format, and which instruction file it reads
(CLAUDE.md, AGENTS.md, GEMINI.md, a Cursor rule...). `plan` computes every edit without touching
the disk; `apply` writes them. The rules:

- merge, never clobber: a JSON file keeps every key it had (and its indentation); a TOML file is
  edited textually, only our own `[mcp_servers.ihmt]` table, and the result is checked with
  tomllib; a file this cannot edit safely (JSON with comments, say) is an error that shows the
  snippet to add by hand;
- idempotent: an entry already as wanted, or an instruction block already there (between
  `<!-- ihmt-memory:start/end -->` markers), is left alone, so a second run changes nothing;
- every file edited is first copied under `~/.ihmt/backups/<time>/` (new files have nothing to
  back up), and each write is atomic (a temp file renamed over the old one, mode kept).

Formats checked against each agent's documentation (2026): Claude Code `~/.claude.json` /
`.mcp.json` `mcpServers`; Cursor `~/.cursor/mcp.json` / `.cursor/mcp.json` `mcpServers`; Claude
Desktop `claude_desktop_config.json` `mcpServers`; VS Code `mcp.json` `servers` with `type:
stdio`; Gemini CLI `~/.gemini/settings.json` / `.gemini/settings.json` `mcpServers`; opencode
`opencode.json` `mcp` with `type: local` and `command` as one array; Codex `~/.codex/config.toml`
/ `.codex/config.toml` `[mcp_servers.NAME]` with `command` and `args`.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Mapping

from .errors import BadInput
from .layout import expand

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SERVER = "ihmt"
SCOPES = ("user", "project")
MARK_START = "<!-- ihmt-memory:start -->"
MARK_END = "<!-- ihmt-memory:end -->"
CURSOR_RULE_HEAD = ("---\ndescription: Long-term memory (IHMT Vault): when to search it, what to save\n"
                    "alwaysApply: true\n---\n")


@dataclass
class Env:
    """Where things are: the home folder, the project folder, the platform and environment."""

    home: Path
    cwd: Path
    platform: str = sys.platform
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> "Env":
        return cls(Path.home(), Path.cwd(), sys.platform, dict(os.environ))

    def xdg_config(self) -> Path:
        return Path(self.environ["XDG_CONFIG_HOME"]) if self.environ.get("XDG_CONFIG_HOME") else self.home / ".config"

    def app_support(self, name: str) -> Path:
        """The per-user application folder of a desktop app, per platform."""
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support" / name
        if self.platform.startswith("win"):
            return Path(self.environ.get("APPDATA") or self.home / "AppData" / "Roaming") / name
        return self.xdg_config() / name


@dataclass
class Change:
    """One file `setup` writes (or would write): what, where, and exactly the text it adds."""

    agent: str
    kind: str                  # "mcp config" | "instructions" | "hook"
    path: Path | None
    action: str                # "create" | "update" | "unchanged" | "skip"
    snippet: str = ""          # exactly what is added or replaced in the file
    note: str = ""
    new_text: str | None = None
    backup: Path | None = None

    def to_dict(self) -> dict:
        return {"agent": self.agent, "kind": self.kind, "path": str(self.path) if self.path else None,
                "action": self.action, "snippet": self.snippet, "note": self.note,
                "backup": str(self.backup) if self.backup else None}


@dataclass(frozen=True)
class Agent:
    name: str
    label: str
    fmt: str                                               # mcpServers | vscode | opencode | codex
    config: Callable[[str, Env], Path | None]
    instructions: Callable[[str, Env], Path | None] = lambda scope, env: None
    instructions_note: str = ""                           # why there is no instruction file to edit
    hook: Callable[[str, Env], Path | None] = lambda scope, env: None
    typed: bool = False                                    # mcpServers entries carry "type": "stdio"


def _by_scope(user: Callable[[Env], Path] | None, project: Callable[[Env], Path] | None):
    def pick(scope: str, env: Env) -> Path | None:
        f = user if scope == "user" else project
        return f(env) if f else None
    return pick


def _codex_home(env: Env) -> Path:
    return Path(env.environ["CODEX_HOME"]) if env.environ.get("CODEX_HOME") else env.home / ".codex"


AGENTS: dict[str, Agent] = {a.name: a for a in [
    Agent("claude-code", "Claude Code", "mcpServers",
          _by_scope(lambda e: e.home / ".claude.json", lambda e: e.cwd / ".mcp.json"),
          _by_scope(lambda e: e.home / ".claude" / "CLAUDE.md", lambda e: e.cwd / "CLAUDE.md"),
          hook=_by_scope(lambda e: e.home / ".claude" / "settings.json", lambda e: e.cwd / ".claude" / "settings.json"),
          typed=True),
    Agent("codex", "Codex", "codex",
          _by_scope(lambda e: _codex_home(e) / "config.toml", lambda e: e.cwd / ".codex" / "config.toml"),
          _by_scope(lambda e: _codex_home(e) / "AGENTS.md", lambda e: e.cwd / "AGENTS.md")),
    Agent("opencode", "opencode", "opencode",
          _by_scope(lambda e: e.xdg_config() / "opencode" / "opencode.json", lambda e: e.cwd / "opencode.json"),
          _by_scope(lambda e: e.xdg_config() / "opencode" / "AGENTS.md", lambda e: e.cwd / "AGENTS.md")),
    Agent("cursor", "Cursor", "mcpServers",
          _by_scope(lambda e: e.home / ".cursor" / "mcp.json", lambda e: e.cwd / ".cursor" / "mcp.json"),
          _by_scope(None, lambda e: e.cwd / ".cursor" / "rules" / "ihmt-memory.mdc"),
          instructions_note="Cursor keeps user rules in its settings (Cursor Settings > Rules): paste "
                            "templates/memory-instructions.md there, or run with --scope project for a project rule"),
    Agent("gemini-cli", "Gemini CLI", "mcpServers",
          _by_scope(lambda e: e.home / ".gemini" / "settings.json", lambda e: e.cwd / ".gemini" / "settings.json"),
          _by_scope(lambda e: e.home / ".gemini" / "GEMINI.md", lambda e: e.cwd / "GEMINI.md")),
    Agent("claude-desktop", "Claude Desktop", "mcpServers",
          _by_scope(lambda e: e.app_support("Claude") / "claude_desktop_config.json", None),
          instructions_note="Claude Desktop reads no instruction file; the server's own instructions tell it "
                            "how to use the memory (or paste templates/memory-instructions.md into a project's "
                            "instructions)"),
    Agent("vscode", "VS Code", "vscode",
          _by_scope(lambda e: e.app_support("Code") / "User" / "mcp.json", lambda e: e.cwd / ".vscode" / "mcp.json"),
          _by_scope(None, lambda e: e.cwd / ".github" / "copilot-instructions.md"),
          instructions_note="VS Code reads user-level instructions from its settings; run with --scope project "
                            "to write .github/copilot-instructions.md"),
]}
NAMES = tuple(AGENTS)


# -- what to write ---------------------------------------------------------------------------------
def ihmt_executable() -> str:
    """The `ihmt` next to the running Python (a virtualenv's bin/), else the one on PATH, else 'ihmt'."""
    folder = Path(sys.executable).parent
    for name in ("ihmt", "ihmt.exe"):
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which("ihmt") or "ihmt"


def server_command(vault: Path | None, executable: str | None = None) -> tuple[str, list[str]]:
    args = ["mcp"]
    if vault is not None:
        args += ["--vault", str(expand(vault).resolve())]
    return executable or ihmt_executable(), args


def instructions_text() -> str:
    """templates/memory-instructions.md: from the checkout, or as shipped in the wheel."""
    checkout = Path(__file__).resolve().parent.parent / "templates" / "memory-instructions.md"
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    return (resources.files("ihmt_vault._templates") / "memory-instructions.md").read_text(encoding="utf-8")


def _entry(agent: Agent, command: str, args: list[str]) -> dict:
    if agent.fmt == "opencode":
        return {"type": "local", "command": [command, *args], "enabled": True}
    if agent.fmt == "vscode" or agent.typed:
        return {"type": "stdio", "command": command, "args": args}
    return {"command": command, "args": args}


def _key(agent: Agent) -> str:
    return {"vscode": "servers", "opencode": "mcp"}.get(agent.fmt, "mcpServers")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot be read ({e}); fix or move it and run setup again") from None


def _indent_of(text: str) -> int:
    m = re.search(r"^( +)\S", text, re.M)
    return len(m.group(1)) if m else 2


def _load_json(path: Path, text: str, snippet: str) -> dict:
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: is not plain JSON ({e.msg} at line {e.lineno}; comments?); nothing was "
                       f"written: add this to it by hand: {snippet}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: holds a JSON {type(data).__name__}, not an object; nothing was written")
    return data


def _json_change(agent: Agent, kind: str, path: Path, merge: Callable[[dict], bool], snippet: str) -> Change:
    text = _read(path)
    data = _load_json(path, text, snippet)
    if not merge(data):
        return Change(agent.name, kind, path, "unchanged", snippet)
    new = json.dumps(data, indent=_indent_of(text), ensure_ascii=False) + "\n"
    return Change(agent.name, kind, path, "update" if path.exists() else "create", snippet, new_text=new)


def _object(parent: dict, key: str, path: Path) -> dict:
    node = parent.setdefault(key, {})
    if not isinstance(node, dict):
        raise BadInput(f"{path}: '{key}' is a {type(node).__name__}, not an object; nothing was written")
    return node


def _config_change(agent: Agent, path: Path, command: str, args: list[str]) -> Change:
    if agent.fmt == "codex":
        return _codex_change(agent, path, command, args)
    entry = _entry(agent, command, args)
    key = _key(agent)
    snippet = json.dumps({key: {SERVER: entry}}, indent=2, ensure_ascii=False)

    def merge(data: dict) -> bool:
        servers = _object(data, key, path)
        if servers.get(SERVER) == entry:
            return False
        servers[SERVER] = entry
        return True

    return _json_change(agent, "mcp config", path, merge, snippet)


def _toml_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)   # a JSON string is a valid TOML basic string


_CODEX_HEADER = re.compile(r"""^\s*\[\s*mcp_servers\s*\.\s*(?:ihmt|"ihmt"|'ihmt')\s*\]\s*(?:#.*)?$""")
_ANY_HEADER = re.compile(r"^\s*\[")
_OUR_KEYS = re.compile(r"^\s*(?:command|args|\"command\"|\"args\")\s*=")


def _codex_change(agent: Agent, path: Path, command: str, args: list[str]) -> Change:
    """Add or update our `[mcp_servers.ihmt]` table, textually: the rest of the file stays byte for byte."""
    text = _read(path)
    lines_ours = [f"command = {_toml_string(command)}\n", f"args = [{', '.join(_toml_string(a) for a in args)}]\n"]
    table = f"[mcp_servers.{SERVER}]\n" + "".join(lines_ours)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: is not valid TOML ({e}); nothing was written: add this to it by hand:\n{table}") from None
    current = (data.get("mcp_servers") or {}).get(SERVER)
    if isinstance(current, dict) and current.get("command") == command and current.get("args") == args:
        return Change(agent.name, "mcp config", path, "unchanged", table)
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if _CODEX_HEADER.match(line)), None)
    if at is None:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + table
    else:
        end = next((j for j in range(at + 1, len(lines)) if _ANY_HEADER.match(lines[j])), len(lines))
        kept, depth = [], 0
        for line in lines[at + 1:end]:
            if depth > 0:                         # inside a multi-line value of ours: drop it
                depth += line.count("[") - line.count("]")
                continue
            if _OUR_KEYS.match(line):
                depth = line.split("=", 1)[1].count("[") - line.split("=", 1)[1].count("]")
                continue
            kept.append(line)
        if lines[at].endswith("\n") is False:
            lines[at] += "\n"
        new = "".join(lines[: at + 1] + lines_ours + kept + lines[end:])
    try:
        ours = tomllib.loads(new)["mcp_servers"][SERVER]
        assert ours["command"] == command and ours["args"] == args
    except Exception:
        raise BadInput(f"{path}: defines mcp_servers.{SERVER} in a form setup does not rewrite; nothing was "
                       f"written: replace it by hand with:\n{table}") from None
    return Change(agent.name, "mcp config", path, "update" if path.exists() else "create", table, new_text=new)


def _block(text: str) -> str:
    return f"{MARK_START}\n{text.strip()}\n{MARK_END}\n"


def _instructions_change(agent: Agent, path: Path, body: str) -> Change:
    block = _block(body)
    text = _read(path)
    start, end = text.find(MARK_START), text.find(MARK_END)
    if start >= 0 and end > start:
        tail = text[end + len(MARK_END):]
        new = text[:start] + block + tail.removeprefix("\n")
    elif path.suffix == ".mdc" and not text.strip():
        new = CURSOR_RULE_HEAD + block
    else:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    if new == text:
        return Change(agent.name, "instructions", path, "unchanged", block)
    snippet = new if not text.strip() else block
    return Change(agent.name, "instructions", path, "update" if path.exists() else "create", snippet, new_text=new)


def _is_our_hook(group) -> bool:
    return isinstance(group, dict) and any(
        isinstance(h, dict) and re.search(r"(^|[/\\'\" ])ihmt(\.exe)?['\"]? brief\b", str(h.get("command", "")))
        for h in group.get("hooks") or [])


def hook_command(command: str, vault: Path | None) -> str:
    args = ["brief"] + (["--vault", str(expand(vault).resolve())] if vault is not None else [])
    return " ".join(shlex.quote(a) for a in [command, *args])


def _hook_change(agent: Agent, path: Path, command: str, vault: Path | None) -> Change:
    """Claude Code's SessionStart hook: the brief printed by `ihmt brief` becomes session context."""
    group = {"matcher": "startup|clear|compact",
             "hooks": [{"type": "command", "command": hook_command(command, vault), "timeout": 15}]}
    snippet = json.dumps({"hooks": {"SessionStart": [group]}}, indent=2, ensure_ascii=False)

    def merge(data: dict) -> bool:
        hooks = _object(data, "hooks", path)
        groups = hooks.setdefault("SessionStart", [])
        if not isinstance(groups, list):
            raise BadInput(f"{path}: hooks.SessionStart is not a list; nothing was written")
        ours = [i for i, g in enumerate(groups) if _is_our_hook(g)]
        if ours and groups[ours[0]] == group and len(ours) == 1:
            return False
        for i in reversed(ours[1:]):
            del groups[i]
        if ours:
            groups[ours[0]] = group
        else:
            groups.append(group)
        return True

    return _json_change(agent, "hook", path, merge, snippet)


# -- planning and applying -------------------------------------------------------------------------
def plan(agent_name: str, scope: str = "user", vault: Path | None = None, env: Env | None = None,
         hook: bool = True, executable: str | None = None) -> list[Change]:
    """Every edit `setup` would make, computed from the files as they are; nothing is written."""
    agent = AGENTS.get(agent_name)
    if agent is None:
        raise BadInput(f"unknown agent {agent_name!r}; choose one of {', '.join(NAMES)}")
    if scope not in SCOPES:
        raise BadInput(f"unknown scope {scope!r}; use user or project")
    env = env or Env.current()
    config = agent.config(scope, env)
    if config is None:
        other = next(s for s in SCOPES if s != scope)
        raise BadInput(f"{agent.label} has no {scope} scope; use --scope {other}")
    command, args = server_command(vault, executable)
    changes = [_config_change(agent, config, command, args)]
    target = agent.instructions(scope, env)
    if target is not None:
        changes.append(_instructions_change(agent, target, instructions_text()))
    elif agent.instructions_note:
        changes.append(Change(agent.name, "instructions", None, "skip", note=agent.instructions_note))
    hook_file = agent.hook(scope, env)
    if hook_file is not None and hook:
        changes.append(_hook_change(agent, hook_file, command, vault))
    return changes


def apply(changes: list[Change], env: Env | None = None) -> list[Change]:
    """Write the planned changes: a backup of each existing file first, then an atomic replace."""
    env = env or Env.current()
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    for c in changes:
        if c.new_text is None or c.path is None:
            continue
        if c.path.exists():
            c.backup = env.home / ".ihmt" / "backups" / stamp / c.path.resolve().relative_to(c.path.resolve().anchor)
            c.backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(c.path, c.backup)
        _write_atomic(c.path, c.new_text)
    return changes


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def setup(agent_name: str, scope: str = "user", vault: Path | None = None, dry_run: bool = False,
          env: Env | None = None, hook: bool = True, executable: str | None = None) -> list[Change]:
    changes = plan(agent_name, scope, vault, env, hook, executable)
    return changes if dry_run else apply(changes, env)


# -- what is configured ----------------------------------------------------------------------------
def _configured(agent: Agent, path: Path) -> str | None:
    """Our server's command line as configured in `path`, or None."""
    text = _read(path) if path.is_file() else ""
    if not text.strip():
        return None
    try:
        if agent.fmt == "codex":
            entry = (tomllib.loads(text).get("mcp_servers") or {}).get(SERVER)
        else:
            entry = (json.loads(text).get(_key(agent)) or {}).get(SERVER)
    except (ValueError, AttributeError, BadInput):
        return None
    if not isinstance(entry, dict):
        return None
    cmd = entry.get("command")
    argv = cmd if isinstance(cmd, list) else [cmd, *(entry.get("args") or [])]
    return " ".join(shlex.quote(str(a)) for a in argv)


def status(env: Env | None = None) -> list[dict]:
    """For each agent and scope: its config file, our server's command there, instructions, hook."""
    env = env or Env.current()
    rows = []
    for agent in AGENTS.values():
        for scope in SCOPES:
            config = agent.config(scope, env)
            if config is None:
                continue
            instr = agent.instructions(scope, env)
            hook_file = agent.hook(scope, env)
            hook_set = None
            if hook_file is not None:
                try:
                    data = json.loads(_read(hook_file) or "{}")
                    hook_set = any(_is_our_hook(g) for g in ((data.get("hooks") or {}).get("SessionStart") or []))
                except (ValueError, AttributeError, BadInput):
                    hook_set = False
            rows.append({
                "agent": agent.name, "scope": scope, "config": str(config),
                "server": _configured(agent, config),
                "instructions": (str(instr) if instr and MARK_START in (_read(instr) if instr.is_file() else "")
                                 else None),
                "hook": hook_set,
            })
    return rows
