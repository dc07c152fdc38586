"""`ihmt`: the command line. A thin shell: parse input, call one `Vault` method, print the answer.

Every command takes `--vault PATH` and `--json`, before or after its name (`ihmt --json stats`,
`ihmt stats --json`). Without `--vault` a command uses the vault it stands in (the nearest folder
at or above the current one holding `.ihmt/config.toml`), else `$IHMT_VAULT`, else `~/.ihmt/vault`,
and says which on stderr (one line; not with `--json`). A `VaultError` becomes one line on stderr
and a non-zero exit code; so does the machine failing (a full or read-only disk, a file too large,
permission denied, SQLite's disk errors: `errors.machine_error`, exit 2); anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click
from rich.console import Console

from ..errors import MACHINE_FAILURES, BadInput, NotFound, VaultError, machine_error

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _emit(ctx_json: bool, data, human) -> None:
    if ctx_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        human()


VAULT_HELP = "The vault to use (default: the one this folder is in, else $IHMT_VAULT, else ~/.ihmt/vault)."
JSON_HELP = "Print plain JSON, no colours."
_FOUND = {
    "found": "the vault this folder is in",
    "env": "from $IHMT_VAULT",
    "default": "the default vault; name another with --vault",
}


def _facade():
    """The library (`vault.py`), imported when a command runs: `ihmt --help` needs none of it."""
    from .. import vault

    return vault


def chosen_vault(vault_path: Path | None, as_json: bool) -> Path | None:
    """The vault a command opens: `--vault`, else the one found from the current folder upward, else
    `$IHMT_VAULT`, else the default (None: `Vault.open` creates it on first use). One line on stderr
    says which when it was not named."""
    if vault_path is not None:
        return vault_path
    from ..storage.layout import find_vault

    root, how = find_vault()
    if not as_json:
        err.print(f"vault: {root} ({_FOUND[how]})", markup=False)
    return root if how == "found" else None


def command(group, name: str | None = None, opens_vault: bool = True):
    """A subcommand with the options every command has: --vault and --json (also accepted before
    the command's name, on `ihmt` itself)."""

    def wrap(fn):
        @group.command(name=name or fn.__name__.rstrip("_"), help=fn.__doc__)
        @click.option("--vault", "vault_path", type=click.Path(path_type=Path), help=VAULT_HELP)
        @click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
        @functools.wraps(fn)
        def run(vault_path, as_json, **kw):
            top = click.get_current_context().find_root().obj or {}
            vault_path = vault_path if vault_path is not None else top.get("vault")
            as_json = as_json or bool(top.get("json"))
            root = vault_path
            try:
                if opens_vault:
                    root = chosen_vault(vault_path, as_json)
                    with _facade().Vault.open(root) as v:
                        root = v.root
                        return fn(v, as_json, **kw)
                return fn(vault_path, as_json, **kw)
            except VaultError as e:
                err.print(f"error: {e}", markup=False)
                sys.exit(e.exit_code)
            except MACHINE_FAILURES as e:  # the disk full or read-only, a file too large, permissions
                machine = machine_error(e, root)
                if machine is None:
                    raise  # not the machine: a bug, with its traceback
                err.print(f"error: {_command_name()} could not finish: {machine}", markup=False)
                sys.exit(machine.exit_code)

        return run

    return wrap


def _command_name() -> str:
    """The running command as typed after `ihmt` ("save", "hooks check")."""
    names: list[str] = []
    ctx = click.get_current_context(silent=True)
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(n for n in names if n) or "ihmt"


class FreeText(click.Argument):
    """The rest of the line as words (a memory's text, a query, a title): see `TextCommand`."""


class TextCommand(click.Command):
    """A command whose last argument is `FreeText`, so words are never mistaken for options: the
    command's own options may come before the text, and at the very end of the line after it (every
    word from there on one of its options or their values); every other word is text, unknown
    `--words` and `-n` included. `--` before the text keeps all of it as text. The line is put in
    that order (`options -- text`) for click to read."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not any(isinstance(p, FreeText) for p in self.params):
            return super().parse_args(ctx, args)
        try:
            return super().parse_args(ctx, _text_last(self, ctx, args))
        except (click.NoSuchOption, click.BadOptionUsage) as e:
            hint = f"to keep words like it as text, put -- before the text: ihmt {ctx.info_name} -- ..."
            raise click.UsageError(f"{e.format_message()} ({hint})", ctx) from None


def _text_last(cmd: click.Command, ctx: click.Context, args: list[str]) -> list[str]:
    """`args` as `[options and fixed arguments] [options found at the end] -- [text]`."""
    values = {}  # each option's names → how many words it takes after it (0: a flag)
    for p in cmd.get_params(ctx):
        if isinstance(p, click.Option):
            values.update({n: 0 if p.is_flag or p.count else p.nargs for n in (*p.opts, *p.secondary_opts)})
    helps = set(cmd.get_help_option_names(ctx))
    fixed = sum(1 for p in cmd.params if isinstance(p, click.Argument) and not isinstance(p, FreeText))

    def width(words: list[str], i: int) -> int:
        """How many words the known option at `words[i]` spans with its values (0: not one)."""
        name, eq, _ = words[i].partition("=")
        if name not in values or (eq and (not name.startswith("--") or not values[name])):
            return 0
        return 1 if eq else 1 + values[name]

    def all_options(words: list[str]) -> bool:
        i = 0
        while i < len(words):
            n = width(words, i)
            given = words[i + 1 : i + n]
            if not n or words[i] in helps or i + n > len(words) or any(w == "--" or w in values for w in given):
                return False
            i += n
        return True

    i = seen = 0
    while i < len(args):
        if args[i] == "--":
            return args  # the text is marked already
        if n := width(args, i):
            i += n  # an option before the text (click checks its value)
        elif seen < fixed:
            if args[i].startswith("-") and len(args[i]) > 1:
                return args  # an unknown option where an id is due: click says so
            seen, i = seen + 1, i + 1
        else:
            break
    lead, text = args[:i], args[i:]
    if not text:
        return args
    cut = next((j for j in range(1, len(text)) if all_options(text[j:])), len(text))
    return [*lead, *text[cut:], "--", *text[:cut]]


class _Group(click.Group):
    command_class = TextCommand
    group_class = type  # the subgroups (mount, hooks, site, project) make their commands the same way


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ihmt-vault")
@click.option("--vault", "vault_path", type=click.Path(path_type=Path), help=VAULT_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_context
def main(ctx, vault_path, as_json):
    """IHMT Vault: long-term memory for AI agents, kept as a git repository of Markdown files.

    --vault and --json go before or after the command: 'ihmt --json stats' is 'ihmt stats --json'.
    """
    ctx.obj = {"vault": vault_path, "json": as_json}


def _names_a_memory(fn):
    """A command given an id, path or folder: one that names nothing is bad input (exit 2), as the
    README says of every bad input, not an operation that failed."""

    @functools.wraps(fn)
    def run(*args, **kw):
        try:
            return fn(*args, **kw)
        except NotFound as e:
            raise BadInput(str(e)) from None

    return run


def _progress(label: str, enabled: bool):
    """A rich progress bar on stderr when it is a terminal; a no-op callback otherwise."""
    from rich.progress import Progress

    if not enabled or not err.is_terminal:
        return None, None
    bar = Progress(console=err, transient=True)
    task = bar.add_task(label, total=None)
    return bar, lambda done, total: bar.update(task, completed=done, total=total)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _memory_line(m) -> str:
    return f"{m.id}  {m.path}  {m.title}"


@command(main, opens_vault=False)
@click.argument("path", type=click.Path(path_type=Path), required=False)
@click.option("--title", help="Title of the root summary (default: Memory).")
def init(vault_path, as_json, path, title):
    """Create a vault (a git repository of Markdown memories); safe to run again."""
    target = path or vault_path
    if target is None:
        from ..storage.layout import default_path

        target = default_path()
    with _facade().Vault.init(target, title=title) as v:
        _emit(
            as_json,
            {"vault": str(v.root), "head": v.repo.head()},
            lambda: out.print(f"vault ready at {v.root}", markup=False),
        )


@command(main)
@click.argument("text", nargs=-1, required=True, cls=FreeText)
@click.option("--title", help="Title (default: the first line).")
@click.option("--topic", help="Folder to file it in, e.g. work/infrastructure (default: the best fit).")
@click.option("--date", help="When it became true: YYYY-MM-DD, or words such as yesterday, 'last May', ayer.")
@click.option("--tags", help="Comma-separated tags.")
@click.option(
    "--type", "type_", help="fact, decision, preference, correction, person, project, procedure, event or note."
)
@click.option("--source", help="Who is saving it (recorded as the commit's Agent).")
@click.option("--pinned", is_flag=True, help="A core memory: never decays, always in the brief.")
@click.option("--supersedes", multiple=True, help="Id of a memory this one corrects (repeatable).")
@click.option("--replaces", help="A few words describing the memory this one corrects (found by search).")
@click.option(
    "--fact",
    "facts",
    multiple=True,
    metavar="SUBJECT.ATTRIBUTE=VALUE",
    help="Record a fact, e.g. user.location=Valencia (repeatable; default: extracted from the text).",
)
@click.option(
    "--in",
    "in_vault",
    metavar="NAME",
    help="Save to the mounted vault NAME (default: this vault, or the mount whose name the topic starts with).",
)
def save(v, as_json, text, title, topic, date, tags, type_, source, pinned, supersedes, replaces, facts, in_vault):
    """Save a memory: TEXT (the rest of the line, no quotes needed), or - to read it from stdin. One commit."""
    text = sys.stdin.read() if text == ("-",) else " ".join(text)
    m = v.memories.save(
        text,
        title=title,
        topic=topic,
        date=date,
        tags=tags or (),
        type=type_,
        source=source,
        pinned=pinned,
        supersedes=supersedes,
        replaces=replaces,
        facts=_parse_facts(facts),
        vault=in_vault,
    )

    def human():
        notices = list(m.notices)
        if notices and notices[0].startswith(_TOLD_AGAIN):  # the first line says what happened
            out.print(f"already remembered as {m.id} ({m.path}); nothing saved", markup=False)
            notices = notices[1:]
        else:
            out.print(f"saved {_memory_line(m)}", markup=False)
        for notice in notices:
            out.print(f"  {notice}", markup=False)

    _emit(as_json, m.to_dict(body=False), human)


_TOLD_AGAIN = "Already remembered as "  # the notice of a save that found the same text saved: nothing was


def _parse_facts(specs) -> list[dict] | None:
    if not specs:
        return None
    facts = []
    for spec in specs:
        key, sep, value = spec.partition("=")
        subject, dot, attribute = key.rpartition(".")
        if not sep or not dot or not value.strip() or not attribute.strip():
            raise BadInput(f"--fact {spec!r}: write SUBJECT.ATTRIBUTE=VALUE, e.g. user.location=Valencia")
        facts.append({"subject": subject.strip() or "I", "attribute": attribute.strip(), "value": value.strip()})
    return facts


@command(main, name="import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "format_",
    default="auto",
    show_default=True,
    help="The importer to read PATH with: auto (recognised from PATH), jsonl, ihmt, memorytree, hermes, "
    "hmem, mcp-memory, mem0, letta, agent-md, obsidian (plugins add more).",
)
@click.option("--source", help="Who is importing (default for items without a source).")
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse the whole import when one item is invalid (default: report it, save the rest).",
)
def import_(v, as_json, path, format_, source, strict):
    """Import another memory store at PATH (a JSONL file, ihmt_memory/, mindmap.db, MEMORY.md, a .hmem, the MCP
    memory.jsonl, mem0's JSON, a Letta .af, CLAUDE.md/AGENTS.md & co. or a project folder holding them, an Obsidian or
    Basic Memory folder) as one commit; PATH is only read."""
    bar, tick = _progress("importing", not as_json)
    if bar:
        bar.start()
    try:
        r = v.memories.import_file(path, format=format_, source=source, progress=tick, strict=strict)
    finally:
        if bar:
            bar.stop()

    def human():
        how = "recognised as" if format_ == "auto" else "read as"
        out.print(f"{path}: {how} {r.importer}", markup=False)
        if not r.added:
            out.print(f"nothing new: {_count(r.already, 'memory', 'memories')} already there; no commit", markup=False)
        else:
            out.print(
                f"imported {_count(r.added, 'memory', 'memories')} in one commit"
                + (f" ({r.already} already there)" if r.already else ""),
                markup=False,
            )
        for folder, n in sorted(r.folders.items()):
            out.print(f"  {folder or '(top level)'}/  {n}", markup=False)
        counts = [
            f"{n} {what}"
            for n, what in (
                (r.pinned, "pinned"),
                (r.archived, "archived"),
                (r.outdated, "outdated"),
                (r.attachments, "attachments"),
            )
            if n
        ]
        if counts:
            out.print("  " + ", ".join(counts), markup=False)
        for reason in r.refused:
            err.print(f"refused {reason}", markup=False)

    _emit(as_json, r.to_dict(), human)


@command(main)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--type",
    "kind",
    type=click.Choice(["code", "markdown", "narrative", "journal", "process"]),
    help="The kind of every file (default: detected from each file's extension and content).",
)
@click.option("--topic", help="Folder for every chunk (default: code/<project>/<module>, docs/..., journal/...).")
@click.option(
    "--limit",
    type=int,
    default=4000,
    show_default=True,
    help="Chunk size in characters; a block bigger than this is kept whole and marked oversized.",
)
@click.option("--watch", is_flag=True, help="Keep watching PATHS and ingest again what changes (Ctrl-C stops).")
def ingest(v, as_json, paths, kind, topic, limit, watch):
    """Bring files and folders in: code cut at its classes and functions, documents at their headings
    and paragraphs, journals at their dated entries; one commit; unchanged files add nothing."""

    def run_once():
        bar, tick = _progress("ingesting", not as_json)
        if bar:
            bar.start()
        try:
            r = v.memories.ingest(list(paths), type=kind, topic=topic, limit=limit, progress=tick)
        finally:
            if bar:
                bar.stop()

        def human():
            out.print(
                f"ingested {_count(r.files, 'file', 'files')}: {_count(r.chunks, 'chunk', 'chunks')} "
                f"({len(r.added)} added, {len(r.updated)} updated, {len(r.removed)} removed, "
                f"{r.oversized} oversized) — {f'commit {r.commit[:10]}' if r.commit else 'nothing changed'}",
                markup=False,
            )
            for where in r.kept:
                err.print(f"kept {where}: edited by hand since it was ingested; not overwritten", markup=False)
            for where, why in r.skipped:
                err.print(f"skipped {where}: {why}", markup=False)

        _emit(as_json, r.to_dict(), human)

    run_once()
    if watch:
        from .watch import watch_sources

        watch_sources([Path(p) for p in paths], run_once, log=lambda s: err.print(s, markup=False))


@command(main)
@click.option(
    "--format",
    "format_",
    type=click.Choice(["jsonl", "markdown"]),
    default="jsonl",
    show_default=True,
    help="jsonl: every field, what 'ihmt import --format jsonl' reads back; markdown: one plain document.",
)
@click.option("--out", type=click.Path(path_type=Path), help="The file to write (default: standard output).")
def export(v, as_json, format_, out):
    """Export every memory of the vault: JSON lines that import back into an equal vault, or one Markdown document."""
    r = v.memories.export(format_, out)

    def human():
        if r.text is not None:
            click.echo(r.text, nl=False)
        else:
            err.print(f"exported {_count(r.memories, 'memory', 'memories')} to {r.path}", markup=False)

    _emit(as_json, r.to_dict(), human)


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option(
    "--level",
    type=click.IntRange(1, 5),
    default=2,
    show_default=True,
    help="How deep to read its nested entries (1: only the top line).",
)
def read(v, as_json, ref, level):
    """Read a memory level by level: its nested entries down to --level, with [+N →] where they are cut (a recall)."""
    m, text = v.memories.read(ref, level)
    _emit(as_json, {**m.to_dict(body=False), "level": level, "text": text}, lambda: click.echo(text, nl=False))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.argument("content", nargs=-1, required=True, cls=FreeText)
@click.option(
    "--under", help="The entry to add under, by its path (e.g. 2.1, as 'ihmt read' shows); default: the top level."
)
@click.option("--source", help="Who is adding (recorded as the commit's Agent).")
def append(v, as_json, ref, content, under, source):
    """Add entries to a memory's nested list without rewriting the rest (CONTENT, or - for stdin; tab-indented lines go
    deeper). One commit."""
    text = sys.stdin.read() if content == ("-",) else " ".join(content)
    m = v.memories.append(ref, text, under=under, source=source)
    _emit(as_json, m.to_dict(body=False), lambda: out.print(f"appended to {_memory_line(m)}", markup=False))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option(
    "--at", "at", metavar="DATE", help="Show it as it was on DATE (YYYY-MM-DD, or yesterday, 'last May'...), from git."
)
def show(v, as_json, ref, at):
    """Show a memory in full (front matter and text), by id or path; --at DATE shows an earlier version."""
    from ..storage.notes import compose

    m = v.memories.get(ref, at=at) if at else v.memories.show(ref)  # read in full now: a recall
    text = compose(m.meta, m.body) if at else (v.root / m.path).read_text(encoding="utf-8")

    def human():
        click.echo(text, nl=False)
        for notice in m.notices:
            err.print(notice, markup=False)

    _emit(as_json, m.to_dict(), human)


@command(main)
@click.option("--depth", default=2, show_default=True, type=click.IntRange(0, 6), help="Levels to show.")
def tree(v, as_json, depth):
    """Show the topic tree with counts."""
    t = v.topics.tree(depth=depth)

    def show_node(n, indent):
        name = n["path"].rpartition("/")[2] or n["title"]
        line = f"{'  ' * indent}{name}/ ({_count(n['count'], 'memory', 'memories')}"
        hidden = [
            _count(n[k], *w)
            for k, w in (("more_topics", ("subtopic", "subtopics")), ("more_memories", ("memory", "memories")))
            if n.get(k)
        ]
        if hidden:
            line += f"; not shown: {' and '.join(hidden)}, see --depth {depth + 1}"
        if n.get("archived"):
            line += f"; {n['archived']} archived"
        click.echo(line + ")")
        for c in n["children"]:
            show_node(c, indent + 1)
        for m in n["memories"]:
            mark = " OUTDATED" if m["status"] == "outdated" else (" (pinned)" if m["pinned"] else "")
            click.echo(f"{'  ' * (indent + 1)}- {m['date'] + ' ' if m['date'] else ''}{m['title']}{mark}")

    _emit(as_json, t, lambda: show_node(t, 0))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option("--diff", is_flag=True, help="Show what each commit changed.")
def history(v, as_json, ref, diff):
    """List the commits that touched a memory, newest first (following moves)."""
    changes = v.history.of(ref, diff=diff)

    def human():
        for c in changes:
            click.echo(f"{c.date[:19]}  {c.sha[:10]}  {c.op:<8} {c.agent:<12} {c.subject}")
            if c.diff:
                click.echo(c.diff)

    _emit(as_json, [c.to_dict() for c in changes], human)


def _timelines(as_json, lines, none: str = "no facts recorded") -> None:
    def human():
        if not lines:
            click.echo(none)
        for t in lines:
            click.echo(
                f"{t.subject} {t.attribute} = {t.current!r}"
                if t.current is not None
                else f"{t.subject} {t.attribute}: no current value (every memory that said one is outdated)"
            )
            for e in reversed(t.entries):
                until = e.valid_to or "now"
                again = f", confirmed {len(e.confirmations)}x" if e.confirmations else ""
                click.echo(
                    f"  {e.valid_from} → {until}: {e.value!r} ({e.memory_id}{again}"
                    f"{', outdated' if e.outdated else ''})"
                )

    _emit(as_json, [t.to_dict() for t in lines], human)


@command(main)
@click.option("--subject", help="Only this subject (a person, 'user', a system).")
@click.option(
    "--at", "at", metavar="DATE", help="The timelines as they stood on DATE (YYYY-MM-DD, or yesterday, 'last May'...)."
)
def facts(v, as_json, subject, at):
    """Facts and their timelines: current value, and what it was before, with dates."""
    _timelines(as_json, v.memories.facts(subject=subject, at=at))


@command(main)
def conflicts(v, as_json):
    """Facts whose value changed over time (each change outdated the memory that said the old one)."""
    _timelines(
        as_json,
        v.memories.conflicts(),
        f"no fact changed value ({len(v.memories.facts())} facts recorded: 'ihmt facts')",
    )


@command(main)
@click.option("--source", help="Who is undoing (default: the vault's default_source); their last operation is undone.")
@click.option("--force", is_flag=True, help="Undo even another agent's operation, or one whose files changed since.")
@click.option("--commit", "commit", metavar="SHA", help="Undo this operation (a commit of the vault).")
def undo(v, as_json, source, force, commit):
    """Revert your last operation with a new commit; run again to step further back (history is never rewritten)."""
    r = v.history.undo(source=source, force=force, commit=commit)
    _emit(as_json, r.to_dict(), lambda: out.print(f"reverted {r.reverted[:10]} {r.subject}", markup=False))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID")
@click.option("--source", help="Who is making the change.")
def current(v, as_json, ref, source):
    """Undo an outdate: the memory is current again (its correction no longer supersedes it)."""
    m = v.memories.current(ref, source=source)
    _emit(as_json, m.to_dict(body=False), lambda: out.print(f"current again: {_memory_line(m)}", markup=False))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option("--purge", is_flag=True, help="Delete it and rewrite git history so its text is in no commit.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation before purging.")
@click.option("--source", help="Who is forgetting.")
def forget(v, as_json, ref, purge, yes, source):
    """Forget a memory: archive it, or with --purge erase it from the files and from all of git history."""

    def confirm(n: int) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            raise BadInput(f"--purge rewrites {n} commits; confirm with --yes (no terminal to ask)")
        return click.confirm(
            f"Purging rewrites {n} commits of this vault's history; other clones must be "
            f"re-cloned and remotes force-pushed. Continue?",
            default=False,
        )

    r = v.memories.forget(ref, purge=purge, confirm=confirm, source=source)
    if r.cancelled:
        line = "cancelled: nothing changed"
    elif r.purged:
        line = f"purged {r.id}: {r.commits} commits rewritten; force-push remotes and re-clone other copies"
    else:
        line = f"archived {r.id} to {r.path}"
    _emit(as_json, r.to_dict(), lambda: out.print(line, markup=False))


@command(main)
@_names_a_memory
@click.argument("old_id")
@click.argument("new_id")
@click.option("--source", help="Who is making the change.")
def outdate(v, as_json, old_id, new_id, source):
    """Mark OLD_ID as outdated, superseded by NEW_ID (both are kept). One commit."""
    m = v.memories.outdate(old_id, new_id, source=source)
    _emit(as_json, m.to_dict(body=False), lambda: out.print(f"outdated {_memory_line(m)}", markup=False))


@command(main)
def rebuild(v, as_json):
    """Regenerate every summary, the catalog and the search index from the memory files."""
    bar, tick = _progress("rebuilding", not as_json)
    if bar:
        bar.start()
    try:
        result = v.maintenance.rebuild(progress=tick)
    finally:
        if bar:
            bar.stop()
    _emit(
        as_json,
        result.to_dict(),
        lambda: out.print(
            f"rebuilt: {_count(result.memories, 'memory', 'memories')}, "
            f"{_count(result.summaries_changed, 'summary', 'summaries')} changed",
            markup=False,
        ),
    )


@command(main)
@click.option("--repair", is_flag=True, help="Fix what can be fixed, in one commit.")
def doctor(v, as_json, repair):
    """Check the vault: broken files, missing or duplicate ids, stale summaries, interrupted writes."""
    problems = v.maintenance.doctor(repair=repair)
    active = (
        [n for n, state in v.maintenance.stats()["rankers"].items() if state == "active"] if v.config.rankers else []
    )
    if active and not as_json:
        out.print(f"search rankers active: {', '.join(active)} (fused with the lexical ranking)", markup=False)
    if as_json:
        _emit(True, {"problems": [p.to_dict() for p in problems], "repaired": repair}, None)
    elif not problems:
        out.print("vault is healthy", markup=False)
    else:
        for p in problems:
            state = (
                ("repaired" if p.repairable else "needs you")
                if repair
                else ("repairable" if p.repairable else "needs you")
            )
            out.print(f"{p.kind:<14} {p.path}: {p.message} [{state}]", markup=False)
    if problems and not repair and not as_json:
        out.print("run 'ihmt doctor --repair' to fix the repairable ones", markup=False)
    unfixed = [p for p in problems if not p.repairable or not repair]
    sys.exit(1 if unfixed else 0)


@command(main)
def stats(v, as_json):
    """Counts of memories by status and type, sizes on disk, and the weights decay judges by."""
    s = v.maintenance.stats()
    weighed = v.maintenance.weights()
    threshold = v.config.decay_threshold
    row = lambda w: f"{w.weight:.1f} {w.title} ({w.id}, {w.recalls} recalls, idle {w.idle_days} d)"  # noqa: E731
    s["weights"] = {
        "heaviest": [row(w) for w in weighed[:10]],
        "lightest": [row(w) for w in weighed[-10:][::-1]],
        "near_threshold": sum(1 for w in weighed if threshold < w.weight <= threshold + 1),
    }

    def human():
        from rich.table import Table

        t = Table(show_header=False, box=None)
        for k, val in s.items():
            if k != "weights":
                t.add_row(k, ", ".join(f"{a}: {b}" for a, b in val.items()) if isinstance(val, dict) else str(val))
        out.print(t)
        w = s["weights"]
        out.print(
            f"weights (decay archives at {threshold:g} or below; {w['near_threshold']} within 1 of it):", markup=False
        )
        for title, rows in (("heaviest", w["heaviest"]), ("lightest", w["lightest"])):
            out.print(f"  {title}:", markup=False)
            for line in rows:
                out.print(f"    {line}", markup=False)

    _emit(as_json, s, human)


@command(main)
@click.argument("query", nargs=-1, required=True, cls=FreeText)
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 100), help="How many hits.")
@click.option("--clue", help="A word that tells ambiguous candidates apart.")
@click.option("--under", help="Search only this folder, e.g. work/infrastructure.")
@click.option("--level", type=click.IntRange(0, 6), help="Search only this depth of the tree.")
@click.option("--full", is_flag=True, help="Ids, paths and excerpts for every hit.")
@click.option(
    "--as-of", "as_of", metavar="DATE", help="Answer as things stood on DATE (YYYY-MM-DD, or yesterday, 'last May'...)."
)
@click.option(
    "--in", "in_vault", metavar="NAME", help="Only the mounted vault NAME ('private': only this one; default: all)."
)
def search(v, as_json, query, k, clue, under, level, full, as_of, in_vault):
    """Search the vault and its mounted vaults: QUERY is the rest of the line (no quotes needed); a compact answer
    within the token budget."""
    r = v.search(
        " ".join(query),
        k=k,
        clue=clue,
        under=under,
        level=level,
        detail="full" if full else "compact",
        as_of=as_of,
        vault=in_vault,
    )
    _emit(as_json, r.to_dict(), lambda: click.echo(r.render("full" if full else "compact")))


def clue_rounds(search, query: str, rounds: int, ask_clue, show) -> None:
    """Search `query`; while the answer is AMBIGUOUS, ask for a clue (`ask_clue()`, "" stops) at
    most `rounds` times and search again with it. `show(result)` prints each answer."""
    clue = None
    for asked in range(rounds + 1):
        r = search(query, clue=clue)
        show(r)
        if r.status != "ambiguous" or asked == rounds:
            return
        clue = ask_clue()
        if not clue:
            return


def _interactive() -> bool:
    return sys.stdin.isatty()


@command(main)
@click.argument("query", nargs=-1, required=True, cls=FreeText)
def ask(v, as_json, query):
    """Search (QUERY is the rest of the line), and when the answer is ambiguous ask for a clue (up to search_clue_rounds
    times; Enter stops)."""

    def show(r):
        click.echo(json.dumps(r.to_dict(), ensure_ascii=False, indent=2) if as_json else r.render("compact"))

    rounds = v.config.search_clue_rounds if _interactive() else 0
    clue_rounds(
        v.search,
        " ".join(query),
        rounds,
        lambda: click.prompt("clue (Enter to stop)", default="", show_default=False).strip(),
        show,
    )


@command(main, opens_vault=False)
@click.option(
    "--dir",
    "target",
    type=click.Path(path_type=Path),
    help="Where to create the demo vault (default: ./demo-vault, or a temp folder if that exists).",
)
def demo(vault_path, as_json, target):
    """Create a demo vault from the sample memories and walk through saving, a correction, the tree and history."""
    from .demo import run_demo

    run_demo(target, as_json)


# -- site (mkdocs) --------------------------------------------------------------------------------
@main.group(name="site")
def site_group():
    """Browse the vault as a website (mkdocs): 'ihmt site build' writes static files, 'ihmt site serve' previews them.
    Each subcommand takes --vault and --json. Needs the site extra: pip install 'ihmt-vault[site]'."""


def _site_report(r: dict) -> None:
    ex = r["excluded"]
    out.print(
        f"built {_count(r['memories'], 'memory', 'memories')} in {_count(r['sections'], 'section', 'sections')} "
        f"into {r['out']} in {r['seconds']} s"
        f" (left out: {ex['private']} private, {ex['archived']} archived)",
        markup=False,
    )
    for b in r["broken_links"]:
        out.print(f"  broken wikilink [[{b['target']}]] in {b['page']}", markup=False)
    for w in r["warnings"]:
        err.print(f"  warning: {w}", markup=False)
    if r.get("for_web"):
        out.print(
            f"publish {r['out']} on a web server (its pages are folders, e.g. work/: opened from disk "
            f"they show listings; build without --for-web to browse the files)",
            markup=False,
        )
    else:
        out.print(
            f"open {Path(r['index']).as_uri()}  (from disk; search needs a server: 'ihmt site serve')", markup=False
        )


@command(site_group, name="build")
@click.option("--out", type=click.Path(path_type=Path), help="Output folder (default: the vault's .ihmt/cache/site).")
@click.option("--with-archive", is_flag=True, help="Publish the archived memories too.")
@click.option(
    "--for-web",
    is_flag=True,
    help="For a web server: pretty folder URLs (work/). Default: pages are files (work/index.html), "
    "so the site works opened from disk.",
)
def site_build(v, as_json, out, with_archive, for_web):
    """Build the vault as a static site: topic navigation, wikilinks, OUTDATED badges, timeline, search."""
    from . import site as site_lib

    r = site_lib.build_site(v, out, with_archive=with_archive, for_web=for_web)
    _emit(as_json, r, lambda: _site_report(r))


@command(site_group, name="serve")
@click.option("--addr", default="127.0.0.1:8000", show_default=True, help="Address to serve on.")
@click.option("--with-archive", is_flag=True, help="Publish the archived memories too.")
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
def site_serve(v, as_json, addr, with_archive, open_browser):
    """Serve the vault's site locally with live reload (Ctrl-C stops); edits to memories show up; its search box also
    asks the vault's own search (and a Diagnose page shows the whole answer); its Set up page shows the agents
    connected and the vault's health, with the commands that fix what is missing."""
    from . import site as site_lib

    site_lib.serve_site(v, addr, with_archive=with_archive, open_browser=open_browser)


