"""Nothing leaked: a secret is kept out on every path that writes or commits a memory.

The secret detector itself (shapes, false positives) is specified in tests/test_sensitive.py; the
site's sanitising in tests/test_site_safety.py; purge in tests/test_purge.py. Here: every way in.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from ihmt_vault import SecretRefused, Vault

TOKEN = "ghp_" + "R8vQ2kLm9XzT4wYb7NcJ1pHd6sFg3aEu5iKo"  # a GitHub token's shape, random
HAND_FILE = f"---\ntitle: CI access\n---\nThe CI pushes with {TOKEN} every night.\n"


def ihmt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True)


def tracked(root: Path) -> list[str]:
    return git(root, "ls-files").splitlines()


def test_watch_once_leaves_a_hand_written_secret_uncommitted_and_says_what_to_do(vault):
    (vault.root / "ops").mkdir()
    (vault.root / "ops/ci.md").write_text(HAND_FILE)
    r = ihmt("watch", "--once", "--vault", str(vault.root))
    assert r.returncode == 0
    assert r.stderr == (
        "skipped ops/ci.md: contains what looks like a GitHub token (detect-secrets: "
        "GitHubTokenDetector); it was not committed nor indexed: remove it from the file (keep a "
        "pointer such as 'in 1Password')\n"
    )
    assert "ops/ci.md" not in tracked(vault.root) and (vault.root / "ops/ci.md").read_text() == HAND_FILE
    assert vault.search("CI pushes every night").status == "not_found"


def test_the_watcher_takes_the_file_in_once_the_secret_is_removed(vault):
    (vault.root / "ops").mkdir()
    (vault.root / "ops/ci.md").write_text(HAND_FILE)
    vault.reconcile(["ops/ci.md"])
    (vault.root / "ops/ci.md").write_text(HAND_FILE.replace(TOKEN, "the token in 1Password"))
    report = vault.reconcile(["ops/ci.md"])
    assert [c.path for c in report.changes] == ["ops/ci.md"] and "ops/ci.md" in tracked(vault.root)


def test_doctor_reports_a_hand_written_secret_and_repair_never_commits_it(vault):
    (vault.root / "ops").mkdir()
    (vault.root / "ops/ci.md").write_text(HAND_FILE)
    problems = vault.doctor(repair=True)
    assert [(p.kind, p.path, p.repairable) for p in problems if p.path == "ops/ci.md"] == [
        ("secret", "ops/ci.md", False)
    ]
    assert "ops/ci.md" not in tracked(vault.root)
    assert TOKEN not in git(vault.root, "log", "-p", "--all")


def test_sync_never_pushes_a_hand_written_secret(tmp_path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with Vault.init(tmp_path / "v") as v:
        git(v.root, "remote", "add", "origin", str(remote))
        (v.root / "ops").mkdir()
        (v.root / "ops/ci.md").write_text(HAND_FILE)
        v.sync()
    pushed = subprocess.run(["git", "log", "-p", "--all"], cwd=remote, capture_output=True, text=True).stdout
    assert pushed and TOKEN not in pushed


@pytest.mark.parametrize("field", ["tags", "facts", "key"])
def test_a_secret_in_tags_facts_or_front_matter_keys_is_refused(vault, field):
    with pytest.raises(SecretRefused):
        if field == "tags":
            vault.save("CI setup.", topic="ops", tags=["ci", TOKEN])
        elif field == "facts":
            vault.save("CI setup.", topic="ops", facts=[{"subject": "ci", "attribute": "token", "value": TOKEN}])
        else:
            vault.save_many([{"text": "CI setup.", "topic": "ops", "extra": {TOKEN: "yes"}}])
    assert git(vault.root, "log", "--format=%s") == "init: Memory\n"


def test_init_on_a_fresh_clone_installs_the_hooks(tmp_path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with Vault.init(tmp_path / "a") as a:
        git(a.root, "remote", "add", "origin", str(remote))
        a.sync()
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / "b")], check=True)
    assert not (tmp_path / "b/.git/hooks/pre-commit").exists()
    assert ihmt("init", str(tmp_path / "b")).returncode == 0
    assert "IHMT Vault" in (tmp_path / "b/.git/hooks/pre-commit").read_text()


def test_a_key_that_got_in_never_becomes_a_keyword_of_a_summary(vault):
    vault.save(
        "The AWS docs use the example secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in every sample.", topic="aws"
    )
    for summary in (vault.root / "index.md", vault.root / "aws/index.md"):
        head = summary.read_text().split("\n---\n")[0].lower()
        assert "examplekey" not in head and "wjalrxutnfemi" not in head
