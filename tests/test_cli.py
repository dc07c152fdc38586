"""The `ihmt` command line, run as a real process, with --json answers checked exactly."""

import json
import subprocess
import sys
from pathlib import Path

from conftest import commits

IHMT = str(Path(sys.executable).parent / "ihmt")


def ihmt(*args, input=None, cwd=None):
    r = subprocess.run([IHMT, *args], capture_output=True, text=True, input=input, cwd=cwd)
    return r


def ok_json(*args, input=None):
    r = ihmt(*args, "--json", input=input)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_init_save_show_tree_history_outdate_stats(tmp_path):
    root = str(tmp_path / "v")
    assert ok_json("init", root)["vault"] == str((tmp_path / "v").resolve())
    saved = ok_json(
        "save",
        "Staging runs PostgreSQL 17.",
        "--topic",
        "work/infra",
        "--date",
        "2026-02-03",
        "--tags",
        "database,staging",
        "--type",
        "fact",
        "--source",
        "codex",
        "--vault",
        root,
    )
    assert {k: saved[k] for k in ("title", "path", "tags", "type", "date", "source", "status")} == {
        "title": "Staging runs PostgreSQL 17.",
        "path": "work/infra/staging-runs-postgresql-17.md",
        "tags": ["database", "staging"],
        "type": "fact",
        "date": "2026-02-03",
        "source": "codex",
        "status": "active",
    }
    old = ok_json(
        "save",
        "-",
        "--title",
        "Staging runs PostgreSQL 15",
        "--topic",
        "work/infra",
        "--date",
        "2024-03-12",
        "--vault",
        root,
        input="Staging ran PostgreSQL 15 until February.\n",
    )
    shown = ok_json("show", old["id"], "--vault", root)
    assert shown["body"] == "Staging ran PostgreSQL 15 until February.\n"
    outdated = ok_json("outdate", old["id"], saved["id"], "--vault", root)
    assert (outdated["status"], outdated["superseded_by"]) == ("outdated", [saved["id"]])
    tree = ok_json("tree", "--depth", "3", "--vault", root)
    assert tree["children"][0]["children"][0]["path"] == "work/infra"
    assert [m["status"] for m in tree["children"][0]["children"][0]["memories"]] == ["active", "outdated"]
    history = ok_json("history", old["id"], "--vault", root)
    assert [h["op"] for h in history] == ["outdate", "save"]
    stats = ok_json("stats", "--vault", root)
    assert (stats["memories"], stats["status"]) == (2, {"active": 1, "outdated": 1})
    text = ihmt("tree", "--depth", "3", "--vault", root).stdout
    assert "      - 2024-03-12 Staging runs PostgreSQL 15 OUTDATED\n" in text


def test_import_jsonl_is_one_commit(tmp_path):
    root = str(tmp_path / "v")
    ok_json("init", root)
    lines = [
        json.dumps({"text": f"Imported fact {i}.", "topic": "imported", "date": "2025-01-0" + str(i + 1)})
        for i in range(5)
    ]
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n\n")
    result = ok_json("import", str(tmp_path / "m.jsonl"), "--vault", root)
    assert result["imported"] == 5 and len(result["ids"]) == 5
    assert commits(tmp_path / "v") == ["import: 5 memories", "init: Memory"]


def test_vault_from_environment_and_default_vault_created_on_first_use(tmp_path, isolated_home, monkeypatch):
    r = ihmt("save", "Default vault memory.", "--topic", "t", "--json")
    assert r.returncode == 0, r.stderr
    assert (isolated_home / ".ihmt/vault/t/default-vault-memory.md").exists()
    ok_json("init", str(tmp_path / "env-vault"))
    monkeypatch.setenv("IHMT_VAULT", str(tmp_path / "env-vault"))
    ok_json("save", "Env vault memory.", "--topic", "t")
    assert (tmp_path / "env-vault/t/env-vault-memory.md").exists()


def test_doctor_and_rebuild(tmp_path):
    root = str(tmp_path / "v")
    ok_json("init", root)
    (tmp_path / "v/notes").mkdir()
    (tmp_path / "v/notes/by-hand.md").write_text("Written by hand.\n")
    r = ihmt("doctor", "--vault", root)
    assert r.returncode == 1 and "missing-keys   notes/by-hand.md" in r.stdout
    r = ihmt("doctor", "--repair", "--json", "--vault", root)
    assert r.returncode == 0 and json.loads(r.stdout)["repaired"] is True
    assert ihmt("doctor", "--vault", root).stdout == "vault is healthy\n"
    assert ok_json("rebuild", "--vault", root)["memories"] == 1


def test_demo_runs_end_to_end(tmp_path):
    r = ihmt("demo", "--dir", str(tmp_path / "demo"))
    assert r.returncode == 0, r.stderr
    assert "4. A correction" in r.stdout and "OUTDATED" in r.stdout
    subjects = commits(tmp_path / "demo")
    assert subjects == [
        "save: Staging runs PostgreSQL 18",
        "save: Retry Stripe webhooks with backoff",
        "init: Ana's memory",
    ]
    r = ihmt("demo", "--dir", str(tmp_path / "demo"))
    assert r.returncode == 2 and "exists and is not empty" in r.stderr


def test_demo_run_inside_a_git_checkout_gets_its_own_repository(tmp_path):
    from conftest import git

    git(tmp_path, "init", "-q", "project")
    r = ihmt("demo", cwd=tmp_path / "project")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "project/demo-vault/.git").is_dir()
    assert commits(tmp_path / "project/demo-vault")[-1] == "init: Ana's memory"
    assert (
        subprocess.run(
            ["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=tmp_path / "project", capture_output=True
        ).returncode
        != 0
    )  # the project's repository got no commit


def test_search_json_reports_confidence_coverage_and_margin(tmp_path):
    root = str(tmp_path / "v")
    ok_json("init", root)
    ok_json("save", "Staging runs PostgreSQL 17.", "--topic", "work/infra", "--vault", root)
    found = ok_json("search", "PostgreSQL staging", "--vault", root)
    assert {k: found[k] for k in ("status", "coverage", "margin", "confidence")} == {
        "status": "found",
        "coverage": 1.0,
        "margin": 1.0,
        "confidence": 1.0,
    }
