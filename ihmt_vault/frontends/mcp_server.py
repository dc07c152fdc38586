"""`ihmt mcp`: the vault as MCP tools for agents, over stdio, on the official `mcp` SDK (2.x `MCPServer`).

A thin shell like the CLI: each tool calls one `Vault` method and answers compact text within a
token budget. A `VaultError` becomes a tool error whose text is its one-line message (never a
traceback). The agent that calls a tool is recorded as the commit's `Agent:` trailer, taken from
the MCP client's name (the initialize request's clientInfo.name; "mcp" when it gives none).

Few tools with short, precise descriptions: the whole `tools/list` payload stays under 2,500
tokens (chars/4) because every client loads it up front (tests/test_mcp.py measures it).

A tool is declared in one place: its method, with its toolset and its annotations in `@tool(...)`.

Start-up: importing this module imports the SDK (about half a second of CPU), so the CLI imports it
only inside `ihmt mcp`, after the wire (mcp_wire.py) already reads stdin. The vault is opened —
and the search index warmed — on a thread once the client says it is initialized, so the handshake
and `tools/list` never wait for the vault; a tool called before that waits for it.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..errors import BadInput, NotFound, SecretRefused, VaultError
from ..storage import notes
from ..storage.notes import MemoryType

if TYPE_CHECKING:
    from ..project.codebase import Project
    from ..project.session import Session
    from ..vault import Vault

BRIEF_TOKENS = 2000  # memory_brief's ceiling, whatever the vault's setting
READ_TOKENS = 2000  # read_memory's ceiling for folder summaries (a memory is shown whole)
MEMORY_CHARS = 24000  # a memory longer than this is cut, with a pointer to its file
FALLBACK_AGENT = "mcp"
IDLE_COMPACT = 30.0  # seconds without a memory tool call after which the server merges the search index
IDLE_GARDEN = 1.0  # seconds without a tool call after which the gardener may do a slice of its queue
IDLE_TICK = 1.0  # how often the idle timer looks

INSTRUCTIONS = (
    "Long-term memory shared by every agent session: a git repository of Markdown memories. "
    "Call memory_brief once at the start of a session; search_memory before answering anything "
    "that may depend on earlier sessions; save_memory for durable facts, decisions, preferences "
    "and corrections (never secrets). Relay notices and AMBIGUOUS answers to the user."
)

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
EDIT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DEMOTE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

Id = Annotated[str, Field(description="Memory id (or its path)")]
ToolAnswer = str | CallToolResult  # a tool's text, or a tool error (`_error`)


def tool(toolset: str, hints: ToolAnnotations):
    """Declare a method an MCP tool of `toolset` with its annotations (its docstring is its
    description; `tools/list` gives the tools in the order they are declared)."""

    def mark(fn):
        fn.mcp_tool = (toolset, hints)
        return fn

    return mark


def agent_name(ctx: Context | None) -> str:
    """The calling client's name for the `Agent:` trailer: one short line of safe characters."""
    name = ""
    try:
        params = ctx.session.client_params if ctx is not None else None
        if params is not None and params.client_info is not None:
            name = params.client_info.name or ""
    except Exception:  # no request context (a direct call): fall back
        name = ""
    name = re.sub(r"[^\w.@+ -]+", "", name, flags=re.ASCII).strip()[:64]
    return name or FALLBACK_AGENT


def _error(e: VaultError) -> CallToolResult:
    word = "refused" if isinstance(e, SecretRefused) else ("not found" if isinstance(e, NotFound) else "error")
    return CallToolResult(content=[TextContent(type="text", text=f"{word}: {e}")], is_error=True)


def _cut(text: str, tokens: int, more: str) -> str:
    """`text` within `tokens` (chars/4), cut at a line boundary with a pointer to the rest."""
    limit = tokens * 4
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - len(more) - 2)]
    head = head[: head.rfind("\n")] if "\n" in head else head
    return head.rstrip() + "\n" + more