# -- agents (MCP) ---------------------------------------------------------------------------------
@command(main, opens_vault=False)
@click.option(
    "--tools",
    "tools",
    default="memory",
    show_default=True,
    help="Toolsets to serve, comma-separated: memory, project (project_map, find_code), "
    "session (read_file, note, recall, digest_output).",
)
def mcp(vault_path, as_json, tools):
    """Serve the vault to an agent as MCP tools over stdio; agents start it themselves (see 'ihmt setup')."""
    from ..config import vault_folder
    from .mcp_server import serve, toolsets
    from .mcp_wire import Wire, exit_after_eof

    where = chosen_vault(vault_path, True)
    try:
        if where is not None:
            vault_folder(where)  # a vault that is not there is one line now, not a server that fails later
        chosen = tuple(toolsets(tools))
    except VaultError as e:
        err.print(f"error: {e}", markup=False)
        sys.exit(e.exit_code)
    wire = Wire(on_eof=exit_after_eof()).plug()
    serve(lambda: _facade().Vault.open(where), chosen, wire=wire)


# -- project tools ---------------------------------------------------------------------------------
@main.group(name="project")
def project_group():
    """A code project's map and symbols, as the MCP project tools give them: 'ihmt project map' lists files (and
    symbols), 'ihmt project find' answers with the symbols that match. The index lives in ~/.ihmt/projects/, never in
    the vault."""


