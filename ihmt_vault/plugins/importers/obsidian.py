"""`obsidian`: an Obsidian vault or a Basic Memory folder of Markdown notes (FORMATS.md).

Each note is adopted whole: its folder is its topic, its text (wikilinks, embeds, `#tags`, Basic
Memory's `- [category] …` observations and `- relation [[Target]]` relations) kept as it is. Front
matter: `title` (else the file name, Obsidian's title), `tags`, `type` (one of ours, else `note`
with the original kept as `kind`), `date` (else `created`) and `pinned` are mapped; every other key
(`permalink`, `aliases`, a person's own properties) is kept as front matter, one that is ours
(`status`, `source`, ...) as `original_<key>`; an `id` is kept as `source_id` (the vault gives its
own). The files a note embeds or links to (`![[x.png]]`, `[[x.pdf]]`, `![](x.png)`), found by path
or, as Obsidian does, by name, are copied beside it under the same topic path. `.obsidian/`,
`.trash/` and every hidden path are never imported.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from itertools import islice
from pathlib import Path
from urllib.parse import unquote

from ...errors import BadInput
from ...storage import notes, tree
from ...storage.draft import Item
from ...storage.layout import ATTACHMENT_EXTS
from .reading import day_of, text_of

WHAT = "an Obsidian vault or a Basic Memory folder (Markdown notes)"
_EMBED = re.compile(r"!?\[\[([^\[\]\n|#]+)")
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\(<?([^)\s>]+)>?\)")
_MAPPED = {"title", "tags", "type", "date", "created", "pinned", "id"}
_OURS = set(notes.KEY_ORDER)  # our own keys: never carried over as a note's properties


def _walk(root: Path):
    """Every file under `root` outside hidden folders, symbolic links not followed."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if not name.startswith(".") and not p.is_symlink():
                yield p


def _front_matter(text: str, rel: str) -> tuple[dict, str]:
    block, body = notes.split_front_matter(text)
    try:
        return notes.front_matter(block), body
    except notes.FrontMatterError as e:
        raise BadInput(f"{rel}: {e}; fix it and import again") from None


class Obsidian:
    what = "an Obsidian vault (.obsidian/) or a Basic Memory folder (notes with permalink front matter)"

    def recognises(self, path: Path) -> bool:
        if not path.is_dir():
            return False
        if (path / ".obsidian").is_dir():
            return True
        for file in islice((p for p in _walk(path) if p.suffix == ".md"), 20):
            try:
                meta, _ = _front_matter(text_of(file, WHAT), file.name)
            except BadInput:
                continue
            if "permalink" in meta:
                return True
        return False

    def read(self, path: Path) -> list[Item]:
        if not path.is_dir():
            raise BadInput(f"{path}: is not a folder; give {WHAT}")
        files = list(_walk(path))
        media = [f for f in files if f.suffix.lower() in ATTACHMENT_EXTS]
        by_name: dict[str, Path] = {}
        for f in sorted(media, key=lambda f: (len(f.relative_to(path).parts), f.as_posix())):
            by_name.setdefault(f.name.casefold(), f)  # Obsidian: the nearest to the root wins
        items = []
        for file in files:
            if file.suffix != ".md":
                continue
            rel = file.relative_to(path).as_posix()
            meta, body = _front_matter(text_of(file, f"a Markdown note of {WHAT}"), rel)
            folder = file.parent.relative_to(path).as_posix()
            found = [f for f in (_target(t, file, path, by_name) for t in _links(body)) if f]
            items.append(
                Item(
                    text=body,
                    title=str(meta.get("title") or file.stem),
                    topic=folder if folder != "." else None,
                    date=_date(meta.get("date")) or _date(meta.get("created")),
                    tags=_tags(meta.get("tags")),
                    type=_type(meta),
                    pinned=meta.get("pinned") is True,
                    extra=_extra(meta),
                    attachments=list(dict.fromkeys(a for f in found if (a := _placed(f, path)))),
                    where=rel,
                )
            )
        if not items:
            raise BadInput(f"{path}: holds no Markdown notes; give {WHAT}")
        return items


def _links(body: str) -> list[str]:
    return [m.group(1).strip() for m in _EMBED.finditer(body)] + [
        unquote(m.group(1)) for m in _MDLINK.finditer(body) if "://" not in m.group(1)
    ]


def _target(link: str, note: Path, root: Path, by_name: dict[str, Path]) -> Path | None:
    """The attachment file a link names: by path (from the note, then the vault's root), else by name."""
    if Path(link).suffix.lower() not in ATTACHMENT_EXTS:
        return None
    for base in (note.parent, root):
        candidate = (base / link).resolve()
        try:
            candidate.relative_to(root.resolve())
        except ValueError:
            continue  # a link leading out of the folder: not the vault's
        if candidate.is_file():
            return candidate
    return by_name.get(Path(link).name.casefold())


def _placed(file: Path, root: Path) -> tuple[Path, str] | None:
    """(the file, its vault path): the same folder path as the notes' topics get, the name kept."""
    folder = file.resolve().parent.relative_to(root.resolve()).as_posix()
    try:
        topic = tree.clean_topic(folder, 32) if folder != "." else ""
    except BadInput:
        return None
    if any(p.startswith(".") for p in Path(folder).parts):
        return None
    return file, f"{topic}/{file.name}" if topic else file.name


def _date(value) -> str | None:
    if isinstance(value, (dt.date, dt.datetime)):
        return (value.date() if isinstance(value, dt.datetime) else value).isoformat()
    return day_of(value) if isinstance(value, str) else None


def _tags(value) -> list[str]:
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value) if t]
    return [str(t) for t in value if isinstance(t, (str, int))] if isinstance(value, list) else []


def _type(meta: dict) -> str | None:
    kind = str(meta.get("type") or "").strip().lower()
    return kind if kind in notes.TYPES else None


def _extra(meta: dict) -> dict:
    extra = {k: v for k, v in meta.items() if isinstance(k, str) and k not in _MAPPED and k not in _OURS}
    extra.update((f"original_{k}", v) for k, v in meta.items() if k in _OURS - _MAPPED and f"original_{k}" not in meta)
    kind = str(meta.get("type") or "").strip()
    if kind and kind.lower() not in notes.TYPES and "kind" not in meta:
        extra["kind"] = kind
    if meta.get("id") not in (None, "") and "source_id" not in meta:
        extra["source_id"] = str(meta["id"])
    return extra
