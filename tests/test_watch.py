"""The watcher as a real process on real file events: hand edits become commits, summaries, search hits."""

import os
import shutil
import subprocess
import sys
import threading
import time

import pytest
from conftest import commits, git

from ihmt_vault import Vault


class Running:
    def __init__(self, root):
        self.root = root
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "ihmt_vault", "watch", "--debounce", "0.3", "--vault", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for(lambda: any("watching" in l for l in self.lines), "watcher start")

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, condition, what, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; log: {self.lines}")

    def wait_commit(self, subject):
        self.wait_for(lambda: subject in commits(self.root), f"commit {subject!r}")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def watcher(vault):
    w = Running(vault.root)
    yield w
    w.stop()


def test_create_edit_atomic_save_move_and_delete_by_hand(watcher, vault):
    root = vault.root
    (root / "garden").mkdir()
    (root / "garden/tomatoes.md").write_text("# Tomatoes\n\nPlant tomatoes in April, after the last frost.\n")
    watcher.wait_commit("edit: Tomatoes")
    text = (root / "garden/tomatoes.md").read_text()
    assert text.startswith("---\nid: ") and "title: Tomatoes\ncreated: " in text
    assert text.endswith("---\n# Tomatoes\n\nPlant tomatoes in April, after the last frost.\n")
    assert "[Tomatoes](tomatoes.md)" in (root / "garden/index.md").read_text()
    assert "- [Garden](garden/index.md) — 1 memory" in (root / "index.md").read_text()
    memory_id = text.split("id: ", 1)[1].split("\n", 1)[0]

    (root / "garden/tomatoes.md").write_text(text.replace("April", "early May"))  # a plain save
    watcher.wait_for(lambda: len([c for c in commits(root) if c == "edit: Tomatoes"]) == 2, "second edit")
    atomic = root / "garden/.tomatoes.md.tmp"
    atomic.write_text((root / "garden/tomatoes.md").read_text().replace("early May", "mid May"))
    os.replace(atomic, root / "garden/tomatoes.md")  # an editor's atomic save
    watcher.wait_for(lambda: len([c for c in commits(root) if c == "edit: Tomatoes"]) == 3, "atomic save")
    with Vault.open(root) as v:
        assert (
            v.search("when to plant tomatoes")
            .hits[0]
            .body.endswith("Plant tomatoes in mid May, after the last frost.\n")
        )

    (root / "food").mkdir()
    shutil.move(root / "garden/tomatoes.md", root / "food/tomatoes.md")
    watcher.wait_commit("move: Tomatoes")
    assert not (root / "garden").exists()
    with Vault.open(root) as v:
        assert v.get(memory_id).path == "food/tomatoes.md"
        assert [c.op for c in v.history(memory_id)][:2] == ["move", "edit"]

    (root / "food/tomatoes.md").unlink()
    watcher.wait_commit("delete: Tomatoes")
    assert git(root, "status", "--porcelain") == ""
    with Vault.open(root) as v:
        assert v.search("tomatoes").status == "not_found"
        assert v.doctor() == []


def test_broken_front_matter_is_logged_not_committed_and_taken_in_once_fixed(watcher, vault):
    root = vault.root
    (root / "notes").mkdir()
    (root / "notes/broken.md").write_text("---\ntitle: [unclosed\n---\nText.\n")
    watcher.wait_for(
        lambda: any("skipped notes/broken.md: front matter is not valid YAML" in l for l in watcher.lines),
        "the log line",
    )
    assert commits(root) == ["init: Memory"]
    (root / "notes/broken.md").write_text("---\ntitle: Closed now\n---\nText.\n")
    watcher.wait_commit("edit: Closed now")
    assert git(root, "status", "--porcelain") == ""


def test_no_commit_loop_and_saves_by_other_processes_are_not_committed_twice(watcher, vault):
    root = vault.root
    (root / "a").mkdir()
    (root / "a/one.md").write_text("One memory.\n")
    watcher.wait_commit("edit: One memory.")
    subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "save", "Saved by the CLI.", "--topic", "a", "--vault", str(root)],
        check=True,
        capture_output=True,
    )
    before = commits(root)
    time.sleep(10)
    assert commits(root) == before
    assert before[:2] == ["save: Saved by the CLI.", "edit: One memory."]


def test_a_burst_of_500_files_is_a_handful_of_commits(watcher, vault):
    root = vault.root
    (root / "burst").mkdir()
    for i in range(500):
        (root / f"burst/note-{i:03}.md").write_text(f"Burst note number {i} about the warehouse.\n")
    watcher.wait_for(
        lambda: git(root, "status", "--porcelain") == "" and len(git(root, "ls-files", "burst").split()) >= 500,
        "500 files committed",
        timeout=120,
    )
    made = [c for c in commits(root) if c != "init: Memory"]
    assert 1 <= len(made) <= 5
    with Vault.open(root) as v:
        assert v.stats()["memories"] == 500


def test_watch_once_takes_in_what_changed_while_nobody_watched(vault):
    (vault.root / "later").mkdir()
    (vault.root / "later/note.md").write_text("Written while the watcher was off.\n")
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "watch", "--once", "--vault", str(vault.root)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stdout == "edit   later/note.md  Written while the watcher was off.\n"
    assert commits(vault.root)[0] == "edit: Written while the watcher was off."
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "watch", "--once", "--vault", str(vault.root)],
        capture_output=True,
        text=True,
    )
    assert r.stdout == "nothing to take in\n"