@command(project_group, name="map", opens_vault=False)
@click.argument("path", type=click.Path(path_type=Path), default=".")
@click.option("--symbols", is_flag=True, help="Each class and function with its line range.")
@click.option("--subpath", default="", help="Only this folder or file of the project.")
def project_map(vault_path, as_json, path, symbols, subpath):
    """The project's files with their size in tokens; --symbols adds each class and function with its lines."""
    from ..project.codebase import Project

    text = Project(path).map("symbols" if symbols else "files", subpath)
    _emit(as_json, {"map": text}, lambda: click.echo(text))


@command(project_group, name="find", opens_vault=False)
@click.argument("query", nargs=-1, required=True, cls=FreeText)
@click.option(
    "--path", "path", type=click.Path(path_type=Path), default=".", show_default=True, help="The project folder."
)
@click.option(
    "--scope",
    type=click.Choice(["main", "test", "all"]),
    default="main",
    show_default=True,
    help="main demotes tests; test searches only tests.",
)
@click.option("--subpath", default="", help="Only this folder or file of the project.")
@click.option("--clue", help="A word telling AMBIGUOUS candidates apart.")
@click.option(
    "--max-tokens", type=click.IntRange(100, 20000), default=1500, show_default=True, help="Budget of the answer."
)
def project_find(vault_path, as_json, query, path, scope, subpath, clue, max_tokens):
    """The functions and classes that answer QUERY, as file:first-last and their code
    (AMBIGUOUS: the tied candidates)."""
    from ..project.codebase import Project

    found = Project(path).find(" ".join(query), scope, subpath, clue, max_tokens)
    _emit(
        as_json,
        {
            "status": found.status,
            "text": found.text,
            "hits": [
                {"path": e.path, "first": s.first, "last": s.last, "symbol": s.name, "score": round(sc, 3)}
                for e, s, sc in found.hits
            ],
        },
        lambda: click.echo(found.text),
    )


