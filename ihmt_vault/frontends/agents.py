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

What is written travels as far as it can. User scope names this machine's `ihmt` and vault by
their absolute paths. Project scope (files a team commits) names `ihmt` as a command on the PATH
and the vault relative to the project when it lies inside it, else no vault at all (each machine's
`$IHMT_VAULT` or `~/.ihmt/vault`), and says what a teammate needs. The vault itself is created when
it does not exist yet (a folder that exists and is not a vault is refused), so the agent never
starts with a server that cannot open it. Claude Code's session-start hook is the shipped wrapper
`hooks/claude-code-session-start.sh` (copied into the project for project scope), which never fails
a session. After the edits, `next_steps` says what each agent still needs from its user (approving
a project server, trusting a folder...).

Formats checked against each agent's documentation (2026): Claude Code `~/.claude.json` /
`.mcp.json` `mcpServers`; Cursor `~/.cursor/mcp.json` / `.cursor/mcp.json` `mcpServers`; Claude
Desktop `claude_desktop_config.json` `mcpServers`; VS Code `mcp.json` `servers` with `type:
stdio`; Gemini CLI `~/.gemini/settings.json` / `.gemini/settings.json` `mcpServers` with
`timeout` in milliseconds (without it `gemini mcp list` gives a server 5 s to answer `initialize`,
then says Disconnected and nothing else; the same timeout bounds a tool call, 10 minutes by
default); opencode
`opencode.json` `mcp` with `type: local` and `command` as one array; Codex `~/.codex/config.toml`
/ `.codex/config.toml` `[mcp_servers.NAME]` with `command`, `args` and
`default_tools_approval_mode`; Windsurf `~/.codeium/windsurf/mcp_config.json` `mcpServers` (no
project file); Antigravity `~/.gemini/antigravity/mcp_config.json` `mcpServers` (the file its
MCP Servers > View raw config opens; user scope only; its global rules are `~/.gemini/GEMINI.md`,
as Gemini CLI's); Hermes Agent `~/.hermes/config.yaml` `mcp_servers` with `command` and `args`
(YAML, edited round-trip so its comments and other keys stay; user scope only).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import files
from ..errors import BadInput
from ..shipped import shipped_dir
from ..storage.layout import VAULT_MARK, expand, find_vault

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SERVER = "ihmt"
SCOPES = ("user", "project")
MARK_START = "<!-- ihmt-memory:start -->"
MARK_END = "<!-- ihmt-memory:end -->"
# Gemini CLI's `timeout` (ms) for our server. Unset, `gemini mcp list` waits 5 s for `initialize`
# (MCP_LIST_DEFAULT_TIMEOUT_MSEC) and reports a slower start (a first run, a loaded laptop) as
# Disconnected with no reason, even with --debug; the session itself waits 10 minutes. A minute
# is room for any start, and as long as Codex gives a tool call by default.
GEMINI_TIMEOUT_MS = 60_000
CURSOR_RULE_HEAD = (
    "---\ndescription: Long-term memory (IHMT Vault): when to search it, what to save\nalwaysApply: true\n---\n"
)


@dataclass
class Env:
    """Where things are: the home folder, the project folder, the platform and environment."""

    home: Path
    cwd: Path
    platform: str = sys.platform
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> Env:
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
class ConfigEdit:
    """One file `setup` writes (or would write): what, where, and exactly the text it adds."""

    agent: str
    kind: str  # "vault" | "mcp config" | "instructions" | "hook" | "hook script"
    path: Path | None
    action: str  # "create" | "update" | "unchanged" | "skip"
    snippet: str = ""  # exactly what is added or replaced in the file
    note: str = ""
    new_text: str | None = None
    backup: Path | None = None
    mode: int | None = None  # a new file's permissions (the hook script: executable)

    def to_dict(self) -> dict:
        return {
            "agent": self.agent,
            "kind": self.kind,
            "path": str(self.path) if self.path else None,
            "action": self.action,
            "snippet": self.snippet,
            "note": self.note,
            "backup": str(self.backup) if self.backup else None,
        }


@dataclass(frozen=True)
class Agent:
    name: str
    label: str
    fmt: str  # mcpServers | vscode | opencode | codex | hermes
    config: Callable[[str, Env], Path | None]
    instructions: Callable[[str, Env], Path | None] = lambda scope, env: None
    instructions_note: str = ""  # why there is no instruction file to edit
    hook: Callable[[str, Env], Path | None] = lambda scope, env: None
    typed: bool = False  # mcpServers entries carry "type": "stdio"
    extra: tuple[tuple[str, object], ...] = ()  # more keys of our entry; a value the person set is kept
    after: tuple[str, ...] = ()  # what the user still does (both scopes)
    after_project: tuple[str, ...] = ()  # ... and for a project's files


def _by_scope(user: Callable[[Env], Path] | None, project: Callable[[Env], Path] | None):
    def pick(scope: str, env: Env) -> Path | None:
        f = user if scope == "user" else project
        return f(env) if f else None

    return pick


def _codex_home(env: Env) -> Path:
    return Path(env.environ["CODEX_HOME"]) if env.environ.get("CODEX_HOME") else env.home / ".codex"


AGENTS: dict[str, Agent] = {
    a.name: a
    for a in [
        Agent(
            "claude-code",
            "Claude Code",
            "mcpServers",
            _by_scope(lambda e: e.home / ".claude.json", lambda e: e.cwd / ".mcp.json"),
            _by_scope(lambda e: e.home / ".claude" / "CLAUDE.md", lambda e: e.cwd / "CLAUDE.md"),
            hook=_by_scope(
                lambda e: e.home / ".claude" / "settings.json", lambda e: e.cwd / ".claude" / "settings.json"
            ),
            typed=True,
            after_project=(
                "Claude Code asks once whether to use the MCP servers in .mcp.json: approve ihmt "
                "('claude mcp reset-project-choices' makes it ask again).",
            ),
        ),
        Agent(
            "codex",
            "Codex",
            "codex",
            _by_scope(lambda e: _codex_home(e) / "config.toml", lambda e: e.cwd / ".codex" / "config.toml"),
            _by_scope(lambda e: _codex_home(e) / "AGENTS.md", lambda e: e.cwd / "AGENTS.md"),
            after=(
                'Codex runs the ihmt tools without asking each time (default_tools_approval_mode = "approve" '
                'in [mcp_servers.ihmt]; set it to "prompt" to be asked).',
            ),
            after_project=(
                "Codex reads a project's .codex/config.toml only when the project is trusted: "
                "trust it when Codex asks.",
            ),
        ),
        Agent(
            "opencode",
            "opencode",
            "opencode",
            _by_scope(lambda e: e.xdg_config() / "opencode" / "opencode.json", lambda e: e.cwd / "opencode.json"),
            _by_scope(lambda e: e.xdg_config() / "opencode" / "AGENTS.md", lambda e: e.cwd / "AGENTS.md"),
        ),
        Agent(
            "cursor",
            "Cursor",
            "mcpServers",
            _by_scope(lambda e: e.home / ".cursor" / "mcp.json", lambda e: e.cwd / ".cursor" / "mcp.json"),
            _by_scope(None, lambda e: e.cwd / ".cursor" / "rules" / "ihmt-memory.mdc"),
            instructions_note="Cursor keeps user rules in its settings (Cursor Settings > Rules): paste the text "
            "of {template} there, or run with --scope project for a project rule",
        ),
        Agent(
            "gemini-cli",
            "Gemini CLI",
            "mcpServers",
            _by_scope(lambda e: e.home / ".gemini" / "settings.json", lambda e: e.cwd / ".gemini" / "settings.json"),
            _by_scope(lambda e: e.home / ".gemini" / "GEMINI.md", lambda e: e.cwd / "GEMINI.md"),
            extra=(("timeout", GEMINI_TIMEOUT_MS),),
            after=(
                "Gemini CLI starts MCP servers and reads a project's .gemini/settings.json only in a trusted "
                "folder when folder trust is on: trust the folder when it asks.",
            ),
        ),
        Agent(
            "claude-desktop",
            "Claude Desktop",
            "mcpServers",
            _by_scope(lambda e: e.app_support("Claude") / "claude_desktop_config.json", None),
            instructions_note="Claude Desktop reads no instruction file; the server's own instructions tell it "
            "how to use the memory (or paste the text of {template} into a project's instructions)",
        ),
        Agent(
            "vscode",
            "VS Code",
            "vscode",
            _by_scope(lambda e: e.app_support("Code") / "User" / "mcp.json", lambda e: e.cwd / ".vscode" / "mcp.json"),
            _by_scope(None, lambda e: e.cwd / ".github" / "copilot-instructions.md"),
            instructions_note="VS Code reads user-level instructions from its settings; run with --scope project "
            "to write .github/copilot-instructions.md",
            after=("VS Code asks you to trust the ihmt server the first time it starts it: choose Trust.",),
        ),
        Agent(
            "windsurf",
            "Windsurf",
            "mcpServers",
            _by_scope(lambda e: e.home / ".codeium" / "windsurf" / "mcp_config.json", None),
            instructions_note="Windsurf keeps global rules in Cascade's Customizations > Rules (+ Global): paste the "
            "text of {template} there; in a project, Windsurf also reads an AGENTS.md at its root "
            "(ihmt setup codex --scope project writes one)",
            after=("Windsurf: press Refresh in Cascade's MCP servers panel (or restart Windsurf).",),
        ),
        Agent(
            "antigravity",
            "Antigravity",
            "mcpServers",
            _by_scope(lambda e: e.home / ".gemini" / "antigravity" / "mcp_config.json", None),
            _by_scope(lambda e: e.home / ".gemini" / "GEMINI.md", None),
            after=(
                "Antigravity: in the agent panel's ... menu, MCP Servers > Manage MCP Servers, press Refresh "
                "(or restart Antigravity).",
            ),
        ),
        Agent(
            "hermes",
            "Hermes Agent",
            "hermes",
            _by_scope(lambda e: e.home / ".hermes" / "config.yaml", None),
            instructions_note="Hermes reads no user instruction file setup can edit; in a project it reads "
            "AGENTS.md (ihmt setup codex --scope project writes one), or paste the text of {template} into "
            "its context",
            after=("Hermes Agent connects to its MCP servers when it starts: restart it (hermes chat).",),
        ),
    ]
}
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
        args += ["--vault", str(vault)]
    return executable or ihmt_executable(), args


def _shipped(folder: str, checkout_dir: str, name: str) -> Path:
    """A file shipped with the package: from the checkout (an editable install), or from the
    installed package's `folder` (a wheel): a real path a person can open."""
    return shipped_dir(checkout_dir, folder) / name


def instructions_path() -> Path:
    """templates/memory-instructions.md, as shipped (ihmt_vault/_templates in a wheel)."""
    return _shipped("_templates", "templates", "memory-instructions.md")


def instructions_text() -> str:
    return instructions_path().read_text(encoding="utf-8")


HOOK_SCRIPT = "claude-code-session-start.sh"
PROJECT_HOOK = ".claude/hooks/ihmt-session-start.sh"  # the wrapper's copy in a project


def hook_script_path() -> Path:
    """hooks/claude-code-session-start.sh, as shipped (ihmt_vault/_hooks in a wheel)."""
    return _shipped("_hooks", "hooks", HOOK_SCRIPT)


# -- which vault ------------------------------------------------------------------------------------
def chosen_vault(vault: Path | None, env: Env) -> Path:
    """The vault to connect: the one named, else the one the current folder is in (like the CLI),
    else $IHMT_VAULT, else ~/.ihmt/vault; as an absolute path."""
    if vault is None:
        vault, _ = find_vault(env.cwd, env.environ, env.home)
    vault = expand(vault)
    return (vault if vault.is_absolute() else env.cwd / vault).resolve()


def _vault_change(agent: Agent, root: Path) -> ConfigEdit | None:
    """None when `root` is a vault; creating it when nothing is there yet; refused when it is a file
    or a folder of something else (a typo should not turn a project into a vault)."""
    if (root / VAULT_MARK).is_file():
        return None
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise BadInput(
            f"{root}: exists and is not a vault; nothing was written: give the path of a vault "
            f"(or a new folder), or make this one a vault with 'ihmt init {root}'"
        )
    return ConfigEdit(
        agent.name,
        "vault",
        root,
        "create",
        note="a new, empty vault for the agent's memories (inside a git repository it is a folder "
        "of that repository: only the vault's own files are committed there)",
    )


def _inside(path: Path, folder: Path) -> str | None:
    """`path` relative to `folder` (POSIX) when it lies inside it, else None."""
    try:
        rel = Path(os.path.realpath(path)).relative_to(os.path.realpath(folder))
    except ValueError:
        return None
    return rel.as_posix()


def _entry(agent: Agent, command: str, args: list[str]) -> dict:
    if agent.fmt == "opencode":
        return {"type": "local", "command": [command, *args], "enabled": True}
    if agent.fmt == "vscode" or agent.typed:
        return {"type": "stdio", "command": command, "args": args}
    return {"command": command, "args": args, **dict(agent.extra)}


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
        raise BadInput(
            f"{path}: is not plain JSON ({e.msg} at line {e.lineno}; comments?); nothing was "
            f"written: add this to it by hand: {snippet}"
        ) from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: holds a JSON {type(data).__name__}, not an object; nothing was written")
    return data


def _json_change(agent: Agent, kind: str, path: Path, merge: Callable[[dict], bool], snippet: str) -> ConfigEdit:
    text = _read(path)
    data = _load_json(path, text, snippet)
    if not merge(data):
        return ConfigEdit(agent.name, kind, path, "unchanged", snippet)
    new = json.dumps(data, indent=_indent_of(text), ensure_ascii=False) + "\n"
    return ConfigEdit(agent.name, kind, path, "update" if path.exists() else "create", snippet, new_text=new)


def _object(parent: dict, key: str, path: Path) -> dict:
    node = parent.setdefault(key, {})
    if not isinstance(node, dict):
        raise BadInput(f"{path}: '{key}' is a {type(node).__name__}, not an object; nothing was written")
    return node


def _config_change(agent: Agent, path: Path, command: str, args: list[str]) -> ConfigEdit:
    if agent.fmt == "codex":
        return _codex_change(agent, path, command, args)
    if agent.fmt == "hermes":
        return _hermes_change(agent, path, command, args)
    entry = _entry(agent, command, args)
    key = _key(agent)
    if agent.extra:  # a value the person gave one of our extra keys stays theirs
        try:
            current = (json.loads(_read(path) or "{}").get(key) or {}).get(SERVER)
        except (ValueError, AttributeError):
            current = None  # not plain JSON: _json_change says so
        if isinstance(current, dict):
            entry.update({k: current[k] for k, _v in agent.extra if k in current})
    snippet = json.dumps({key: {SERVER: entry}}, indent=2, ensure_ascii=False)

    def merge(data: dict) -> bool:
        servers = _object(data, key, path)
        if servers.get(SERVER) == entry:
            return False
        servers[SERVER] = entry
        return True

    return _json_change(agent, "mcp config", path, merge, snippet)


def _toml_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


_CODEX_HEADER = re.compile(r"""^\s*\[\s*mcp_servers\s*\.\s*(?:ihmt|"ihmt"|'ihmt')\s*\]\s*(?:#.*)?$""")
_ANY_HEADER = re.compile(r"^\s*\[")
_OUR_KEYS = re.compile(r"^\s*(?:command|args|\"command\"|\"args\")\s*=")


CODEX_APPROVAL = "default_tools_approval_mode"


def _codex_change(agent: Agent, path: Path, command: str, args: list[str]) -> ConfigEdit:
    """Add or update our `[mcp_servers.ihmt]` table, textually: the rest of the file stays byte for byte.
    The tools' approval mode is set to "approve" unless the table already has one (the person's choice)."""
    text = _read(path)
    lines_ours = [f"command = {_toml_string(command)}\n", f"args = [{', '.join(_toml_string(a) for a in args)}]\n"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        table = f"[mcp_servers.{SERVER}]\n" + "".join(lines_ours) + f'{CODEX_APPROVAL} = "approve"\n'
        raise BadInput(
            f"{path}: is not valid TOML ({e}); nothing was written: add this to it by hand:\n{table}"
        ) from None
    current = (data.get("mcp_servers") or {}).get(SERVER)
    if not (isinstance(current, dict) and CODEX_APPROVAL in current):
        lines_ours.append(f'{CODEX_APPROVAL} = "approve"\n')
    table = f"[mcp_servers.{SERVER}]\n" + "".join(lines_ours)
    if (
        isinstance(current, dict)
        and current.get("command") == command
        and current.get("args") == args
        and CODEX_APPROVAL in current
    ):
        return ConfigEdit(agent.name, "mcp config", path, "unchanged", table)
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if _CODEX_HEADER.match(line)), None)
    if at is None:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + table
    else:
        end = next((j for j in range(at + 1, len(lines)) if _ANY_HEADER.match(lines[j])), len(lines))
        kept, depth = [], 0
        for line in lines[at + 1 : end]:
            if depth > 0:  # inside a multi-line value of ours: drop it
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
        raise BadInput(
            f"{path}: defines mcp_servers.{SERVER} in a form setup does not rewrite; nothing was "
            f"written: replace it by hand with:\n{table}"
        ) from None
    return ConfigEdit(agent.name, "mcp config", path, "update" if path.exists() else "create", table, new_text=new)


