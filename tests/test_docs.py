"""Docs are tested: every command is in the README and has help text; the layering holds."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ihmt_vault.frontends.cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ihmt_vault"


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


def _command_words() -> set[tuple[str, ...]]:
    return {words for words, _ in _commands(main)}


_CODE = re.compile(r"```(sh|bash|console)?\n(.*?)```|`([^`\n]+)`", re.S)
_IHMT_CALL = re.compile(
    r"(?:^|[\s/;&|(])ihmt[ \t]+((?:--?[\w-]+(?:[ \t]+(?!-)[^\s-]\S*)?[ \t]+)*)([a-z][a-z-]*)"
    r"(?:[ \t]+([a-z][a-z-]*))?",
    re.M,
)


def _ihmt_calls(text: str) -> list[tuple[str, ...]]:
    """Every `ihmt COMMAND [SUBCOMMAND]` named in a document's code (shell blocks and inline code),
    past any options given before the command (`ihmt --json stats`)."""
    calls = []
    for m in _CODE.finditer(text):
        code = m.group(2) if m.group(2) is not None else m.group(3)
        if m.group(2) is not None and m.group(1) is None and not re.search(r"(^|\s)ihmt\s", code):
            continue  # an output block: text the commands printed
        if m.group(1) == "console":  # a transcript: the commands are its $ lines, the rest is output
            code = "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ "))
        for c in _IHMT_CALL.finditer(code):
            calls.append(tuple(w for w in c.groups()[1:] if w))
    return calls


@pytest.mark.parametrize("doc", ["INSTALL.md", "GUIDE.md", "README.md"])
def test_every_ihmt_command_a_document_names_exists(doc):
    known = _command_words()
    calls = _ihmt_calls((ROOT / doc).read_text(encoding="utf-8"))
    assert calls, f"{doc} names no ihmt command"
    for words in calls:
        assert words[:1] in known, f"{doc}: 'ihmt {' '.join(words)}' is not a command"
        if hasattr(dict(_commands(main))[words[:1]], "commands"):
            assert words[:2] in known, f"{doc}: 'ihmt {' '.join(words)}' is not a command"


@pytest.mark.parametrize("doc", ["INSTALL.md", "GUIDE.md"])
def test_the_shell_blocks_of_a_document_are_well_formed(doc):
    import subprocess

    text = (ROOT / doc).read_text(encoding="utf-8")
    assert text.count("```") % 2 == 0, f"{doc}: a code fence is not closed"
    blocks = re.findall(r"```(?:sh|bash)\n(.*?)```", text, re.S)
    for session in re.findall(r"```console\n(.*?)```", text, re.S):  # a transcript: its $ lines
        blocks.append("".join(line[2:] + "\n" for line in session.splitlines() if line.startswith("$ ")))
    assert blocks, f"{doc} has no shell block"
    for block in blocks:
        r = subprocess.run(["bash", "-n"], input=block, capture_output=True, text=True)
        assert r.returncode == 0, f"{doc}: a shell block does not parse: {r.stderr}\n{block}"
