"""Where things are in a vault: which paths are memories, and walking the folders.

A memory is a `.md` file inside the vault that is not a generated summary (`index.md`), not hidden
(no path part starts with "."), and not one of the documentation files a repository keeps at its
root (README.md, CLAUDE.md, ...). Symbolic links are never followed: a link pointing out of the
vault must not make its target part of the vault.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import files
from ..errors import BadInput
from . import tree

# Files at the vault root that are documentation, not memories.
ROOT_DOCS = {"readme.md", "claude.md", "agents.md", "license.md", "changelog.md", "operations.md"}


# Files a vault keeps beside its memories (Obsidian's attachments, the site's images): committed as
# they are, never parsed, indexed or summarised. And Obsidian's settings, but not its per-device state.
ATTACHMENT_EXTS = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".webp",
    ".avif",
    ".bmp",
    ".ico",
    ".pdf",
    ".mp3",
    ".mp4",
    ".webm",
    ".ogg",
    ".wav",
    ".csv",
    ".txt",
}
MAX_ATTACHMENT = 25_000_000


def expand(path: str | Path) -> Path:
    """`~` and `~user` expanded where they can be; "~nosuchuser" stays a literal name."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def default_path() -> Path:
    env = os.environ.get("IHMT_VAULT")
    return expand(env) if env else Path.home() / ".ihmt" / "vault"


def is_memory_path(rel: str) -> bool:
    """Whether a vault-relative path names a memory (a rule of names only: the server's check has no files)."""
    parts = rel.split("/")
    if not rel.endswith(".md") or parts[-1] == tree.INDEX:
        return False
    if any(p.startswith(".") for p in parts):
        return False
    return not (len(parts) == 1 and parts[0].lower() in ROOT_DOCS)


GARDEN_FILE = ".ihmt/garden.json"  # the folders the gardener made, and what each was split from
VAULT_MARK = ".ihmt/config.toml"  # config.CONFIG_PATH (not imported: layout stays below config)


def find_vault(start: Path | None = None, environ=None, home: Path | None = None) -> tuple[Path, str]:
    """The vault a command uses when none is named, and where it came from: the nearest folder at
    `start` (default: the current folder) or above it that holds `.ihmt/config.toml`, the way git
    finds a repository ("found"); else `$IHMT_VAULT` ("env"); else `~/.ihmt/vault` ("default").
    `environ` and `home` default to this process's."""
    environ = os.environ if environ is None else environ
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:  # the current folder was deleted under us
        here = None
    for folder in [here, *here.parents] if here else []:
        try:
            if (folder / VAULT_MARK).is_file():
                return folder, "found"
        except OSError:
            continue
    env = environ.get("IHMT_VAULT")
    if env:
        return expand(env), "env"
    return (home or Path.home()) / ".ihmt" / "vault", "default"


