"""Docs are tested: every command is in the README and has help text; the layering holds."""
import ast
import re
from pathlib import Path

from click.testing import CliRunner

from ihmt_vault.cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ihmt_vault"
FRONT_ENDS = {"cli", "demo", "mcp_server", "watch", "site", "importers"}
STORAGE = ["errors", "config", "notes", "tree", "gitlog", "lock", "catalog", "vault", "doctor", "search", "timeline",
           "sensitive", "sync", "githooks"]


def _commands(group, prefix=()):
    """Every command, subcommands of groups included: (("site", "build"), command)."""
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            yield (*prefix, name), cmd
            yield from _commands(cmd, (*prefix, name))
        else:
            yield (*prefix, name), cmd


def test_every_cli_command_has_help_and_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for words, cmd in _commands(main):
        name = " ".join(words)
        assert cmd.help and len(cmd.help) > 20, name
        assert re.search(rf"`ihmt {name}\b", readme), f"README does not document 'ihmt {name}'"
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0, name
        if not hasattr(cmd, "commands"):
            assert "--json" in result.output and "--vault" in result.output, name


def test_the_readme_opens_with_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:sh|bash)?\n(.*?)```", readme, re.S)
    assert "ihmt demo" in blocks[0] and "pytest" in blocks[1]
    assert "pytest" in (ROOT / ".ci/run").read_text()


def _imports(file: Path) -> set[str]:
    tree = ast.parse(file.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{a.name}" if node.module else f"{base}{a.name}" for a in node.names)
    return names


def test_storage_never_imports_a_front_end():
    for name in STORAGE:
        files = [PACKAGE / f"{name}.py"] if (PACKAGE / f"{name}.py").exists() else list((PACKAGE / name).glob("*.py"))
        assert files, name
        for file in files:
            for imported in _imports(file):
                parts = set(imported.lstrip(".").split("."))
                assert not parts & FRONT_ENDS, f"{file.name} imports front end {imported}"
                assert not parts & {"click", "rich", "mcp", "watchdog", "mkdocs"}, f"{file.name} imports {imported}"


def test_front_ends_never_touch_git_or_whoosh_directly():
    for name in ("cli", "demo"):
        for imported in _imports(PACKAGE / f"{name}.py"):
            parts = set(imported.lstrip(".").split("."))
            assert not parts & {"whoosh", "git", "gitlog", "subprocess", "catalog", "sqlite3"}, f"{name} imports {imported}"
