"""The catalog: one row per memory file, in SQLite under `.ihmt/cache/`.

It answers what the files would answer, only fast: id → path, a folder's memories, what changed on
disk since it was last looked at (mtime and size per file), counts. It is derived: `Vault` fills
it from the files and can drop and refill it at any time. WAL mode lets readers in other processes
read while a writer writes.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .notes import Memory, digest_of
from .timeline import Fact, slot

SCHEMA_VERSION = 5
_COLUMNS = (
    "path",
    "id",
    "folder",
    "title",
    "type",
    "status",
    "date",
    "created",
    "pinned",
    "tags",
    "supersedes",
    "superseded_by",
    "source",
    "first_line",
    "keywords",
    "mtime_ns",
    "size",
    "digest",
)
_JSON = {"tags", "supersedes", "superseded_by", "keywords"}


class Row(dict):
    """A catalog row: its columns as typed attributes (`row.title`), and as keys for the summary
    renderer (`row["title"]`)."""

    path: str
    id: str
    folder: str
    title: str
    type: str
    status: str
    date: str | None
    created: str
    pinned: int
    tags: list[str]
    supersedes: list[str]
    superseded_by: list[str]
    source: str
    first_line: str
    keywords: list[str]
    mtime_ns: int
    size: int
    digest: str

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Catalog:
    _NEWEST = "coalesce(date, substr(created, 1, 10)) DESC, created DESC, path"  # newest first

    def __init__(self, file: Path):
        file.parent.mkdir(parents=True, exist_ok=True)
        self.file = file
        self.db = sqlite3.connect(str(file), timeout=30, isolation_level=None, check_same_thread=False)
        self._held: Counter | None = None  # keyword → live memories holding it (`keyword_holders`)
        self._held_n = 0
        self._held_version = None
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self.db.executescript(
                "DROP TABLE IF EXISTS memories; DROP TABLE IF EXISTS meta; "
                "DROP TABLE IF EXISTS facts; DROP TABLE IF EXISTS dirs; DROP TABLE IF EXISTS words;"
            )
        self.db.executescript(f"""
            CREATE TABLE IF NOT EXISTS memories (
                path TEXT PRIMARY KEY, id TEXT, folder TEXT, title TEXT, type TEXT, status TEXT,
                date TEXT, created TEXT, pinned INTEGER, tags TEXT, supersedes TEXT,
                superseded_by TEXT, source TEXT, first_line TEXT, keywords TEXT,
                mtime_ns INTEGER, size INTEGER, digest TEXT);
            CREATE INDEX IF NOT EXISTS memories_id ON memories(id);
            CREATE INDEX IF NOT EXISTS memories_digest ON memories(digest);
            CREATE INDEX IF NOT EXISTS memories_folder ON memories(folder);
            CREATE INDEX IF NOT EXISTS memories_title ON memories(lower(title));
            CREATE TABLE IF NOT EXISTS words (word TEXT, path TEXT);
            CREATE INDEX IF NOT EXISTS words_word ON words(word);
            CREATE INDEX IF NOT EXISTS words_path ON words(path);
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE IF NOT EXISTS facts (
                path TEXT, subject TEXT, attribute TEXT, value TEXT, slot_subject TEXT, slot_attribute TEXT,
                slot_thing TEXT);
            CREATE INDEX IF NOT EXISTS facts_path ON facts(path);
            CREATE TABLE IF NOT EXISTS dirs (path TEXT PRIMARY KEY, mtime_ns INTEGER);
            CREATE INDEX IF NOT EXISTS facts_slot ON facts(slot_subject, slot_attribute, slot_thing);
            PRAGMA user_version = {SCHEMA_VERSION};
        """)

    def close(self):
        self.db.close()

    def compact(self) -> None:
        """Rewrite the file without the pages of deleted rows (a purge: no old text left in it)."""
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- writing ----------------------------------------------------------------------------------
    def upsert(
        self, memory: Memory, first_line: str, keywords: list[str], mtime_ns: int, size: int, facts: Sequence[Fact] = ()
    ):
        self._count(memory.path, -1)
        values = {
            "path": memory.path,
            "id": memory.id,
            "folder": memory.folder,
            "title": memory.title,
            "type": memory.type,
            "status": memory.status,
            "date": memory.date,
            "created": memory.created,
            "pinned": int(memory.pinned),
            "tags": memory.tags,
            "supersedes": memory.supersedes,
            "superseded_by": memory.superseded_by,
            "source": memory.source,
            "first_line": first_line,
            "keywords": keywords,
            "mtime_ns": mtime_ns,
            "size": size,
            "digest": digest_of(memory.body),
        }
        row = [json.dumps(values[c], ensure_ascii=False) if c in _JSON else values[c] for c in _COLUMNS]
        self.db.execute(
            f"INSERT OR REPLACE INTO memories ({','.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})", row
        )
        self.db.execute("DELETE FROM facts WHERE path = ?", (memory.path,))
        self.db.executemany(
            "INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(memory.path, f.subject, f.attribute, f.value, *slot(f)) for f in facts],
        )
        self.db.execute("DELETE FROM words WHERE path = ?", (memory.path,))
        self.db.executemany("INSERT INTO words VALUES (?, ?)", [(w, memory.path) for w in set(keywords)])
        self._count(memory.path, +1)

    def delete(self, path: str):
        self._count(path, -1)
        self.db.execute("DELETE FROM memories WHERE path = ?", (path,))
        self.db.execute("DELETE FROM facts WHERE path = ?", (path,))
        self.db.execute("DELETE FROM words WHERE path = ?", (path,))

    def clear(self):
        self.forget_counts()
        self.db.execute("DELETE FROM memories")
        self.db.execute("DELETE FROM facts")
        self.db.execute("DELETE FROM words")

    # -- keyword counts ---------------------------------------------------------------------------
    def keyword_holders(self) -> tuple[Counter, int]:
        """How many live (not archived) memories hold each keyword, and how many live memories
        there are. Read once, then kept up to date by this connection's own writes (placement asks
        at every save: reading every row each time cost seconds at 50,000); read again when
        another connection wrote (SQLite's data_version says so). Callers never change it."""
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if self._held is None or version != self._held_version:
            held: Counter = Counter()
            n = 0
            for (kws,) in self.db.execute("SELECT keywords FROM memories WHERE status != 'archived'"):
                held.update(set(json.loads(kws) if kws else []))
                n += 1
            self._held, self._held_n, self._held_version = held, n, version
        return self._held, self._held_n

    def forget_counts(self) -> None:
        self._held = None

    def _count(self, path: str, sign: int) -> None:
        """The kept keyword counts follow a row leaving (-1) or entering (+1); none kept, nothing to do."""
        if self._held is None:
            return
        row = self.db.execute("SELECT status, keywords FROM memories WHERE path = ?", (path,)).fetchone()
        if row and row[0] != "archived":
            kws = set(json.loads(row[1]) if row[1] else [])
            if sign > 0:
                self._held.update(kws)
            else:
                self._held.subtract(kws)
            self._held_n += sign

    def dirs(self) -> dict[str, int]:
        """Every folder's modification time when the catalog last looked at it ({} = never)."""
        return dict(self.db.execute("SELECT path, mtime_ns FROM dirs"))

    def set_dirs(self, stamps: dict[str, int], replace_all: bool = False) -> None:
        if replace_all:
            self.db.execute("DELETE FROM dirs")
        self.db.executemany("INSERT OR REPLACE INTO dirs VALUES (?, ?)", stamps.items())

    def drop_dirs(self, paths) -> None:
        self.db.executemany("DELETE FROM dirs WHERE path = ?", [(p,) for p in paths])

    def stamp(self, path: str) -> tuple[int, int] | None:
        row = self.db.execute("SELECT mtime_ns, size FROM memories WHERE path = ?", (path,)).fetchone()
        return tuple(row) if row else None

    def in_folders(self, folders) -> list[str]:
        """Paths of the memories directly in these folders."""
        out = []
        for f in folders:
            out += [p for (p,) in self.db.execute("SELECT path FROM memories WHERE folder = ?", (f,))]
        return out

    def facts(self, where: str = "", args: tuple = ()) -> list[tuple]:
        """(Fact, day, memory id, title, status) for every recorded fact matching `where`."""
        cur = self.db.execute(
            "SELECT f.subject, f.attribute, f.value, coalesce(m.date, substr(m.created, 1, 10)), m.id, m.title, "
            f"m.status FROM facts f JOIN memories m ON m.path = f.path {where} ORDER BY f.rowid",
            args,
        )
        return [(Fact(s, a, v), day, i, t, st) for s, a, v, day, i, t, st in cur]

    def transaction(self):
        return _Transaction(self)

    def set_meta(self, key: str, value: str):
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # -- reading ----------------------------------------------------------------------------------
    def _rows(self, where: str = "", args: tuple = (), order: str = "path") -> list[Row]:
        cur = self.db.execute(f"SELECT {','.join(_COLUMNS)} FROM memories {where} ORDER BY {order}", args)
        return [
            Row({c: json.loads(v) if c in _JSON and v else ([] if c in _JSON else v) for c, v in zip(_COLUMNS, r)})
            for r in cur
        ]

    def by_id(self, id: str) -> list[Row]:
        return self._rows("WHERE id = ?", (id,))

    def by_digest(self, digest: str, archived: bool = False) -> list[Row]:
        """Memories (not archived, unless `archived`) whose text, normalised, is this one's: the same
        memory again (an import run again also finds what it put straight into the archive)."""
        return self._rows("WHERE digest = ?" + ("" if archived else " AND status != 'archived'"), (digest,))

    def by_title(self, title: str) -> list[Row]:
        return self._rows("WHERE lower(title) = lower(?)", (title,))

    def by_source(self, source: str) -> list[Row]:
        return self._rows("WHERE source = ?", (source,))

    def by_source_prefix(self, prefix: str) -> list[Row]:
        """Memories whose source starts with `prefix` (ingested from the files of one folder)."""
        return self._rows("WHERE substr(source, 1, ?) = ?", (len(prefix), prefix))

    def by_path(self, path: str) -> Row | None:
        rows = self._rows("WHERE path = ?", (path,))
        return rows[0] if rows else None

    def in_folder(self, folder: str) -> list[Row]:
        return self._rows("WHERE folder = ?", (folder,))

    def under(self, folder: str) -> list[Row]:
        if not folder:
            return self._rows()
        return self._rows(
            "WHERE folder = ? OR folder LIKE ? ESCAPE '\\'",
            (folder, folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"),
        )

    def all(self) -> list[Row]:
        return self._rows()

    def stamps(self) -> dict[str, tuple[int, int]]:
        return {p: (m, s) for p, m, s in self.db.execute("SELECT path, mtime_ns, size FROM memories")}

    def duplicate_ids(self) -> list[tuple[str, list[str]]]:
        cur = self.db.execute(
            "SELECT id, group_concat(path, '\n') FROM memories WHERE id != '' "
            "GROUP BY id HAVING count(*) > 1 ORDER BY id"
        )
        return [(i, sorted(p.split("\n"))) for i, p in cur]

    def count(self, where: str = "", args: tuple = ()) -> int:
        return self.db.execute(f"SELECT count(*) FROM memories {where}", args).fetchone()[0]

    def holding(self, word: str, limit: int) -> list[Row]:
        """The newest live memories whose keywords hold `word` (at most `limit`), by the keyword
        table (a LIKE over every row's keywords cost a save ~25 ms at 50,000)."""
        return self._rows(
            "WHERE status != 'archived' AND path IN (SELECT path FROM words WHERE word = ?)",
            (word,),
            f"{self._NEWEST} LIMIT {int(limit)}",
        )

    def folder_sizes(self) -> dict[str, int]:
        """How many memories each folder holds directly."""
        return dict(self.db.execute("SELECT folder, count(*) FROM memories GROUP BY folder").fetchall())

    def counts_by_folder(self, status: str) -> dict[str, int]:
        return dict(
            self.db.execute("SELECT folder, count(*) FROM memories WHERE status = ? GROUP BY folder", (status,))
        )

    def newest_under(self, folder: str, limit: int) -> list[Row]:
        """The newest active memories in a folder and below it."""
        prefix = folder + "/"
        return self._rows(
            "WHERE status = 'active' AND (folder = ? OR substr(folder, 1, ?) = ?)",
            (folder, len(prefix), prefix),
            f"{self._NEWEST} LIMIT {int(limit)}",
        )

    def newest_in(self, folder: str, limit: int) -> list[Row]:
        return self._rows("WHERE status = 'active' AND folder = ?", (folder,), f"{self._NEWEST} LIMIT {int(limit)}")

    def pinned(self) -> list[Row]:
        return self._rows("WHERE pinned = 1 AND status != 'archived'")


class _Transaction:
    def __init__(self, catalog):
        self.catalog = catalog

    def __enter__(self):
        self.catalog.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *_):
        self.catalog.db.execute("ROLLBACK" if exc_type else "COMMIT")
        if exc_type:
            self.catalog.forget_counts()  # counted as written, then rolled back