@command(main)
@click.option("--tokens", type=click.IntRange(100, 20000), help="Token budget (default: the vault's brief_tokens).")
def brief(v, as_json, tokens):
    """Print the vault's top level (pinned; per topic the newest and most recalled, the rest as a count) within a token
    budget; the session-start hook runs it."""
    text = v.brief(budget_tokens=tokens)
    _emit(as_json, {"brief": text}, lambda: click.echo(text, nl=False))


def _setup_table(agents, rows: list[dict]) -> None:
    """`ihmt setup --list`: a row per agent and scope under a header; "n/a" where the agent has no
    such file (no instruction file at that scope, no hook)."""
    env = agents.Env.current()

    def cell(state, applies: bool = True) -> str:
        return "n/a" if not applies else ("set up" if state else "not set up")

    table = [("agent", "scope", "mcp server", "instructions", "hook", "config file")]
    for r in rows:
        has_instructions = agents.AGENTS[r["agent"]].instructions(r["scope"], env) is not None
        table.append(
            (
                r["agent"],
                r["scope"],
                cell(r["server"]),
                cell(r["instructions"], has_instructions),
                cell(r["hook"], r["hook"] is not None),
                r["config"],
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        out.print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[5], markup=False)
    if not any(r["server"] for r in rows):
        out.print("no agent is set up yet: ihmt setup AGENT connects one", markup=False)


@command(main, opens_vault=False)
@click.argument("agent", required=False, metavar="AGENT")
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="user: every project (this machine's paths); project: files in the current directory that a team commits.",
)
@click.option("--dry-run", is_flag=True, help="Print what would be written; write nothing.")
@click.option("--list", "list_", is_flag=True, help="Show which agents are configured.")
@click.option("--no-hook", is_flag=True, help="claude-code: leave out the session-start hook.")
def setup(vault_path, as_json, agent, scope, dry_run, list_, no_hook):
    """Connect AGENT (claude-code, codex, opencode, cursor, gemini-cli, claude-desktop, vscode, windsurf, antigravity,
    hermes) to the vault: its MCP config and instruction file; creates the vault if needed; idempotent, backups of
    edited files."""
    from . import agents

    if list_:
        rows = agents.status()
        _emit(as_json, rows, lambda: _setup_table(agents, rows))
        return
    if not agent:
        raise BadInput(f"name the agent to set up: one of {', '.join(agents.NAMES)} (or --list)")
    changes = agents.setup(agent, scope, vault_path, dry_run=dry_run, hook=not no_hook)
    steps = agents.next_steps(agent, scope, vault_path)

    def human():
        verb = {
            "create": "would create" if dry_run else "created",
            "update": "would update" if dry_run else "updated",
            "unchanged": "unchanged",
            "skip": "skipped",
        }
        for c in changes:
            backup = f" (backup: {c.backup})" if c.backup else ""
            out.print(f"{verb[c.action]} {c.kind}: {c.path or ''}{backup}", markup=False)
            if c.note:
                out.print(f"  {c.note}", markup=False)
            if c.action in ("create", "update") and c.snippet:
                click.echo(c.snippet.rstrip("\n"))
        if not any(c.action in ("create", "update") for c in changes):
            out.print(f"{agent}: already set up, nothing to change", markup=False)
        for line in steps:
            out.print(f"next: {line}", markup=False)
        if not dry_run and any(c.action in ("create", "update") for c in changes):
            out.print(f"restart {agents.AGENTS[agent].label} to load the ihmt tools", markup=False)

    _emit(as_json, {"dry_run": dry_run, "changes": [c.to_dict() for c in changes], "next": steps}, human)


