"""What operations return: typed values across the library's boundary.

Front ends read attributes, never keys of a dict that may or may not be there; `to_dict()` gives
the plain JSON that `--json` prints.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Problem:
    """A finding of `doctor` (or of a reconcile): what is wrong, where, and whether repair fixes it."""

    kind: str
    path: str
    message: str
    repairable: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Change:
    """One commit in a memory's (or the vault's) history."""

    sha: str
    date: str
    op: str
    agent: str
    subject: str
    path: str = ""
    diff: str | None = None
    ids: list[str] = field(default_factory=list)  # the memories it touched (Memory-Id trailers)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class FileChange:
    """A memory file taken in by a reconcile: edited, moved or deleted by hand."""

    op: str  # edit | move | delete
    path: str
    id: str
    title: str
    moved_from: str | None = None

    def to_dict(self) -> dict:
        return {"op": self.op, "path": self.path, "id": self.id, "title": self.title, "from": self.moved_from}


@dataclass
class ReconcileReport:
    changes: list[FileChange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # files left out: broken, or holding a secret
    commit: str | None = None
    written: list[str] = field(default_factory=list)  # paths this reconcile wrote or committed

    def to_dict(self) -> dict:
        return {
            "changes": [c.to_dict() for c in self.changes],
            "problems": [p.to_dict() for p in self.problems],
            "commit": self.commit,
            "written": self.written,
        }


@dataclass
class ImportReport:
    """What an import did, and where each memory went."""

    memories: list = field(default_factory=list)  # the Memory saved (or already there) for each item kept
    refused: list[str] = field(default_factory=list)  # why each left-out item was refused (never its text)
    importer: str = ""  # the importer that read the path (`auto` names its choice)
    added: int = 0  # memories this run wrote
    already: int = 0  # items the vault already held (same text): not saved again
    folders: dict[str, int] = field(default_factory=dict)  # folder → memories added there
    archived: int = 0  # added straight into archive/
    pinned: int = 0
    outdated: int = 0  # memories marked outdated by a correction in the import
    attachments: int = 0  # files copied beside the notes
    commit: str | None = None  # None: nothing was new, no commit

    def to_dict(self) -> dict:
        return {
            "importer": self.importer,
            "imported": len(self.memories),
            "ids": [m.id for m in self.memories],
            "added": self.added,
            "already_there": self.already,
            "folders": self.folders,
            "archived": self.archived,
            "pinned": self.pinned,
            "outdated": self.outdated,
            "attachments": self.attachments,
            "refused": self.refused,
            "commit": self.commit,
        }


@dataclass
class ExportReport:
    format: str
    memories: int
    path: str | None = None  # where it was written; None: `text` holds it
    text: str | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class IngestReport:
    """What one `ingest` run did: counts, the chunk ids it added, updated and removed, and what it
    skipped (a file or a chunk's span, and why: binary, too big, a secret — never the text)."""

    files: int = 0
    chunks: int = 0
    oversized: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # chunks edited by hand since ingest wrote them: left alone
    skipped: list[tuple[str, str]] = field(default_factory=list)
    commit: str | None = None

    def to_dict(self) -> dict:
        return {**asdict(self), "skipped": [{"where": w, "why": y} for w, y in self.skipped]}


@dataclass
class RebuildReport:
    memories: int
    summaries_changed: int
    commit: str | None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class UndoReport:
    reverted: str
    subject: str
    commit: str | None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ForgetReport:
    id: str
    purged: bool
    path: str | None = None  # where an archived memory went
    commits: int | None = None  # commits a purge rewrote (or would rewrite, when cancelled)
    cancelled: bool = False

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None and (k != "cancelled" or v)}


@dataclass
class SyncReport:
    remote: str
    branch: str
    pushed: bool = False
    pulled: int = 0  # commits brought in
    committed: list[FileChange] = field(default_factory=list)  # pending hand edits taken in first
    conflicts: list[str] = field(default_factory=list)  # notices about conflict copies
    merge_commit: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["committed"] = [c.to_dict() for c in self.committed]
        return d


@dataclass
class SyncStatus:
    remote: str
    branch: str
    ahead: int
    behind: int
    pending: int
    remote_branch_exists: bool

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Moved:
    id: str
    title: str
    before: str  # folder
    after: str


@dataclass
class GardenReport:
    moved: list[Moved] = field(default_factory=list)
    commit: str | None = None
    dry_run: bool = False
    queued: list[str] = field(default_factory=list)  # folders waiting for a split (the dry run says)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Committed:
    """What one operation committed, as the `after_commit` event sees it."""

    op: str
    commit: str
    paths: list[str]
    agent: str
