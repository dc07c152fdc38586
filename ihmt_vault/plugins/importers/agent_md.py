"""`agent-md`: coding agents' instruction and memory files (FORMATS.md): Claude Code's `CLAUDE.md`,
`CLAUDE.local.md` and auto-memory folder (`~/.claude/projects/<project>/memory/`), `AGENTS.md`,
`GEMINI.md`, Cursor's `.cursor/rules/*.mdc` and `.cursorrules`, Copilot's `copilot-instructions.md`;
one of those files, a memory or rules folder, or a project folder holding them (its top-level files,
`.claude/CLAUDE.md`, `.cursor/rules/`, `.github/copilot-instructions.md`, a `memory/` folder).

The file's project (the folder it belongs to; `user` for the ones in a home's agent folder) is the
top folder and its headings the topics below it (a lone first `#` heading is the document's title,
not a topic; an `.mdc` rule or an auto-memory topic file adds its name). Each bullet (with what is
nested under it) and each paragraph is a memory; a code block, table or quote belongs to the memory
before it. `@path` imports are followed (relative to the file, `~/` from home, five deep, each file
once) and filed under the section that imports them; a line that only imports is not a memory.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import BadInput
from ...storage import notes
from ...storage.draft import Item
from .hermes import is_entry_list
from .obsidian import Obsidian
from .reading import text_of

WHAT = "an agent's instruction file (CLAUDE.md, AGENTS.md, GEMINI.md, a Cursor rule, copilot-instructions.md)"
NAMES = {
    "claude.md",
    "claude.local.md",
    "agents.md",
    "gemini.md",
    ".cursorrules",
    "copilot-instructions.md",
    "memory.md",
}
_IMPORT = re.compile(r"(?<![\w`@])@((?:~/|\.{1,2}/|/)?[\w.\-/]*[\w\-])")
_CODE_SPAN = re.compile(r"`+[^`\n]*`+")
_MARKER = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")
_HOME_AGENTS = {".claude", ".codex", ".gemini", ".cursor", "opencode", ".copilot"}
_PLUMBING = {".github", ".cursor", "rules", ".claude", "memory", ".codex", ".gemini"}
MAX_DEPTH = 5  # Claude Code follows imports five deep


def _is_memory_folder(path: Path) -> bool:
    return path.is_dir() and (path / "MEMORY.md").is_file() and ".hermes" not in path.resolve().parts


# A project's agent files besides those at its top (any NAMES file there but MEMORY.md)
_TUCKED = (".claude/CLAUDE.md", ".github/copilot-instructions.md")


def _project_files(folder: Path) -> list[tuple[Path, list[str]]]:
    """A project folder's agent files (CLAUDE.md, AGENTS.md... at its top, .claude/CLAUDE.md, Cursor's
    rules, Copilot's instructions) and its Claude Code memory folder (`memory/`, as in
    `~/.claude/projects/<project>/`), each with the topic names it adds below the project."""
    try:
        top = sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower() in NAMES - {"memory.md"})
    except OSError:
        return []
    out: list[tuple[Path, list[str]]] = [(p, []) for p in top]
    out += [(folder / name, []) for name in _TUCKED if (folder / name).is_file()]
    rules = folder / ".cursor" / "rules"
    out += [(p, [p.stem]) for p in sorted(rules.glob("*.mdc"))] if rules.is_dir() else []
    if _is_memory_folder(folder / "memory"):
        out += _memory_files(folder / "memory")
    return out


def _memory_files(folder: Path) -> list[tuple[Path, list[str]]]:
    """A Claude Code memory folder: MEMORY.md (the index), then each topic file under its name."""
    return [(folder / "MEMORY.md", [])] + [(p, [p.stem]) for p in sorted(folder.glob("*.md")) if p.name != "MEMORY.md"]


class AgentMarkdown:
    what = (
        "agents' Markdown: CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, *.mdc, copilot-instructions.md, "
        "a Claude Code memory/ folder"
    )

    def recognises(self, path: Path) -> bool:
        if path.is_dir():
            if _is_memory_folder(path) or (path.name == "rules" and any(path.glob("*.mdc"))):
                return True
            # a project folder, unless it is a notes vault that happens to hold a CLAUDE.md
            return bool(_project_files(path)) and not Obsidian().recognises(path)
        name = path.name.lower()
        if name == "memory.md":  # Hermes' MEMORY.md is § entries; Claude Code's is Markdown
            try:
                return ".hermes" not in path.resolve().parts and not is_entry_list(text_of(path, WHAT))
            except BadInput:
                return True  # a bad file is reported by read, naming it
        return name in NAMES or name.endswith(".mdc")

    def read(self, path: Path) -> list[Item]:
        if path.is_dir() and path.name == "rules" and any(path.glob("*.mdc")):
            files = [(p, [p.stem]) for p in sorted(path.glob("*.mdc"))]
        elif _is_memory_folder(path):
            files = _memory_files(path)
        elif path.is_dir():
            files = _project_files(path)
            if not files:
                raise BadInput(f"{path}: holds no CLAUDE.md, AGENTS.md, GEMINI.md or memory/MEMORY.md; give {WHAT}")
        elif path.is_file():
            files = [(path, [path.stem] if path.suffix == ".mdc" else [])]
        else:
            raise BadInput(f"{path}: is not a file; give {WHAT}")
        reader = _Reader()
        for file, names in files:
            reader.document(file, [_project(file.parent)] + names, 0)
        return reader.items


class _Reader:
    def __init__(self) -> None:
        self.items: list[Item] = []
        self.seen: set[Path] = set()

    def document(self, file: Path, topic: list[str], depth: int) -> None:
        real = file.resolve()
        if real in self.seen:
            return
        self.seen.add(real)
        text = text_of(file, WHAT)
        block, body = notes.split_front_matter(text)
        offset = text[: len(text) - len(body)].count("\n")  # front matter lines: line numbers stay true
        lines = body.splitlines()
        tokens = notes.markdown().parse(body)
        blocks = [t for t in tokens if t.level == 0 and t.map is not None]
        h1s = [t for t in blocks if t.type == "heading_open" and t.tag == "h1"]
        title_h1 = h1s[0] if len(h1s) == 1 and blocks[0] is h1s[0] else None  # the document's own title
        path: list[tuple[int, str]] = []  # (heading level, name)
        last: Item | None = None  # the memory a code block or table joins
        for i, t in enumerate(tokens):
            if t.level != 0 or t.map is None or t.type.endswith("_close") or t.type == "inline":
                continue
            start, end = t.map
            if t.type == "heading_open":
                if t is not title_h1:
                    level = int(t.tag[1])
                    name = tokens[i + 1].content.strip().replace("/", "-").replace("\\", "-")
                    path = [p for p in path if p[0] < level] + [(level, name)]
                last = None
                continue
            where = f"{file.name}:{start + offset + 1}"
            here = topic + [name for _, name in path][: max(0, 5 - len(topic))]
            if t.type in ("bullet_list_open", "ordered_list_open"):
                for item in tokens[i + 1 :]:
                    if item.level == 0:
                        break
                    if item.type == "list_item_open" and item.level == 1 and item.map:
                        last = (
                            self.memory(
                                lines[item.map[0] : item.map[1]],
                                file,
                                here,
                                depth,
                                f"{file.name}:{item.map[0] + offset + 1}",
                                bullet=True,
                            )
                            or last
                        )
            elif t.type == "paragraph_open":
                last = self.memory(lines[start:end], file, here, depth, where) or last
            elif t.type != "hr":  # a code block, table, quote or HTML: with the memory it illustrates
                chunk = "\n".join(lines[start:end]).rstrip()
                if last is not None and last.topic == "/".join(here):
                    last.text = last.text.rstrip("\n") + "\n\n" + chunk + "\n"
                elif chunk.strip():
                    last = self.add(chunk, here, where)

    def memory(
        self, source: list[str], file: Path, topic: list[str], depth: int, where: str, bullet: bool = False
    ) -> Item | None:
        if bullet:
            source = _unbullet(source)
        text = "\n".join(source).strip()
        prose = _CODE_SPAN.sub("", text)
        targets = [m.group(1) for m in _IMPORT.finditer(prose)]
        followed = []
        for target in targets:
            found = _resolve(target, file)
            if found is not None and depth < MAX_DEPTH:
                self.document(found, topic, depth + 1)
                followed.append(target)
        if followed and not _IMPORT.sub("", prose).strip(" \t\n-*+,;"):
            return None  # a line that only imports
        return self.add(text, topic, where) if text else None

    def add(self, text: str, topic: list[str], where: str) -> Item:
        item = Item(text=text + "\n", topic="/".join(topic), where=where)
        self.items.append(item)
        return item


def _unbullet(lines: list[str]) -> list[str]:
    """A list item's lines without its marker, its continuation lines dedented to match."""
    m = _MARKER.match(lines[0]) if lines else None
    if not m:
        return lines
    width = m.end()
    return [lines[0][width:]] + [line[width:] if line[:width].strip() == "" else line.lstrip() for line in lines[1:]]


def _resolve(target: str, file: Path) -> Path | None:
    """The file an `@path` import names, if it is one (a mention like `@team` is not)."""
    if target.startswith("~/"):
        candidate = Path.home() / target[2:]
    elif target.startswith("/"):
        candidate = Path(target)
    else:
        candidate = file.parent / target
    try:
        return candidate if candidate.is_file() else None
    except OSError:
        return None


def _project(folder: Path) -> str:
    """The project a file belongs to: its folder past `.github`, `.cursor/rules`, `.claude`..., or the
    project of a Claude Code auto-memory folder; `user` for a home's own agent folders."""
    folder = folder.resolve()
    home = Path.home().resolve()
    parts = folder.parts
    if parts[-4:-2] == (".claude", "projects") and parts[-1] == "memory":  # ~/.claude/projects/-home-me-shop/memory
        return parts[-2].removeprefix(str(home).replace("/", "-")).strip("-") or "user"
    while folder.name in _PLUMBING and folder != folder.parent:
        if folder.parent == home and folder.name in _HOME_AGENTS:
            return "user"
        folder = folder.parent
    if folder == home or folder.name in _HOME_AGENTS:
        return "user"
    return folder.name or "agents"
