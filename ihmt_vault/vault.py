"""The vault: the one object every front end talks to.

`Vault` is the composition root and a façade. `open` and `init` read the settings and assemble the
engine (engine/: paths, repository, lock, catalog, index, the write path); every other method is a
docstring and one delegation to the operation that owns it (ops/), grouped by noun as a reader
looks for them:

    v.search(...)  v.brief()                     the two calls every session makes
    v.memories     save, get, show, read, append, pin, archive, restore, outdate, current, forget,
                   save_many, import_file, ingest, export, list, facts, conflicts
    v.topics       tree, read, describe, garden, queued
    v.history      of (v.history(id) too), changes, at, undo
    v.mounts       add, remove, sync, declared, get
    v.remote       sync, status
    v.hooks        install, check_staged; install_server, check_push, check_range (a bare repository)
    v.maintenance  doctor, rebuild, reconcile, decay, decay_due, weights, stats, compact_index

The flat methods of the previous release (`v.save`, `v.mark_outdated`, `v.mount`, ...) remain for
one release as aliases of these (`_ALIASES` at the end); new code uses the nouns.

Every error a user can cause is a `VaultError` with a one-line message; an operation that raises
one has changed nothing.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from pathlib import Path

from .config import CONFIG_PATH, Config, vault_folder
from .engine.core import Engine, Progress
from .errors import BadInput, NotAVault
from .ops import (
    answers,
    corrections,
    decay,
    doctor,
    export,
    garden,
    githooks,
    history,
    ingest,
    levels,
    lifecycle,
    reconcile,
    saving,
    sync,
)
from .ops.decay import DecayReport
from .ops.mounts import Mounts
from .plugins import chunkers
from .plugins.manager import register
from .results import (
    Change,
    ExportReport,
    ForgetReport,
    GardenReport,
    ImportReport,
    IngestReport,
    Problem,
    RebuildReport,
    ReconcileReport,
    SyncReport,
    SyncStatus,
    UndoReport,
)
from .search.result import SearchResult
from .storage import gitlog, timeline
from .storage.layout import default_path, expand, write_vault_files
from .storage.notes import Memory

register(decay, "ihmt.decay")  # decay runs on the `after_commit` event, once a day (ops/decay.py)


def open_engine(path: Path) -> Engine:
    """The engine of the vault at `path` (a folder holding `.ihmt/config.toml` inside a git work tree)."""
    root = vault_folder(expand(path))
    if gitlog.work_tree_of(root) is None:
        raise NotAVault(f"{root}: the vault is not inside a git repository; run 'git init' there")
    return Engine(root, Config.load(root))


class Vault:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.mounts = Mounts(engine, open_engine)  # opened when used
        self.memories = Memories(self)
        self.topics = Topics(self)
        self.history = History(self)
        self.remote = Remote(self)
        self.hooks = Hooks(self)
        self.maintenance = Maintenance(self)

    # -- opening: the composition root -------------------------------------------------------------
    @classmethod
    def init(cls, path: str | Path, title: str | None = None, own_repo: bool = False) -> Vault:
        """Create a vault at `path` (idempotent: an existing vault is opened, never clobbered). In a
        git work tree it is a folder of that repository, unless `own_repo` (the demo's choice)."""
        root = expand(path)
        if (root / CONFIG_PATH).exists():
            vault = cls.open(root)
            sync.configure(vault.engine)  # a fresh clone has neither hooks nor the merge driver
            githooks.install(vault.engine)
            return vault
        if root.exists() and not root.is_dir():
            raise BadInput(f"{root}: exists and is not a folder; choose another path")
        config = Config(title=title) if title else Config()  # validated before anything is created
        root.mkdir(parents=True, exist_ok=True)
        root = root.resolve()
        if own_repo or gitlog.work_tree_of(root) is None:
            gitlog.init_repo(root)
        written = write_vault_files(root, {CONFIG_PATH: config.to_toml()})
        e = Engine(root, config)
        sync.configure(e)
        githooks.install(e)
        reconcile.adopt(e, written)
        return cls(e)

    @classmethod
    def open(cls, path: str | Path | None = None) -> Vault:
        """Open the vault at `path`; with no path, `$IHMT_VAULT` or `~/.ihmt/vault` (created on first use)."""
        if path is None and not (default_path() / CONFIG_PATH).exists():
            return cls.init(default_path())
        return cls(open_engine(default_path() if path is None else Path(path)))

    def close(self) -> None:
        """Release the caches and git's helper processes (the vault stays as it is on disk)."""
        self.mounts.close()
        self.engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the parts (for tools and tests; operations go through the nouns) ----------------------------
    @property
    def root(self) -> Path:
        return self.engine.root

    @property
    def config(self) -> Config:
        return self.engine.config

    @property
    def repo(self) -> gitlog.Repo:
        return self.engine.repo

    @property
    def lock(self):
        return self.engine.lock

    @property
    def catalog(self):
        return self.engine.catalog

    def refresh(self, force: bool = False) -> None:
        """Bring the caches up to date with files changed outside the tool (cheap; see engine/core.py)."""
        self.engine.refresh(force)

    # -- the two calls of every session ------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        clue: str | None = None,
        level: int | None = None,
        under: str | None = None,
        detail: str = "compact",
        as_of: str | None = None,
        vault: str | None = None,
    ) -> SearchResult:
        """Search this vault and every mounted one, or only `vault` (see `ihmt_vault.search`);
        `as_of` answers as things stood on that day. A mounted hit names its vault; the answer is a recall."""
        return answers.search_all(self.mounts, query, k, clue, level, under, detail, as_of, vault)

    def brief(self, budget_tokens: int | None = None) -> str:
        """The top level for a session's start (pinned, then every live memory's first line while they
        fit, then per topic counts), the mounted vaults' too, within `budget_tokens` whatever the size."""
        return levels.brief(self.engine, budget_tokens, mounts=self.mounts.available())