def _hermes_change(agent: Agent, path: Path, command: str, args: list[str]) -> ConfigEdit:
    """Our `mcp_servers.ihmt` entry in Hermes' config.yaml, edited round-trip (ruamel): the person's
    comments, key order and other servers stay as they are."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    entry = {"command": command, "args": list(args)}
    snippet = f"mcp_servers:\n  {SERVER}:\n    command: {json.dumps(command)}\n    args: {json.dumps(list(args))}\n"
    text = _read(path)
    yaml = YAML()
    yaml.preserve_quotes = True
    try:
        data = yaml.load(text) if text.strip() else None
    except YAMLError as e:
        problem = str(e).splitlines()[0] if str(e) else e.__class__.__name__
        raise BadInput(
            f"{path}: is not valid YAML ({problem}); nothing was written: add this to it by hand:\n{snippet}"
        ) from None
    if data is None:
        data = yaml.load("{}")
    if not isinstance(data, dict):
        raise BadInput(f"{path}: holds a YAML {type(data).__name__}, not a mapping; nothing was written")
    servers = data.get("mcp_servers")
    if servers is None:
        data["mcp_servers"] = servers = yaml.load("{}")
    if not isinstance(servers, dict):
        raise BadInput(f"{path}: 'mcp_servers' is a {type(servers).__name__}, not a mapping; nothing was written")
    current = servers.get(SERVER)
    if isinstance(current, dict) and current.get("command") == command and list(current.get("args") or []) == args:
        return ConfigEdit(agent.name, "mcp config", path, "unchanged", snippet)
    if isinstance(current, dict):  # keep what the person added (env, timeout...)
        current["command"], current["args"] = command, list(args)
    else:
        servers[SERVER] = entry
    out = io.StringIO()
    yaml.dump(data, out)
    return ConfigEdit(
        agent.name, "mcp config", path, "update" if path.exists() else "create", snippet, new_text=out.getvalue()
    )


def _block(text: str) -> str:
    return f"{MARK_START}\n{text.strip()}\n{MARK_END}\n"


def _instructions_change(agent: Agent, path: Path, body: str) -> ConfigEdit:
    block = _block(body)
    text = _read(path)
    start, end = text.find(MARK_START), text.find(MARK_END)
    if start >= 0 and end > start:
        tail = text[end + len(MARK_END) :]
        new = text[:start] + block + tail.removeprefix("\n")
    elif path.suffix == ".mdc" and not text.strip():
        new = CURSOR_RULE_HEAD + block
    else:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    if new == text:
        return ConfigEdit(agent.name, "instructions", path, "unchanged", block)
    snippet = new if not text.strip() else block
    return ConfigEdit(agent.name, "instructions", path, "update" if path.exists() else "create", snippet, new_text=new)


_OUR_HOOK = re.compile(r"(^|[/\\'\" ])ihmt(\.exe)?['\"]? brief\b|claude-code-session-start\.sh|ihmt-session-start\.sh")


def _is_our_hook(group) -> bool:
    """Our SessionStart entry: the wrapper script (either copy), or `ihmt brief` as older versions wrote it."""
    return isinstance(group, dict) and any(
        isinstance(h, dict) and _OUR_HOOK.search(str(h.get("command", ""))) for h in group.get("hooks") or []
    )


def hook_command(executable: str | None, vault: str | None, script: str | None = None) -> str:
    """The hook's command line: the wrapper (which never fails a session) run by sh, with this
    machine's `ihmt` (user scope) or the one on PATH and the project's copy (project scope)."""
    args = ["--vault", vault] if vault is not None else []
    if script is None:  # project scope: the copy in the project
        return " ".join(['sh "$CLAUDE_PROJECT_DIR"/' + PROJECT_HOOK, *(shlex.quote(a) for a in args)])
    return " ".join(
        [f"IHMT_BIN={shlex.quote(executable or ihmt_executable())}", "sh", *(shlex.quote(a) for a in [script, *args])]
    )


def _hook_change(agent: Agent, path: Path, command_line: str) -> ConfigEdit:
    """Claude Code's SessionStart hook: the brief printed by `ihmt brief` becomes session context."""
    group = {"matcher": "startup|clear|compact", "hooks": [{"type": "command", "command": command_line, "timeout": 15}]}
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
def plan(
    agent_name: str,
    scope: str = "user",
    vault: Path | None = None,
    env: Env | None = None,
    hook: bool = True,
    executable: str | None = None,
) -> list[ConfigEdit]:
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
    root = chosen_vault(vault, env)
    made = _vault_change(agent, root)
    changes = [made] if made else []
    if scope == "user":  # this machine: absolute paths of this ihmt and this vault
        named: str | None = str(root)
        command, args = server_command(root, executable)
    else:  # a project's files travel: ihmt from PATH, the vault relative to the project
        named = _inside(root, env.cwd)
        command, args = server_command(Path(named) if named is not None else None, "ihmt")
    changes.append(_config_change(agent, config, command, args))
    target = agent.instructions(scope, env)
    if target is not None:
        changes.append(_instructions_change(agent, target, instructions_text()))
    elif agent.instructions_note:
        changes.append(
            ConfigEdit(
                agent.name,
                "instructions",
                None,
                "skip",
                note=agent.instructions_note.format(template=instructions_path()),
            )
        )
    hook_file = agent.hook(scope, env)
    if hook_file is not None and hook:
        if scope == "user":
            changes.append(_hook_change(agent, hook_file, hook_command(command, named, str(hook_script_path()))))
        else:
            changes.append(
                _file_change(
                    agent, "hook script", env.cwd / PROJECT_HOOK, hook_script_path().read_text(encoding="utf-8"), 0o755
                )
            )
            changes.append(_hook_change(agent, hook_file, hook_command(None, named)))
    return changes


