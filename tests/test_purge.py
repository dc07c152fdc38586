"""`forget --purge` leaves no copy of the text anywhere a clone, a backup of the folder or the site
could reach — each way the text used to survive, one test — and says so with its own proof.

`traces()` is the check, independent of the purge's own: every git object of the repository
(reachable or not: `git cat-file --batch-all-objects --batch`), every other file under `.git`, and
every file of the vault folder (caches included), searched case-insensitively for the needles.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import commits, git

from ihmt_vault import Vault, VaultError
from ihmt_vault.ops import purge as purging

TITLE = "Spare key"
TEXT = "Grandma keeps the spare key under the blue Quokka statue in Zanzibar street."
NEEDLES = ("quokka", "zanzibar", "spare key", "spare-key")  # none of them may be found after the purge
WHOLE = "grandma keeps the spare key"  # found only where a whole version survives
OTHER = "The office is at Calle Mayor 5."
YES = lambda n: True  # noqa: E731  (confirm every purge)


def traces(root: Path, *needles: str) -> list[str]:
    """Where any needle is found, lower-cased: git objects, other files under .git, the folder's files."""
    needles = needles or NEEDLES
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root, capture_output=True, check=True
    ).stdout.lower()
    found = [f"git objects: {n}" for n in needles if n.encode() in objects]
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = file.relative_to(root).as_posix()
        if rel.startswith((".git/objects/", "objects/")):
            continue
        data = file.read_bytes().lower()
        found += [f"{rel}: {n}" for n in needles if n.encode() in data]
    return found


def purge(v: Vault, id_: str, route: str = WHOLE) -> purging.PurgeReport:
    """Purge, then check: the way under test first (`route`), then every needle, then the purge's own proof."""
    report = v.forget(id_, purge=True, confirm=YES)
    assert traces(v.root, route) == []
    assert traces(v.root) == []
    assert report.purged and report.traces == 0, report.trace_locations
    return report


# -- each way the text survived a purge -----------------------------------------------------------------
def test_a_version_committed_by_hand_before_it_had_an_id_is_purged_too(vault):
    note = vault.root / "home/spare-key.md"
    note.parent.mkdir()
    note.write_text(TEXT + "\n")  # no front matter: no id yet
    git(vault.root, "add", "home/spare-key.md")
    git(vault.root, "commit", "-q", "-m", "a note written by hand")
    vault.doctor(repair=True)  # gives it an id, title and created
    m = vault.get("home/spare-key.md")
    assert m.id and "id:" not in git(vault.root, "show", "HEAD~1:home/spare-key.md")
    purge(vault, m.id)
    assert commits(vault.root)[-2] == "a note written by hand"  # the person's commit stays, emptied


@pytest.mark.parametrize("layout", ["byte-order mark", "comment after the id"])
def test_a_version_saved_with_a_byte_order_mark_or_a_comment_after_its_id_is_purged_too(vault, layout):
    m = vault.save(TEXT, title=TITLE, topic="home")
    file = vault.root / m.path
    text = file.read_text(encoding="utf-8").replace("blue Quokka", "big blue Quokka")
    if layout == "byte-order mark":
        text = "\ufeff" + text
    else:
        text = text.replace(f"id: {m.id}\n", f"id: {m.id}  # keep this id\n")
    file.write_text(text, encoding="utf-8")
    vault.reconcile()  # committed as the person's edit
    assert "big blue Quokka" in git(vault.root, "show", f"HEAD:{m.path}")
    purge(vault, m.id, route="big blue quokka")


