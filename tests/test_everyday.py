"""Everyday use of the `ihmt` command, as a new user meets it: words without quotes, options before
the command, the vault you stand in, dates in words, and the tree and brief read aloud."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt_vault import Vault
from ihmt_vault.errors import BadInput
from ihmt_vault.storage.draft import check_date

IHMT = str(Path(sys.executable).parent / "ihmt")


def ihmt(*args, cwd=None, env=None):
    return subprocess.run([IHMT, *args], capture_output=True, text=True, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.fixture
def root(tmp_path):
    Vault.init(tmp_path / "v").close()
    return tmp_path / "v"


# -- the rest of the line ------------------------------------------------------------------------
def test_search_takes_the_rest_of_the_line_as_the_query(root):
    assert ihmt("save", "Staging runs PostgreSQL 17.", "--topic", "work", "--vault", str(root)).returncode == 0
    unquoted = ihmt("search", "staging", "postgres", "--vault", str(root))
    quoted = ihmt("search", "staging postgres", "--vault", str(root))
    assert unquoted.returncode == 0, unquoted.stderr
    assert unquoted.stdout == quoted.stdout and unquoted.stdout.startswith("# Staging runs PostgreSQL 17.\n")


def test_save_takes_the_rest_of_the_line_as_the_text(root):
    r = ihmt("save", "Staging", "runs", "PostgreSQL", "17", "--topic", "work", "--json", "--vault", str(root))
    assert r.returncode == 0, r.stderr
    saved = json.loads(r.stdout)
    assert (saved["title"], saved["path"]) == ("Staging runs PostgreSQL 17", "work/staging-runs-postgresql-17.md")


def test_ask_takes_the_rest_of_the_line_as_the_query(root):
    ihmt("save", "The kettle is in the second drawer.", "--topic", "home", "--vault", str(root))
    r = ihmt("ask", "where", "is", "the", "kettle", "--json", "--vault", str(root))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["query"] == "where is the kettle"


# -- options before the command ------------------------------------------------------------------
def test_json_and_vault_go_before_or_after_the_command(root):
    after = ihmt("tree", "--json", "--vault", str(root))
    before = ihmt("--json", "--vault", str(root), "tree")
    mixed = ihmt("--json", "tree", "--vault", str(root))
    assert after.returncode == before.returncode == mixed.returncode == 0, before.stderr
    assert json.loads(before.stdout) == {"path": "", "title": "Memory", "count": 0, "children": [], "memories": []}
    assert before.stdout == after.stdout == mixed.stdout


# -- which vault ---------------------------------------------------------------------------------
def test_a_command_run_inside_a_vault_uses_that_vault_and_says_so(root, isolated_home):
    (root / "notes").mkdir()
    (root / "notes/by-hand.md").write_text("Written by hand in the vault.\n")
    r = ihmt("watch", "--once", cwd=root / "notes")
    assert r.returncode == 0, r.stderr
    assert r.stderr == f"vault: {root.resolve()} (the vault this folder is in)\n"
    assert r.stdout == "edit   notes/by-hand.md  Written by hand in the vault.\n"
    assert not (isolated_home / ".ihmt/vault").exists()


def test_the_environment_then_the_default_vault_and_each_says_so(root, tmp_path, isolated_home):
    r = ihmt("stats", cwd=tmp_path, env={"IHMT_VAULT": str(root)})
    assert r.returncode == 0 and r.stderr == f"vault: {root} (from $IHMT_VAULT)\n"
    r = ihmt("stats", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stderr == f"vault: {isolated_home / '.ihmt/vault'} (the default vault; name another with --vault)\n"


def test_with_json_or_a_named_vault_nothing_is_said(root, tmp_path):
    assert ihmt("stats", "--json", cwd=root).stderr == ""
    assert ihmt("stats", "--vault", str(root), cwd=tmp_path).stderr == ""


# -- dates in words ------------------------------------------------------------------------------
TODAY = dt.date(2026, 12, 1)  # a Tuesday


@pytest.mark.parametrize(
    "words, day",
    [
        ("2026-02-03", "2026-02-03"),
        ("yesterday", "2026-11-30"),
        ("ayer", "2026-11-30"),
        ("昨天", "2026-11-30"),
        ("3 days ago", "2026-11-28"),
        ("hace dos semanas", "2026-11-17"),
        ("last Monday", "2026-11-30"),
        ("8 May 2023", "2023-05-08"),
        ("last May", "2026-05-01"),
        ("last week", "2026-11-23"),
        ("el mes pasado", "2026-11-01"),
        ("in 2023", "2023-01-01"),
        ("tomorrow", "2026-12-02"),
    ],
)
def test_a_date_in_words_is_resolved_against_today(words, day):
    assert check_date(words, today=TODAY) == day


@pytest.mark.parametrize("words", ["soon", "yesterday at noon", "in May", "2026-02-30", "last May or June"])
def test_words_that_name_no_single_date_are_refused(words):
    with pytest.raises(BadInput, match="use YYYY-MM-DD"):
        check_date(words, today=TODAY)


def test_save_date_yesterday_is_stored_as_that_day(root):
    r = ihmt(
        "save",
        "The backup ran.",
        "--topic",
        "ops",
        "--date",
        "yesterday",
        "--json",
        "--vault",
        str(root),
        env={"IHMT_NOW": "2026-12-01"},
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["date"] == "2026-11-30"


# -- show --at -----------------------------------------------------------------------------------
def test_show_at_a_date_prints_the_front_matter_too(root):
    r = ihmt(
        "save",
        "The kettle is in the second drawer.",
        "--topic",
        "home",
        "--date",
        "2026-01-05",
        "--json",
        "--vault",
        str(root),
    )
    saved = json.loads(r.stdout)
    r = ihmt("show", saved["id"], "--at", "today", "--vault", str(root))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        f"---\nid: {saved['id']}\ntitle: The kettle is in the second drawer.\ntype: note\ndate: 2026-01-05\n"
    )
    assert r.stdout.endswith("---\nThe kettle is in the second drawer.\n")


# -- the tree and the brief, read aloud ----------------------------------------------------------
def test_the_tree_says_what_it_does_not_show_and_leaves_out_archive_and_attachments(root):
    with Vault.open(root) as v:
        v.save("Staging runs PostgreSQL 17.", topic="work/infra", date="2026-02-03")
        v.save("Deploys happen on Tuesdays.", topic="work/infra/deploys", date="2026-01-10")
        gone = v.save("The old wiki lived on Confluence.", topic="work", date="2020-01-01")
        v.archive(gone.id)
    (root / "attachments").mkdir()
    (root / "attachments/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    r = ihmt("tree", "--depth", "2", "--vault", str(root))
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "Memory/ (2 memories; 1 archived)\n"
        "  work/ (2 memories)\n"
        "    infra/ (2 memories; not shown: 1 subtopic and 1 memory, see --depth 3)\n"
    )


def test_the_brief_counts_one_memory_as_one_memory(root):
    with Vault.open(root) as v:
        v.save("Staging runs PostgreSQL 17.", topic="work", date="2026-02-03")
    r = ihmt("brief", "--vault", str(root))
    assert r.stdout.startswith(
        "# Memory: 1 memory\nsearch_memory finds any memory; read_memory(path) drills down.\n"
        "\n## work/ — 1 memory\n- 2026-02-03 Staging runs PostgreSQL 17. ("
    )


# -- the demo's last words -----------------------------------------------------------------------
def test_the_demo_ends_with_commands_that_work_as_printed(tmp_path):
    r = ihmt("demo", "--dir", str(tmp_path / "demo"))
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("\nExplore it:\n", 1)[1]
    first = tail.splitlines()[0].split()
    assert first[0] in ("ihmt", IHMT) and first[1:] == ["tree", "--vault", str((tmp_path / "demo").resolve())]
    tree = subprocess.run([IHMT if first[0] == IHMT else "ihmt", *first[1:]], capture_output=True, text=True)
    assert tree.returncode == 0 and tree.stdout.startswith("Ana's memory/ (42 memories)\n")
    assert f"  {first[0]} setup claude-code " in tail
