"""A waiter waits on a live, working holder of the vault lock (its heartbeat), and gives up only on
a stuck one (no heartbeat for lock_timeout: SIGSTOP) with a line naming it; a killed holder frees
the lock at once (flock). Real processes, the real CLI."""

import os
import signal
import socket
import subprocess
import sys

from conftest import commits, hold_lock

from ihmt_vault import Vault


def vault_with_timeout(tmp_path, seconds: float):
    root = tmp_path / "v"
    Vault.init(root).close()
    (root / ".ihmt/config.toml").write_text(f"[vault]\nlock_timeout = {seconds}\n")
    return root


def save(root, text: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ihmt_vault", "save", text, "--topic", "t", "--vault", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_holder_alive_and_beating_past_lock_timeout_is_waited_for_and_the_save_lands(tmp_path):
    root = vault_with_timeout(tmp_path, 0.5)
    holder = hold_lock(root, 3.0)  # six times lock_timeout, beating all along
    waiter = save(root, "waited for a slow holder")
    out, err = waiter.communicate(timeout=120)
    assert holder.wait(timeout=60) == 0
    assert (waiter.returncode, err) == (0, "")
    assert commits(root)[0] == "save: waited for a slow holder"


def test_a_holder_that_stops_beating_makes_the_waiter_time_out_naming_it_stuck(tmp_path):
    root = vault_with_timeout(tmp_path, 0.5)
    holder = hold_lock(root, 600)
    os.kill(holder.pid, signal.SIGSTOP)  # alive, but no heartbeat any more
    try:
        waiter = save(root, "behind a stopped holder")
        out, err = waiter.communicate(timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert waiter.returncode == 3
    assert err == (
        f"error: {root}/.ihmt/vault.lock: process {holder.pid} on {socket.gethostname()} holds this vault's "
        f"lock and has given no sign of life (its heartbeat) for over 0.5s: it is stuck; stop it "
        f"(kill {holder.pid}) and try again\n"
    )
    assert "save: behind a stopped holder" not in commits(root)


def test_a_holder_killed_frees_the_lock_and_the_waiter_saves(tmp_path):
    root = vault_with_timeout(tmp_path, 600)  # no waiting out a timeout: only the kill lets it in
    holder = hold_lock(root, 600)
    waiter = save(root, "after the holder was killed")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    out, err = waiter.communicate(timeout=120)
    assert (waiter.returncode, err) == (0, "")
    assert commits(root)[0] == "save: after the holder was killed"