def test_a_conflict_copy_goes_with_the_memory_it_is_a_copy_of(vault):
    m = vault.save(TEXT, title=TITLE, topic="home")
    copy = vault.root / "home/spare-key-conflict-copy.md"
    copy.write_text(
        f"---\nid: 1zzzzzzzzzzzz\ntitle: {TITLE} (conflict copy)\nconflict_of: {m.id}\n---\n{TEXT} Behind the gate.\n",
        encoding="utf-8",
    )
    vault.reconcile()
    report = purge(vault, m.id, route="behind the gate")
    assert report.removed == ["home/spare-key-conflict-copy.md", "home/spare-key.md"]
    assert not copy.exists()
    tombs = json.loads((vault.root / ".ihmt/purged.json").read_text())["purged"]
    assert [(t["id"], t["copies"]) for t in tombs] == [(m.id, ["1zzzzzzzzzzzz"])]


def test_a_copy_of_its_text_kept_by_hand_under_another_name_is_found_by_content(vault):
    m = vault.save(TEXT, title=TITLE, topic="home")
    (vault.root / "notes-backup.txt").write_text(f"{TEXT}\n")  # no front matter, not a memory path
    git(vault.root, "add", "notes-backup.txt")
    git(vault.root, "commit", "-q", "-m", "a backup")
    git(vault.root, "rm", "-q", "notes-backup.txt")
    git(vault.root, "commit", "-q", "-m", "backup removed")
    copy = git(vault.root, "rev-parse", "HEAD~1:notes-backup.txt").strip()
    purge(vault, m.id)
    tombs = json.loads((vault.root / ".ihmt/purged.json").read_text())["purged"]
    assert copy in tombs[0]["blobs"]  # sync will refuse it too
    assert git(vault.root, "status", "--porcelain") == ""


def test_the_keywords_it_gave_summaries_are_scrubbed_even_lower_cased(vault):
    m = vault.save(TEXT, title=TITLE, topic="home")
    vault.save(OTHER, topic="home")
    summary = (vault.root / "home/index.md").read_text()
    assert "quokka" in summary.split("---")[1] and "quokka" not in summary.split("---", 2)[2]  # keywords only
    purge(vault, m.id, route="quokka")
    assert "calle" in (vault.root / "home/index.md").read_text()  # the other memory's keywords stay


def test_the_site_output_and_staging_are_cleared(vault):
    from ihmt_vault.frontends.site import build_site

    m = vault.save(TEXT, title=TITLE, topic="home")
    build_site(vault)
    cache = vault.root / ".ihmt/cache"
    assert "Quokka" in (cache / "site/search/search_index.json").read_text()
    assert "Quokka" in (cache / "site-src/docs/home/spare-key.md").read_text()
    report = purge(vault, m.id, route="quokka statue")
    assert report.caches_cleared == [".ihmt/cache/site", ".ihmt/cache/site-src"]


def test_stashes_survive_and_only_one_holding_the_memory_is_dropped(vault):
    m = vault.save(TEXT, title=TITLE, topic="home")
    other = vault.save(OTHER, topic="work")
    with open(vault.root / other.path, "a") as f:
        f.write("Second floor, door B.\n")
    git(vault.root, "stash", "push", "-q", "-m", "unrelated work")
    with open(vault.root / m.path, "a") as f:
        f.write("The statue faces the sea.\n")
    git(vault.root, "stash", "push", "-q", "-m", "wip two")
    assert len(git(vault.root, "stash", "list").splitlines()) == 2
    report = vault.forget(m.id, purge=True, confirm=YES)
    assert git(vault.root, "stash", "list").splitlines() == ["stash@{0}: On master: unrelated work"]
    assert report.stashes == ["stash@{0} (On master: wip two): dropped"]
    assert traces(vault.root, *NEEDLES, "faces the sea") == [] and report.traces == 0
    git(vault.root, "stash", "pop", "-q")
    assert (vault.root / other.path).read_text().endswith("Second floor, door B.\n")


# -- a purge a crash cuts short ---------------------------------------------------------------------------
KILLED = textwrap.dedent("""
    import os, signal, sys
    from ihmt_vault import Vault
    from ihmt_vault.storage import gitlog
    gitlog.rewrite_history = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)  # after the deletion commit
    Vault.open(sys.argv[1]).forget(sys.argv[2], purge=True, confirm=lambda n: True)
""")


