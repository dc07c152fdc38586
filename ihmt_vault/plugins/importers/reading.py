"""Reading another tool's files without ever writing them: text, JSON lines, SQLite read-only.

Error model (every importer's): what cannot be read is a `BadInput` naming the file (and line) and
what to do, raised before the vault is touched. SQLite is opened through a `file:` URI with
`mode=ro`, and `immutable=1` when no `-wal` file is beside it, so opening never creates a `-wal` or
`-shm` file, nor changes the database's bytes or modification time.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from itertools import islice
from pathlib import Path

from ...errors import BadInput

MAX_TEXT = 20_000_000  # an instruction file or a JSONL store, not a data dump
SQLITE_MAGIC = b"SQLite format 3\x00"


def text_of(path: Path, what: str) -> str:
    """A file's UTF-8 text; a binary or undecodable file is a BadInput saying what was expected."""
    try:
        if path.stat().st_size > MAX_TEXT:
            raise BadInput(f"{path}: is larger than {MAX_TEXT // 1_000_000} MB; give {what}")
        data = path.read_bytes()
    except IsADirectoryError:
        raise BadInput(f"{path}: is a folder; give {what}") from None
    except OSError as e:
        raise BadInput(f"{path}: cannot be read ({e.strerror or e.__class__.__name__}); give {what}") from None
    if b"\0" in data[:8192]:
        raise BadInput(f"{path}: is a binary file, not text; give {what}")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise BadInput(f"{path}: is not UTF-8 text; re-save it as UTF-8, or give {what}") from None


def first_json_line(path: Path) -> dict | None:
    """The first non-blank line of a file as a JSON object, or None (for recognising a format)."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in islice(f, 50):
                if line.strip():
                    value = json.loads(line)
                    return value if isinstance(value, dict) else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None


def json_lines(path: Path, what: str) -> list[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON-lines file."""
    out = []
    for n, line in enumerate(text_of(path, what).splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadInput(f"{path}: line {n} is not JSON ({e.msg}); fix that line and import again") from None
        if not isinstance(value, dict):
            raise BadInput(f"{path}: line {n} is not a JSON object; give {what}")
        out.append((n, value))
    return out


def json_document(path: Path, what: str):
    """A JSON file's value (one document, not lines); a JSON string holding JSON, as a tool's export
    written with `json.dump(exported_text)` is, is decoded once more."""
    text = text_of(path, what)
    try:
        value = json.loads(text)
        if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
            value = json.loads(value)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: is not JSON ({e.msg} at line {e.lineno}); give {what}") from None
    return value


def peek_json(path: Path, suffixes: tuple[str, ...]):
    """A small file's JSON value when its name ends in one of `suffixes`, else None (for recognising)."""
    if not path.is_file() or path.suffix.lower() not in suffixes:
        return None
    try:
        if path.stat().st_size > MAX_TEXT:
            return None
        return json_document(path, "")
    except (OSError, BadInput):
        return None


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def open_sqlite(path: Path, what: str) -> sqlite3.Connection:
    """A read-only connection to another tool's database (rows as `sqlite3.Row`)."""
    if not path.is_file():
        raise BadInput(f"{path}: is not a file; give {what}")
    if not is_sqlite(path):
        raise BadInput(f"{path}: is not an SQLite database; give {what}")
    wal = path.with_name(path.name + "-wal").exists()
    uri = path.resolve().as_uri() + "?mode=ro" + ("" if wal else "&immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        raise BadInput(
            f"{path}: is not a readable SQLite database ({e}); give {what}, or a copy the tool itself can open"
        ) from None
    return conn


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def has_tables(path: Path, *names: str) -> bool:
    """Whether `path` is an SQLite database holding these tables (False when it cannot be read)."""
    if not is_sqlite(path):
        return False
    try:
        conn = open_sqlite(path, "")
    except BadInput:
        return False
    try:
        return set(names) <= tables(conn)
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()


def rows(conn: sqlite3.Connection, path: Path, sql: str, what: str) -> list[dict]:
    try:
        return [dict(r) for r in conn.execute(sql)]
    except sqlite3.DatabaseError as e:
        raise BadInput(f"{path}: cannot be read ({e}); give {what}") from None


def iso_time(value) -> str | None:
    """A source's time (ISO text, or seconds / milliseconds since 1970) as ISO 8601 UTC, else None."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.replace(".", "", 1).isdigit()):
        seconds = float(value)
        if seconds > 1e11:  # milliseconds
            seconds /= 1000
        try:
            return (
                dt.datetime.fromtimestamp(seconds, dt.timezone.utc).replace(microsecond=0, tzinfo=None).isoformat()
                + "Z"
            )
        except (OverflowError, OSError, ValueError):
            return None
    try:
        d = dt.datetime.fromisoformat(str(value).strip().replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        return None
    if d.tzinfo:
        d = d.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return d.replace(microsecond=0).isoformat() + "Z"


def day_of(value) -> str | None:
    """The day (YYYY-MM-DD) of a source's time, else None."""
    stamp = iso_time(value)
    return stamp[:10] if stamp else None
