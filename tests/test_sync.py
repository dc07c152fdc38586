"""Sync across machines through a real bare remote, and the git hooks on commits made by hand."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commits, git

from ihmt_vault import Vault


def ihmt(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, cwd=cwd)


def all_text(root: Path) -> str:
    return "".join(p.read_text() for p in root.rglob("*.md") if ".git" not in p.parts)


@pytest.fixture
def machines(tmp_path):
    """A bare remote, machine A's vault pushed to it, and machine B's clone."""
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    a = Vault.init(tmp_path / "a")
    a.save("Staging runs PostgreSQL 17.", topic="work/infra", date="2026-01-01")
    a.save("The office wifi is called tienda-5G.", title="Office wifi", topic="work/office")
    git(a.root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    r = ihmt("sync", "--json", "--vault", str(a.root))
    assert r.returncode == 0, r.stderr
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), "b")
    b = Vault.open(tmp_path / "b")
    yield a, b
    a.close()
    b.close()


def test_two_machines_editing_offline_end_identical_with_every_memory_and_no_conflict_marker(machines):
    a, b = machines
    wifi = a.memories("work/office")[0]
    a.save("Machine A: the CI runners moved to Hetzner.", topic="work/infra")
    b.save("Machine B: the staging database is backed up nightly.", topic="work/infra")
    b.save("Machine B: a brand new topic.", topic="garden")
    for v, name in ((a, "tienda-5G-A"), (b, "tienda-5G-B")):  # the same memory edited on both sides
        file = v.root / wifi["path"]
        file.write_text(file.read_text().replace("tienda-5G.", f"{name}."))
    first = ihmt("sync", "--json", "--vault", str(a.root))
    second = ihmt("sync", "--json", "--vault", str(b.root))
    third = ihmt("sync", "--json", "--vault", str(a.root))
    assert [r.returncode for r in (first, second, third)] == [0, 0, 0], second.stderr
    assert git(a.root, "rev-parse", "HEAD") == git(b.root, "rev-parse", "HEAD")
    assert "<<<<<<<" not in all_text(a.root) and ">>>>>>>" not in all_text(b.root)
    texts = all_text(b.root)
    for words in ("Hetzner", "backed up nightly", "brand new topic", "tienda-5G-A.", "tienda-5G-B."):
        assert words in texts
    import json

    report = json.loads(second.stdout)
    assert report["conflicts"] == [
        f"{wifi['path']}: edited on both machines; this side's text kept, the other "
        f"side's saved as work/office/office-wifi-conflict-copy.md."
    ]
    copy = Vault.open(b.root).get("work/office/office-wifi-conflict-copy.md")
    assert (copy.title, copy.meta["conflict_of"]) == ("Office wifi (conflict copy)", wifi["id"])
    for v in (a, b):
        v.refresh(force=True)
        assert v.doctor() == []
        assert len({m["id"] for m in v.memories()}) == len(v.memories()) == 6
    assert commits(b.root)[0] == "merge: sync with origin/master" or commits(b.root)[0].startswith("merge: sync with")


def test_edits_to_different_memories_of_one_folder_merge_cleanly(machines):
    a, b = machines
    a.save("Added on A.", topic="work/office")
    b.save("Added on B.", topic="work/office")
    assert ihmt("sync", "--vault", str(a.root)).returncode == 0
    r = ihmt("sync", "--json", "--vault", str(b.root))
    assert r.returncode == 0 and '"conflicts": []' in r.stdout
    assert ihmt("sync", "--vault", str(a.root)).returncode == 0
    office = (a.root / "work/office/index.md").read_text()
    assert "[Added on A.](added-on-a.md)" in office and "[Added on B.](added-on-b.md)" in office
    assert Vault.open(a.root).doctor() == []


def test_a_memory_moved_to_different_folders_on_both_machines_syncs_and_is_kept(machines):
    """git's rename/rename conflict leaves the old path with neither side: it goes, the new paths stay."""
    a, b = machines
    wifi = a.memories("work/office")[0]
    for v, folder in ((a, "work/places"), (b, "home/net")):
        (v.root / folder).mkdir(parents=True)
        git(v.root, "mv", wifi["path"], f"{folder}/office-wifi.md")
        git(v.root, "commit", "-q", "-m", f"move to {folder}")
    assert ihmt("sync", "--vault", str(a.root)).returncode == 0
    r = ihmt("sync", "--json", "--vault", str(b.root))
    assert r.returncode == 0, r.stderr
    assert not (b.root / wifi["path"]).exists()
    assert all("tienda-5G" in (b.root / f / "office-wifi.md").read_text() for f in ("work/places", "home/net"))


