"""The vault: the one object every front end talks to.

`Vault` is a façade and the composition root: `open` and `init` read the settings and assemble the
engine (engine.py: paths, repository, lock, catalog, index, the write path); every other method is
a docstring and a delegation to the module that owns the operation (ARCHITECTURE.md lists them).
Every error a user can cause is a `VaultError` with a one-line message; an operation that raises
one has changed nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from . import (chunkers, corrections, decay as decay_mod, doctor as doctor_mod, export as export_mod, githooks, gitlog,
               history as history_mod, ingest as ingest_mod, levels, lifecycle, purge as purge_mod,
               garden as garden_mod, mounts as mounts_mod, reconcile as reconcile_mod, saving, sync as sync_mod,
               timeline)
from .config import CONFIG_PATH, Config, Mount
from .engine import Engine, Progress
from .errors import BadInput, NotAVault, Refused
from .layout import default_path, expand, write_vault_files
from .notes import Memory
from .results import (Change, ExportReport, ForgetReport, ImportReport, IngestReport, Problem, RebuildReport,
                      ReconcileReport, SyncReport, SyncStatus, UndoReport)


class Vault:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.mounts = mounts_mod.Mounts(engine.root, engine.config.mounts, Vault.open)   # opened when used
        self._wire()

    # -- opening ----------------------------------------------------------------------------------
    @classmethod
    def init(cls, path: str | Path, title: str | None = None, own_repo: bool = False) -> "Vault":
        """Create a vault at `path` (idempotent: an existing vault is opened, never clobbered). In a
        git work tree it is a folder of that repository, unless `own_repo` (the demo's choice)."""
        root = expand(path)
        if (root / CONFIG_PATH).exists():
            vault = cls.open(root)
            sync_mod.configure(vault.engine)  # a fresh clone has neither hooks nor the merge driver
            githooks.install(vault.engine)
            return vault
        if root.exists() and not root.is_dir():
            raise BadInput(f"{root}: exists and is not a folder; choose another path")
        config = Config(title=title) if title else Config()   # validated before anything is created
        root.mkdir(parents=True, exist_ok=True)
        root = root.resolve()
        if own_repo or gitlog.work_tree_of(root) is None:
            gitlog.init_repo(root)
        written = write_vault_files(root, {CONFIG_PATH: config.to_toml()})
        e = Engine(root, config)
        sync_mod.configure(e)
        githooks.install(e)
        reconcile_mod.adopt(e, written)
        return cls(e)

    @classmethod
    def open(cls, path: str | Path | None = None) -> "Vault":
        """Open the vault at `path`; with no path, `$IHMT_VAULT` or `~/.ihmt/vault` (created on first use)."""
        if path is None:
            root = default_path()
            if not (root / CONFIG_PATH).exists():
                return cls.init(root)
        else:
            root = expand(path)
        if not root.is_dir():
            raise NotAVault(f"{root}: no such folder; create a vault with 'ihmt init {root}'")
        if not (root / CONFIG_PATH).exists():
            raise NotAVault(f"{root}: not a vault (no {CONFIG_PATH}); create one with 'ihmt init {root}'")
        root = root.resolve()
        if gitlog.work_tree_of(root) is None:
            raise NotAVault(f"{root}: the vault is not inside a git repository; run 'git init' there")
        return cls(Engine(root, Config.load(root)))

    def _wire(self) -> None:
        """The composition root's one piece of wiring: decay runs on its own after a write, once a day."""
        e = self.engine
        if e.config.auto_decay:
            e.after_write = self._decay_if_due

    def _decay_if_due(self) -> None:
        """Decay after a write, once a day; a member whose role does not cover it leaves it to a maintainer."""
        if decay_mod.due(self.engine):
            try:
                decay_mod.run(self.engine)
            except Refused:
                pass

    def close(self) -> None:
        """Release the caches and git's helper processes (the vault stays as it is on disk)."""
        self.mounts.close()
        self.engine.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the parts (for tools and tests; operations go through the methods below) -----------------
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
        """Bring the caches up to date with files changed outside the tool (cheap; see engine.py)."""
        self.engine.refresh(force)

    # -- reading ----------------------------------------------------------------------------------
    def resolve(self, id_or_path: str) -> str:
        """The vault-relative path of a memory given its id or its path."""
        return self.engine.resolve(id_or_path)

    def get(self, id_or_path: str, at: str | None = None) -> Memory:
        """A memory as it is now, or as it was at the end of the day `at` (YYYY-MM-DD), from git."""
        return self.engine.get(id_or_path) if at is None else history_mod.get_at(self.engine, id_or_path, at)

    def history(self, id_or_path: str, diff: bool = False) -> list[Change]:
        """Every commit that touched a memory, newest first, following moves; with `diff`, what changed."""
        return history_mod.history(self.engine, id_or_path, diff)

    def changes(self, limit: int = 50) -> list[Change]:
        """The vault's most recent operations, newest first, from the git log."""
        return history_mod.changes(self.engine, limit)

    def tree(self, depth: int = 2) -> dict:
        """The topic tree down to `depth` levels: folders with counts, memories as title lines."""
        return levels.topic_tree(self.engine, depth)

    def memories(self, under: str = "") -> list[dict]:
        """Every memory in a folder and below (all of them by default): id, title, path, date, status..."""
        return levels.memories(self.engine, under)

    def stats(self) -> dict:
        """Counts by status and type, topics, pinned, sizes on disk."""
        return levels.stats(self.engine)

    def read_folder(self, folder: str = "") -> str:
        """A folder's summary (its index.md): one level of the tree, to drill down from."""
        return levels.read_folder(self.engine, folder)

    def brief(self, budget_tokens: int | None = None) -> str:
        """The top level for a session's start (pinned; per topic the newest and most recalled, the
        rest as a count), the mounted vaults' too, within `budget_tokens` (chars/4) whatever the size."""
        return levels.brief(self.engine, budget_tokens, mounts=self.mounts.engines())

    def search(self, query: str, k: int = 10, clue: str | None = None, level: int | None = None,
               under: str | None = None, detail: str = "compact", as_of: str | None = None,
               vault: str | None = None):
        """Search this vault and every mounted one, or only `vault` (see `ihmt_vault.search`);
        `as_of` answers as things stood on that day. A mounted hit names its vault."""
        return mounts_mod.search(self, lambda v: lifecycle.search(v.engine, query, k, clue, level, under, detail,
                                                                  as_of), vault)

    def read(self, id_or_path: str, level: int, source: str | None = None) -> tuple[Memory, str]:
        """A memory down to `level` (1-5) of its nested entries, `[+N →]` where they are cut (a recall)."""
        owner, ref = mounts_mod.locate(self, id_or_path)
        return levels.read(owner.engine, ref, level, source)

    def append(self, id_or_path: str, content: str, under: str | None = None, source: str | None = None) -> Memory:
        """Add entries (tab-indented lines are deeper levels) under the entry at `under` (e.g. "2.1"),
        else at the top level, without rewriting the rest of the memory. One commit."""
        return saving.append(self.engine, id_or_path, content, under, source)

    def show(self, id_or_path: str, source: str | None = None) -> Memory:
        """A memory read in full by a person or an agent: counted as a recall, and brought back from
        the archive if it was there (one `restore` commit, with a notice)."""
        owner, ref = mounts_mod.locate(self, id_or_path)   # a mounted vault's memory is read there
        return lifecycle.show(owner.engine, ref, source)

    def facts(self, subject: str | None = None, at: str | None = None) -> list[timeline.Timeline]:
        """Every fact's timeline (oldest value first), or one subject's; with `at`, as of that day."""
        return corrections.facts(self.engine, subject, at)

    def conflicts(self) -> list[timeline.Timeline]:
        """The facts whose value changed over time."""
        return corrections.conflicts(self.engine)

    # -- writing ----------------------------------------------------------------------------------
    def save(self, text: str, title: str | None = None, topic: str | None = None, date: str | None = None,
             tags: Iterable[str] = (), type: str | None = None, source: str | None = None,
             pinned: bool = False, supersedes: Iterable[str] = (), replaces: str | None = None,
             facts: list[dict] | None = None, vault: str | None = None) -> Memory:
        """Save one memory under `topic`, or where it fits best; one commit. It goes to this vault
        unless `vault` names a mount or `topic` starts with one's name.

        `supersedes` names the ids it corrects; `replaces` describes the memory it corrects, found by
        search (several matches are listed in `notices`, nothing marked). `facts` ([{subject,
        attribute, value}]) go to front matter, else the text's are extracted; a fact contradicting
        its timeline's current value outdates the memory that stated it, with a notice.
        """
        mount, topic = self.mounts.for_save(topic, vault)
        m = saving.save(self.mounts.get(mount).engine if mount else self.engine, text, title, topic, date, tags,
                        type, source, pinned, supersedes, replaces, facts)
        m.notices[:0] = [f"Saved in the mounted vault {mount!r}."] if mount else []
        return m

    def save_many(self, items: list[dict], source: str | None = None, progress: Progress | None = None) -> list[Memory]:
        """Save many memories as one commit (`Memory-Op: import`); ids in the order given."""
        return saving.save_many(self.engine, items, source, progress)

    def import_file(self, path: str | Path, format: str = "auto", source: str | None = None,
                    progress: Progress | None = None, strict: bool = False) -> ImportReport:
        """Import another store's memories (FORMATS.md) with the importer `format`, or with `auto` the
        one that recognises `path`; one commit, nothing if all is already there; the store is only
        read. Invalid items are reported and left out, or with `strict` refuse the whole import."""
        return saving.import_file(self.engine, expand(path), format, source, progress, strict)

    def ingest(self, paths: list[str | Path], type: str | None = None, topic: str | None = None,
               limit: int = chunkers.LIMIT, progress: Progress | None = None) -> IngestReport:
        """Bring files and folders in, cut where they are cut (code at its symbols, documents at
        their headings and paragraphs, journals at their dated entries), one memory per chunk and
        one commit; a second run of unchanged files changes nothing."""
        return ingest_mod.ingest(self.engine, [expand(p) for p in paths], type, topic, limit, progress)

    def export(self, format: str = "jsonl", out: str | Path | None = None) -> ExportReport:
        """Every memory out of the vault: `jsonl` (what `import --format jsonl` reads back into an
        equal vault) or `markdown` (one plain document); written to `out`, else returned as text."""
        return export_mod.export(self.engine, format, expand(out) if out is not None else None)

    def mark_outdated(self, old_id: str, new_id: str, source: str | None = None) -> Memory:
        """Flag `old_id` as outdated, superseded by `new_id` (both keep their files). One commit."""
        return corrections.mark_outdated(self.engine, old_id, new_id, source)

    def restore_current(self, id_or_path: str, source: str | None = None) -> Memory:
        """Undo `mark_outdated`: the memory is current again and its correction no longer supersedes it."""
        return corrections.restore_current(self.engine, id_or_path, source)

    def pin(self, id_or_path: str, pinned: bool = True, source: str | None = None) -> Memory:
        """Pin (a core memory: never decays, always in the brief) or unpin a memory. One commit."""
        return lifecycle.pin(self.engine, id_or_path, pinned, source)

    def decay(self, dry_run: bool = False, source: str | None = None) -> "decay_mod.DecayReport":
        """Archive the memories whose weight sank (see decay.py for the rule), delete expired archived
        ones if `archive_expiry_days` is set: one commit, one line in operations.md."""
        return decay_mod.run(self.engine, dry_run, source)

    def garden(self, dry_run: bool = False, source: str | None = None) -> "garden_mod.GardenReport":
        """File the inbox into topics that now fit, split crowded folders into named subtopics: one `move` commit."""
        return garden_mod.garden(self.engine, dry_run, source)

    def describe(self, folder: str, text: str, source: str | None = None) -> str:
        """Describe a topic: kept above its summary's generated part and shown first. One commit."""
        return garden_mod.describe(self.engine, folder, text, source)

    def decay_due(self) -> bool:
        """Whether decay has not run today on this machine (what `ihmt decay --auto` asks)."""
        return decay_mod.due(self.engine)

    def weights(self) -> list:
        """Every memory's weight now, heaviest first (recalls, idle days): what decay would judge."""
        return decay_mod.weigh(self.engine, self.engine.recalls)

    def archive(self, id_or_path: str, source: str | None = None) -> Memory:
        """Move a memory into `archive/` (same sub-path), status archived: kept and searchable, out of the way."""
        return lifecycle.archive(self.engine, id_or_path, source)

    def restore(self, id_or_path: str, source: str | None = None) -> Memory:
        """Bring an archived memory back to the folder it was archived from, status active."""
        return lifecycle.restore(self.engine, id_or_path, source)

    def undo(self, source: str | None = None, force: bool = False, commit: str | None = None) -> UndoReport:
        """Revert the caller's own last operation (or the one `commit` names) with a new commit; a
        second undo steps further back. Another agent's operation needs `force`. History is never
        rewritten."""
        return history_mod.undo(self.engine, source, force, commit)

    def forget(self, id_or_path: str, purge: bool = False, confirm: Callable[[int], bool] | None = None,
               source: str | None = None) -> ForgetReport:
        """Forget a memory. Without `purge` it is archived (kept, out of the way). With `purge` its
        file is deleted and git history is rewritten so its text is in no commit; `confirm(n)` is
        asked first with the number of commits that change. A purged vault must be force-pushed and
        other clones re-cloned (their copies still hold the text).
        """
        if purge:  # by id or path; a purge a crash interrupted is finished by the same call
            return purge_mod.purge(self.engine, id_or_path, confirm, source)
        m = self.get(id_or_path)
        return ForgetReport(m.id, purged=False, path=self.archive(m.id, source=source).path)

    # -- keeping the vault whole ------------------------------------------------------------------
    def reconcile(self, paths: Iterable[str] | None = None, agent: str = "watch") -> ReconcileReport:
        """Take in what changed on disk outside the tool — a person's edits, a `git pull` — as one commit.

        `paths` (vault-relative or absolute; folders allowed) limits the look to what an editor
        touched; None looks at everything. A file that cannot be taken in (broken front matter, a
        secret in its text) is not committed nor indexed: it is reported in `problems`.
        """
        return reconcile_mod.reconcile(self.engine, paths, agent)

    def compact_index(self) -> bool:
        """Merge the search index into one segment when idle (long-lived processes); True if merged."""
        return self.engine.compact_index()

    def rebuild(self, progress: Progress | None = None) -> RebuildReport:
        """Regenerate every summary, the catalog and the search index from the memory files."""
        return reconcile_mod.rebuild(self.engine, progress)

    def doctor(self, repair: bool = False) -> list[Problem]:
        """Find what is inconsistent (see doctor.py for the kinds); with `repair`, fix it in one commit."""
        problems = doctor_mod.examine(self.engine)
        if repair and any(p.repairable for p in problems):
            doctor_mod.fix(self.engine, problems)
        return problems

    def sync(self, remote: str | None = None, agent: str = "sync") -> SyncReport:
        """Commit pending edits, pull (merging without conflicts to resolve), push."""
        return sync_mod.sync(self.engine, remote, agent)

    def sync_mounts(self, agent: str = "sync") -> list[tuple[str, SyncReport | str]]:
        """Sync each mounted vault with its own remote: (name, its report, or why it could not)."""
        return sync_mod.sync_each(self.mounts.available(), agent) + list(self.mounts.problems.items())

    def mount(self, name: str, path: str, remote: str | None = None) -> Mount:
        """Mount a shared vault (cloned from `remote` when `path` does not exist); one config commit."""
        return mounts_mod.add(self.engine, self.mounts, name, path, remote)

    def unmount(self, name: str) -> None:
        """Forget a mount; its folder is left as it is. One config commit."""
        mounts_mod.remove(self.engine, self.mounts, name)

    def sync_status(self, remote: str | None = None) -> SyncStatus:
        """How far ahead of and behind the remote the vault is, and how many edits are pending."""
        return sync_mod.status(self.engine, remote)

    def install_hooks(self) -> list[dict]:
        """Install the vault's git hooks (a hook of the person's own is left alone)."""
        return githooks.install(self.engine)

    def check_staged(self) -> list[str]:
        """Problems with the memories staged for the next commit (the pre-commit hook)."""
        return githooks.check_staged(self.engine)