class _Noun:
    def __init__(self, vault: Vault):
        self.v = vault
        self.e = vault.engine


class Memories(_Noun):
    """The memories: saving, reading, correcting, their lifecycle."""

    def save(
        self,
        text: str,
        title: str | None = None,
        topic: str | None = None,
        date: str | None = None,
        tags: Iterable[str] = (),
        type: str | None = None,
        source: str | None = None,
        pinned: bool = False,
        supersedes: Iterable[str] = (),
        replaces: str | None = None,
        facts: list[dict] | None = None,
        vault: str | None = None,
    ) -> Memory:
        """Save one memory under `topic`, or where it fits best; one commit. It goes to this vault
        unless `vault` names a mount or `topic` starts with one's name.

        `supersedes` names the ids it corrects; `replaces` describes the memory it corrects, found by
        search (several matches are listed in `notices`, nothing marked). `facts` ([{subject,
        attribute, value}]) go to front matter, else the text's are extracted; a fact contradicting
        its timeline's current value outdates the memory that stated it, with a notice.
        """
        return self.v.mounts.save(
            text,
            topic,
            vault,
            title=title,
            date=date,
            tags=tags,
            type=type,
            source=source,
            pinned=pinned,
            supersedes=supersedes,
            replaces=replaces,
            facts=facts,
        )

    def save_many(self, items: list[dict], source: str | None = None, progress: Progress | None = None) -> list[Memory]:
        """Save many memories as one commit (`Memory-Op: import`); ids in the order given."""
        return saving.save_many(self.e, items, source, progress)

    def import_file(
        self,
        path: str | Path,
        format: str = "auto",
        source: str | None = None,
        progress: Progress | None = None,
        strict: bool = False,
    ) -> ImportReport:
        """Import another store's memories (FORMATS.md) with the importer `format`, or with `auto` the
        one that recognises `path`; one commit, nothing if all is already there; the store is only
        read. Invalid items are reported and left out, or with `strict` refuse the whole import."""
        return saving.import_file(self.e, expand(path), format, source, progress, strict)

    def ingest(
        self,
        paths: list[str | Path],
        type: str | None = None,
        topic: str | None = None,
        limit: int = chunkers.LIMIT,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Bring files and folders in, cut where they are cut (code at its symbols, documents at
        their headings and paragraphs, journals at their dated entries), one memory per chunk and
        one commit; a second run of unchanged files changes nothing."""
        return ingest.ingest(self.e, [expand(p) for p in paths], type, topic, limit, progress)

    def export(self, format: str = "jsonl", out: str | Path | None = None) -> ExportReport:
        """Every memory out of the vault: `jsonl` (what `import --format jsonl` reads back into an
        equal vault) or `markdown` (one plain document); written to `out`, else returned as text."""
        return export.export(self.e, format, expand(out) if out is not None else None)

    def resolve(self, id_or_path: str) -> str:
        """The vault-relative path of a memory given its id or its path."""
        return self.e.resolve(id_or_path)

    def get(self, id_or_path: str, at: str | None = None) -> Memory:
        """A memory as it is now, or as it was at the end of the day `at` (YYYY-MM-DD), from git."""
        return self.e.get(id_or_path) if at is None else history.get_at(self.e, id_or_path, at)

    def show(self, id_or_path: str, source: str | None = None) -> Memory:
        """A memory read in full by a person or an agent: counted as a recall, and brought back from
        the archive if it was there (one `restore` commit, with a notice); in a mount, read there."""
        return lifecycle.show(*self.v.mounts.locate(id_or_path), source)

    def read(self, id_or_path: str, level: int, source: str | None = None) -> tuple[Memory, str]:
        """A memory down to `level` (1-5) of its nested entries, `[+N →]` where they are cut (a recall)."""
        return levels.read(*self.v.mounts.locate(id_or_path), level, source)

    def append(self, id_or_path: str, content: str, under: str | None = None, source: str | None = None) -> Memory:
        """Add entries (tab-indented lines are deeper levels) under the entry at `under` (e.g. "2.1"),
        else at the top level, without rewriting the rest of the memory. One commit."""
        return saving.append(self.e, id_or_path, content, under, source)

    def list(self, under: str = "") -> list[dict]:
        """Every memory in a folder and below (all of them by default): id, title, path, date, status..."""
        return levels.memories(self.e, under)

    # below `list` (the method), the built-in is `builtins.list`
    def __call__(self, under: str = "") -> builtins.list[dict]:
        """`v.memories()`: the same as `v.memories.list()` (kept for one release)."""
        return self.list(under)

    def pin(self, id_or_path: str, pinned: bool = True, source: str | None = None) -> Memory:
        """Pin (a core memory: never decays, always in the brief) or unpin a memory. One commit."""
        return lifecycle.pin(self.e, id_or_path, pinned, source)

    def rename(self, id_or_path: str, title: str, source: str | None = None) -> Memory:
        """Give a memory a new title; its file is renamed to match (its id stays). One commit."""
        return lifecycle.rename(self.e, id_or_path, title, source)

    def archive(self, id_or_path: str, source: str | None = None) -> Memory:
        """Move a memory into `archive/` (same sub-path), status archived: kept and searchable, out of the way."""
        return lifecycle.archive(self.e, id_or_path, source)

    def restore(self, id_or_path: str, source: str | None = None) -> Memory:
        """Bring an archived memory back to the folder it was archived from, status active."""
        return lifecycle.restore(self.e, id_or_path, source)

    def outdate(self, old_id: str, new_id: str, source: str | None = None) -> Memory:
        """Flag `old_id` as outdated, superseded by `new_id` (both keep their files). One commit."""
        return corrections.mark_outdated(self.e, old_id, new_id, source)

    def current(self, id_or_path: str, source: str | None = None) -> Memory:
        """Undo `outdate`: the memory is current again and its correction no longer supersedes it."""
        return corrections.restore_current(self.e, id_or_path, source)

    def forget(
        self,
        id_or_path: str,
        purge: bool = False,
        confirm: Callable[[int], bool] | None = None,
        source: str | None = None,
    ) -> ForgetReport:
        """Forget a memory. Without `purge` it is archived (kept, out of the way). With `purge` its
        file is deleted and git history is rewritten so its text is in no commit; `confirm(n)` is
        asked first with the number of commits that change. A purged vault must be force-pushed and
        other clones re-cloned (their copies still hold the text).
        """
        return lifecycle.forget(self.e, id_or_path, purge, confirm, source)

    def facts(self, subject: str | None = None, at: str | None = None) -> builtins.list[timeline.Timeline]:
        """Every fact's timeline (oldest value first), or one subject's; with `at`, as of that day."""
        return corrections.facts(self.e, subject, at)

    def conflicts(self) -> builtins.list[timeline.Timeline]:
        """The facts whose value changed over time."""
        return corrections.conflicts(self.e)


class Topics(_Noun):
    """The topic tree: its shape, a folder's summary, descriptions, the gardener."""

    def tree(self, depth: int = 2) -> dict:
        """The topic tree down to `depth` levels: folders with counts, memories as title lines."""
        return levels.topic_tree(self.e, depth)

    def read(self, folder: str = "") -> str:
        """A folder's summary (its index.md): one level of the tree, to drill down from."""
        return levels.read_folder(self.e, folder)

    def describe(self, folder: str, text: str, source: str | None = None) -> str:
        """Describe a topic: kept above its summary's generated part and shown first. One commit."""
        return garden.describe(self.e, folder, text, source)

    def tend(self, source: str | None = None) -> GardenReport | None:
        """One slice of the gardener's queue (a crowded folder split), one `move` commit; None when
        nothing is queued. What long-lived processes call when idle."""
        return garden.tend(self.e, source)

    def queued(self) -> builtins.list[str]:
        """The folders waiting for the gardener, most crowded first."""
        return garden.queued(self.e)

    def garden(self, dry_run: bool = False, source: str | None = None) -> GardenReport:
        """Tidy the tree: file the inbox, split crowded folders, re-file, rename; one `move` commit."""
        return garden.garden(self.e, dry_run, source)


class History(_Noun):
    """The vault's past, from git: a memory's commits, recent operations, a day's view, undo."""

    def of(self, id_or_path: str, diff: bool = False) -> list[Change]:
        """Every commit that touched a memory, newest first, following moves; with `diff`, what changed."""
        return history.history(self.e, id_or_path, diff)

    def __call__(self, id_or_path: str, diff: bool = False) -> list[Change]:
        """`v.history(id)`: the same as `v.history.of(id)`."""
        return self.of(id_or_path, diff)

    def changes(self, limit: int = 50) -> list[Change]:
        """The vault's most recent operations, newest first, from the git log."""
        return history.changes(self.e, limit)

    def at(self, id_or_path: str, day: str) -> Memory:
        """A memory as it was at the end of the day `day` (YYYY-MM-DD), from git."""
        return history.get_at(self.e, id_or_path, day)

    def undo(self, source: str | None = None, force: bool = False, commit: str | None = None) -> UndoReport:
        """Revert the caller's own last operation (or the one `commit` names) with a new commit; a
        second undo steps further back. Another agent's operation needs `force`. History is never
        rewritten."""
        return history.undo(self.e, source, force, commit)


class Remote(_Noun):
    """The vault's git remote: sync with it, and how far apart the two are."""

    def sync(self, remote: str | None = None, agent: str = "sync") -> SyncReport:
        """Commit pending edits, pull (merging without conflicts to resolve), push."""
        return sync.sync(self.e, remote, agent)

    def status(self, remote: str | None = None) -> SyncStatus:
        """How far ahead of and behind the remote the vault is, and how many edits are pending."""
        return sync.status(self.e, remote)


class Hooks(_Noun):
    """Git hooks: the vault's own, and the server's check of pushes against the roles."""

    def install(self) -> list[dict]:
        """Install the vault's git hooks (a hook of the person's own is left alone)."""
        return githooks.install(self.e)

    def check_staged(self) -> list[str]:
        """Problems with the memories staged for the next commit (the pre-commit hook)."""
        return githooks.check_staged(self.e)

    @staticmethod
    def install_server(bare: Path) -> list[dict]:
        """Install the roles' pre-receive hook into a bare repository (on the server)."""
        return githooks.install_server(bare)

    @staticmethod
    def check_push(repo: Path, lines: list[str]) -> list[str]:
        """What a push ('old new ref' lines, as pre-receive reads them) does that the roles refuse."""
        return githooks.check_push(repo, lines)

    @staticmethod
    def check_range(repo: Path, spec: str) -> list[str]:
        """What the commits of `A..B` do that the roles at A refuse (a CI job)."""
        return githooks.check_range(repo, spec)


class Maintenance(_Noun):
    """Keeping the vault whole: doctor, rebuilds, hand edits taken in, the metabolism, statistics."""

    def doctor(self, repair: bool = False) -> list[Problem]:
        """Find what is inconsistent (see ops/doctor.py for the kinds); with `repair`, fix it in one commit."""
        return doctor.run(self.e, repair)

    def rebuild(self, progress: Progress | None = None) -> RebuildReport:
        """Regenerate every summary, the catalog and the search index from the memory files."""
        return reconcile.rebuild(self.e, progress)

    def reconcile(self, paths: Iterable[str] | None = None, agent: str = "watch") -> ReconcileReport:
        """Take in what changed on disk outside the tool — a person's edits, a `git pull` — as one commit.

        `paths` (vault-relative or absolute; folders allowed) limits the look to what an editor
        touched; None looks at everything. A file that cannot be taken in (broken front matter, a
        secret in its text) is not committed nor indexed: it is reported in `problems`.
        """
        return reconcile.reconcile(self.e, paths, agent)

    def compact_index(self) -> bool:
        """Merge the search index into one segment when idle (long-lived processes); True if merged."""
        return self.e.compact_index()

    def decay(self, dry_run: bool = False, source: str | None = None) -> DecayReport:
        """Archive the memories whose weight sank (see ops/decay.py for the rule), delete expired archived
        ones if `archive_expiry_days` is set: one commit, one line in operations.md."""
        return decay.run(self.e, dry_run, source)

    def decay_due(self) -> bool:
        """Whether decay has not run today on this machine (what `ihmt decay --auto` asks)."""
        return decay.due(self.e)

    def weights(self) -> list:
        """Every memory's weight now, heaviest first (recalls, idle days): what decay would judge."""
        return decay.weigh(self.e, self.e.recalls)

    def stats(self) -> dict:
        """Counts by status and type, topics, pinned, sizes on disk."""
        return levels.stats(self.e)


def _alias(noun: str, verb: str):
    def method(self, *args, **kwargs):
        return getattr(getattr(self, noun), verb)(*args, **kwargs)

    method.__name__ = verb
    method.__doc__ = f"The previous release's name for `Vault.{noun}.{verb}` (kept for one release)."
    return method


# The previous release's flat methods, for one release: name → (noun, verb).
_ALIASES = {
    "save": ("memories", "save"),
    "save_many": ("memories", "save_many"),
    "import_file": ("memories", "import_file"),
    "ingest": ("memories", "ingest"),
    "export": ("memories", "export"),
    "resolve": ("memories", "resolve"),
    "get": ("memories", "get"),
    "show": ("memories", "show"),
    "read": ("memories", "read"),
    "append": ("memories", "append"),
    "pin": ("memories", "pin"),
    "archive": ("memories", "archive"),
    "restore": ("memories", "restore"),
    "mark_outdated": ("memories", "outdate"),
    "restore_current": ("memories", "current"),
    "forget": ("memories", "forget"),
    "facts": ("memories", "facts"),
    "conflicts": ("memories", "conflicts"),
    "tree": ("topics", "tree"),
    "read_folder": ("topics", "read"),
    "describe": ("topics", "describe"),
    "garden": ("topics", "garden"),
    "changes": ("history", "changes"),
    "undo": ("history", "undo"),
    "sync": ("remote", "sync"),
    "sync_status": ("remote", "status"),
    "mount": ("mounts", "add"),
    "unmount": ("mounts", "remove"),
    "sync_mounts": ("mounts", "sync"),
    "install_hooks": ("hooks", "install"),
    "check_staged": ("hooks", "check_staged"),
    "doctor": ("maintenance", "doctor"),
    "rebuild": ("maintenance", "rebuild"),
    "reconcile": ("maintenance", "reconcile"),
    "compact_index": ("maintenance", "compact_index"),
    "decay": ("maintenance", "decay"),
    "decay_due": ("maintenance", "decay_due"),
    "weights": ("maintenance", "weights"),
    "stats": ("maintenance", "stats"),
}
for _name, (_noun, _verb) in _ALIASES.items():
    setattr(Vault, _name, _alias(_noun, _verb))