def _file_change(agent: Agent, kind: str, path: Path, text: str, mode: int | None = None) -> ConfigEdit:
    """A whole file of ours (the hook script's copy): written when missing or different."""
    if _read(path) == text:
        return ConfigEdit(agent.name, kind, path, "unchanged", text)
    return ConfigEdit(agent.name, kind, path, "update" if path.exists() else "create", text, new_text=text, mode=mode)


def next_steps(agent_name: str, scope: str, vault: Path | None = None, env: Env | None = None) -> list[str]:
    """What the user still has to do for `agent_name` to use the memory, and, for a project's files,
    what a teammate needs; one line each."""
    agent = AGENTS[agent_name]
    env = env or Env.current()
    root = chosen_vault(vault, env)
    lines = list(agent.after) + (list(agent.after_project) if scope == "project" else [])
    if scope == "project":
        rel = _inside(root, env.cwd)
        if shutil.which("ihmt") is None:
            lines.append(
                f"The project's config runs 'ihmt' from the PATH, where it is not: add "
                f"{Path(ihmt_executable()).parent} to your PATH (INSTALL.md)."
            )
        if rel is not None:
            lines.append(
                f"For a teammate: these files name 'ihmt' on the PATH and the vault {rel}/ in this project "
                f"(commit it with the project); they install ihmt (INSTALL.md) and run nothing else."
            )
        else:
            lines.append(
                "For a teammate: these files name 'ihmt' on the PATH and no vault (yours lies outside the "
                "project): on each machine the server uses $IHMT_VAULT, else ~/.ihmt/vault; a teammate "
                "installs ihmt (INSTALL.md) and has a vault of their own."
            )
            if root != (env.home / ".ihmt" / "vault").resolve() and not env.environ.get("IHMT_VAULT"):
                lines.append(
                    f"On this machine, set IHMT_VAULT={shlex.quote(str(root))} where the agent starts "
                    f"(your shell profile), or its server uses ~/.ihmt/vault."
                )
    return lines


