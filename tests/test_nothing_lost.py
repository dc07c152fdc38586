"""Nothing lost: races with a person, another writer or a crash, and a vault that never gets stuck.

One test per class of failure an adversarial run found (reserved names, a person's commit racing a
save, lost updates, undo of someone else's operation, imports cut short or run twice, journals that
cannot be replayed, long file names, hostile settings, interrupted merges, bad import lines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import commits, git

from ihmt_vault import BadInput, Vault
from ihmt_vault.storage import notes


def ihmt(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, cwd=cwd)


# -- 1. reserved names --------------------------------------------------------------------------------
@pytest.mark.parametrize("title", ["Index", "index", "README", "Readme"])
def test_a_title_that_slugs_to_a_reserved_name_never_takes_that_file(vault, title):
    m = vault.save("Door code is kept in the office safe.", title=title, topic="lab")
    assert m.path == f"lab/{title.lower()}-note.md"
    summary = (vault.root / "lab/index.md").read_text()
    assert "\ngenerated: true\n" in summary.split("\n---\n")[0] and f"({title.lower()}-note.md)" in summary
    assert vault.get(m.id).title == title and vault.doctor() == []


# -- 2. a person's git commit racing a save ---------------------------------------------------------
def test_a_save_during_a_persons_git_commit_lands_and_their_index_keeps_the_memory(vault):
    """A save made while a person's `git commit` is under way: it waits while their git holds
    .git/index.lock, and either their commit lands first and ours goes on top, or git refuses theirs
    in its own words; either way the person's index lists the memory and their next commit keeps it."""
    (vault.root / "mine.txt").write_text("a file of the person's\n")
    git(vault.root, "add", "mine.txt")
    editor = f"{sys.executable} -c \"import sys, time; time.sleep(1.5); open(sys.argv[1], 'w').write('by hand')\""
    person = subprocess.Popen(
        ["git", "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q"],
        cwd=vault.root,
        env={**os.environ, "GIT_EDITOR": editor},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120  # a hang guard: a loaded machine starts git slowly
    while not (vault.root / ".git/index.lock").exists() and person.poll() is None:
        assert time.monotonic() < deadline, "git commit never took .git/index.lock"
        time.sleep(0.02)
    saved = ihmt("save", "Staging runs PostgreSQL 17.", "--topic", "work", "--vault", str(vault.root))
    _, person_err = person.communicate()
    assert (saved.returncode, saved.stderr) == (0, "")
    if person.returncode == 0:  # their commit landed first, ours on top of it
        assert commits(vault.root)[:2] == ["save: Staging runs PostgreSQL 17.", "by hand"]
    else:  # or git refused theirs, in its own words; their change stays staged
        assert "cannot lock ref 'HEAD'" in person_err, person_err
        assert commits(vault.root)[0] == "save: Staging runs PostgreSQL 17."
        git(vault.root, "commit", "-q", "-m", "by hand")
    assert "work/staging-runs-postgresql-17.md" in git(vault.root, "ls-files").splitlines()
    git(vault.root, "commit", "-q", "--allow-empty", "-m", "the person's next commit")
    tracked = git(vault.root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    assert "work/staging-runs-postgresql-17.md" in tracked and "mine.txt" in tracked
    assert git(vault.root, "status", "--porcelain") == ""


# -- 3. lost update ------------------------------------------------------------------------------------
def test_a_persons_edit_between_read_and_write_is_kept(vault, monkeypatch):
    m = vault.save("Ana uses Neovim.", topic="people")
    file = vault.root / m.path
    real = notes.update_front_matter
    calls = []

    def racing(text, changes, remove=(), path=""):
        out = real(text, changes, remove, path)
        if not calls:  # the person saves the file just after ihmt read it
            file.write_text(file.read_text() + "She switched to Helix in May.\n")
        calls.append(path)
        return out

    monkeypatch.setattr(notes, "update_front_matter", racing)
    vault.pin(m.id)
    text = file.read_text()
    assert "pinned: true" in text and text.endswith("Ana uses Neovim.\nShe switched to Helix in May.\n")
    assert len(calls) == 2


# -- 4. undo undoes the caller's own operation --------------------------------------------------------
def test_undo_reverts_the_callers_last_operation_not_the_watchers(vault):
    mine = vault.save("Deploys happen on Tuesdays.", topic="work")
    (vault.root / "work/by-hand.md").write_text("# Kettle\nThe kettle is descaled monthly.\n")
    vault.reconcile(None)  # the watcher's commit (Agent: watch)
    r = vault.undo()
    assert r.subject == "save: Deploys happen on Tuesdays."
    assert not (vault.root / mine.path).exists() and (vault.root / "work/by-hand.md").exists()


def test_a_second_undo_steps_further_back(vault):
    vault.save("First fact.", topic="t")
    vault.save("Second fact.", topic="t")
    assert vault.undo().subject == "save: Second fact."
    assert vault.undo().subject == "save: First fact."
    assert [m["title"] for m in vault.memories()] == []


def test_undo_of_another_agents_operation_needs_force(vault):
    vault.save("Saved by an agent.", topic="t", source="claude-code")
    with pytest.raises(BadInput) as e:
        vault.undo()
    assert str(e.value) == (
        "nothing of ihmt's to undo; the last operation "
        f"({git(vault.root, 'rev-parse', 'HEAD').strip()[:10]} 'save: Saved by an agent.') was made "
        "by claude-code: undo it with --force, or name it with --commit"
    )
    assert vault.undo(force=True).subject == "save: Saved by an agent."


def test_undo_refuses_when_someone_changed_the_files_since(vault):
    m = vault.save("Coffee: flat white.", topic="food")
    path = vault.root / m.path
    path.write_text(path.read_text() + "Oat milk.\n")
    vault.reconcile(None)
    with pytest.raises(BadInput) as e:
        vault.undo()
    assert "changed again after" in str(e.value) and "use --force" in str(e.value)
    assert path.read_text().endswith("Oat milk.\n")


# -- 6. imports: all or none, and never twice --------------------------------------------------------
def test_the_same_import_twice_adds_nothing(vault, tmp_path):
    file = tmp_path / "m.jsonl"
    file.write_text(
        "".join(json.dumps({"text": f"Imported fact number {i}.", "topic": "imp"}) + "\n" for i in range(5))
    )
    first = vault.import_file(file).memories
    head = git(vault.root, "rev-parse", "HEAD")
    again = vault.import_file(file).memories
    assert [m.id for m in again] == [m.id for m in first]
    assert git(vault.root, "rev-parse", "HEAD") == head and commits(vault.root)[0] == "import: 5 memories"


def test_an_import_holding_a_line_twice_saves_it_once(vault):
    ms = vault.save_many(
        [
            {"text": "Same line.", "topic": "t"},
            {"text": "same   LINE.", "topic": "t"},
            {"text": "Other line.", "topic": "t"},
        ]
    )
    assert ms[0].id == ms[1].id != ms[2].id
    assert commits(vault.root)[0] == "import: 2 memories (1 already there)"


def test_an_import_cut_short_by_a_crash_is_rolled_back_on_the_next_write(vault):
    """The journal of an import that never committed: its files go, nothing half-imported stays."""
    for i in range(3):
        (vault.root / "imp").mkdir(exist_ok=True)
        (vault.root / f"imp/half-{i}.md").write_text(f"---\nid: 0000000000ab{i}\ntitle: Half {i}\n---\nHalf {i}.\n")
    journal = vault.root / ".ihmt/cache/journal.jsonl"
    journal.write_text(
        json.dumps({"op": "import", "subject": "import: 10 memories", "agent": "ihmt"})
        + "\n"
        + "".join(json.dumps({"path": f"imp/half-{i}.md"}) + "\n" for i in range(3))
    )
    vault.save("After the crash.", topic="t")
    assert not (vault.root / "imp").exists() and not journal.exists()
    assert commits(vault.root)[0] == "save: After the crash." and vault.doctor() == []


def test_an_import_reports_each_refused_line_and_saves_the_rest(vault, tmp_path):
    file = tmp_path / "m.jsonl"
    file.write_text(
        json.dumps({"text": "The staging DB is db-staging-2.", "topic": "imp"})
        + "\n"
        + json.dumps({"text": "Connect with postgres://app:Xk9#mQ2vLp7@db:5432/shop", "topic": "imp"})
        + "\n"
        + json.dumps({"text": "", "topic": "imp"})
        + "\n"
    )
    r = vault.import_file(file)
    assert [m.title for m in r.memories] == ["The staging DB is db-staging-2."]
    assert [x.split(";")[0] for x in r.refused] == [
        "line 2: the text contains what looks like a password in a URL",
        "line 3: the memory text is empty",
    ]
    assert "Xk9#mQ2vLp7" not in " ".join(r.refused)


def test_a_strict_import_refuses_the_whole_file(vault, tmp_path):
    file = tmp_path / "m.jsonl"
    file.write_text(
        json.dumps({"text": "Fine.", "topic": "imp"}) + "\n" + json.dumps({"text": "", "topic": "imp"}) + "\n"
    )
    head = git(vault.root, "rev-parse", "HEAD")
    with pytest.raises(BadInput) as e:
        vault.import_file(file, strict=True)
    assert str(e.value) == "line 2: the memory text is empty; give the text to remember"
    assert git(vault.root, "rev-parse", "HEAD") == head


# -- 8. nothing blocks the vault ----------------------------------------------------------------------
@pytest.mark.parametrize("title", ["bad\0title", "bell\x07", "esc\x1b[31m"])
def test_a_control_character_in_a_title_is_refused_and_blocks_nothing(vault, title):
    with pytest.raises(BadInput):
        vault.save("A memory.", title=title, topic="t")
    assert vault.save("The next save works.", topic="t").id


def test_a_journal_that_cannot_be_replayed_is_set_aside_not_a_block(vault):
    journal = vault.root / ".ihmt/cache/journal.jsonl"
    journal.write_text('{"op": "save", "subject": "save: x", "agent": "ihmt"}\n{"path": "t/bad\\u0000name.md"}\n')
    assert vault.save("The vault goes on.", topic="t").id
    [aside] = list((vault.root / ".ihmt/cache").glob("journal-*.set-aside.jsonl"))
    assert [(p.kind, p.path) for p in vault.doctor()] == [("set-aside", aside.relative_to(vault.root).as_posix())]


def test_a_hand_made_file_with_a_250_character_name_is_taken_in(vault):
    name = "n" * 247 + ".md"
    (vault.root / "long").mkdir()
    (vault.root / "long" / name).write_text("A note with a very long file name.\n")
    r = ihmt("watch", "--once", "--vault", str(vault.root))
    assert (r.returncode, r.stderr) == (0, "")
    assert f"long/{name}" in git(vault.root, "ls-files").splitlines()
    assert ihmt("doctor", "--repair", "--vault", str(vault.root)).returncode == 0


# -- 10 / 14. settings and bad input ------------------------------------------------------------------
def test_a_title_with_quotes_makes_a_valid_config(tmp_path):
    r = ihmt("init", str(tmp_path / "v"), "--title", 'My "vault" \\ notes')
    assert r.returncode == 0, r.stderr
    with Vault.open(tmp_path / "v") as v:
        assert v.config.title == 'My "vault" \\ notes'


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_non_finite_setting_is_one_clear_error(vault, value):
    (vault.root / ".ihmt/config.toml").write_text(f"[vault]\nlock_timeout = {value}\n")
    r = ihmt("stats", "--vault", str(vault.root))
    assert r.returncode == 2
    assert r.stderr == f"error: .ihmt/config.toml: lock_timeout must be a finite number, not {float(value)}\n"


def test_save_many_of_something_that_is_not_a_memory_is_bad_input(vault):
    with pytest.raises(BadInput) as e:
        vault.save_many(["just a string"])
    assert str(e.value) == "item 1: is not a memory (give an object with a 'text' key)"


@pytest.mark.parametrize("flag, pinned", [("no", False), ("false", False), (False, False), ("yes", True), (True, True)])
def test_an_import_lines_pinned_flag_means_what_it_says(vault, flag, pinned):
    [m] = vault.save_many([{"text": f"Pinned is {flag!r}.", "topic": "t", "pinned": flag}])
    assert m.pinned is pinned


def test_an_import_line_that_supersedes_itself_is_refused(vault):
    with pytest.raises(BadInput) as e:
        vault.save_many([{"id": "selfref0001", "text": "I correct myself.", "supersedes": ["selfref0001"]}])
    assert str(e.value) == "item 1: supersedes itself (selfref0001); a memory cannot correct itself"


def test_doctor_breaks_a_loop_of_corrections_keeping_the_newest(vault):
    a = vault.save("Office in Madrid.", topic="work", date="2024-01-01")
    b = vault.save("Office in Valencia.", topic="work", date="2025-01-01")
    for m, other in ((a, b), (b, a)):  # each claims to correct the other, by hand
        file = vault.root / m.path
        file.write_text(notes.update_front_matter(file.read_text(), {"supersedes": [other.id]}))
    vault.reconcile(None)
    assert [p.kind for p in vault.doctor()].count("cycle") == 1
    vault.doctor(repair=True)
    assert vault.doctor() == []
    assert (vault.get(b.id).status, vault.get(b.id).supersedes) == ("active", [a.id])
    assert (vault.get(a.id).status, vault.get(a.id).superseded_by, vault.get(a.id).supersedes) == (
        "outdated",
        [b.id],
        [],
    )


def test_doctor_gives_an_id_that_is_a_list_a_real_one(vault):
    (vault.root / "t").mkdir()
    (vault.root / "t/two-ids.md").write_text("---\nid: [aaaaaaa1, bbbbbbb2]\ntitle: Two ids\n---\nWhich one?\n")
    assert ("missing-keys", "t/two-ids.md") in [(p.kind, p.path) for p in vault.doctor()]
    vault.doctor(repair=True)
    m = vault.get("t/two-ids.md")
    assert notes.ID_PATTERN.match(m.id) and vault.doctor() == []


# -- 11 / 13. sync: one at a time, interrupted merges, undo after a merge -----------------------------
def _two_clones(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a = tmp_path / "a"
    Vault.init(a).close()
    git(a, "remote", "add", "origin", str(remote))
    assert ihmt("sync", "--vault", str(a)).returncode == 0
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    Vault.init(b).close()
    return a, b


def test_two_syncs_at_once_take_turns(tmp_path):
    a, b = _two_clones(tmp_path)
    with Vault.open(a) as v:
        v.save("Saved on machine A.", topic="t")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "ihmt_vault", "sync", "--vault", str(a)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [p.communicate() + (p.returncode,) for p in procs]
    assert [(rc, err) for _, err, rc in results] == [(0, ""), (0, "")]


def test_an_interrupted_sync_merge_is_finished_by_doctor(tmp_path):
    a, b = _two_clones(tmp_path)
    with Vault.open(a) as v:
        v.save("Saved on machine A.", topic="t")
    assert ihmt("sync", "--vault", str(a)).returncode == 0
    with Vault.open(b) as v:
        v.save("Saved on machine B.", topic="u")
    git(b, "fetch", "-q", "origin")
    git(b, "-c", "merge.ihmt-summary.driver=true", "merge", "-q", "--no-ff", "--no-commit", "origin/master")
    assert (b / ".git/MERGE_HEAD").exists()  # as a kill -9 during the merge leaves it
    r = ihmt("doctor", "--vault", str(b))
    assert "merge" in r.stdout and "interrupted" in r.stdout
    assert ihmt("doctor", "--repair", "--vault", str(b)).returncode == 0
    assert not (b / ".git/MERGE_HEAD").exists()
    assert len(git(b, "rev-list", "--parents", "-n", "1", "HEAD").split()) == 3  # a merge commit
    assert ihmt("sync", "--vault", str(b)).returncode == 0
    with Vault.open(b) as v:
        assert sorted(m["title"] for m in v.memories()) == ["Saved on machine A.", "Saved on machine B."]


def test_undo_right_after_a_sync_merge_says_it_cannot(tmp_path):
    a, b = _two_clones(tmp_path)
    with Vault.open(a) as v:
        v.save("Saved on machine A.", topic="t")
    ihmt("sync", "--vault", str(a))
    with Vault.open(b) as v:
        v.save("Saved on machine B.", topic="u")
    assert ihmt("sync", "--vault", str(b)).returncode == 0
    r = ihmt("undo", "--vault", str(b), "--source", "sync")
    assert r.returncode == 2 and "is a sync merge; undoing it would drop the other machine's changes" in r.stderr


# -- 15. what two machines leave behind after a sync -------------------------------------------------
def _shared_memory(tmp_path: Path, text: str) -> tuple[Path, Path, str]:
    a, b = _two_clones(tmp_path)
    with Vault.open(a) as v:
        mid = v.save(text, topic="work").id
    assert ihmt("sync", "--vault", str(a)).returncode == 0
    assert ihmt("sync", "--vault", str(b)).returncode == 0
    return a, b, mid


def _sync_both(a: Path, b: Path) -> None:
    for root in (a, b, a):
        r = ihmt("sync", "--vault", str(root))
        assert r.returncode == 0, r.stderr


def test_both_machines_correcting_one_memory_leave_both_corrections_recorded(tmp_path):
    a, b, old = _shared_memory(tmp_path, "Production is hosted at Hetzner.")
    with Vault.open(a) as v:
        n1 = v.save("Production moved to OVH in March.", topic="work", supersedes=[old]).id
    with Vault.open(b) as v:
        n2 = v.save("Production is hosted at OVH, in Gravelines.", topic="work", supersedes=[old]).id
    _sync_both(a, b)
    for root in (a, b):
        with Vault.open(root) as v:
            o = v.get(old)
            assert (o.status, sorted(o.superseded_by)) == ("outdated", sorted([n1, n2]))
            assert not [m for m in v.memories() if "conflict" in m["path"]]
            assert v.doctor() == []


def test_archived_on_one_machine_and_pinned_on_the_other_stays_live_and_pinned(tmp_path):
    a, b, mid = _shared_memory(tmp_path, "The backup key lives in the office safe.")
    with Vault.open(a) as v:
        v.archive(mid)
    with Vault.open(b) as v:
        v.pin(mid)
    _sync_both(a, b)
    for root in (a, b):
        with Vault.open(root) as v:
            m = v.get(mid)
            assert (m.pinned, m.status, m.folder) == (True, "active", "work")
            assert v.doctor() == []


def test_archived_on_one_machine_and_edited_on_the_other_leaves_no_stale_summary(tmp_path):
    a, b, mid = _shared_memory(tmp_path, "The VPN uses WireGuard.")
    with Vault.open(a) as v:
        v.archive(mid)
    with Vault.open(b) as v:
        file = b / v.get(mid).path
        file.write_text(file.read_text() + "Port 51820.\n")
        v.reconcile(None)
    _sync_both(a, b)
    for root in (a, b):
        with Vault.open(root) as v:
            assert v.doctor() == []
            assert v.get(mid).body.endswith("Port 51820.\n")


def test_attachments_and_obsidian_settings_are_committed_its_workspace_is_not(vault):
    (vault.root / "work").mkdir()
    (vault.root / "work/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    (vault.root / ".obsidian").mkdir()
    (vault.root / ".obsidian/app.json").write_text('{"attachmentFolderPath": "work"}\n')
    (vault.root / ".obsidian/workspace.json").write_text('{"active": "x"}\n')
    vault.reconcile(None)
    assert {"work/diagram.png", ".obsidian/app.json"} <= set(git(vault.root, "ls-files").splitlines())
    assert git(vault.root, "status", "--porcelain") == ""  # workspace.json is ignored
