"""A write cut short by a crash is completed by the next write or by `doctor --repair`."""

import json
import signal
import subprocess
import sys
import textwrap

from conftest import commits, git

from ihmt_vault import Vault


def test_interrupted_save_is_completed_by_doctor_repair(vault):
    # What a kill -9 after the file write and before the commit leaves behind.
    (vault.root / "work").mkdir()
    (vault.root / "work/half-saved.md").write_text(
        "---\nid: 01abcdefgh\ntitle: Half saved\ncreated: 2026-01-01T00:00:00Z\n---\nBody.\n"
    )
    journal = vault.root / ".ihmt/cache/journal.jsonl"
    journal.write_text(
        json.dumps({"op": "save", "subject": "save: Half saved", "agent": "codex"})
        + "\n"
        + json.dumps({"path": "work/half-saved.md"})
        + "\n"
    )
    assert [p.kind for p in vault.doctor()][:1] == ["interrupted"]
    vault.doctor(repair=True)
    # finishing the interrupted save fixed everything else it found, so repair needed no commit of its own
    assert commits(vault.root)[:2] == ["save: Half saved", "init: Memory"]
    assert "Recovered: true\nAgent: codex" in git(vault.root, "log", "-1", "--format=%B")
    assert vault.get("01abcdefgh").path == "work/half-saved.md"
    assert not journal.exists()
    assert vault.doctor() == []


def test_the_next_save_completes_an_interrupted_one_first(vault):
    (vault.root / "a").mkdir()
    (vault.root / "a/lost.md").write_text("---\nid: 01lostlost\ntitle: Lost\ncreated: 2026-01-01T00:00:00Z\n---\nx\n")
    (vault.root / ".ihmt/cache/journal.jsonl").write_text(
        '{"op": "save", "subject": "save: Lost", "agent": "ihmt"}\n{"path": "a/lost.md"}\n'
    )
    vault.save("Next one.", topic="a")
    assert commits(vault.root)[:2] == ["save: Next one.", "save: Lost"]
    assert git(vault.root, "status", "--porcelain") == ""


def test_kill_during_a_save_leaves_a_vault_that_doctor_repairs(vault):
    script = textwrap.dedent(f"""
        import os, signal
        from ihmt_vault import Vault
        from ihmt_vault.storage import gitlog
        real = gitlog.Repo.commit
        def dying(self, paths, msg, **kw):
            os.kill(os.getpid(), signal.SIGKILL)
        gitlog.Repo.commit = dying
        Vault.open({str(vault.root)!r}).save("Killed before commit.", topic="crash")
    """)
    r = subprocess.run([sys.executable, "-c", script])
    assert r.returncode == -signal.SIGKILL
    with Vault.open(vault.root) as v:
        assert {p.kind for p in v.doctor()} >= {"interrupted", "uncommitted"}
        v.doctor(repair=True)
        assert v.doctor() == []
        assert [r.title for r in v.catalog.all()] == ["Killed before commit."]
    assert git(vault.root, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--no-progress"], cwd=vault.root, check=True, capture_output=True)


def test_deleted_cache_is_rebuilt_and_nothing_is_lost(vault):
    m = vault.save("Espresso: 18 g in, 36 g out.", topic="coffee")
    vault.close()
    import shutil

    shutil.rmtree(vault.root / ".ihmt/cache")
    with Vault.open(vault.root) as v:
        assert v.get(m.id).title == "Espresso: 18 g in, 36 g out."
        assert v.search("espresso").hits[0].id == m.id


def test_a_damaged_private_git_index_is_rebuilt_from_head(vault):
    vault.save("Before the damage.", topic="t")
    (vault.repo.git_dir / "ihmt-index").write_bytes(b"DIRC garbage")  # the vault's own index, a cache
    m = vault.save("After the damage.", topic="t")
    assert commits(vault.root)[0] == "save: After the damage."
    assert git(vault.root, "status", "--porcelain") == ""
    assert vault.get(m.id).title == "After the damage."