def apply(changes: list[ConfigEdit], env: Env | None = None) -> list[ConfigEdit]:
    """Write the planned changes: a backup of each existing file first, then an atomic replace."""
    env = env or Env.current()
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    for c in changes:
        if c.kind == "vault" and c.action == "create" and c.path is not None:
            from ..vault import Vault  # the one write setup leaves to the vault itself

            Vault.init(c.path).close()
            continue
        if c.new_text is None or c.path is None:
            continue
        if c.path.exists():
            c.backup = env.home / ".ihmt" / "backups" / stamp / c.path.resolve().relative_to(c.path.resolve().anchor)
            c.backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(c.path, c.backup)
        _write_atomic(c.path, c.new_text, c.mode)
    return changes


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _write_atomic(path: Path, text: str, mode: int | None = None) -> None:
    # a new config keeps to its owner (it may sit beside an agent's credentials) unless it needs more (the hook script)
    files.atomic_write(path, text, mode=mode & ~_umask() if mode is not None else 0o600)


def setup(
    agent_name: str,
    scope: str = "user",
    vault: Path | None = None,
    dry_run: bool = False,
    env: Env | None = None,
    hook: bool = True,
    executable: str | None = None,
) -> list[ConfigEdit]:
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
        elif agent.fmt == "hermes":
            import yaml

            try:
                loaded = yaml.safe_load(text)
            except yaml.YAMLError:
                return None
            entry = ((loaded or {}).get("mcp_servers") or {}).get(SERVER)
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
            rows.append(
                {
                    "agent": agent.name,
                    "scope": scope,
                    "config": str(config),
                    "server": _configured(agent, config),
                    "instructions": (
                        str(instr) if instr and MARK_START in (_read(instr) if instr.is_file() else "") else None
                    ),
                    "hook": hook_set,
                }
            )
    return rows