def killed_purge(vault: Vault) -> str:
    m = vault.save(TEXT, title=TITLE, topic="home")
    vault.save(OTHER, topic="home")
    r = subprocess.run([sys.executable, "-c", KILLED, str(vault.root), m.id], capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert commits(vault.root)[0] == f"forget: purged memory {m.id}" and traces(vault.root) != []
    return m.id


def test_an_interrupted_purge_is_reported_by_doctor_and_finished_by_repair(vault):
    id_ = killed_purge(vault)
    v = Vault.open(vault.root)
    assert [(p.kind, p.path, p.repairable) for p in v.doctor()] == [("purge", f".ihmt/cache/purge/{id_}.json", True)]
    v.doctor(repair=True)
    assert v.doctor() == [] and traces(vault.root) == []
    assert commits(vault.root)[0] == f"forget: purged memory {id_}"  # no second deletion commit


def test_an_interrupted_purge_is_finished_by_purging_it_again(vault):
    id_ = killed_purge(vault)
    v = Vault.open(vault.root)
    # `v.forget(id_, purge=True)` once Vault.forget hands a purge its id without resolving it first
    report = purging.purge(v.engine, id_, confirm=YES)
    assert (report.purged, report.resumed, report.traces) == (True, True, 0)
    assert traces(vault.root) == [] and v.doctor() == []


# -- sync never brings it back ------------------------------------------------------------------------------
@pytest.fixture
def machines(tmp_path):
    """A bare remote; machine A's vault with the memory, pushed; machine B's clone of it."""
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    a = Vault.init(tmp_path / "a")
    m = a.save(TEXT, title=TITLE, topic="home")
    a.save(OTHER, topic="work")
    git(a.root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    a.sync()
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), "b")
    b = Vault.open(tmp_path / "b")
    yield a, b, tmp_path / "remote.git", m.id
    a.close()
    b.close()


def test_a_sync_with_a_remote_that_still_holds_the_purged_memory_does_not_bring_it_back(machines):
    a, b, remote, id_ = machines
    a.forget(id_, purge=True, confirm=YES)
    with pytest.raises(VaultError) as refused:
        a.sync()
    message = str(refused.value)
    assert f"origin/master still holds memory {id_}, which was purged here: nothing was merged or pushed" in message
    assert f"run 'ihmt forget {id_} --purge' in it before its next sync" in message
    assert traces(a.root) == [] and not (a.root / "home/spare-key.md").exists()  # nothing came back, not even objects
    assert traces(remote) != []  # nothing was pushed either
    push = message.split("overwrite it with '")[1].split("'")[0]
    assert push.startswith("git push --force-with-lease=master:")
    subprocess.run(push.split(), cwd=a.root, check=True, capture_output=True)
    git(remote, "gc", "-q", "--prune=now")  # the host's own clean-up
    assert traces(remote) == []
    with pytest.raises(VaultError, match=rf"run 'ihmt forget {id_} --purge' here \(or re-clone from origin\)"):
        b.sync()  # B still holds it
    assert traces(remote) == []
    purge(b, id_)
    b.sync()
    a.sync()
    for root in (a.root, b.root, remote):
        assert traces(root) == [], root
    assert git(a.root, "rev-parse", "HEAD") == git(b.root, "rev-parse", "HEAD")
    assert a.doctor() == [] and b.doctor() == []


def test_a_purged_memory_put_back_by_hand_is_not_synced(machines):
    a, _b, _remote, id_ = machines
    file = a.root / "home/spare-key.md"
    kept = file.read_bytes()
    a.forget(id_, purge=True, confirm=YES)
    file.parent.mkdir(exist_ok=True)
    file.write_bytes(kept)  # restored from a backup
    with pytest.raises(VaultError, match=rf"home/spare-key.md: is memory {id_}, which was purged"):
        a.sync()
