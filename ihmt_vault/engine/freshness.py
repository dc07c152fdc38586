"""Which memory files may have changed since the catalog last looked, found without a full scan.

Other processes and people change files under a long-lived process (an MCP server, the site
server). A full scan is O(vault); this looks only where a change can hide: files git sees edited in
place (`git diff-files`, stat data compared in C) and the entries of every folder whose
modification time moved (a file was added, removed or renamed there — which is also how editors'
atomic saves and git checkouts show). The folder times are recorded in the catalog only after it
has caught up, so a crash in between just looks at those folders again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..storage.catalog import Catalog
from ..storage.gitlog import Repo
from ..storage.layout import Layout


@dataclass
class Look:
    """What a look found: files to re-read, files gone, folder times to record, folders gone."""

    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    dirs: dict[str, int] = field(default_factory=dict)
    gone_dirs: list[str] = field(default_factory=list)
    replace_all: bool = False  # no folder times were recorded: `dirs` is the whole vault
    examined: int = 0  # files whose stat was compared with the catalog
    stat_refreshed: bool = False  # git's stat cache was stale (a copied vault) and was refreshed


# files git calls modified while their stat matches the catalog: past this many, git's stat cache is
# stale (a copied or restored vault: new inodes and ctimes), and is refreshed once so the next look
# is cheap again (`git update-index --refresh` compares content only where stat data changed)
STALE_STAT = 20


class Freshness:
    def __init__(self, layout: Layout, catalog: Catalog, repo: Repo):
        self.layout = layout
        self.catalog = catalog
        self.repo = repo

    def look(self) -> Look:
        candidates = self._candidates()
        if candidates is None:  # no record of the folders yet: look at everything once
            dirs: dict[str, int] = {}
            on_disk = self.layout.scan(dirs=dirs)
            known = self.catalog.stamps()
            return Look(
                [p for p, st in on_disk.items() if known.get(p) != st],
                [p for p in known if p not in on_disk],
                dirs,
                [],
                replace_all=True,
            )
        paths, dirs, gone, modified = candidates
        look = Look(dirs=dirs, gone_dirs=gone, examined=len(paths))
        for rel in sorted(paths):
            try:
                st = self.layout.abs(rel).lstat()
            except OSError:
                if self.catalog.stamp(rel) is not None:
                    look.deleted.append(rel)
                continue
            if self.layout.is_memory_path(rel) and (st.st_mtime_ns, st.st_size) != self.catalog.stamp(rel):
                look.changed.append(rel)
        if len(modified) - len(set(look.changed) & modified) >= STALE_STAT:
            look.stat_refreshed = self.repo.refresh_stat()
        return look

    def _candidates(self) -> tuple[set[str], dict[str, int], list[str], set[str]] | None:
        """(paths that may differ from the catalog, folder times to record, folders gone, what git
        called modified), or None when the folders were never recorded."""
        dirs = self.catalog.dirs()
        if not dirs:
            return None
        modified = set(self.repo.modified())
        candidates = set(modified)
        moved, gone = {}, []
        for d, mtime in dirs.items():
            try:
                now = os.stat(self.layout.abs(d)).st_mtime_ns
            except OSError:
                gone.append(d)
                continue
            if now != mtime:
                moved[d] = now
        if not moved and not gone:
            return candidates, {}, [], modified
        candidates.update(self.catalog.in_folders(list(moved) + gone))
        fresh: dict[str, int] = {}
        for d in moved:
            for e in os.scandir(self.layout.abs(d)):
                rel = f"{d}/{e.name}" if d else e.name
                if e.name.startswith("."):
                    continue
                if e.is_dir(follow_symlinks=False):
                    if rel not in dirs:  # a new folder: everything in it is new
                        candidates.update(self.layout.scan([rel], dirs=fresh))
                elif self.layout.is_memory_path(rel):
                    candidates.add(rel)
        for d in gone:
            candidates.update(r.path for r in self.catalog.under(d))
        gone += [d for d in dirs if any(d.startswith(g + "/") for g in gone)]
        return candidates, {**moved, **fresh}, gone, modified
