"""Vault settings: one declarative, validated schema read from `.ihmt/config.toml`.

Only the composition root (`Vault.open`) reads the file; every other module receives a `Config`.
An unknown key or a value of the wrong type is a `BadInput` naming the key, so a typo never
silently falls back to a default.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

import tomlkit

from .errors import BadInput, NotAVault

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_PATH = ".ihmt/config.toml"


def vault_folder(root: Path) -> Path:
    """`root` if it is a vault's folder (it holds CONFIG_PATH), else a `NotAVault` saying what to do."""
    if not root.is_dir():
        raise NotAVault(f"{root}: no such folder; create a vault with 'ihmt init {root}'")
    if not (root / CONFIG_PATH).exists():
        raise NotAVault(f"{root}: not a vault (no {CONFIG_PATH}); create one with 'ihmt init {root}'")
    return root.resolve()


_MOUNT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


@dataclass(frozen=True)
class Mount:
    """A shared vault this one mounts (`[[mount]]` in config.toml): its name is also the topic
    prefix that sends a save there (`team/infra` → the `team` vault's `infra/`)."""

    name: str
    path: str  # absolute, `~/…`, or relative to this vault's root
    remote: str | None = None  # where to clone it from when the path does not exist yet

    def __post_init__(self):
        if not isinstance(self.name, str) or not _MOUNT_NAME.match(self.name):
            raise BadInput(
                f"{CONFIG_PATH}: mount name {self.name!r} must be a short lowercase word (letters, digits, - or _)"
            )
        if not isinstance(self.path, str) or not self.path.strip() or "\0" in self.path:
            raise BadInput(f"{CONFIG_PATH}: mount {self.name}: path must be a folder path")
        if self.remote is not None and (not isinstance(self.remote, str) or not self.remote.strip()):
            raise BadInput(f"{CONFIG_PATH}: mount {self.name}: remote must be a git URL")


