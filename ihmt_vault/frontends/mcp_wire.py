"""The MCP server's wire: JSON-RPC messages, one per line, over stdin and stdout.

The SDK's own stdio transport drops what it cannot parse without a word, so a client that sends a
malformed message waits for ever. This wire reads stdin itself, on a thread started before the SDK
is even imported, and answers every message the server will never act on with its JSON-RPC error:
bad JSON or UTF-8 `-32700`; not a request, a notification or a response (`[]`, `123`, `null`, a
batch — which MCP does not use —, no `method`, nesting too deep, a line over `MAX_MESSAGE` bytes)
`-32600`; params that are not an object `-32602`. Notifications are never answered, as JSON-RPC says.
The rest goes to the SDK in order.

End of input ends the server: once stdin closes, the process exits within `EOF_GRACE` seconds,
whatever is still in flight (the write path is crash-safe: an interrupted operation is finished
by the next one, or by `ihmt doctor --repair`).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable

MAX_MESSAGE = 8 * 1024 * 1024  # bytes in one message: a 60 MB line is refused, not parsed
MAX_DEPTH = 64  # nesting of objects and arrays in a message (MCP's own are a few levels)
EOF_GRACE = 0.8  # seconds in-flight calls get after stdin closes, before the process exits
_CHUNK = 1 << 16

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def _depth_ok(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the brackets outside strings nest at most `limit` deep (checked before parsing, so a
    100,000-deep message costs a scan, not a recursion error)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _valid_id(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


TOO_LARGE = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {"code": INVALID_REQUEST, "message": f"message larger than {MAX_MESSAGE} bytes"},
}


def judge(line: bytes) -> tuple[str | None, dict | None, str]:
    """(the message to pass on, or None; the error to answer, or None; the method it names, or "")
    for one line of input."""
    if len(line) > MAX_MESSAGE:
        return None, TOO_LARGE, ""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, error(None, PARSE_ERROR, "message is not UTF-8 text"), ""
    if not text.strip():
        return None, None, ""
    if not _depth_ok(text):
        return None, error(None, INVALID_REQUEST, f"message nested deeper than {MAX_DEPTH} levels"), ""
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None, error(None, PARSE_ERROR, "message is not valid JSON"), ""
    if isinstance(msg, list):
        return None, error(None, INVALID_REQUEST, "batches are not supported: send one message per line"), ""
    if not isinstance(msg, dict):
        return None, error(None, INVALID_REQUEST, "a message is a JSON object"), ""
    has_id = "id" in msg
    ident = msg.get("id") if has_id and _valid_id(msg.get("id")) else None
    if has_id and not _valid_id(msg.get("id")):
        return None, error(None, INVALID_REQUEST, "id must be a string or a number"), ""
    if msg.get("jsonrpc") != "2.0":
        return None, (error(ident, INVALID_REQUEST, 'jsonrpc must be "2.0"') if has_id else None), ""
    if "method" in msg:
        if not isinstance(msg["method"], str) or not msg["method"]:
            return None, (error(ident, INVALID_REQUEST, "method must be a string") if has_id else None), ""
        if "params" in msg and not isinstance(msg["params"], dict):
            return None, (error(ident, INVALID_PARAMS, "params must be an object") if has_id else None), ""
        return text, None, msg["method"]
    if has_id and ("result" in msg or "error" in msg):
        return text, None, ""  # a response to one of the server's own requests
    why = "a request needs a method" if has_id else "not a request, a notification or a response"
    return None, error(ident, INVALID_REQUEST, why), ""


def error(ident, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


class Wire:
    """The process's stdin and stdout, with the SDK's transport behind pipes.

    `plug()` moves the real stdin and stdout to private descriptors and puts a pipe on each of fd 0
    and fd 1: the SDK's stdio transport reads only the messages the wire passes on and writes into
    a pipe the wire empties line by line, so its answers and the wire's own errors never interleave.
    Text that is not a message (a stray print) goes to stderr, never to the client."""

    def __init__(self, on_method: Callable[[str], None] | None = None, on_eof: Callable[[], None] | None = None):
        self.lock = threading.Lock()
        self.on_method = on_method  # told each request's or notification's method as it passes
        self.on_eof = on_eof
        self.real_in = self.real_out = -1
        self.to_sdk = -1
        self.from_sdk = -1

    def plug(self) -> Wire:
        self.real_in, self.real_out = os.dup(0), os.dup(1)
        sdk_in, self.to_sdk = os.pipe()
        self.from_sdk, sdk_out = os.pipe()
        os.dup2(sdk_in, 0)
        os.dup2(sdk_out, 1)
        os.close(sdk_in)
        os.close(sdk_out)
        threading.Thread(target=self._read, name="ihmt-mcp-stdin", daemon=True).start()
        threading.Thread(target=self._forward, name="ihmt-mcp-stdout", daemon=True).start()
        return self

    def send(self, message: dict | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode()
        with self.lock:
            try:
                _write_all(self.real_out, data + b"\n")
            except OSError:  # the client is gone: nothing to tell it
                pass

    def _read(self) -> None:
        for line in _lines(self.real_in, MAX_MESSAGE):
            text, answer, method = judge(line.rstrip(b"\r")) if line is not None else (None, TOO_LARGE, "")
            if answer is not None:
                self.send(answer)
            if text is not None:
                if self.on_method is not None:
                    self.on_method(method)
                try:
                    _write_all(self.to_sdk, text.encode("utf-8") + b"\n")
                except OSError:
                    break
        os.close(self.to_sdk)  # the SDK reads end of input and stops
        if self.on_eof is not None:
            self.on_eof()

    def _forward(self) -> None:
        for line in _lines(self.from_sdk, None):
            assert line is not None
            if line.lstrip().startswith(b"{"):
                self.send(line)
            elif line.strip():
                os.write(2, line + b"\n")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _lines(fd: int, limit: int | None):
    """The lines read from `fd` until end of input; None for a line over `limit` bytes (what it held
    is not kept)."""
    pending, dropping = bytearray(), False
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                if not dropping:
                    pending += chunk[start:]
                    if limit is not None and len(pending) > limit:
                        pending, dropping = bytearray(), True
                break
            if not dropping:
                pending += chunk[start:nl]
            yield None if dropping or (limit is not None and len(pending) > limit) else bytes(pending)
            pending, dropping = bytearray(), False
            start = nl + 1
    if dropping:
        yield None
    elif pending:
        yield bytes(pending)


def exit_after_eof(grace: float = EOF_GRACE) -> Callable[[], None]:
    """What the wire calls at end of input: the process exits `grace` seconds later at the latest."""

    def later() -> None:
        def stop() -> None:
            try:
                sys.stderr.flush()
            finally:
                os._exit(0)

        timer = threading.Timer(grace, stop)
        timer.daemon = True
        timer.start()

    return later
