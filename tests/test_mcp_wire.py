"""The MCP server over a raw stdio pipe: every malformed message gets its JSON-RPC error, an
oversized one is refused without being parsed, and end of input ends the process at once."""

import json
import select
import subprocess
import sys
import time

import pytest

from ihmt_vault import Vault

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


@pytest.fixture
def server(tmp_path):
    Vault.init(tmp_path / "v").close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ihmt_vault", "mcp", "--vault", str(tmp_path / "v")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    send(proc, json.dumps(INIT).encode())
    assert answer(proc)["id"] == 1
    send(proc, b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield proc
    proc.kill()
    proc.wait()


def send(proc, line: bytes) -> None:
    proc.stdin.write(line + b"\n")
    proc.stdin.flush()


def answer(proc, timeout: float = 60) -> dict:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no answer"
    return json.loads(proc.stdout.readline())


@pytest.mark.parametrize(
    "line, code, ident",
    [
        (b"{not json", -32700, None),
        (b"\xff\xfe", -32700, None),
        (b"[]", -32600, None),
        (b"123", -32600, None),
        (b"null", -32600, None),
        (b'[{"jsonrpc":"2.0","id":5,"method":"ping"}]', -32600, None),
        (b'{"jsonrpc":"2.0","id":6}', -32600, 6),
        (b'{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"a string"}', -32602, 8),
        (b"[" * 100_000 + b"]" * 100_000, -32600, None),
        (b'{"jsonrpc":"2.0","id":9,"method":"no/such/method"}', -32601, 9),
    ],
)
def test_a_malformed_message_gets_its_json_rpc_error_and_the_server_goes_on(server, line, code, ident):
    send(server, line)
    reply = answer(server)
    assert (reply["error"]["code"], reply["id"]) == (code, ident)
    send(server, b'{"jsonrpc":"2.0","id":99,"method":"ping"}')
    assert answer(server) == {"jsonrpc": "2.0", "id": 99, "result": {}}


def test_a_message_over_the_size_bound_is_refused_unparsed(server):
    send(server, b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"' + b"a" * (10 * 1024 * 1024) + b'"}}')
    assert answer(server)["error"]["code"] == -32600


def test_end_of_input_ends_the_process_within_a_second_whatever_is_in_flight(server):
    send(
        server,
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"save_memory",'
        b'"arguments":{"content":"The nightly export runs at 02:10 UTC."}}}',
    )
    server.stdin.close()
    start = time.monotonic()
    server.wait(timeout=10)
    assert time.monotonic() - start < 1.5


def test_tools_are_listed_before_the_vault_is_opened(tmp_path):
    """The handshake and tools/list never wait for the vault: with caches that cannot be opened
    (a file where the cache folder goes), the tools are still listed."""
    import shutil

    Vault.init(tmp_path / "v").close()
    cache = tmp_path / "v" / ".ihmt" / "cache"
    shutil.rmtree(cache)
    cache.write_text("not a folder")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ihmt_vault", "mcp", "--vault", str(tmp_path / "v")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        send(proc, json.dumps(INIT).encode())
        assert answer(proc)["id"] == 1
        send(proc, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
        names = {t["name"] for t in answer(proc)["result"]["tools"]}
        assert {"search_memory", "save_memory"} <= names
    finally:
        proc.kill()
        proc.wait()
