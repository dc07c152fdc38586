"""The vector index: one embedding per memory and per folder summary, kept beside the Whoosh index.

A question asked in other words than the memory that answers it shares no word with it; its
embedding is still near. The index holds every document's vector (an `Embedder`, a plugin: the
built-in one is WordLlama's static model, its weights in its wheel) and answers `nearest(text)`
by cosine similarity over one float32 matrix — a flat scan, exact, a few milliseconds at 50,000
(50k × 256 floats = 50 MB), with no approximate structure to keep consistent.

Storage: `vectors.sqlite` (key, kind, folder, scope, vector), written in the same operation as the
Whoosh commit, and a `generation` that says which index state it reflects. A crash between the
two leaves a generation behind: the next search rebuilds the vectors from the index's stored
texts (the index itself is rebuilt from the files), so the vectors are a cache like the rest.
The matrix is read from SQLite once per process and again only when another process wrote
(`PRAGMA data_version`).

Invariants: a vector is the normalised embedding of `embed_text(doc)`; keys are the index's;
the model's name is recorded, and vectors of another model are never mixed in (rebuilt instead).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..text import CJK_RUN

if TYPE_CHECKING:
    from .documents import Doc

BATCH = 512  # documents embedded at once when rebuilding
CENTROID_SLACK = 50  # rows written (or one in 20) before the folders' means are summed again
TEXT_CHARS = 2000  # of a memory's body: its start says what it is about


class Embedder(Protocol):
    """What the vector index needs of a model: its name (recorded with the vectors) and
    `embed(texts)`, one normalised float32 row per text."""

    name: str

    def embed(self, texts: Sequence[str]) -> Any: ...


def embed_text(kind: str, title: str, body: str) -> str:
    """What of a document is embedded: its title and the start of its text (a summary's title and
    its first lines: its description and keywords)."""
    body = body or ""
    if title and body.lstrip().startswith(title.rstrip(".…")):
        title = ""  # a title made from the first line would count twice
    return f"{title}\n{body[: TEXT_CHARS if kind == 'memory' else 600]}".strip()


def reads(text: str) -> bool:
    """Whether the built-in model reads this text: it cuts Chinese and Japanese into bytes, which
    measured only loses there, so those questions get no vote from it."""
    return not CJK_RUN.search(text)


class VectorIndex:
    def __init__(self, folder: Path, embedder: Embedder):
        self.folder = Path(folder)
        self.embedder = embedder
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._matrix: Any = None
        self._keys: list[str] = []  # row → key ("" for a row deleted since the load)
        self._row: dict[str, int] = {}  # key → row
        self._n = 0  # rows in use; the buffers below hold room for more
        self._buf: Any = None
        self._kbuf: Any = None
        self._fbuf: Any = None
        self._sbuf: Any = None
        self._kinds: Any = None
        self._folders: Any = None
        self._scopes: Any = None
        self._seen_version: int | None = None
        self._centroids: tuple[list[str], Any] | None = None  # (folders, their members' mean vector), per load
        self._drift = 0  # rows written since the centroids were summed

    # -- storage ------------------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                str(self.folder / "vectors.sqlite"), timeout=30, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, kind TEXT, folder TEXT, "
                "scope TEXT, vec BLOB)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
            self._db = db
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            self._matrix = None

    def generation(self) -> str | None:
        """The index generation these vectors reflect (None: none yet, or of another model)."""
        rows = dict(self._conn().execute("SELECT k, v FROM meta").fetchall())
        return rows.get("generation") if rows.get("model") == self.embedder.name else None

    def size(self) -> int:
        return int(self._conn().execute("SELECT count(*) FROM vectors").fetchone()[0])

    def _vectors(self, docs: Sequence[Doc]) -> Any:
        import numpy as np

        texts = [embed_text(d.kind, d.title, d.body) for d in docs]
        return np.asarray(self.embedder.embed(texts), dtype=np.float32)

    def apply(self, upserts: Iterable[Doc], deletes: Iterable[str], generation: str) -> None:
        """Embed and store `upserts`, drop `deletes` (keys), and record `generation`."""
        docs, deletes = list(upserts), list(deletes)
        vecs = self._vectors(docs) if docs else []
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("DELETE FROM vectors WHERE key = ?", [(k,) for k in deletes])
                db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)",
                    [(d.key, d.kind, d.folder, scope_of(d), v.tobytes()) for d, v in zip(docs, vecs)],
                )
                self._set_meta(db, generation)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._follow(docs, vecs, deletes)

    def _follow(self, docs: list[Doc], vecs: Any, deletes: Sequence[str]) -> None:
        """The loaded matrix brought along with this connection's own write (which leaves
        `data_version` as it was), row by row: a changed row is overwritten, a new one appended
        into spare capacity (doubled when full), a deleted one left dead — no kind, so no query
        finds it — until the next load. Copying the matrix at every save cost ~80 ms at 50,000."""
        import numpy as np

        if self._matrix is None:
            return
        rows = np.asarray(vecs, dtype=np.float32).reshape(len(docs), -1) if docs else None
        if rows is not None and self._matrix.shape[1] != rows.shape[1]:
            self._matrix = None  # the first rows of an empty table: read them as stored
            return
        for key in deletes:
            i = self._row.pop(key, None)
            if i is not None:
                self._keys[i] = self._kinds[i] = self._folders[i] = self._scopes[i] = ""
        new = len({d.key for d in docs} - self._row.keys())
        if self._n + new > len(self._buf):
            self._resize(max(2 * len(self._buf), self._n + new, 64))
        for d, vec in zip(docs, rows if rows is not None else []):
            i = self._row.get(d.key)
            if i is None:
                i = self._row[d.key] = self._n
                self._n += 1
                self._keys.append(d.key)
            self._buf[i] = vec
            self._kbuf[i], self._fbuf[i], self._sbuf[i] = d.kind, d.folder, scope_of(d)
        self._views()
        self._drift += len(deletes) + len(docs)
        if self._drift > max(CENTROID_SLACK, len(self._row) // 20):
            self._centroids = None  # a folder's mean moves little with a few saves: summed again now and then

    def _resize(self, capacity: int) -> None:
        import numpy as np

        n, width = self._n, self._matrix.shape[1]
        buf = np.zeros((capacity, width), dtype=np.float32)
        buf[:n] = self._buf[:n]
        self._buf = buf
        for name in ("_kbuf", "_fbuf", "_sbuf"):
            col = np.full(capacity, "", dtype=object)
            col[:n] = getattr(self, name)[:n]
            setattr(self, name, col)

    def _views(self) -> None:
        """The rows in use, as the readers see them (views into the buffers, not copies)."""
        n = self._n
        self._matrix, self._kinds, self._folders, self._scopes = (
            self._buf[:n],
            self._kbuf[:n],
            self._fbuf[:n],
            self._sbuf[:n],
        )

    def rebuild(self, docs: Iterable[Doc], generation: str) -> int:
        """Every document embedded anew (`docs` may be an iterator: read in batches)."""
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM vectors")
                n, batch = 0, []
                for d in docs:
                    batch.append(d)
                    if len(batch) == BATCH:
                        n += self._insert(db, batch)
                        batch = []
                n += self._insert(db, batch)
                self._set_meta(db, generation)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._matrix = None
            return n

    def _insert(self, db: sqlite3.Connection, docs: list[Doc]) -> int:
        if not docs:
            return 0
        db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)",
            [(d.key, d.kind, d.folder, scope_of(d), v.tobytes()) for d, v in zip(docs, self._vectors(docs))],
        )
        return len(docs)

    def _set_meta(self, db: sqlite3.Connection, generation: str) -> None:
        db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [("generation", generation), ("model", self.embedder.name)]
        )

    # -- reading ------------------------------------------------------------------------------------
    def _load(self) -> None:
        """The matrix as stored, read again only when a writer (any process) changed it."""
        import numpy as np

        db = self._conn()
        version = int(db.execute("PRAGMA data_version").fetchone()[0])
        if self._matrix is not None and version == self._seen_version:
            return
        rows = db.execute("SELECT key, kind, folder, scope, vec FROM vectors").fetchall()
        self._keys = [r[0] for r in rows]
        self._row = {k: i for i, k in enumerate(self._keys)}
        self._n = len(rows)
        self._kbuf = np.array([r[1] for r in rows], dtype=object)
        self._fbuf = np.array([r[2] for r in rows], dtype=object)
        self._sbuf = np.array([r[3] for r in rows], dtype=object)
        self._buf = (
            np.frombuffer(b"".join(r[4] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()
            if rows
            else np.zeros((0, 1), dtype=np.float32)
        )
        self._views()
        self._seen_version = version
        self._centroids = None

    def of(self, keys: Sequence[str]) -> dict[str, Any]:
        """The stored vectors of these keys (those it has)."""
        with self._lock:
            self._load()
            return {k: self._matrix[self._row[k]] for k in keys if k in self._row}

    def nearest(
        self,
        text: str,
        k: int = 50,
        scopes: Sequence[str] = ("mem",),
        under: str = "",
        kinds: Sequence[str] = ("memory",),
    ) -> list[tuple[str, float, float]]:
        """The `k` documents nearest `text` among those of `scopes` and `kinds` (below `under`):
        (key, cosine, z) best first, z being how far the cosine stands above the others' (in
        standard deviations). [] when the model does not read the text."""
        import numpy as np

        if not text.strip() or not reads(text):
            return []
        with self._lock:
            self._load()
            if not len(self._keys):
                return []
            q = np.asarray(self.embedder.embed([text]), dtype=np.float32)[0]
            sims = self._matrix @ q
            keep = np.isin(self._kinds, list(kinds)) & np.isin(self._scopes, list(scopes))
            if under:
                keep &= np.array([f == under or f.startswith(under + "/") for f in self._folders], dtype=bool)
            if not keep.any():
                return []
            kept = np.flatnonzero(keep)
            s = sims[kept]
            mean, std = float(s.mean()), float(s.std()) or 1.0
            top = kept[np.argsort(-s)[:k]]
            return [(self._keys[i], float(sims[i]), (float(sims[i]) - mean) / std) for i in top]

    def folders_near(self, text: str) -> dict[str, float]:
        """Each folder's closeness to `text` in meaning: the cosine to the mean of its live memories'
        vectors, its subfolders' included ({} when the model does not read the text)."""
        import numpy as np

        if not text.strip() or not reads(text):
            return {}
        with self._lock:
            self._load()
            if self._centroids is None:
                self._centroids, self._drift = self._folder_centroids(), 0
            folders, matrix = self._centroids
            if not folders:
                return {}
            q = np.asarray(self.embedder.embed([text]), dtype=np.float32)[0]
            return dict(zip(folders, (matrix @ q).tolist()))

    def _folder_centroids(self) -> tuple[list[str], Any]:
        import numpy as np

        live = np.flatnonzero((self._kinds == "memory") & (self._scopes == "mem"))
        if not len(live):
            return [], None
        own, where = np.unique(self._folders[live].astype(str), return_inverse=True)
        sums = np.zeros((len(own), self._matrix.shape[1]), dtype=np.float32)
        np.add.at(sums, where, self._matrix[live])  # each folder's own memories ...
        total: dict[str, Any] = {}
        for folder, row in zip(own.tolist(), sums):
            parts = folder.split("/") if folder else []
            for n in range(1, len(parts) + 1):  # ... counted in it and in every ancestor
                f = "/".join(parts[:n])
                total[f] = total[f] + row if f in total else row.copy()
        folders = sorted(total)
        if not folders:
            return [], None
        matrix = np.stack([total[f] for f in folders])
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
        return folders, matrix


def scope_of(doc: Doc) -> str:
    """The document's scope as the Whoosh index has it (mem | arc | sum | arcsum)."""
    from .documents import is_archived

    if doc.kind == "summary":
        return "arcsum" if is_archived(doc) else "sum"
    return "arc" if is_archived(doc) else "mem"