@command(main)
@click.option("--once", is_flag=True, help="Reconcile what changed since the last run, then exit (cron, hooks).")
@click.option(
    "--debounce",
    default=0.4,
    show_default=True,
    type=click.FloatRange(0.05, 30),
    help="Seconds of quiet before a batch of edits is taken in.",
)
def watch(v, as_json, once, debounce):
    """Watch the vault: edits made by hand or brought by git become memories, summaries and commits."""
    if once:
        r = v.maintenance.reconcile(None)

        def human():
            for c in r.changes:
                out.print(f"{c.op:<6} {c.path}  {c.title}", markup=False)
            for p in r.problems:
                err.print(f"skipped {p.message}", markup=False)
            if not r.changes and not r.problems:
                out.print("nothing to take in", markup=False)

        _emit(as_json, r.to_dict(), human)
        return
    from .watch import Watcher

    def log(line: str) -> None:
        click.echo(json.dumps({"log": line}) if as_json else line, err=False)

    try:
        Watcher(v, debounce=debounce, log=log).run()
    except KeyboardInterrupt:
        pass


@command(main)
@click.option("--remote", help="The git remote (default: origin, or the only one).")
@click.option("--status", "show_status", is_flag=True, help="Only say how far ahead/behind the remote the vault is.")
def sync(v, as_json, remote, show_status):
    """Commit pending edits, pull (merging without conflicts to resolve), push. Credentials are git's own."""
    if show_status:
        s = v.remote.status(remote)
        _emit(
            as_json,
            s.to_dict(),
            lambda: out.print(
                f"{s.remote}/{s.branch}: {s.ahead} ahead, {s.behind} behind, {s.pending} pending edits", markup=False
            ),
        )
        return
    r = v.remote.sync(remote)
    mounted = v.mounts.sync() if remote is None else []

    def report(r, prefix=""):
        for c in r.committed:
            out.print(f"{prefix}committed {c.op} {c.path}", markup=False)
        if r.pulled:
            out.print(f"{prefix}pulled {r.pulled} commits from {r.remote}/{r.branch}", markup=False)
        for notice in r.conflicts:
            out.print(f"{prefix}notice: {notice}", markup=False)
        out.print(f"{prefix}pushed to {r.remote}/{r.branch}" if r.pushed else f"{prefix}nothing pushed", markup=False)

    def human():
        report(r)
        for name, m in mounted:
            report(m, f"{name}: ") if not isinstance(m, str) else err.print(f"{name}: not synced: {m}", markup=False)

    _emit(
        as_json, {**r.to_dict(), "mounts": {n: (m if isinstance(m, str) else m.to_dict()) for n, m in mounted}}, human
    )