def test_sync_status_says_ahead_and_behind(machines):
    a, b = machines
    a.save("Only on A.", topic="misc")
    assert ihmt("sync", "--vault", str(a.root)).returncode == 0
    b.save("Only on B.", topic="misc")
    r = ihmt("sync", "--status", "--vault", str(b.root))
    assert r.stdout == "origin/master: 1 ahead, 1 behind, 0 pending edits\n" or r.stdout.endswith(
        ": 1 ahead, 1 behind, 0 pending edits\n"
    )


def test_sync_without_a_remote_is_a_clear_error(vault):
    r = ihmt("sync", "--vault", str(vault.root))
    assert (r.returncode, r.stderr) == (
        2,
        "error: this vault has no git remote; add one with 'git remote add origin URL'\n",
    )


def test_a_hand_commit_of_broken_front_matter_or_a_secret_is_refused_by_the_hook(vault):
    (vault.root / "notes").mkdir()
    (vault.root / "notes/broken.md").write_text("---\ntitle: [oops\n---\nx\n")
    git(vault.root, "add", "notes/broken.md")
    r = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "by hand"],
        cwd=vault.root,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert "error: notes/broken.md: front matter is not valid YAML at line 3" in r.stderr
    git(vault.root, "rm", "-q", "--cached", "notes/broken.md")
    (vault.root / "notes/broken.md").unlink()
    (vault.root / "notes/key.md").write_text("The deploy key is AKIA2E0A8F3B244C9986.\n")
    git(vault.root, "add", "notes/key.md")
    r = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "by hand"],
        cwd=vault.root,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert (
        "error: notes/key.md: contains what looks like an AWS access key (detect-secrets: AWSKeyDetector); "
        "remove it before committing" in r.stderr
    )
    assert commits(vault.root) == ["init: Memory"]
    (vault.root / "notes/key.md").write_text("The deploy key is in 1Password.\n")
    git(vault.root, "add", "notes/key.md")
    git(vault.root, "commit", "-qm", "by hand, fine")
    assert commits(vault.root)[0] == "by hand, fine"


def test_hooks_install_keeps_a_persons_own_hook(tmp_path):
    git(tmp_path, "init", "-q", "repo")
    own = tmp_path / "repo/.git/hooks/pre-commit"
    own.write_text("#!/bin/sh\necho mine\n")
    own.chmod(0o755)
    v = Vault.init(tmp_path / "repo/memory")
    assert own.read_text() == "#!/bin/sh\necho mine\n"
    r = ihmt("hooks", "install", "--json", "--vault", str(v.root))
    import json

    actions = {h["hook"]: h["action"] for h in json.loads(r.stdout)}
    assert actions == {
        "pre-commit": "skipped",
        "post-merge": "unchanged",
        "post-checkout": "unchanged",
        "post-rewrite": "unchanged",
    }


def test_a_plain_git_pull_brings_summaries_and_index_up_to_date_through_the_hook(machines):
    a, b = machines
    a.save("Pulled by plain git on B.", topic="work/infra")
    assert ihmt("sync", "--vault", str(a.root)).returncode == 0
    git(b.root, "pull", "-q", "--no-rebase", "origin", "master")
    with Vault.open(b.root) as v:
        assert v.search("pulled by plain git").hits[0].title == "Pulled by plain git on B."
        assert v.doctor() == []
