"""A reader cannot rewrite the shared vault past the server's hook: each pushed commit (merges too) is
judged by what it changes against its first parent, and the push as a whole by `git diff old new`.
Real repositories behind a real `git daemon` whose host names the pusher (IHMT_PUSHER_EMAIL)."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git

from ihmt_vault import Vault

ROLES = """\
default = "reader"
[[member]]
email = "boss@example.com"
role = "maintainer"
[[member]]
email = "bob@example.com"
role = "writer"
folders = ["work/"]
"""


def ihmt(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True, cwd=cwd, env=env)


def run(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def history(tmp_path):
    """A vault whose history is: alice's memory (`pre`, before any roles) → the maintainer's
    roles.toml (`old`) → the maintainer's memory work/standup-time.md (the tip)."""
    root = tmp_path / "vault"
    v = Vault.init(root)
    v.save("The deploy window is Tuesday.", title="Deploy window", topic="work", source="alice")
    v.close()
    pre = run(root, "rev-parse", "HEAD")
    (root / ".ihmt/roles.toml").write_text(ROLES)
    git(root, "add", ".ihmt/roles.toml")
    git(root, "-c", "user.email=boss@example.com", "commit", "-q", "--no-verify", "-m", "roles")
    old = run(root, "rev-parse", "HEAD")
    git(root, "config", "user.email", "boss@example.com")
    git(root, "config", "user.name", "boss")
    v = Vault.open(root)
    v.save("Standup moved to 10:00.", title="Standup time", topic="work", source="boss")
    v.close()
    return root, pre, old