class _Serialized:
    """Tool calls one at a time: the SDK runs each synchronous tool on a worker thread, and a
    `Vault` (or a session's state) is used by one thread at a time. A `VaultError` is a tool error."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._lock = threading.Lock()
        self.clock = clock
        self.last_call = clock()
        self.compacted = True  # nothing changed since the last merge (or since the start)
        self.garden_due = False  # a call since the gardener last found its queue empty

    def _call(self, fn: Callable[[], str]) -> str | CallToolResult:
        try:
            with self._lock:
                try:
                    return fn()
                finally:
                    self.last_call, self.compacted, self.garden_due = self.clock(), False, True
        except VaultError as e:
            return _error(e)


class Tools(_Serialized):
    """The memory tools, bound to one vault: an open one, or the opener that opens it when first
    needed (`warm` does it ahead of the first call)."""

    def __init__(self, vault: Vault | Callable[[], Vault], clock: Callable[[], float] = time.monotonic):
        super().__init__(clock)
        self._open = vault if callable(vault) else (lambda: vault)
        self._vault: Vault | None = None
        self._gardener: Vault | None = None
        self._opening = threading.Lock()

    @property
    def v(self) -> Vault:
        with self._opening:
            if self._vault is None:
                self._vault = self._open()
            return self._vault

    def warm(self) -> None:
        """Open the vault and its search index now (a thread does it once the client is initialized)."""
        try:
            self.v.refresh()
        except VaultError:
            pass  # the first tool call says what is wrong, as one line

    def idle_compact(self, idle: float = IDLE_COMPACT) -> bool:
        """What the server's idle timer calls: once `idle` seconds passed without a tool call since
        the last one, merge the search index (`Vault.compact_index`) — never during a call (a call
        running, the timer skips its turn), and once per quiet spell. True when it merged."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            if self.compacted or self.clock() - self.last_call < idle:
                return False
            self.compacted = True
            return self.v.maintenance.compact_index()
        finally:
            self._lock.release()

    def idle_garden(self, quiet: float = IDLE_GARDEN) -> bool:
        """What the idle timer calls too: once `quiet` seconds passed since a tool call, one slice of
        the gardener's queue (`Vault.topics.tend`), on a vault object of its own — the tools' lock is
        not held, so a call that comes meanwhile runs at once (a save waits at most for the slice's
        commit, on the vault's lock). True when a slice ran."""
        if not self.garden_due or self._vault is None or self.clock() - self.last_call < quiet:
            return False
        try:
            if self._gardener is None:
                from ..vault import Vault

                self._gardener = Vault.open(self._vault.root)
            report = self._gardener.topics.tend(source="gardener")
        except VaultError:
            return False
        if report is None:
            self.garden_due = False
        return report is not None

    # -- reading ----------------------------------------------------------------------------------
    @tool("memory", READ)
    def search_memory(
        self,
        query: Annotated[str, Field(description="What to look for, in a few words")],
        clue: Annotated[str | None, Field(description="A word telling AMBIGUOUS candidates apart")] = None,
        detail: Annotated[Literal["compact", "full"], Field(description="full adds ids, paths, excerpts")] = "compact",
        under: Annotated[str | None, Field(description="Only this topic folder, e.g. work/infrastructure")] = None,
        vault: Annotated[str | None, Field(description="Only this mounted vault (default: all)")] = None,
        ctx: Context | None = None,
    ) -> ToolAnswer:
        """Search long-term memory. Call before answering anything that may depend on earlier
        sessions: decisions, setup, preferences, people, corrections. FOUND: the best memory in full,
        then other matches; [OUTDATED] ones name their correction: trust the correction. AMBIGUOUS:
        several candidates; ask the user which one, then call again with clue. NOT FOUND: nothing
        relevant; don't guess."""

        def run() -> str:
            r = self.v.search(query, clue=clue, under=under or None, detail=detail, vault=vault)
            text = r.render(detail)
            if r.status == "ambiguous":
                ids = ", ".join(f"{n}. {c.id}" for n, c in enumerate(r.candidates, 1) if c.id)
                text += (f"\nids: {ids}" if ids else "") + (
                    "\nNext: ask the user which one they mean, or call search_memory again with clue='<a word "
                    "that tells them apart>'; read_memory(id) opens one."
                )
            elif r.status == "not_found":
                text += (
                    "\nNext: try other words (a synonym, a name, a broader query) or under=<topic>; if "
                    "still nothing, tell the user you have no memory of it. Don't guess."
                )
            return text

        return self._call(run)

    @tool("memory", READ)
    def memory_brief(self, ctx: Context | None = None) -> ToolAnswer:
        """The vault's top level for the start of a session: pinned (core) memories, and per topic its
        newest and most recalled ones, the rest as [+N →] to drill into. Call once, before searching."""
        return self._call(lambda: self.v.brief(budget_tokens=min(self.v.config.brief_tokens, BRIEF_TOKENS)))

    @tool("memory", READ)
    def read_memory(
        self,
        id_or_path: Annotated[str, Field(description="Memory id or path, or a folder path ('' = root)")],
        level: Annotated[
            int | None,
            Field(
                ge=1,
                le=5,
                description="A folder: levels to unfold (default 1); a memory: its nested entries down to this level",
            ),
        ] = None,
        ctx: Context | None = None,
    ) -> ToolAnswer:
        """Read a memory in full (with level, its nested entries down to that level, [+N →] where
        cut), or a topic folder's summary (its subtopics and memories) to drill down from the brief."""
        return self._call(lambda: self._read(id_or_path, level))

    @tool("memory", ADD)
    def append_memory(
        self,
        id: Id,
        content: Annotated[str, Field(description="Entries to add, a line each; tab-indented lines go a level deeper")],
        under: Annotated[
            str | None, Field(description="Path of the entry to add under, e.g. 2.1 (default: top level)")
        ] = None,
        ctx: Context | None = None,
    ) -> ToolAnswer:
        """Add entries to a memory's nested list without rewriting the rest (one commit)."""

        def run() -> str:
            m = self.v.memories.append(id, content, under=under, source=agent_name(ctx))
            return f'Appended to "{m.title}" ({m.id}).'

        return self._call(run)

    @tool("memory", READ)
    def memory_history(self, id: Id, ctx: Context | None = None) -> ToolAnswer:
        """A memory's changes, newest first: date, commit, operation, agent, subject."""

        def run() -> str:
            changes = self.v.history.of(id)
            lines = [f"{c.date[:10]} {c.sha[:8]} {c.op} by {c.agent or '?'}: {c.subject}" for c in changes]
            return _cut("\n".join(lines) or "no commits yet", READ_TOKENS, "[older changes cut]")

        return self._call(run)

    # -- writing ----------------------------------------------------------------------------------
    @tool("memory", ADD)
    def save_memory(
        self,
        content: Annotated[
            str,
            Field(
                description="The memory: one fact, decision, preference or correction, with its reason, self-contained"
            ),
        ],
        title: Annotated[str | None, Field(description="Short title (default: first line)")] = None,
        topic: Annotated[
            str | None,
            Field(
                description="A topic from the tree the brief shows, e.g. "
                "work/infrastructure (default: best fit, else inbox/)"
            ),
        ] = None,
        date: Annotated[str | None, Field(description="YYYY-MM-DD when it became true")] = None,
        tags: list[str] | None = None,
        type: MemoryType | None = None,
        replaces: Annotated[
            str | None, Field(description="A few words describing the memory this corrects; it is marked OUTDATED")
        ] = None,
        vault: Annotated[str | None, Field(description="A mounted vault to save to (default: private)")] = None,
        ctx: Context | None = None,
    ) -> ToolAnswer:
        """Save a durable memory (one git commit). Never save secrets (passwords, keys, tokens): they
        are refused. Search first: to correct a memory, pass replaces. Answers where it was filed;
        relay any notice (a contradiction, what was replaced) to the user."""

        def run() -> str:
            m = self.v.memories.save(
                content,
                title=title,
                topic=topic,
                date=date,
                tags=tags or (),
                type=type,
                source=agent_name(ctx),
                replaces=replaces,
                vault=vault,
            )
            lines = [f'Saved "{m.title}" in {m.folder or "/"}/ (id {m.id}, path {m.path}).']
            lines += [f"Notice for the user: {n}" for n in m.notices]
            return "\n".join(lines)

        return self._call(run)

    @tool("memory", EDIT)
    def describe_topic(
        self,
        folder: Annotated[str, Field(description="Topic folder, e.g. work/infrastructure")],
        text: Annotated[str, Field(description="What belongs there, in a sentence or two")],
        ctx: Context | None = None,
    ) -> ToolAnswer:
        """Describe a topic so later saves and readers know what belongs in it; kept through
        regenerations, shown first in its summary."""
        return self._call(lambda: f"Described {folder}: {self.v.topics.describe(folder, text, source=agent_name(ctx))}")

    @tool("memory", DEMOTE)
    def mark_outdated(self, old_id: Id, new_id: Id, ctx: Context | None = None) -> ToolAnswer:
        """Mark old_id OUTDATED, superseded by new_id (both are kept; searches rank the old one below
        its correction). Use when a saved memory corrects an older one that replaces didn't catch."""

        def run() -> str:
            old = self.v.memories.outdate(old_id, new_id, source=agent_name(ctx))
            return f'Marked OUTDATED: "{old.title}" ({old.id}), superseded by {new_id}.'

        return self._call(run)

    @tool("memory", EDIT)
    def pin_memory(self, id: Id, pinned: bool = True, ctx: Context | None = None) -> ToolAnswer:
        """Pin a core memory (always in memory_brief, never decays), or unpin it with pinned=false."""

        def run() -> str:
            m = self.v.memories.pin(id, pinned=pinned, source=agent_name(ctx))
            return f'{"Pinned" if m.pinned else "Unpinned"}: "{m.title}" ({m.id}).'

        return self._call(run)

    @tool("memory", EDIT)
    def rename_memory(self, id: Id, title: str, ctx: Context | None = None) -> ToolAnswer:
        """Give a memory a new title (its file follows; its id stays)."""

        def run() -> str:
            m = self.v.memories.rename(id, title, source=agent_name(ctx))
            return f'Renamed: "{m.title}" ({m.id}), now {m.path}.'

        return self._call(run)

    @tool("memory", DEMOTE)
    def archive_memory(self, id: Id, ctx: Context | None = None) -> ToolAnswer:
        """Move a memory no longer useful to archive/ (kept, still searchable, out of the brief).
        To correct a memory use save_memory(replaces=...) instead."""

        def run() -> str:
            m = self.v.memories.archive(id, source=agent_name(ctx))
            return f'Archived: "{m.title}" ({m.id}), now {m.path}.'

        return self._call(run)

    @tool("memory", EDIT)
    def restore_memory(self, id: Id, ctx: Context | None = None) -> ToolAnswer:
        """Bring an archived memory back to its topic."""

        def run() -> str:
            m = self.v.memories.restore(id, source=agent_name(ctx))
            return f'Restored: "{m.title}" ({m.id}), now {m.path} ({m.status}).'

        return self._call(run)

    # -- helpers ----------------------------------------------------------------------------------
    def _folder_of(self, ref: str) -> str | None:
        """The vault folder `ref` names ('' for the root), or None when it names no folder."""
        raw = ref.strip().replace("\\", "/")
        if raw in ("", "/", ".", "./", "index.md", "/index.md"):
            return ""
        rel = raw.strip("/").removesuffix("/index.md") if raw.endswith("/index.md") else raw.strip("/")
        if raw.startswith("/") or ".." in rel.split("/") or any(p.startswith(".") for p in rel.split("/")):
            return None  # absolute, escaping or hidden: not a topic; get() judges it
        path = self.v.root / rel
        if not (path.is_dir() and (path / "index.md").is_file()):
            return None
        return rel if path.resolve().is_relative_to(self.v.root) else None  # a symlink out: get() refuses it

    def _read(self, ref: str, level: int | None) -> str:
        folder = self._folder_of(ref)
        if folder is not None:
            text = self._summary(folder, min(level or 1, 3))
            return _cut(text, READ_TOKENS, "[cut: read_memory(a folder above) to go on]")
        if level is not None:
            m, text = self.v.memories.read(ref, level)
            return _cut(
                f"# {m.title}\nid: {m.id} · path: {m.path}\n\n{text}", READ_TOKENS, "[cut: read with a lower level]"
            )
        m = self.v.memories.show(ref)  # read in full: a recall (and an archived memory comes back)
        head = [
            f"# {m.title}",
            " · ".join(
                x
                for x in (
                    f"id: {m.id}",
                    f"type: {m.type}",
                    m.date and f"date: {m.date}",
                    f"status: {m.status}",
                    m.tags and f"tags: {', '.join(m.tags)}",
                    f"path: {m.path}",
                    m.source and f"source: {m.source}",
                    m.pinned and "pinned",
                )
                if x
            ),
        ]
        for other in m.superseded_by:
            head.append(f"OUTDATED: superseded by {other}{self._title_of(other)}: trust that one.")
        for other in m.supersedes:
            head.append(f"Corrects {other}{self._title_of(other)}.")
        head += m.notices
        body = m.body.strip()
        if len(body) > MEMORY_CHARS:
            body = body[:MEMORY_CHARS].rstrip() + f"\n[cut: the rest is in {m.path}]"
        return "\n".join(head) + "\n\n" + body

    def _title_of(self, id_: str) -> str:
        try:
            return f' "{self.v.memories.get(id_).title}"'
        except VaultError:
            return ""

    def _summary(self, folder: str, level: int) -> str:
        text = self.v.topics.read(folder)
        body = notes.split_front_matter(text)[1].strip()
        prefix = f"{folder}/" if folder else ""
        # Links relative to the folder become vault paths, usable as read_memory arguments.
        body = re.sub(r"\]\((?!\w+:|/)([^)]+)\)", lambda mo: f"]({prefix}{mo.group(1)})", body)
        parts = [f"[folder {folder or '/'}]\n{body}"]
        if level > 1:
            for sub in re.findall(r"\]\(([^)]+)/index\.md\)", body):
                if self._folder_of(sub) is not None:
                    parts.append(self._summary(sub, level - 1))
        return "\n\n".join(parts)