@dataclass(frozen=True)
class Config:
    title: str = "Memory"  # the root summary's title
    branch_factor: int = 16  # a folder with more direct memories is split
    max_depth: int = 6  # deepest folder level below the root
    lock_timeout: float = 10.0  # seconds a writer waits for the vault lock
    brief_tokens: int = 2000  # budget of `brief`
    search_tokens: int = 900  # budget of a compact search answer
    refresh_interval: float = 1.0  # seconds between scans for files changed outside the tool
    default_source: str = "ihmt"  # `source` and `Agent` when the caller names none
    rankers: tuple = ()  # optional rankers fused into search (plugins; e.g. "semantic")
    embedder: str = "wordllama"  # the model of the vector index search and placement use ("" : words alone)
    search_beam: int = 3  # folders kept per level of the search's descent
    search_not_found_coverage: float = 0.2  # below this share of the question the best memory is NOT FOUND
    search_tie: float = 0.8  # memories within this score ratio of the best may be AMBIGUOUS
    search_same_subject: float = 0.5  # word overlap making two memories one subject (the newer first)
    search_context: float = 0.5  # share of a top hit's score lent to the memories saved next to it
    search_clue_rounds: int = 3  # times `ihmt ask` asks for a clue when the answer is AMBIGUOUS (0: never)
    # the metabolism (decay.py): weight = decay_start + recalls - (idle days past decay_idle_days) / 7
    decay_start: float = 3.0  # the weight of a memory never recalled, before it idles
    decay_idle_days: int = 7  # days a memory may sit unrecalled before it loses weight
    decay_threshold: float = 2.0  # at or below it, a memory sinks into archive/
    decay_grace_days: int = 30  # a memory younger than this never decays
    max_live: int = 10000  # past it, decay archives the lowest-weight memories first
    archive_expiry_days: int = 0  # archived memories unrecalled this long are deleted (0: never)
    auto_decay: bool = True  # decay runs on its own at most once a day, with a write
    site_raw_html: bool = False  # the site keeps a memory's raw HTML (a person's offline use only)
    mounts: tuple = ()  # `[[mount]]` tables: shared vaults searched with this one (Mount)

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not math.isfinite(value):
                raise BadInput(f"{CONFIG_PATH}: {f.name} must be a finite number, not {value}")
            if isinstance(value, str) and ("\0" in value or "\n" in value):
                raise BadInput(f"{CONFIG_PATH}: {f.name} must be one line of text")
        if not 2 <= self.branch_factor <= 1000:
            raise BadInput(f"{CONFIG_PATH}: branch_factor must be between 2 and 1000, not {self.branch_factor}")
        if not 1 <= self.max_depth <= 6:
            raise BadInput(f"{CONFIG_PATH}: max_depth must be between 1 and 6, not {self.max_depth}")
        for name in ("lock_timeout", "refresh_interval"):
            if getattr(self, name) < 0:
                raise BadInput(f"{CONFIG_PATH}: {name} must not be negative")
        for name in ("decay_idle_days", "decay_grace_days", "max_live", "archive_expiry_days"):
            if getattr(self, name) < 0:
                raise BadInput(f"{CONFIG_PATH}: {name} must not be negative")
        names = [m.name for m in self.mounts]
        if len(names) != len(set(names)):
            raise BadInput(f"{CONFIG_PATH}: two [[mount]] tables have the same name")
        if not 1 <= self.search_beam <= 50:
            raise BadInput(f"{CONFIG_PATH}: search_beam must be between 1 and 50, not {self.search_beam}")
        if not 0 <= self.search_clue_rounds <= 20:
            raise BadInput(f"{CONFIG_PATH}: search_clue_rounds must be between 0 and 20, not {self.search_clue_rounds}")
        for name in ("search_not_found_coverage", "search_tie", "search_same_subject", "search_context"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise BadInput(f"{CONFIG_PATH}: {name} must be between 0 and 1, not {getattr(self, name)}")
        for name in ("brief_tokens", "search_tokens"):
            if getattr(self, name) < 100:
                raise BadInput(f"{CONFIG_PATH}: {name} must be at least 100")

    @classmethod
    def load(cls, vault_root: Path) -> Config:
        path = vault_root / CONFIG_PATH
        if not path.exists():
            return cls()
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise BadInput(f"{path}: not valid TOML ({e}); fix it or delete it to use the defaults") from None
        section = raw.get("vault", {})
        if not isinstance(section, dict):
            raise BadInput(f"{path}: [vault] must be a table of settings")
        known = {f.name: f.type for f in fields(cls) if f.name != "mounts"}
        values: dict = {"mounts": _mounts(raw.get("mount", []), path)}
        for key, value in section.items():
            if key not in known:
                raise BadInput(f"{path}: unknown setting [vault].{key}; known: {', '.join(known)}")
            default = getattr(cls, key)
            if isinstance(default, tuple) and isinstance(value, list) and all(isinstance(v, str) for v in value):
                values[key] = tuple(value)
                continue
            ok = isinstance(value, type(default)) or (isinstance(default, float) and isinstance(value, int))
            if not ok or isinstance(value, bool) and not isinstance(default, bool):
                raise BadInput(f"{path}: [vault].{key} must be a {type(default).__name__}, not {value!r}")
            values[key] = type(default)(value)
        return cls(**values)

    def to_toml(self) -> str:
        """The settings as a TOML document (written with a TOML library: a title holding quotes or
        backslashes stays valid TOML)."""
        doc = tomlkit.document()
        doc.add(tomlkit.comment("IHMT Vault settings. Delete a line to use its default."))
        table = tomlkit.table()
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "mounts":
                table.add(f.name, list(value) if isinstance(value, tuple) else value)
        doc.add("vault", table)
        if self.mounts:
            doc.add("mount", mounts_toml(self.mounts))
        return tomlkit.dumps(doc)


def mounts_toml(mounts) -> tomlkit.items.AoT:
    aot = tomlkit.aot()
    for m in mounts:
        t = tomlkit.table()
        t.add("name", m.name)
        t.add("path", m.path)
        if m.remote:
            t.add("remote", m.remote)
        aot.append(t)
    return aot


def _mounts(raw, path: Path) -> tuple:
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise BadInput(f"{path}: mount must be [[mount]] tables with name, path and an optional remote")
    out = []
    for t in raw:
        unknown = set(t) - {"name", "path", "remote"}
        if unknown or "name" not in t or "path" not in t:
            raise BadInput(
                f"{path}: a [[mount]] needs name and path (and may have remote); "
                f"{'unknown: ' + ', '.join(sorted(unknown)) if unknown else 'one is missing'}"
            )
        out.append(Mount(t["name"], t["path"], t.get("remote")))
    return tuple(out)
