"""The metabolism: recalls, weights, decay into the archive, core memories, restore, dedupe, the log.

Time is set with the one clock (`clock.frozen`); no test sleeps.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import commits, git

from ihmt_vault import Vault, clock

T0 = "2027-01-10T09:00:00"
LATER = "2027-03-15T09:00:00"  # 64 days on: past the 30-day grace, weeks idle


@pytest.fixture
def aged(tmp_path):
    """A vault with three memories saved on T0, auto decay off (each test runs it)."""
    with clock.frozen(T0):
        v = Vault.init(tmp_path / "v")
        (v.root / ".ihmt/config.toml").write_text(
            (v.root / ".ihmt/config.toml").read_text().replace("auto_decay = true", "auto_decay = false")
        )
        v.close()
        v = Vault.open(tmp_path / "v")
        ids = [
            v.save(t, topic="work").id
            for t in ("The printer is on floor 2.", "Standups are at 9:30.", "The VPN uses WireGuard on port 51820.")
        ]
    yield v, ids
    v.close()


def test_a_memory_never_recalled_sinks_into_the_archive_in_one_commit(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(LATER):
        report = v.decay()
    assert sorted(w.id for w in report.archived) == sorted([printer, standup, vpn])
    assert commits(v.root)[0] == "decay: archived 3 memories"
    assert all(v.get(i).folder == "archive/work" and v.get(i).status == "archived" for i in (printer, standup, vpn))
    assert git(v.root, "log", "-1", "--format=%B").count("Memory-Id: ") == 3


def test_a_pinned_memory_never_decays(aged):
    v, (printer, standup, vpn) = aged
    v.pin(vpn)
    with clock.frozen(LATER):
        report = v.decay()
    assert vpn not in [w.id for w in report.archived] and v.get(vpn).folder == "work"


def test_recalls_raise_the_weight_and_keep_a_memory_live(aged):
    v, (printer, standup, vpn) = aged
    for day in ("2027-02-20", "2027-03-01", "2027-03-10"):
        with clock.frozen(day + "T10:00:00"):
            assert v.search("which port does the VPN use").hits[0].id == vpn
    with clock.frozen(LATER):
        weights = {w.id: w for w in v.weights()}
        assert (weights[vpn].recalls, weights[vpn].weight) == (3, 6.0)
        report = v.decay()
    assert vpn not in [w.id for w in report.archived] and v.get(vpn).folder == "work"


def test_a_memory_younger_than_the_grace_period_never_decays(aged):
    v, _ = aged
    with clock.frozen("2027-02-05T09:00:00"):  # 26 days old, idle since saved
        assert v.decay(dry_run=True).archived == []


def test_a_memory_a_live_one_supersedes_or_links_to_is_protected(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(T0):
        v.save("The printer moved to floor 3.", topic="work", supersedes=[printer])
        v.save("Standups: see [[Standups are at 9:30.]] for the time.", topic="work")
    with clock.frozen(LATER):
        archived = [w.id for w in v.decay(dry_run=True).archived]
    assert printer not in archived and standup not in archived and vpn in archived


def test_a_dry_run_changes_nothing(aged):
    v, _ = aged
    head = git(v.root, "rev-parse", "HEAD")
    with clock.frozen(LATER):
        assert len(v.decay(dry_run=True).archived) == 3
    assert git(v.root, "rev-parse", "HEAD") == head


def test_an_archived_memory_read_in_full_comes_back_in_one_restore_commit(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(LATER):
        v.decay()
        m = v.show(vpn)
    assert m.folder == "work" and m.notices == ["Restored from the archive to work/."]
    assert commits(v.root)[0] == "restore: The VPN uses WireGuard on port 51820."


def test_an_archived_answer_comes_back_on_its_first_recall(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(LATER):
        v.decay()
        assert v.get(vpn).folder == "archive/work"
        first = v.search("wireguard port")
    assert first.archived_fallback and first.hits[0].notices == ["Restored from the archive to work/."]
    assert v.get(vpn).folder == "work" and commits(v.root)[0].startswith("restore: ")


def test_the_recall_counts_survive_a_rebuild_and_a_lost_cache(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen("2027-02-01T10:00:00"):
        v.search("which port does the VPN use")
        v.save("Something else.", topic="misc")  # the counts travel with the next commit
    v.rebuild()
    v.close()
    shutil.rmtree(v.root / ".ihmt/cache")
    with Vault.open(v.root) as again:
        assert {w.id: w.recalls for w in again.weights()}[vpn] == 1
    assert any(p.startswith(".ihmt/stats/") for p in git(v.root, "ls-files").splitlines())


def test_two_machines_recalling_different_memories_sync_without_a_conflict(tmp_path, monkeypatch):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with Vault.init(tmp_path / "a") as a:
        git(a.root, "remote", "add", "origin", str(remote))
        printer = a.save("The printer is on floor 2.", topic="work").id
        vpn = a.save("The VPN uses WireGuard on port 51820.", topic="work").id
        a.sync()
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / "b")], check=True)
    with Vault.open(tmp_path / "a") as a:
        a.search("where is the printer")
        a.save("A saves something.", topic="misc")
    monkeypatch.setenv("HOME", str(tmp_path / "home-b"))  # another machine: another stats file
    with Vault.init(tmp_path / "b") as b:
        b.search("which port does the VPN use")
        b.save("B saves something.", topic="misc")
        b.sync()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with Vault.open(tmp_path / "a") as a:
        report = a.sync()
        assert report.conflicts == []
        recalls = {w.id: w.recalls for w in a.weights()}
    assert (recalls[printer], recalls[vpn]) == (1, 1)


def test_saving_the_same_text_again_is_a_recall_not_a_second_file(vault):
    first = vault.save("Deploys happen on Tuesdays.", topic="work")
    head = git(vault.root, "rev-parse", "HEAD")
    again = vault.save("deploys happen   on tuesdays.", topic="other")
    assert again.id == first.id and again.notices == [
        f"Already remembered as {first.id} ({first.path}); nothing saved."
    ]
    assert git(vault.root, "rev-parse", "HEAD") == head
    assert {w.id: w.recalls for w in vault.weights()}[first.id] == 1


def test_a_near_duplicate_is_reported_with_its_id(vault):
    first = vault.save(
        "The staging database runs PostgreSQL 17 on db-staging-2.", title="Staging database", topic="work"
    )
    second = vault.save(
        "The staging database runs PostgreSQL 17 on db-staging-2 now.", title="Staging database", topic="work"
    )
    assert second.id != first.id and second.notices[0].startswith(f"Near-duplicate of {first.id} 'Staging database'")


def test_every_decay_run_that_archives_writes_one_line_to_the_operations_log(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(LATER):
        v.decay()
        v.decay()  # nothing more to do: no line
    lines = [l for l in (v.root / "operations.md").read_text().splitlines() if l.startswith("- ")]
    assert len(lines) == 1 and lines[0].startswith("- 2027-03-15 09:00 UTC · decay · archived 3 memories: ")
    assert "operations.md" in git(v.root, "ls-files").splitlines()


def test_expiry_deletes_archived_memories_not_recalled_for_that_long(aged):
    v, (printer, standup, vpn) = aged
    with clock.frozen(LATER):
        v.decay()
    config = v.root / ".ihmt/config.toml"
    config.write_text(config.read_text().replace("archive_expiry_days = 0", "archive_expiry_days = 365"))
    with Vault.open(v.root) as again, clock.frozen("2028-04-01T09:00:00"):
        report = again.decay()
        assert sorted(w.id for w in report.expired) == sorted([printer, standup, vpn])
        assert again.memories() == []


def test_past_max_live_the_lightest_memories_go_first(aged):
    v, (printer, standup, vpn) = aged
    config = v.root / ".ihmt/config.toml"
    config.write_text(config.read_text().replace("max_live = 10000", "max_live = 2"))
    with Vault.open(v.root) as again:
        with clock.frozen("2027-02-20T09:00:00"):
            again.search("which port does the VPN use")
            again.search("when are standups")
        with clock.frozen("2027-02-21T09:00:00"):  # all still above the threshold: the cap decides
            assert [w.id for w in again.decay(dry_run=True).archived] == [printer]


def test_decay_runs_on_its_own_once_a_day_after_a_write_never_during_a_search(tmp_path):
    with clock.frozen(T0):
        v = Vault.init(tmp_path / "v")
        old = v.save("The printer is on floor 2.", topic="work").id
    with clock.frozen(LATER):
        v.search("holidays in august")  # a search never decays
        assert v.get(old).folder == "work"
        v.save("Lunch is at noon.", topic="misc")  # the day's first write does
        assert v.get(old).folder == "archive/work"
        assert commits(v.root)[:2] == ["decay: archived 1 memory", "save: Lunch is at noon."]
        v.save("Coffee is free.", topic="misc")  # once a day
        assert commits(v.root)[0] == "save: Coffee is free."
    v.close()


def test_ihmt_now_sets_the_clock_of_the_cli(tmp_path):
    root = tmp_path / "v"

    def env_run(*a):
        return subprocess.run(
            [sys.executable, "-m", "ihmt_vault", *a, "--vault", str(root), "--json"],
            capture_output=True,
            text=True,
            env={**__import__("os").environ, "IHMT_NOW": "2030-05-01"},
        )

    Vault.init(root).close()
    r = env_run("save", "Time travel test.", "--topic", "t")
    assert r.returncode == 0, r.stderr
    assert '"created": "2030-05-01T12:00:00Z"' in r.stdout


def test_the_brief_shows_the_most_recalled_memories(vault):
    vpn = vault.save("The VPN uses WireGuard on port 51820.", topic="work").id
    vault.save("The printer is on floor 2.", topic="work")
    for _ in range(2):
        vault.search("which port does the VPN use")
    brief = vault.brief()
    assert f"## work/ — 2 memories\n- 2× The VPN uses WireGuard on port 51820. ({vpn})\n" in brief


def test_one_decay_run_is_one_commit_even_with_auto_decay_on(tmp_path):
    with clock.frozen(T0):
        v = Vault.init(tmp_path / "v")  # auto_decay = true: the run's own commit must not start another run
        for text in ("The printer is on floor 2.", "Standups are at 9:30.", "The VPN uses WireGuard on port 51820."):
            v.save(text, topic="work")
        before = len(commits(v.root))
    with clock.frozen(LATER):
        report = v.decay()
    assert len(report.archived) == 3
    assert commits(v.root)[: len(commits(v.root)) - before] == ["decay: archived 3 memories"]
    v.close()


def test_what_a_run_leaves_unprotected_waits_for_the_next_run_not_a_second_commit(tmp_path):
    with clock.frozen(T0):
        v = Vault.init(tmp_path / "v")  # auto_decay = true
        floor = v.save("Floor 2 hosts the printer room.", topic="office").id
        v.save("Where to print: see [[Floor 2 hosts the printer room.]]", topic="office")
    with clock.frozen(LATER):
        report = v.decay()
        assert [w.title for w in report.archived] == ["Where to print: see [[Floor 2 hosts the printer room.]]"]
        assert commits(v.root)[0] == "decay: archived 1 memory"
        assert commits(v.root)[1] == "save: Where to print: see [[Floor 2 hosts the printer room.]]"
        assert v.get(floor).folder == "office"
    with clock.frozen("2027-03-16T09:00:00"):
        assert [w.id for w in v.decay().archived] == [floor]
    v.close()