# -- mounts ---------------------------------------------------------------------------------------
@main.group(name="mount")
def mount_group():
    """Several vaults at once: mount a team's shared vault beside your private one; search and the brief span them all,
    a save goes where its topic or --in says."""


@command(mount_group, name="add")
@click.argument("name")
@click.argument("path")
@click.option("--remote", help="Clone the shared vault from this git URL when PATH does not exist yet.")
def mount_add(v, as_json, name, path, remote):
    """Mount the vault at PATH as NAME (topics starting with NAME/ are saved there); one config commit."""
    m = v.mounts.add(name, path, remote)
    _emit(
        as_json,
        {"name": m.name, "path": m.path, "remote": m.remote},
        lambda: out.print(f"mounted {m.name}: {m.path}", markup=False),
    )


@command(mount_group, name="list")
def mount_list(v, as_json):
    """List the mounted vaults: name, path, remote, and whether each opens."""
    rows = []
    for m in v.mounts.declared.values():
        try:
            v.mounts.get(m.name)
            state = "ok"
        except VaultError as e:
            state = str(e)
        rows.append({"name": m.name, "path": m.path, "remote": m.remote, "state": state})

    def human():
        for r in rows:
            out.print(f"{r['name']}  {r['path']}  {r['remote'] or '-'}  {r['state']}", markup=False)
        if not rows:
            out.print("no mounts", markup=False)

    _emit(as_json, rows, human)


