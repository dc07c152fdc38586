"""`ihmt`: IHMT's `ihmt_memory/` folder (FORMATS.md).

- each leaf `layer_0/<domain>/*.txt` (a `<<<IHMT-META` JSON header, then the raw text) is a memory:
  its `domain` the topic (`software.java` → `software/java`), `timestamp` its date, `tags` its tags
  plus the `data_type` (PROCESS → procedure, PERSONAL → fact, the rest notes); a CODE leaf's text is
  put in a code fence (its `lang:` tag the language), its `extra.context` kept as front matter;
- `state/facts.json`, the fact timeline, becomes the leaves' `facts` front matter; along each
  (subject, attribute) the leaves that stated an older value are outdated, superseded by the one
  stating the latest; a fact whose leaf is gone is a memory of its own;
- a leaf whose header says it is outdated (`status: outdated` / `superseded_by`) is outdated,
  superseded by the leaf it names;
- `layers/`, `root.json` and `state/catalog.json` are generated summaries and indexes: not memories.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...errors import BadInput
from ...storage.draft import Item
from .reading import day_of, text_of

WHAT = "IHMT's ihmt_memory/ folder (the one holding layer_0/)"
_HEADER = re.compile(r"\A<<<IHMT-META\r?\n(.*?)\r?\nIHMT-META>>>[ \t]*(?:\r?\n|\Z)", re.S)
_TYPES = {"PROCESS": "procedure", "PERSONAL": "fact"}
_NAMED = ("method", "function", "class", "name")  # tags that name what a code leaf is


def root_of(path: Path) -> Path | None:
    for root in (path, path / "ihmt_memory"):
        if (root / "layer_0").is_dir():
            return root
    return None


class Ihmt:
    what = "IHMT's ihmt_memory/ folder (layer_0/ leaves, state/facts.json)"

    def recognises(self, path: Path) -> bool:
        return path.is_dir() and root_of(path) is not None

    def read(self, path: Path) -> list[Item]:
        root = root_of(path) if path.is_dir() else None
        if root is None:
            raise BadInput(f"{path}: has no layer_0/ folder; give {WHAT}")
        items: dict[str, Item] = {}
        corrected_by: list[tuple[str, str]] = []  # (outdated leaf, the leaf correcting it)
        for file in sorted((root / "layer_0").rglob("*.txt")):
            rel = file.relative_to(root).as_posix()
            item, by = self._leaf(file, rel, root)
            key = item.key
            assert key is not None  # _leaf always gives one (the leaf's id, else its path)
            items.setdefault(key, item)
            if by:
                corrected_by.append((key, by))
        self._facts(root, items)
        for old, new in corrected_by:
            if new in items and old != new:
                items[new].supersedes.append(old)
        return list(items.values())

    def _leaf(self, file: Path, rel: str, root: Path) -> tuple[Item, str | None]:
        text = text_of(file, f"a leaf of {WHAT}")
        m = _HEADER.match(text)
        meta: dict = {}
        if m:
            try:
                meta = json.loads(m.group(1))
            except json.JSONDecodeError as e:
                raise BadInput(f"{file}: its IHMT-META header is not JSON ({e.msg}); fix it and import again") from None
            if not isinstance(meta, dict):
                raise BadInput(f"{file}: its IHMT-META header is not a JSON object; fix it and import again")
            text = text[m.end() :]
        extra = meta.get("extra")
        if not isinstance(extra, dict):
            extra = {}
        kind = str(meta.get("data_type") or "GENERIC").upper()
        tags = [str(t) for t in meta.get("tags") or [] if isinstance(t, (str, int))]
        title = None
        if kind == "CODE":
            lang = next((t.partition(":")[2] for t in tags if t.startswith("lang:")), "")
            text = f"```{lang}\n{text.rstrip()}\n```\n"
            title = next(
                (t.partition(":")[2] for t in tags if t.partition(":")[0] in _NAMED and t.partition(":")[2]), None
            )
        domain = str(meta.get("domain") or file.parent.relative_to(root / "layer_0").as_posix() or "ihmt")
        keep = {k: v for k, v in (("context", extra.get("context")), ("span", meta.get("span"))) if v}
        by = meta.get("superseded_by") or extra.get("superseded_by")
        if isinstance(by, list):
            by = by[-1] if by else None
        return Item(
            text=text,
            title=title,
            topic="/".join(re.split(r"[./]", domain)[:5]),
            date=day_of(meta.get("timestamp")),
            tags=tags + ([kind.lower()] if kind != "GENERIC" else []),
            type=_TYPES.get(kind),
            key=str(meta.get("leaf_id") or rel),
            extra=keep,
            where=rel,
        ), (str(by) if by else None)

    def _facts(self, root: Path, items: dict[str, Item]) -> None:
        file = root / "state" / "facts.json"
        if not file.is_file():
            return
        try:
            data = json.loads(text_of(file, f"the fact timeline of {WHAT}"))
        except json.JSONDecodeError as e:
            raise BadInput(f"{file}: is not JSON ({e.msg}); fix it or move it aside and import again") from None
        slots: dict[tuple[str, str], list[tuple[str, str, str]]] = {}  # slot → [(valid from, item key, value)]
        for n, fact in enumerate(_fact_rows(data), 1):
            subject, attribute, value = (str(fact.get(k) or "").strip() for k in ("subject", "attribute", "value"))
            if not attribute or not value:
                continue
            day = day_of(fact.get("valid_from") or fact.get("from") or fact.get("timestamp") or fact.get("date")) or ""
            leaf = str(fact.get("leaf_id") or fact.get("leaf") or fact.get("source_leaf") or "")
            if leaf not in items:  # the leaf that said it is gone: the fact is a memory of its own
                leaf = f"fact:{n}"
                items[leaf] = Item(
                    text=f"{subject or 'I'} {attribute}: {value}\n",
                    topic="facts",
                    date=day or None,
                    type="fact",
                    key=leaf,
                    where=f"state/facts.json fact {n}",
                )
            items[leaf].extra.setdefault("facts", []).append(
                {"subject": subject or "I", "attribute": attribute, "value": value}
            )
            slots.setdefault((subject.casefold(), attribute.casefold()), []).append((day, leaf, value))
        for said in slots.values():
            said.sort()
            latest_day, latest, value = said[-1]
            for _day, leaf, old_value in said[:-1]:
                if leaf != latest and old_value.casefold() != value.casefold() and leaf not in items[latest].supersedes:
                    items[latest].supersedes.append(leaf)


def _fact_rows(data) -> list[dict]:
    """facts.json's facts, whether a list, {"facts": [...]}, or {slot: [...]}."""
    if isinstance(data, dict):
        data = data.get("facts", [v for vs in data.values() if isinstance(vs, list) for v in vs])
    return [f for f in data if isinstance(f, dict)] if isinstance(data, list) else []
