"""What a new user types at the `ihmt` command, taken as they meant it: words that look like options
are text, the command's own options go before the text or at the very end of the line, `--` keeps
every word as text; and each message says first what happened."""

import json

import pytest
from click.testing import CliRunner

from ihmt_vault import Vault
from ihmt_vault.frontends.cli import main


@pytest.fixture
def root(tmp_path):
    Vault.init(tmp_path / "v").close()
    return str(tmp_path / "v")


def ihmt(root, *args: str):
    return CliRunner().invoke(main, ["--vault", root, *args])


def saved(root, *words: str) -> dict:
    r = CliRunner().invoke(main, ["--json", "--vault", root, "save", *words])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def body(root, m: dict) -> str:
    with Vault.open(root) as v:
        return v.memories.get(m["id"]).body


# -- words that look like options are text ---------------------------------------------------------
def test_unknown_long_options_in_the_text_are_text_and_a_known_one_at_the_end_is_the_option(root):
    m = saved(root, *"Always run make lint: it runs ruff, mypy --strict and eslint --topic harbor/conventions".split())
    assert (m["title"], m["path"]) == (
        "Always run make lint: it runs ruff, mypy --strict and eslint",
        "harbor/conventions/always-run-make-lint-it-runs-ruff-mypy-strict-and-eslint.md",
    )
    assert body(root, m) == "Always run make lint: it runs ruff, mypy --strict and eslint\n"


def test_a_short_option_and_its_number_in_the_text_are_text(root):
    m = saved(root, "--topic", "dev", *"Run the tests with pytest with -n 4".split())
    assert (m["title"], m["path"]) == (
        "Run the tests with pytest with -n 4",
        "dev/run-the-tests-with-pytest-with-n-4.md",
    )


def test_help_in_the_text_is_text_not_a_request_for_help(root):
    m = saved(root, *"List files with ls -h and --help --topic shell".split())
    assert (m["title"], m["path"]) == ("List files with ls -h and --help", "shell/list-files-with-ls-h-and-help.md")


def test_options_before_the_text_and_at_its_end_both_count(root):
    m = saved(root, "--tags", "ci", *"Deploys need --force-with-lease --type procedure --pinned".split())
    assert (m["title"], m["tags"], m["type"], m["pinned"]) == (
        "Deploys need --force-with-lease",
        ["ci"],
        "procedure",
        True,
    )


def test_a_known_option_inside_the_text_is_text(root):
    m = saved(root, *"Pass --topic to name the folder --topic cli".split())
    assert (m["title"], m["path"]) == ("Pass --topic to name the folder", "cli/pass-topic-to-name-the-folder.md")


def test_double_dash_keeps_every_word_as_text(root):
    m = saved(root, "--topic", "cli", "--", *"Remember to pass --pinned".split())
    assert (m["title"], m["path"], m["pinned"]) == (
        "Remember to pass --pinned",
        "cli/remember-to-pass-pinned.md",
        False,
    )


def test_search_and_ask_take_option_like_words_as_the_query(root):
    saved(root, *"Run the tests with pytest with -n 4 --topic dev".split())
    r = ihmt(root, "search", *"pytest -n 4 --strict --k 1 --json".split())
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["query"] == "pytest -n 4 --strict"
    r = ihmt(root, "ask", *"how many -n workers --json".split())
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["query"] == "how many -n workers"


def test_rename_takes_option_like_words_as_the_title(root):
    m = saved(root, "Hooks are skipped with no verify.", "--topic", "git")
    r = ihmt(root, "rename", m["id"], *"Use --no-verify only in emergencies --json".split())
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["title"] == "Use --no-verify only in emergencies"


def test_append_takes_option_like_words_as_the_entry(root):
    m = saved(root, "Test runs", "--topic", "dev")
    r = ihmt(root, "append", m["id"], *"pytest -n 4 -x".split())
    assert r.exit_code == 0, r.output
    assert body(root, m) == "Test runs\n\n- pytest -n 4 -x\n"


def test_an_option_missing_its_value_is_an_error_that_suggests_double_dash(root):
    r = ihmt(root, "save", "--topic")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == (
        "Error: Option '--topic' requires an argument. "
        "(to keep words like it as text, put -- before the text: ihmt save -- ...)"
    )


# -- messages say what happened first -------------------------------------------------------------
def test_saving_the_same_text_again_says_already_remembered_and_not_saved(root):
    m = saved(root, "The kettle is in the second drawer.", "--topic", "home")
    r = ihmt(root, "save", "The kettle is in the second drawer.")
    assert r.exit_code == 0, r.output
    assert r.stdout == f"already remembered as {m['id']} (home/the-kettle-is-in-the-second-drawer.md); nothing saved\n"


@pytest.mark.parametrize("command", ["read", "show", "history", "restore", "core", "forget", "current"])
def test_an_unknown_id_is_bad_input_exit_2(root, command):
    r = ihmt(root, command, "nosuchid")
    assert (r.exit_code, r.stderr) == (2, "error: nosuchid: no memory with this id or path; try 'ihmt search'\n")


def test_an_unknown_id_to_rename_or_append_is_bad_input_exit_2(root):
    for args in (("rename", "nosuchid", "New", "title"), ("append", "nosuchid", "more")):
        r = ihmt(root, *args)
        assert (r.exit_code, r.stderr) == (2, "error: nosuchid: no memory with this id or path; try 'ihmt search'\n")