@command(mount_group, name="remove")
@click.argument("name")
def mount_remove(v, as_json, name):
    """Unmount NAME (its folder and vault are left as they are); one config commit."""
    v.mounts.remove(name)
    _emit(as_json, {"removed": name}, lambda: out.print(f"unmounted {name}", markup=False))


@main.group()
def hooks():
    """Git hooks for a vault: validate commits made by hand, keep summaries current after merges."""


@command(hooks, name="install", opens_vault=False)
@click.option(
    "--server",
    "bare",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Install the roles' pre-receive hook into this bare repository (on the server) instead.",
)
def hooks_install(vault_path, as_json, bare):
    """Install the vault's git hooks (pre-commit, post-merge, post-checkout, post-rewrite); yours are kept.
    With --server PATH: the pre-receive hook that refuses pushes breaking the vault's roles."""
    if bare is not None:
        report = _facade().Hooks.install_server(bare)
    else:
        with _facade().Vault.open(chosen_vault(vault_path, as_json)) as v:
            report = v.hooks.install()
    _emit(
        as_json,
        report,
        lambda: [
            out.print(f"{r['action']:<9} {r['path']}" + (f" ({r['why']})" if r.get("why") else ""), markup=False)
            for r in report
        ],
    )


@command(hooks, name="check", opens_vault=False)
@click.option(
    "--pre-receive",
    "pre_receive",
    is_flag=True,
    help="Check a push: 'old new ref' lines on stdin (what the server's pre-receive hook runs).",
)
@click.option("--range", "spec", metavar="A..B", help="Check the commits of A..B against the roles at A (a CI job).")
@click.option(
    "--repo",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=Path("."),
    show_default=True,
    help="The repository for --pre-receive and --range (bare or not).",
)
def hooks_check(vault_path, as_json, pre_receive, spec, repo):
    """Check the memories staged for commit (front matter, secrets, your role); used by the pre-commit hook.
    With --pre-receive or --range: the pushed commits against the vault's roles."""
    if pre_receive:
        problems = _facade().Hooks.check_push(repo, sys.stdin.read().splitlines())
    elif spec:
        problems = _facade().Hooks.check_range(repo, spec)
    else:
        with _facade().Vault.open(chosen_vault(vault_path, as_json)) as v:
            problems = v.hooks.check_staged()
    if as_json:
        _emit(True, {"problems": problems}, None)
    for p in problems if not as_json else []:
        err.print(f"error: {p}" if not (pre_receive or spec) else f"ihmt: {p}", markup=False)
    sys.exit(1 if problems else 0)


