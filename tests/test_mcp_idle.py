"""`ihmt mcp` is a long-lived process: when no tool is called for a while, it merges the search
index (as `ihmt watch` does), never during a call. Tested through a clock the tests move, and the
function the server's idle timer calls."""

from __future__ import annotations

import threading

import pytest

from ihmt_vault import Vault

pytest.importorskip("mcp")
from ihmt_vault.frontends import mcp_server  # noqa: E402
from ihmt_vault.frontends.mcp_server import Tools  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def split(tmp_path):
    """A vault whose search index has several segments (each save adds one)."""
    v = Vault.init(tmp_path / "v")
    for i in range(2):
        v.save(f"Deploy note {i}: the worker restarts after deploys.")
    assert v.engine.index.segments() > 1
    yield v
    v.close()


def test_after_a_quiet_spell_following_a_call_the_index_is_merged_once(split):
    clock = Clock()
    tools = Tools(split, clock=clock)
    tools.search_memory("worker restarts")
    clock.now += 29
    assert (tools.idle_compact(30), split.engine.index.segments() > 1) == (False, True)  # not quiet long enough
    clock.now += 2
    assert (tools.idle_compact(30), split.engine.index.segments()) == (True, 1)
    clock.now += 100
    assert tools.idle_compact(30) is False  # nothing was called since: nothing to do


def test_a_server_nobody_called_yet_does_not_merge(split):
    clock = Clock()
    tools = Tools(split, clock=clock)
    clock.now += 1000
    assert (tools.idle_compact(30), split.engine.index.segments() > 1) == (False, True)


def test_the_idle_timer_never_merges_during_a_tool_call(split):
    clock = Clock()
    tools = Tools(split, clock=clock)
    seen = []

    def slow_call() -> str:
        clock.now += 1000  # the call runs long: the quiet spell is measured from its end
        seen.append(tools.idle_compact(30))  # the timer's turn comes while the call runs
        return "ok"

    tools._call(slow_call)
    assert (seen, split.engine.index.segments() > 1) == ([False], True)
    clock.now += 31
    assert tools.idle_compact(30) is True


def test_a_call_after_the_merge_starts_a_new_quiet_spell(split):
    clock = Clock()
    tools = Tools(split, clock=clock)
    tools.memory_brief()
    clock.now += 31
    assert tools.idle_compact(30) is True
    tools.save_memory("The worker restarts at midnight too.")
    tools.save_memory("The cron worker restarts at noon.")
    clock.now += 31
    assert tools.idle_compact(30) is True and split.engine.index.segments() == 1


def test_serve_runs_the_idle_timer_on_its_tools_while_serving_and_stops_it_after(split, monkeypatch):
    merged = threading.Event()
    seen = {}

    def idle_compact(self, idle=30.0):
        seen["idle"] = idle
        merged.set()
        return True

    def run(server):  # the stdio loop, replaced: the timer must be running meanwhile
        seen["during"] = merged.wait(timeout=30)
        seen["timers"] = [t for t in threading.enumerate() if t.name == "ihmt-idle-compact"]

    monkeypatch.setattr(Tools, "idle_compact", idle_compact)
    monkeypatch.setattr(mcp_server.MCPServer, "run", run)
    mcp_server.serve(split, idle=12.0, tick=0.01)
    assert (seen["during"], seen["idle"], len(seen["timers"])) == (True, 12.0, 1)
    assert not any(t.name == "ihmt-idle-compact" and t.is_alive() for t in threading.enumerate())
