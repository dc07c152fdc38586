"""Several processes writing one vault: the lock serializes them and every save lands."""

import os
import signal
import socket
import subprocess
import sys
import textwrap

from conftest import commits, hold_lock

from ihmt_vault import Vault

SAVER = textwrap.dedent("""
    import sys
    from ihmt_vault import Vault
    root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Vault.open(root) as v:
        for i in range(n):
            v.save(f"{who} remembers fact {i}.", title=f"{who} fact {i}", topic=f"team/{who}", source=who)
""")


def test_two_processes_saving_at_once_both_land(vault):
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(vault.root), who, "10"]) for who in ("alice", "bob")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    subjects = commits(vault.root)
    assert sorted(s for s in subjects if s.startswith("save:")) == sorted(
        f"save: {who} fact {i}" for who in ("alice", "bob") for i in range(10)
    )
    with Vault.open(vault.root) as v:
        v.refresh(force=True)
        assert sorted(r.title for r in v.catalog.all()) == sorted(
            f"{w} fact {i}" for w in ("alice", "bob") for i in range(10)
        )
        assert v.doctor() == []


def test_a_cli_save_while_another_process_holds_the_lock_waits_then_lands(vault):
    holder = hold_lock(vault.root, 1.0)
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "save", "waited for the lock", "--topic", "t", "--vault", str(vault.root)],
        capture_output=True,
        text=True,
    )
    holder.wait()
    assert r.returncode == 0, r.stderr
    assert commits(vault.root)[0] == "save: waited for the lock"


def test_a_writer_that_cannot_get_the_lock_gets_a_clear_error(tmp_path):
    """A holder that is alive and beating is waited for (tests/test_trust_lock.py); one that stops
    (SIGSTOP: no heartbeat for lock_timeout) is stuck, and the waiter says so in one line."""
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nlock_timeout = 0.2\n")
    holder = hold_lock(root, 30)
    os.kill(holder.pid, signal.SIGSTOP)
    try:
        r = subprocess.run(
            [sys.executable, "-m", "ihmt_vault", "save", "x", "--topic", "t", "--vault", str(root)],
            capture_output=True,
            text=True,
        )
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 3
    assert r.stderr == (
        f"error: {root}/.ihmt/vault.lock: process {holder.pid} on {socket.gethostname()} holds this "
        f"vault's lock and has given no sign of life (its heartbeat) for over 0.2s: it is stuck; stop it "
        f"(kill {holder.pid}) and try again\n"
    )


def test_a_writer_queued_behind_a_busy_writer_gets_through(tmp_path):
    """lock_timeout bounds how long one operation keeps the lock, not how long a writer waits: a
    process doing one operation after another (a busy MCP server) never makes a queued save fail."""
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text("[vault]\nlock_timeout = 1.0\n")
    busy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import time
        from ihmt_vault import Vault
        v = Vault.open({str(root)!r})
        for n in range(4):          # four operations of 0.8 s, back to back: 3.2 s in all
            with v.lock.held():
                if n == 0:
                    print("held", flush=True)
                time.sleep(0.8)
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert busy.stdout.readline() == "held\n"
    r = subprocess.run(
        [sys.executable, "-m", "ihmt_vault", "save", "queued save", "--topic", "t", "--vault", str(root)],
        capture_output=True,
        text=True,
    )
    busy.wait()
    assert (r.returncode, r.stderr) == (0, "")
    assert commits(root)[0] == "save: queued save"
