"""Do the real agents connect to `ihmt mcp` on their first try? (issue 31)

Installs Gemini CLI, opencode, Codex and Claude Code from npm into a throwaway prefix, and for each
one, in a home folder of its own (HOME is a temp folder: nothing of yours is read or touched), runs
`ihmt setup AGENT --vault HOME/vault` from a project folder, then the client's own check:

    gemini    gemini mcp list      (the project folder trusted in ~/.gemini/trustedFolders.json)
    opencode  opencode mcp list
    claude    claude mcp list
    codex     codex mcp list lists it without starting it, so `codex app-server` is asked
              mcpServerStatus/list, which starts the server and answers with its tools

and prints one line per client: connected or not, the seconds the check took, and the client's own
line about the server. Exit status 1 when any client did not connect. Needs node/npm and the npm
registry; no model, account or API key (nothing is sent to a model).

    python bench/clients.py                         # all four, a fresh npm prefix
    python bench/clients.py --prefix /tmp/clients   # install there once, reuse it later
    python bench/clients.py --clients gemini --delay 6   # a server that takes 6 s to start

`--delay S` starts the server through a wrapper that sleeps S seconds first (setup through the
library, with the wrapper as the command): the margin each client leaves a slow first start.
Not run by the test suite (tests/test_mcp_clients.py checks what can be checked without npm).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PACKAGES = {
    "gemini": "@google/gemini-cli",
    "opencode": "opencode-ai",
    "codex": "@openai/codex",
    "claude": "@anthropic-ai/claude-code",
}
AGENT = {"gemini": "gemini-cli", "opencode": "opencode", "codex": "codex", "claude": "claude-code"}
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# Variables that would point a client at your own configuration, or change how it runs.
DROPPED = re.compile(r"^(XDG_\w+|CODEX_HOME|CLAUDE_CONFIG_DIR|GEMINI_\w+|GOOGLE_\w+|OPENCODE_\w+|IHMT_VAULT)$")


@dataclass
class Result:
    client: str
    connected: bool
    seconds: float
    line: str


def ihmt_executable() -> str:
    here = Path(sys.executable).parent
    for name in ("ihmt", "ihmt.exe"):
        if (here / name).is_file():
            return str(here / name)
    return shutil.which("ihmt") or sys.exit("no ihmt next to this Python or on PATH: install ihmt first")


def install(prefix: Path, clients: list[str]) -> dict[str, str]:
    """npm install the clients into `prefix` (skipped for those already there); their versions."""
    missing = [PACKAGES[c] for c in clients if not (prefix / "node_modules" / PACKAGES[c] / "package.json").is_file()]
    if missing:
        npm = shutil.which("npm") or sys.exit("npm is not on PATH: install node.js first")
        print(f"npm install --prefix {prefix} {' '.join(missing)}", flush=True)
        subprocess.run(
            [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error", *missing],
            check=True,
            stdin=subprocess.DEVNULL,
        )
    return {
        c: json.loads((prefix / "node_modules" / PACKAGES[c] / "package.json").read_text())["version"] for c in clients
    }


def client_env(home: Path, prefix: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not DROPPED.match(k)}
    env.update(HOME=str(home), PATH=f"{prefix / 'node_modules' / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    env["NO_COLOR"] = "1"
    return env


def run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float) -> tuple[int | None, str, float]:
    """(exit status or None on timeout, stdout+stderr without colours, seconds); the whole process
    group is ended at the end (a client's servers included)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _end(proc)
        out, _ = proc.communicate()
        code = None
    finally:
        _end(proc)  # what the client left running (its servers) goes too
    return code, ANSI.sub("", out.decode("utf-8", "replace")), time.monotonic() - start


def _end(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def setup(agent: str, home: Path, project: Path, vault: Path, delay: float) -> None:
    env = {k: v for k, v in os.environ.items() if not DROPPED.match(k)} | {"HOME": str(home)}
    if not delay:
        cmd = [ihmt_executable(), "setup", agent, "--vault", str(vault)]
        subprocess.run(cmd, env=env, cwd=project, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        return
    wrapper = home / "slow-ihmt"
    wrapper.write_text(f'#!/bin/sh\nsleep {delay}\nexec "{ihmt_executable()}" "$@"\n')
    wrapper.chmod(0o755)
    code = (
        "import sys; from pathlib import Path; from ihmt_vault.frontends import agents; "
        "agents.setup(sys.argv[1], 'user', Path(sys.argv[2]), env=agents.Env.current(), executable=sys.argv[3])"
    )
    subprocess.run([sys.executable, "-c", code, agent, str(vault), str(wrapper)], env=env, cwd=project, check=True)


def line_about(out: str, pattern: str) -> str:
    return next((ln.strip() for ln in out.splitlines() if re.search(pattern, ln)), "")


def check_list(client: str, bin_dir: Path, env, project: Path, timeout: float) -> Result:
    """`<client> mcp list`, and the client's line about our server."""
    code, out, took = run([str(bin_dir / client), "mcp", "list"], env, project, timeout)
    line = line_about(out, r"\bihmt\b")
    if code is None:
        return Result(client, False, took, f"no answer within {timeout:.0f} s")
    connected = {
        "gemini": r"ihmt:.*- Connected\s*$",
        "opencode": r"ihmt\s+connected",
        "claude": r"ihmt:.*Connected\s*$",
    }[client]
    ok = code == 0 and any(re.search(connected, ln) for ln in out.splitlines())
    last = out.strip().splitlines()[-1] if out.strip() else f"exit {code}, no output"
    return Result(client, ok, took, line or last)


def check_codex(bin_dir: Path, env, project: Path, timeout: float) -> Result:
    """`codex mcp list` only reads the config; `codex app-server`'s mcpServerStatus/list starts the
    server and answers with what it offers."""
    code, out, _ = run([str(bin_dir / "codex"), "mcp", "list"], env, project, timeout)
    listed = line_about(out, r"^ihmt\s")
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(bin_dir / "codex"), "app-server"],
        env=env,
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    pending = b""

    def send(message: dict) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(ident: int) -> dict | None:
        nonlocal pending
        assert proc.stdout is not None
        while time.monotonic() - start < timeout:
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if message.get("id") == ident:
                    return message
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    return None
                pending += chunk
        return None

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"clientInfo": {"name": "bench", "version": "0"}},
            }
        )
        reply = answer(0)
        if reply is not None:
            send({"jsonrpc": "2.0", "method": "initialized"})
            send({"jsonrpc": "2.0", "id": 1, "method": "mcpServerStatus/list", "params": {}})
            reply = answer(1)
    finally:
        _end(proc)
    took = time.monotonic() - start
    if reply is None:
        return Result(
            "codex", False, took, f"codex app-server: no answer within {timeout:.0f} s ({listed or 'not listed'})"
        )
    if "error" in reply:
        return Result("codex", False, took, f"mcpServerStatus/list: {reply['error'].get('message')}")
    ours = next((s for s in reply.get("result", {}).get("data", []) if s.get("name") == "ihmt"), None)
    tools = (ours or {}).get("tools") or {}
    if not ours or not tools:
        status = {k: ours.get(k) for k in ("runtimeStatus", "serverInfo")} if ours else "not in the list"
        return Result("codex", False, took, f"{listed or 'not listed'}; app-server: {status}")
    info = ours.get("serverInfo") or {}
    return Result(
        "codex", True, took, f"{listed} | app-server: {info.get('name')} {info.get('version')}, {len(tools)} tools"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prefix", type=Path, help="npm prefix to install into and reuse (default: a temp folder)")
    ap.add_argument("--clients", default=",".join(PACKAGES), help="comma-separated: gemini,opencode,codex,claude")
    ap.add_argument("--timeout", type=float, default=120, help="seconds each client's check may take")
    ap.add_argument("--delay", type=float, default=0, help="start the server this many seconds late")
    ap.add_argument("--keep", action="store_true", help="keep the home folders (and a temp prefix) to look into")
    args = ap.parse_args()
    clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    unknown = [c for c in clients if c not in PACKAGES]
    if unknown or not clients:
        ap.error(f"--clients: choose among {', '.join(PACKAGES)}")
    made_prefix = args.prefix is None
    prefix = (args.prefix or Path(tempfile.mkdtemp(prefix="ihmt-clients-"))).resolve()
    homes: list[Path] = []
    results: list[Result] = []
    try:
        versions = install(prefix, clients)
        bin_dir = prefix / "node_modules" / ".bin"
        for client in clients:
            home = Path(tempfile.mkdtemp(prefix=f"ihmt-{client}-home-")).resolve()
            homes.append(home)
            project = home / "project"
            project.mkdir()
            setup(AGENT[client], home, project, home / "vault", args.delay)
            if client == "gemini":  # what trusting the folder when Gemini asks writes
                (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
            env = client_env(home, prefix)
            if client == "codex":
                r = check_codex(bin_dir, env, project, args.timeout)
            else:
                r = check_list(client, bin_dir, env, project, args.timeout)
            results.append(r)
            word = "connected" if r.connected else "NOT connected"
            print(f"{client:<9} {versions[client]:<10} {word:<14} {r.seconds:6.1f} s   {r.line}", flush=True)
    finally:
        if args.keep:
            print("kept:", prefix if made_prefix else "", *homes)
        else:
            for home in homes:
                shutil.rmtree(home, ignore_errors=True)
            if made_prefix:
                shutil.rmtree(prefix, ignore_errors=True)
    return 0 if results and all(r.connected for r in results) and len(results) == len(clients) else 1


if __name__ == "__main__":
    sys.exit(main())