def _tidy_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Fewer tokens, same meaning: drop generated titles, and write an optional `X | None = None`
    parameter as plain X (leaving it out means None)."""
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        options = prop.get("anyOf")
        if options and prop.get("default", 0) is None:
            kept = [o for o in options if o.get("type") != "null"]
            if len(kept) == 1:
                del prop["anyOf"], prop["default"]
                prop.update(kept[0])
    return schema


class CodeTools(_Serialized):
    """The `project` and `session` toolsets: a project's map and symbols, re-reads that cost a few
    tokens, a scratchpad and log digests — state kept in this process, per `session_id`. They are
    opt-in (`ihmt mcp --tools memory,project,session`): listed tools cost tokens in every
    conversation, and an agent that batches grep and sed gains little from them."""

    def __init__(self, root: Path | None = None):
        super().__init__()
        self.root = (root or Path.cwd()).resolve()
        self.projects: dict[Path, Project] = {}
        self.sessions: dict[str, Session] = {}

    def _project(self, path: str) -> Project:
        root = (self.root / Path(path).expanduser()).resolve() if path else self.root
        if root not in self.projects:
            from ..project.codebase import Project  # the code tools' imports are paid for when first used

            self.projects[root] = Project(root)
        return self.projects[root]

    def _session(self, session_id: str | None) -> Session:
        from ..project.session import Session

        if (session_id or "") not in self.sessions:
            self.sessions[session_id or ""] = Session(self.root)
        return self.sessions[session_id or ""]

    @tool("project", READ)
    def project_map(
        self,
        path: Annotated[str, Field(description="Project folder (default: the server's working folder)")] = "",
        detail: Annotated[
            Literal["files", "symbols"], Field(description="symbols adds classes and functions with their lines")
        ] = "files",
        subpath: Annotated[str, Field(description="Only this folder or file of the project")] = "",
    ) -> ToolAnswer:
        """The project's files with their size in tokens (and with detail=symbols each class and
        function with its line range): where things are before reading any file."""
        return self._call(lambda: self._project(path).map(detail, subpath))

    @tool("project", READ)
    def find_code(
        self,
        query: Annotated[str, Field(description="What the code does or is called, e.g. 'retry on timeout'")],
        path: Annotated[str, Field(description="Project folder (default: the server's working folder)")] = "",
        scope: Annotated[Literal["main", "test", "all"], Field(description="main demotes tests")] = "main",
        subpath: Annotated[str, Field(description="Only this folder or file of the project")] = "",
        clue: Annotated[str | None, Field(description="A word telling AMBIGUOUS candidates apart")] = None,
        max_tokens: Annotated[int, Field(ge=100, le=8000)] = 1500,
    ) -> ToolAnswer:
        """Only the functions and classes that answer, as file:first-last and their code — instead of
        reading whole files. AMBIGUOUS lists tied candidates: call again with clue or subpath."""
        return self._call(lambda: self._project(path).find(query, scope, subpath, clue, max_tokens).text)

    @tool("session", READ)
    def read_file(
        self,
        path: Annotated[str, Field(description="File path, relative to the server's working folder or absolute")],
        force: Annotated[bool, Field(description="Give it whole even if given before")] = False,
        session_id: str | None = None,
    ) -> ToolAnswer:
        """Read a text file. Read again in this session: UNCHANGED (a few tokens) or only the diff
        since it was given; force=true gives it whole."""
        return self._call(lambda: self._session(session_id).read_file(path, force))

    @tool("session", EDIT)
    def note(
        self,
        text: Annotated[str, Field(description="What to keep for later in this session")],
        label: Annotated[str, Field(description="A short name to recall it by")] = "note",
        session_id: str | None = None,
    ) -> ToolAnswer:
        """Keep a note for this session (it survives a context compaction, not the session; durable
        knowledge goes to save_memory)."""
        return self._call(lambda: self._session(session_id).note(text, label))

    @tool("session", READ)
    def recall(
        self,
        query: Annotated[str, Field(description="Words, or the label of a note or digested output")],
        clue: str | None = None,
        max_tokens: Annotated[int, Field(ge=100, le=20000)] = 1500,
        session_id: str | None = None,
    ) -> ToolAnswer:
        """Bring back this session's notes and digested outputs: by label, whole; by words, the
        notes and the lines of outputs that match."""
        return self._call(lambda: self._session(session_id).recall(query, clue, max_tokens))

    @tool("session", EDIT)
    def digest_output(
        self,
        text: Annotated[str, Field(description="A long command output: a test run, a build, a log")],
        label: Annotated[str, Field(description="Its name for recall")] = "output",
        max_tokens: Annotated[int, Field(ge=100, le=8000)] = 800,
        session_id: str | None = None,
    ) -> ToolAnswer:
        """Condense a long output to its first lines, errors, failures, test totals and last lines;
        the whole text stays in this session for recall(label)."""
        return self._call(lambda: self._session(session_id).digest_output(text, label, max_tokens))


def _marked(cls: type) -> list[tuple[str, str, ToolAnnotations]]:
    """(toolset, name, annotations) of every `@tool` of a class, in declaration order."""
    out = []
    for name, member in vars(cls).items():
        if hasattr(member, "mcp_tool"):
            toolset, hints = member.mcp_tool
            out.append((toolset, name, hints))
    return out


def declared(*owners) -> list[tuple[str, str, ToolAnnotations, Callable]]:
    """(toolset, name, annotations, bound method) of every `@tool` of these objects, in declaration order."""
    return [
        (toolset, name, hints, getattr(owner, name))
        for owner in owners
        for toolset, name, hints in _marked(type(owner))
    ]


TOOLSETS = tuple(dict.fromkeys(ts for cls in (Tools, CodeTools) for ts, _n, _h in _marked(cls)))


def toolsets(spec: str) -> list[str]:
    """'memory,project' → ['memory', 'project'], or a BadInput naming the toolsets there are."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    wrong = [n for n in names if n not in TOOLSETS]
    if wrong or not names:
        raise BadInput(f"--tools {spec!r}: choose among {', '.join(TOOLSETS)} (comma-separated)")
    return list(dict.fromkeys(names))