@command(main)
@click.option("--dry-run", is_flag=True, help="Say what would sink or expire; change nothing.")
@click.option("--auto", is_flag=True, help="Only if it has not run today on this machine (the session-start hook).")
@click.option("--source", help="Who is running it (the commit's Agent).")
def decay(v, as_json, dry_run, auto, source):
    """Archive the memories whose weight sank (never recalled, long idle), in one commit;
    see 'ihmt stats' for weights."""
    if auto and not v.maintenance.decay_due():
        _emit(
            as_json,
            {"archived": [], "expired": [], "commit": None, "dry_run": dry_run, "skipped": "ran today"},
            lambda: None,
        )
        return
    r = v.maintenance.decay(dry_run=dry_run, source=source)

    def human():
        verb = "would archive" if dry_run else "archived"
        for w in r.archived:
            out.print(f"{verb} {w.path}  {w.title} ({w.why})", markup=False)
        for w in r.expired:
            out.print(f"{'would delete' if dry_run else 'deleted'} {w.path}  {w.title} ({w.why})", markup=False)
        if not r.archived and not r.expired:
            out.print("nothing sank: every memory is recalled, core, protected or new enough", markup=False)

    _emit(as_json, r.to_dict(), human)


@command(main)
@_names_a_memory
@click.argument("folder")
@click.argument("text", nargs=-1, cls=FreeText)
@click.option("--source", help="Who is describing it (the commit's Agent).")
def describe(v, as_json, folder, text, source):
    """Describe a topic FOLDER in a sentence or two: kept above its summary's generated part and shown first (no TEXT
    removes it). One commit."""
    said = v.topics.describe(folder, " ".join(text), source=source)
    _emit(
        as_json,
        {"folder": folder, "description": said},
        lambda: out.print(f"described {folder}: {said}" if said else f"description of {folder} removed", markup=False),
    )


@command(main)
@click.option("--dry-run", is_flag=True, help="Say what would move; change nothing.")
@click.option("--source", help="Who is gardening (the commit's Agent).")
def garden(v, as_json, dry_run, source):
    """Tidy the tree now: split every queued crowded folder (a move commit each), then file the inbox and re-file."""
    r = v.topics.garden(dry_run=dry_run, source=source)

    def human():
        for m in r.moved:
            out.print(
                f"{'would move' if dry_run else 'moved'} {m.id} {m.before or '.'}/ → {m.after}/  {m.title}",
                markup=False,
            )
        if dry_run and r.queued:
            out.print(f"queued for the gardener: {', '.join(f + '/' for f in r.queued)}", markup=False)
        if not r.moved:
            out.print("nothing to move: the inbox holds nothing a topic fits and no folder is crowded", markup=False)

    _emit(as_json, r.to_dict(), human)


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option("--source", help="Who is restoring (the commit's Agent).")
def restore(v, as_json, ref, source):
    """Bring an archived memory back to the folder it was archived from (one commit)."""
    m = v.memories.restore(ref, source=source)
    _emit(as_json, m.to_dict(body=False), lambda: out.print(f"restored {_memory_line(m)}", markup=False))


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.option("--off", is_flag=True, help="Make it an ordinary memory again (it can then decay).")
@click.option("--source", help="Who is changing it (the commit's Agent).")
def core(v, as_json, ref, off, source):
    """Make a memory core (pinned): it never decays and is always in the brief; --off undoes it."""
    m = v.memories.pin(ref, pinned=not off, source=source)
    _emit(
        as_json,
        m.to_dict(body=False),
        lambda: out.print(f"{'core' if m.pinned else 'not core'}: {_memory_line(m)}", markup=False),
    )


@command(main)
@_names_a_memory
@click.argument("ref", metavar="ID|PATH")
@click.argument("title", nargs=-1, required=True, cls=FreeText)
@click.option("--source", help="Who is renaming it (the commit's Agent).")
def rename(v, as_json, ref, title, source):
    """Give a memory a new title: TITLE is the rest of the line; its file is renamed to match, its id stays."""
    m = v.memories.rename(ref, " ".join(title), source=source)
    _emit(as_json, m.to_dict(body=False), lambda: out.print(f"renamed {_memory_line(m)}", markup=False))


if __name__ == "__main__":  # pragma: no cover
    main()