class Layout:
    """Path rules and folder walks for the vault at `root` (an absolute, resolved path)."""

    def __init__(self, root: Path):
        self.root = root

    def abs(self, rel: str) -> Path:
        return self.root / rel if rel else self.root

    def is_memory_path(self, rel: str) -> bool:
        return is_memory_path(rel)

    def scan(self, scope: list[str] | None = None, dirs: dict[str, int] | None = None) -> dict[str, tuple[int, int]]:
        """Every memory file on disk (or in `scope`: files and folders) with its (mtime_ns, size);
        the folders walked go into `dirs` with their modification times."""
        found = {}
        stack: list[tuple[str, str | Path]] = [("", self.root)]  # (vault prefix, folder)
        if scope is not None:
            stack = []
            for rel in scope:
                full = self.abs(rel)
                if full.is_dir() and not full.is_symlink():
                    stack.append((rel + "/", full))
                elif self.is_memory_path(rel) and full.is_file():
                    st = full.lstat()
                    found[rel] = (st.st_mtime_ns, st.st_size)
        while stack:
            prefix, folder = stack.pop()
            try:
                if dirs is not None:
                    dirs[prefix.rstrip("/")] = os.stat(folder).st_mtime_ns
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for e in entries:
                if e.name.startswith("."):
                    continue
                rel = f"{prefix}{e.name}"
                if e.is_dir(follow_symlinks=False):
                    stack.append((rel + "/", e.path))
                elif self.is_memory_path(rel):
                    st = e.stat(follow_symlinks=False)
                    found[rel] = (st.st_mtime_ns, st.st_size)
        return found

    def all_folders(self) -> set[str]:
        """Every topic folder: those holding memories (and their parents) and those with a summary."""
        folders = {""}
        for rel in self.scan():
            folders.update(tree.parents(tree.folder_of(rel)))
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            rel = Path(dirpath).relative_to(self.root).as_posix()
            if rel != "." and tree.INDEX in filenames:
                folders.add(rel)
        return folders

    def subfolders(self, folder: str) -> list[str]:
        try:
            entries = os.scandir(self.abs(folder))
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))
        except OSError:
            return []

    def memory_names(self, folder: str) -> list[str]:
        """The file names of a folder's direct memories."""
        try:
            names = os.listdir(self.abs(folder))
        except OSError:
            return []
        return sorted(n for n in names if self.is_memory_path(f"{folder}/{n}" if folder else n))

    def is_attachment(self, rel: str) -> bool:
        """A file kept and committed as it is: a media file outside hidden folders, or one of
        Obsidian's settings files (`.obsidian/*.json`, its per-device `workspace*` excepted)."""
        parts = rel.split("/")
        if parts[0] == ".obsidian":
            return len(parts) == 2 and parts[1].endswith(".json") and not parts[1].startswith("workspace")
        return not any(p.startswith(".") for p in parts) and Path(rel).suffix.lower() in ATTACHMENT_EXTS

    def holds(self, path: Path) -> bool:
        """Whether a path (resolved) is the vault's root or lies inside it."""
        path = path.resolve()
        return path == self.root or self.root in path.parents

    def rel_or_none(self, path: str) -> str | None:
        """A path given by an editor or a person (absolute or relative) as a vault path, or None when
        it is outside the vault or hidden."""
        p = Path(path)
        full = p if p.is_absolute() else self.root / p
        try:
            rel = (
                full.resolve().relative_to(self.root).as_posix()
                if full.exists()
                else full.parent.resolve().joinpath(full.name).relative_to(self.root).as_posix()
            )
        except ValueError:
            return None
        parts = rel.split("/")
        return None if rel == "." or any(x.startswith(".") for x in parts) else rel

    def safe_rel(self, ref: str) -> str | None:
        """`ref` as a vault-relative path if it names one inside the vault, else None; a path that
        leads outside the vault is a `BadInput`."""
        p = expand(ref)
        full = (p if p.is_absolute() else self.root / p).resolve()
        try:
            return full.relative_to(self.root).as_posix()
        except ValueError:
            if "/" in ref or p.is_absolute():
                raise BadInput(f"{ref}: is outside the vault {self.root}; give a path inside it") from None
            return None


GITIGNORE = (
    ".ihmt/cache/\n.ihmt/vault.lock\n"
    "# Obsidian: per-device window state stays here; its settings (.obsidian/*.json) travel\n"
    ".obsidian/workspace*\n.trash/\n"
)
# Generated summaries: collapsed in diffs on git hosts, never a merge conflict (regenerated after merges).
GITATTRIBUTES = (
    "# Generated summaries: collapsed in diffs, regenerated after merges (ihmt sync).\n"
    "index.md linguist-generated=true merge=ihmt-summary\n"
)


def write_vault_files(root: Path, extra: dict[str, str]) -> list[str]:
    """A new vault's own files (`extra`, `.gitignore`, `.gitattributes`), never over one that
    exists; an existing `.gitignore` gets the lines it lacks. Returns what was written."""
    written = []
    for rel, text in (*extra.items(), (".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
        file = root / rel
        if not file.exists():
            files.atomic_write(file, text)
            written.append(rel)
        elif rel == ".gitignore":
            have = file.read_text(encoding="utf-8", errors="replace")
            missing = [
                line
                for line in GITIGNORE.splitlines()
                if line and not line.startswith("#") and line not in have.splitlines()
            ]
            if missing:
                files.atomic_write(file, have.rstrip("\n") + "\n" + "\n".join(missing) + "\n")
                written.append(rel)
    return written