def build_server(
    vault: Vault | Callable[[], Vault],
    tools: tuple[str, ...] = ("memory",),
    root: Path | None = None,
    memory: Tools | None = None,
) -> MCPServer:
    """The MCP server for one vault (run it with `.run()`, or connect an in-process client), with
    the toolsets named (`memory` alone by default)."""
    import inspect

    built = []
    for toolset, name, hints, fn in declared(memory or Tools(vault), CodeTools(root)):
        if toolset in tools:
            tool = Tool.from_function(
                fn,
                name=name,
                description=" ".join((inspect.getdoc(fn) or "").split()),
                annotations=hints,
                structured_output=False,
            )
            _tidy_schema(tool.parameters)
            built.append(tool)
    from .. import __version__

    return MCPServer("ihmt", version=__version__, instructions=INSTRUCTIONS, tools=built, log_level="WARNING")


def idle_timer(
    memory: Tools, stop: threading.Event, idle: float = IDLE_COMPACT, tick: float = IDLE_TICK
) -> threading.Thread:
    """A daemon thread calling `memory.idle_compact(idle)`, else `memory.idle_garden()`, every `tick`
    seconds until `stop` is set."""

    def loop() -> None:
        while not stop.wait(tick):
            if not memory.idle_compact(idle):
                memory.idle_garden()

    thread = threading.Thread(target=loop, name="ihmt-idle-compact", daemon=True)
    thread.start()
    return thread


def serve(
    vault: Vault | Callable[[], Vault],
    tools: tuple[str, ...] = ("memory",),
    idle: float = IDLE_COMPACT,
    tick: float = IDLE_TICK,
    wire=None,
) -> None:
    """Serve the vault's tools (and the other toolsets named) over stdio until the client closes
    the connection; while no tool is called for `idle` seconds, the search index is merged. With
    the `wire` (mcp_wire.py) plugged in, the vault is warmed once the client is initialized."""
    memory, stop = Tools(vault), threading.Event()
    if wire is not None:
        wire.on_method = lambda method: (
            threading.Thread(target=memory.warm, name="ihmt-warm", daemon=True).start()
            if method == "notifications/initialized"
            else None
        )
    thread = idle_timer(memory, stop, idle, tick)
    try:
        build_server(vault, tools, memory=memory).run()
    finally:
        stop.set()
        thread.join(timeout=5)