@pytest.fixture
def serve(tmp_path, history):
    """serve(pusher) → (url, bare): the vault in a bare repository with the roles' hook, served by
    `git daemon` on 127.0.0.1, the host naming `pusher` ("" : no authentication, authors judged)."""
    root, _pre, _old = history
    daemons = []

    def start(pusher: str) -> tuple[str, Path]:
        base = tmp_path / f"srv{len(daemons)}"
        base.mkdir()
        git(base, "clone", "-q", "--bare", str(root), "vault.git")
        r = ihmt("hooks", "install", "--server", str(base / "vault.git"))
        assert r.returncode == 0, r.stderr
        env = {k: v for k, v in os.environ.items() if k != "IHMT_PUSHER_EMAIL"}
        if pusher:
            env["IHMT_PUSHER_EMAIL"] = pusher
        port = free_port()
        daemon = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", f"--base-path={base}", "--export-all", "--enable=receive-pack"]
            + ["--listen=127.0.0.1", f"--port={port}", str(base)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
        daemons.append(daemon)
        deadline = time.monotonic() + 10
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert time.monotonic() < deadline and daemon.poll() is None, "git daemon did not start"
            time.sleep(0.05)
        return f"git://127.0.0.1:{port}/vault.git", base / "vault.git"

    yield start
    for daemon in daemons:  # `git daemon` runs git-daemon as its child: the whole process group goes
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()


def clone_as(tmp_path: Path, url: str, name: str) -> Path:
    git(tmp_path, "clone", "-q", url, name)
    git(tmp_path / name, "config", "user.email", f"{name}@example.com")
    git(tmp_path / name, "config", "user.name", name)
    return tmp_path / name


def push(clone: Path, what: str = "HEAD:master", *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", *flags, "origin", what], cwd=clone, capture_output=True, text=True)


def merge_of(clone: Path, tree_of: str, *parents: str) -> str:
    """`git commit-tree "$OLD^{tree}" -p ... -m Merge`: a merge whose tree is an older commit's."""
    args = [a for p in parents for a in ("-p", p)]
    return run(clone, "commit-tree", f"{tree_of}^{{tree}}", *args, "-m", "Merge")


@pytest.mark.parametrize("order", ["branch first", "old first"])
def test_a_readers_merge_of_an_older_tree_is_refused_and_deletes_nobodys_memory(tmp_path, history, serve, order):
    _root, _pre, old = history
    url, bare = serve("ana@example.com")
    ana = clone_as(tmp_path, url, "ana")
    tip = run(bare, "rev-parse", "master")
    parents = ("origin/master", old) if order == "branch first" else (old, "origin/master")
    merge = merge_of(ana, old, *parents)
    r = push(ana, f"{merge}:master")
    assert r.returncode != 0
    assert "by ana@example.com: .ihmt/roles.toml:1: ana@example.com is not listed; the default role is reader; " in (
        r.stderr
    )
    assert "a reader cannot change " in r.stderr
    assert run(bare, "rev-parse", "master") == tip
    assert run(bare, "cat-file", "-t", "master:work/standup-time.md") == "blob"


def test_a_readers_merge_of_a_tree_from_before_the_roles_cannot_delete_them(tmp_path, history, serve):
    _root, pre, _old = history
    url, bare = serve("ana@example.com")
    ana = clone_as(tmp_path, url, "ana")
    tip = run(bare, "rev-parse", "master")
    for parents in (("origin/master", pre), (pre, "origin/master")):
        r = push(ana, f"{merge_of(ana, pre, *parents)}:master")
        assert r.returncode != 0 and "a reader cannot change .ihmt/roles.toml" in r.stderr
    assert run(bare, "rev-parse", "master") == tip
    assert "ana@example.com" not in run(bare, "show", "master:.ihmt/roles.toml")  # the roles still hold:
    (ana / "home").mkdir()
    (ana / "home/basil.md").write_text("Buy basil.\n")
    git(ana, "add", "home/basil.md")
    run(ana, "commit", "-q", "--no-verify", "-m", "basil")
    assert "a reader cannot change home/basil.md" in push(ana).stderr
    r = push(ana, f"{pre}:master", "--force")
    assert r.returncode != 0 and "only a maintainer can rewrite history (a force push)" in r.stderr
    assert run(bare, "rev-parse", "master") == tip


def test_a_readers_revert_is_refused(tmp_path, history, serve):
    url, bare = serve("ana@example.com")
    ana = clone_as(tmp_path, url, "ana")
    tip = run(bare, "rev-parse", "master")
    run(ana, "revert", "--no-edit", "HEAD")
    r = push(ana)
    assert r.returncode != 0 and "by ana@example.com: " in r.stderr and "a reader cannot change " in r.stderr
    assert run(bare, "rev-parse", "master") == tip


def test_the_range_check_refuses_the_same_merges(history):
    root, pre, old = history
    tip = run(root, "rev-parse", "HEAD")
    env = {**os.environ, "IHMT_PUSHER_EMAIL": "ana@example.com"}
    for tree, parents in ((old, (tip, old)), (old, (old, tip)), (pre, (pre, tip))):
        merge = merge_of(root, tree, *parents)
        r = ihmt("hooks", "check", "--range", f"{tip}..{merge}", "--repo", str(root), env=env)
        assert r.returncode == 1 and "a reader cannot change" in r.stderr, (parents, r.stderr)
        assert all(line.startswith("ihmt: ") for line in r.stderr.splitlines())
    boss = {**os.environ, "IHMT_PUSHER_EMAIL": "boss@example.com"}
    merge = merge_of(root, old, old, tip)
    assert ihmt("hooks", "check", "--range", f"{tip}..{merge}", "--repo", str(root), env=boss).returncode == 0


def test_a_writers_merge_that_pulls_in_a_maintainers_changes_is_accepted(tmp_path, serve):
    """The merge's first-parent diff holds the maintainer's change to roles.toml and their deletion
    of alice's memory; that is the branch's own content coming in, not the writer's change."""
    url, bare = serve("")  # no authentication: each commit judged by its author
    boss, bob = clone_as(tmp_path, url, "boss"), clone_as(tmp_path, url, "bob")
    (boss / ".ihmt/roles.toml").write_text(ROLES + "# reviewed\n")
    git(boss, "rm", "-q", "work/deploy-window.md")
    run(boss, "commit", "-q", "-a", "--no-verify", "-m", "roles reviewed; deploy window gone")
    assert push(boss).returncode == 0
    (bob / "work/bob-note.md").write_text("Bob's own note.\n")
    git(bob, "add", "work/bob-note.md")
    run(bob, "commit", "-q", "--no-verify", "-m", "bob's note")
    run(bob, "pull", "-q", "--no-rebase", "--no-edit")
    assert len(run(bob, "show", "-s", "--format=%P", "HEAD").split()) == 2
    r = push(bob)
    assert r.returncode == 0, r.stderr
    assert run(bare, "rev-parse", "master") == run(bob, "rev-parse", "HEAD")
    # and the same writer's merge that puts the deleted memory back is refused (not his to restore)
    git(bob, "checkout", "-q", "HEAD~1", "--", "work/deploy-window.md")
    run(bob, "commit", "-q", "--no-verify", "-m", "restore")
    r = push(bob)
    assert r.returncode == 0, r.stderr  # a writer of work/ may write there: restoring is a write
    git(bob, "rm", "-q", "work/standup-time.md")
    run(bob, "commit", "-q", "--no-verify", "-m", "drop boss's standup")
    r = push(bob)
    assert r.returncode != 0 and "a writer deletes only its own memories (work/standup-time.md" in r.stderr
