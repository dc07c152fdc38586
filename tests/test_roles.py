"""Roles in a shared vault (`.ihmt/roles.toml`): refused by our write path (changing nothing), by the
pre-commit hook, by the server's pre-receive hook over a real `git daemon`, and by the CI range check."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, snapshot

from ihmt_vault import Vault
from ihmt_vault.errors import BrokenFile, Refused
from ihmt_vault.results import Problem
from ihmt_vault.storage.roles import Identity, parse

READER_ANA = """\
default = "writer"
[[member]]
email = "ana@example.com"
role = "reader"
"""

ANA_WRITES_WORK = """\
default = "reader"
[[member]]
email = "ana@example.com"
role = "writer"
folders = ["work/"]
"""


def ihmt(*args, cwd=None, env=None, input=None):
    return subprocess.run(
        [sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, cwd=cwd, env=env, input=input
    )


def commit_roles(root: Path, text: str, *hook: str) -> None:
    """A maintainer commits roles.toml by hand (the file is theirs to change)."""
    (root / ".ihmt/roles.toml").write_text(text)
    git(root, "add", ".ihmt/roles.toml")
    git(root, "commit", "-q", *hook, "-m", "roles")


def as_person(root: Path, email: str) -> Vault:
    """The vault opened by the person whose git e-mail this is (their clone's config)."""
    git(root, "config", "user.email", email)
    git(root, "config", "user.name", email.partition("@")[0])
    return Vault.open(root)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def shared(tmp_path):
    """A vault with one memory in work/ saved by agent alice, before any roles are declared."""
    v = Vault.init(tmp_path / "vault")
    v.save("The deploy window is Tuesday.", title="Deploy window", topic="work", source="alice")
    v.close()
    return tmp_path / "vault"


# -- the rule -----------------------------------------------------------------------------------------
def test_hmem_role_names_map_onto_reader_writer_maintainer():
    roles = parse(
        'default = "worker"\n[[member]]\nagent = "boss"\nrole = "ceo"\n[[member]]\nagent = "lead"\nrole = "al"\n'
    )
    assert [roles.rule_for(Identity(agent=a), "x.md").role for a in ("nobody", "boss", "lead")] == [
        "writer",
        "maintainer",
        "writer",
    ]


def test_an_agent_entry_holds_back_the_person_running_it():
    roles = parse(
        '[[member]]\nemail = "ana@example.com"\nrole = "maintainer"\n[[member]]\nagent = "intern"\nrole = "reader"\n'
    )
    assert (
        roles.rule_for(Identity("ana@example.com", "intern"), "work/x.md").text
        == ".ihmt/roles.toml:4: agent intern is a reader of the vault"
    )


def test_a_bad_roles_file_is_one_line_naming_its_line():
    with pytest.raises(BrokenFile) as caught:
        parse('default = "reader"\n[[member]]\nemail = "ana@example.com"\nrole = "boss"\n')
    assert str(caught.value) == (
        ".ihmt/roles.toml:2: member: role 'boss' is not one of reader, writer, maintainer "
        "(or hmem's worker, al, pl, ceo); fix it and commit it with git (a maintainer's change)"
    )


# -- our write path -----------------------------------------------------------------------------------
def test_a_readers_save_is_refused_naming_the_rule_and_changes_nothing(shared):
    commit_roles(shared, READER_ANA)
    v = as_person(shared, "ana@example.com")
    before, tip = snapshot(shared), head(shared)
    with pytest.raises(Refused) as caught:
        v.save("Standup moved to 10:00.", title="Standup time", topic="work")
    assert str(caught.value) == (
        ".ihmt/roles.toml:2: ana@example.com is a reader of the vault; a reader cannot save work/standup-time.md"
    )
    assert (snapshot(shared), head(shared)) == (before, tip)
    assert ihmt("save", "Standup moved.", "--vault", str(shared)).stderr.startswith(
        "error: .ihmt/roles.toml:2: ana@example.com is a reader of the vault; a reader cannot save "
    )


def test_a_writer_of_a_folder_saves_there_and_nowhere_else(shared):
    commit_roles(shared, ANA_WRITES_WORK)
    v = as_person(shared, "ana@example.com")
    assert v.save("Standup moved to 10:00.", title="Standup time", topic="work").path == "work/standup-time.md"
    with pytest.raises(Refused) as caught:
        v.save("Buy basil.", title="Basil", topic="home")
    assert str(caught.value) == (
        ".ihmt/roles.toml:1: ana@example.com is not listed for home/; the default role is "
        "reader; a reader cannot save home/basil.md"
    )


def test_a_writers_saves_that_crowd_a_folder_split_it_and_record_the_split(shared):
    commit_roles(shared, ANA_WRITES_WORK)
    v = as_person(shared, "ana@example.com")
    v.save_many(
        [
            {"text": f"The {svc} service deploys with {tool}.", "topic": "work"}
            for svc in ("billing", "search", "checkout", "mail", "auth", "media")
            for tool in ("helm", "terraform", "ansible")
        ]
    )
    v.garden()
    assert (shared / ".ihmt/garden.json").is_file() and not git(shared, "status", "--porcelain").strip()


def test_a_refused_import_rolls_back_the_memories_it_had_already_written(shared):
    commit_roles(shared, ANA_WRITES_WORK)
    v = as_person(shared, "ana@example.com")
    before, tip = snapshot(shared), head(shared)
    with pytest.raises(Refused, match="a reader cannot import home/basil.md"):
        v.save_many(
            [
                {"text": "Standup moved to 10:00.", "title": "Standup time", "topic": "work"},
                {"text": "Buy basil.", "title": "Basil", "topic": "home"},
            ]
        )
    assert (snapshot(shared), head(shared)) == (before, tip)
    assert not (shared / ".ihmt/cache/journal.jsonl").exists()
    assert [m["path"] for m in v.memories()] == ["work/deploy-window.md"]


def test_a_readers_hand_edit_is_not_committed_and_is_reported(shared):
    commit_roles(shared, READER_ANA)
    v = as_person(shared, "ana@example.com")
    file = shared / "work/deploy-window.md"
    file.write_text(file.read_text().replace("Tuesday", "Friday"))
    tip = head(shared)
    report = v.reconcile(None)
    assert report.problems == [
        Problem(
            "refused",
            "work/deploy-window.md",
            "work/deploy-window.md: not committed: .ihmt/roles.toml:2: ana@example.com is a "
            "reader of the vault; a reader cannot edit work/deploy-window.md",
            repairable=False,
        )
    ]
    assert (report.commit, head(shared), "Friday" in file.read_text()) == (None, tip, True)


def test_a_writer_cannot_undo_another_agents_save_but_undoes_its_own(shared):
    commit_roles(shared, 'default = "writer"\n')
    v = as_person(shared, "bob@example.com")
    alices = git(shared, "log", "--format=%H", "-1", "--", "work/deploy-window.md").strip()
    before = snapshot(shared)
    with pytest.raises(Refused) as caught:
        v.undo(source="bob", commit=alices, force=True)
    assert str(caught.value) == (
        ".ihmt/roles.toml:1: bob@example.com is not listed; the default role is writer; "
        "a writer deletes only its own memories (work/deploy-window.md has source: alice)"
    )
    assert snapshot(shared) == before
    v.save("Standup moved to 10:00.", title="Standup time", topic="work", source="bob")
    assert v.undo(source="bob").commit and not (shared / "work/standup-time.md").exists()


def test_a_writer_cannot_purge_and_leaves_no_purge_to_resume(shared):
    commit_roles(shared, 'default = "writer"\n')
    v = as_person(shared, "bob@example.com")
    v.save("Bob's own note.", title="Bob note", topic="work", source="bob")
    before, tip = snapshot(shared), head(shared)
    with pytest.raises(Refused) as caught:
        v.forget("work/bob-note.md", purge=True, confirm=lambda n: True, source="bob")
    assert str(caught.value) == (
        ".ihmt/roles.toml:1: bob@example.com is not listed; the default role is writer; "
        "a writer cannot change .ihmt/purged.json (maintainers only)"
    )
    assert (snapshot(shared), head(shared)) == (before, tip)
    assert [p for p in v.doctor() if p.kind in ("purge", "interrupted")] == []


def test_a_broken_roles_file_refuses_writes_and_doctor_reports_it(shared):
    commit_roles(shared, 'default = "reader"\n[[member]]\nrole = "writer"\n', "--no-verify")  # the hook refuses it
    v = as_person(shared, "ana@example.com")
    message = (
        '.ihmt/roles.toml:2: member: give exactly one of email = "..." or agent = "..."; '
        "fix it and commit it with git (a maintainer's change)"
    )
    with pytest.raises(BrokenFile) as caught:
        v.save("Standup moved.", topic="work")
    assert str(caught.value) == message
    assert Problem("roles", ".ihmt/roles.toml:2", message, repairable=False) in v.doctor()


def test_the_pre_commit_check_refuses_a_readers_staged_memory(shared):
    commit_roles(shared, READER_ANA)
    v = as_person(shared, "ana@example.com")
    (shared / "work/standup.md").write_text("Standup moved to 10:00.\n")
    git(shared, "add", "work/standup.md")
    assert v.check_staged() == [
        ".ihmt/roles.toml:2: ana@example.com is a reader of the vault; a reader cannot commit work/standup.md"
    ]


# -- the server: a pre-receive hook behind a real git daemon ----------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path, shared):
    """The vault pushed to a bare repository with the roles' hook, served by `git daemon` on
    127.0.0.1; the maintainer's and ana's clones over git://."""
    base = tmp_path / "srv"
    base.mkdir()
    git(base, "clone", "-q", "--bare", str(shared), "vault.git")
    r = ihmt("hooks", "install", "--server", str(base / "vault.git"))
    assert r.returncode == 0 and r.stdout.startswith("installed "), r.stderr
    port = free_port()
    daemon = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            f"--base-path={base}",
            "--export-all",
            "--enable=receive-pack",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert time.monotonic() < deadline and daemon.poll() is None, "git daemon did not start"
            time.sleep(0.05)
        url = f"git://127.0.0.1:{port}/vault.git"
        people = {}
        for name, email in (("boss", "boss@example.com"), ("ana", "ana@example.com")):
            git(tmp_path, "clone", "-q", url, name)
            git(tmp_path / name, "config", "user.email", email)
            git(tmp_path / name, "config", "user.name", name)
            people[name] = tmp_path / name
        commit_as(
            people["boss"],
            ".ihmt/roles.toml",
            'default = "reader"\n[[member]]\nemail = "boss@example.com"\nrole = "maintainer"\n',
        )
        assert push(people["boss"]).returncode == 0
        git(people["ana"], "pull", "-q")
        yield people, base / "vault.git"
    finally:  # `git daemon` runs git-daemon as its child: the whole process group goes
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()


def commit_as(clone: Path, rel: str, text: str) -> None:
    """A commit made by hand in a clone, by the clone's own person (bypassing our code)."""
    (clone / rel).parent.mkdir(parents=True, exist_ok=True)
    (clone / rel).write_text(text)
    subprocess.run(["git", "add", rel], cwd=clone, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", f"edit {rel}"], cwd=clone, check=True)


def push(clone: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", "-q", "origin", "HEAD"], cwd=clone, capture_output=True, text=True)


def test_a_readers_push_is_refused_by_the_server_hook_and_the_branch_stays(served):
    people, bare = served
    tip = git(bare, "rev-parse", "master").strip()
    commit_as(people["ana"], "work/standup.md", "Standup moved to 10:00.\n")
    sha = git(people["ana"], "rev-parse", "--short=10", "HEAD").strip()
    r = push(people["ana"])
    assert r.returncode != 0
    assert (
        f"remote: ihmt: {sha} by ana@example.com: .ihmt/roles.toml:1: ana@example.com is not listed; the "
        f"default role is reader; a reader cannot change work/standup.md"
    ) in r.stderr
    assert git(bare, "rev-parse", "master").strip() == tip
    commit_as(people["boss"], "work/standup.md", "Standup moved to 11:00.\n")
    assert push(people["boss"]).returncode == 0


def test_a_reader_cannot_grant_itself_rights_in_the_push(served):
    people, bare = served
    tip = git(bare, "rev-parse", "master").strip()
    roles = (people["ana"] / ".ihmt/roles.toml").read_text()
    commit_as(people["ana"], ".ihmt/roles.toml", roles + '[[member]]\nemail = "ana@example.com"\nrole = "maintainer"\n')
    commit_as(people["ana"], "work/standup.md", "Standup moved to 10:00.\n")
    r = push(people["ana"])
    assert r.returncode != 0 and "a reader cannot change .ihmt/roles.toml" in r.stderr
    assert "a reader cannot change work/standup.md" in r.stderr
    assert git(bare, "rev-parse", "master").strip() == tip


# -- the CI check over a range -------------------------------------------------------------------------
def test_the_range_check_finds_a_readers_commit_and_trusts_the_hosts_pusher_over_the_author(shared):
    commit_roles(shared, READER_ANA)
    base = head(shared)
    subprocess.run(
        [
            "git",
            "-c",
            "user.email=boss@example.com",
            "-c",
            "user.name=b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "empty",
        ],
        cwd=shared,
        check=True,
    )
    env = {**os.environ, "IHMT_PUSHER_EMAIL": "ana@example.com"}
    assert ihmt("hooks", "check", "--range", f"{base}..HEAD", "--repo", str(shared)).returncode == 0
    (shared / "work/standup.md").write_text("Standup moved to 10:00.\n")
    git(shared, "add", "work/standup.md")
    git(shared, "commit", "-q", "-m", "by hand")  # authored as t@example.com, a writer by default
    sha = head(shared)[:10]
    assert ihmt("hooks", "check", "--range", f"{base}..HEAD", "--repo", str(shared)).returncode == 0
    r = ihmt("hooks", "check", "--range", f"{base}..HEAD", "--repo", str(shared), env=env)
    assert (r.returncode, r.stderr) == (
        1,
        f"ihmt: {sha} by ana@example.com: .ihmt/roles.toml:2: ana@example.com is "
        f"a reader of the vault; a reader cannot change work/standup.md\n",
    )


def test_the_ci_workflow_template_runs_the_range_check_on_pushes_and_pull_requests():
    import yaml

    flow = yaml.safe_load((Path(__file__).resolve().parent.parent / "templates/roles-check.yml").read_text())
    steps = flow["jobs"]["roles-check"]["steps"]
    assert sorted(flow[True]) == ["pull_request", "push"]  # YAML 1.1 reads the key `on` as True
    assert steps[0]["with"]["fetch-depth"] == 0
    assert 'ihmt hooks check --range "$BEFORE..$AFTER" --repo .' in steps[-1]["run"]
