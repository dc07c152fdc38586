"""Roles in a shared vault: who may change what, declared in `.ihmt/roles.toml`, and the checks.

The file, committed with the vault:

    default = "reader"              # anyone not listed (absent: reader)
    [[member]]
    email = "ana@example.com"       # a person by git author e-mail, or agent = "claude-code" (the Agent: name)
    role = "writer"                 # reader | writer | maintainer; hmem's worker, al → writer; pl, ceo → maintainer
    folders = ["work/"]             # optional: the role holds only under these folders; elsewhere the default

What a role may change:
- reader: nothing.
- writer: create, edit and move memories and attachments where it is a writer; the generated
  summaries (`index.md`), recall counts and the operations log anywhere it is a writer of something;
  delete only its own memories (the `source:` last committed names the writer's agent). Never
  `.ihmt/` (roles, settings, purge tombstones) nor the vault's dotfiles: no purge, no roles.
- maintainer: everything. A vault without roles.toml: everyone is a maintainer.
`archive/X` counts as `X` (the archive mirrors the tree), so a writer of work/ archives and restores there.

Who is writing: an e-mail (git's author; on a server that authenticates, the pusher's) and an agent
name (the operation's `Agent:`, or the commit's trailer). Among the entries naming one of them,
the one with the most specific folder covering the path holds; when an e-mail entry and an agent
entry both hold, the lower role (an agent can be held back); neither: the default. The Agent:
trailer is only claimed, so it never lifts an authenticated pusher above what the default gives.

Where it is checked: our write path asks `Gate.check` before each path a transaction writes, with
the roles as HEAD has them (a hand edit of roles.toml grants nothing until a maintainer's commit);
the pre-commit hook asks for staged changes; the server's pre-receive hook and the CI range check
ask `check_commits`, with the roles of the target branch before the push (a push cannot grant itself
rights; a maintainer's change applies once it has landed). They judge what a push changes relative
to the target branch as it stood: every pushed commit, merges included, by what it changes against
its first parent, and the push as a whole by `git diff old new` of the ref; so a revert, a merge
whose tree is an older commit's (either parent order), or a deletion of roles.toml is judged for
what it does to the branch. A pushed commit that leaves roles.toml broken is refused, so the
branch's roles always parse.

Errors: a roles.toml that does not parse or validate is a `BrokenFile` naming the file and line;
every write of ours is refused with it (fail closed: a typo must never make everyone a maintainer),
`doctor` reports it, and a commit of a valid roles.toml by hand passes the pre-commit hook. A
refusal is one line: the rule (file and line), who, their role, and what that role cannot do.
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadInput, BrokenFile, Refused
from . import gitlog, notes
from .layout import GARDEN_FILE, is_memory_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ROLES_PATH = ".ihmt/roles.toml"
RANK = {"reader": 0, "writer": 1, "maintainer": 2}
HMEM = {"worker": "writer", "al": "writer", "pl": "maintainer", "ceo": "maintainer"}
FIX = "fix it and commit it with git (a maintainer's change)"
PUSHER_VARS = ("IHMT_PUSHER_EMAIL", "GL_USERNAME", "REMOTE_USER")  # set by hosts that authenticate
VERBS = {"outdate": "mark outdated", "": "write"}
ARCHIVE = "archive"


@dataclass(frozen=True)
class Identity:
    email: str = ""
    agent: str = ""
    authenticated: bool = False  # the e-mail comes from the host's authentication, not from a commit

    def __str__(self) -> str:
        return self.email or (f"agent {self.agent}" if self.agent else "an unnamed author")


@dataclass(frozen=True)
class Rule:
    role: str
    text: str  # ".ihmt/roles.toml:4: ana@example.com is a reader of work/"


@dataclass(frozen=True)
class Member:
    role: str
    email: str = ""
    agent: str = ""
    folders: tuple[str, ...] = ()
    line: int = 0

    def names(self, who: Identity) -> bool:
        if self.email:
            return self.email.lower() == who.email.lower()
        return self.agent == who.agent

    def folder_for(self, path: str) -> str | None:
        """The most specific of its folders covering `path` ("" without folders; None: none covers it)."""
        if not self.folders:
            return ""
        covering = [f for f in self.folders if path == f or path.startswith(f + "/")]
        return max(covering, key=len) if covering else None

    def rule(self, folder: str) -> Rule:
        who = self.email or f"agent {self.agent}"
        return Rule(
            self.role, f"{_where(self.line)}: {who} is a {self.role} of {folder + '/' if folder else 'the vault'}"
        )


@dataclass(frozen=True)
class Roles:
    default: str = "maintainer"
    members: tuple[Member, ...] = ()
    default_line: int = 0
    declared: bool = False  # False: no roles.toml, everyone is a maintainer

    def rule_for(self, who: Identity, path: str) -> Rule:
        """The rule that decides what `who` may do at `path`."""
        if not self.declared:
            return Rule("maintainer", "")
        home = path.partition("/")[2] if path.split("/")[0] == ARCHIVE else path
        folder = home.rpartition("/")[0]
        listed = folder and any(m.names(who) for m in self.members)
        default = Rule(
            self.default,
            f"{_where(self.default_line)}: {who} is not listed{f' for {folder}/' if listed else ''}; "
            f"the default role is {self.default}",
        )
        by_email = _most_specific([m for m in self.members if m.email and m.names(who)], home)
        by_agent = _most_specific([m for m in self.members if m.agent and m.names(who)], home)
        if by_email and by_agent:
            return min(by_email, by_agent, key=lambda r: RANK[r.role])
        if by_agent and who.authenticated:
            return min(by_agent, default, key=lambda r: RANK[r.role])
        return by_email or by_agent or default

    def best_rule(self, who: Identity) -> Rule:
        """The highest rule `who` has anywhere (what decides derived files: summaries, counts)."""
        probes = [""] + [f"{f}/-" for m in self.members for f in m.folders]
        return max((self.rule_for(who, p) for p in probes), key=lambda r: RANK[r.role])


def _where(line: int) -> str:
    return f"{ROLES_PATH}:{line}" if line else ROLES_PATH


def _most_specific(members: list[Member], path: str) -> Rule | None:
    found = [(len(f), RANK[m.role], m, f) for m in members if (f := m.folder_for(path)) is not None]
    if not found:
        return None
    _, _, m, folder = max(found, key=lambda t: t[:2])
    return m.rule(folder)


# -- the file -------------------------------------------------------------------------------------
def parse(text: str | None) -> Roles:
    """The roles a roles.toml declares (None: no file, everyone a maintainer); `BrokenFile` if bad."""
    if text is None:
        return Roles()
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise BrokenFile(ROLES_PATH, f"not valid TOML ({err})", FIX) from None
    lines = text.splitlines()

    def line_of(pattern: str, nth: int = 0) -> int:
        hits = [i + 1 for i, line in enumerate(lines) if re.match(pattern, line)]
        return hits[nth] if nth < len(hits) else 0

    def bad(line: int, problem: str) -> BrokenFile:
        return BrokenFile(_where(line), problem, FIX)

    for key in raw:
        if key not in ("default", "member"):
            raise bad(line_of(rf"\s*{re.escape(key)}\s*="), f"unknown key {key!r}; known: default, [[member]]")
    default_line = line_of(r"\s*default\s*=")
    default = _role(raw.get("default", "reader"), lambda p: bad(default_line, f"default: {p}"))
    entries = raw.get("member", [])
    if not isinstance(entries, list):
        raise bad(line_of(r"\s*member\s*="), "member must be a list of [[member]] tables")
    members = []
    for n, entry in enumerate(entries):
        line = line_of(r"\s*\[\[\s*member\s*\]\]", n)
        if not isinstance(entry, dict):
            raise bad(line, "each member must be a [[member]] table")
        unknown = set(entry) - {"email", "agent", "role", "folders"}
        if unknown:
            raise bad(line, f"member: unknown key {sorted(unknown)[0]!r}; known: email, agent, role, folders")
        names = [k for k in ("email", "agent") if k in entry]
        if len(names) != 1 or not isinstance(entry[names[0]], str) or not entry[names[0]].strip():
            raise bad(line, 'member: give exactly one of email = "..." or agent = "..."')
        if "role" not in entry:
            raise bad(line, "member: role is missing (reader, writer or maintainer)")
        role = _role(entry["role"], lambda p, ln=line: bad(ln, f"member: {p}"))
        folders = entry.get("folders", [])
        if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
            raise bad(line, 'member: folders must be a list of folder names, e.g. ["work/"]')
        clean = tuple(f.strip().strip("/") for f in folders)
        if any(not f or f.startswith((".", "/")) or ".." in f.split("/") or "\\" in f for f in clean):
            raise bad(line, 'member: folders must be folders inside the vault, e.g. "work/"')
        members.append(
            Member(
                role,
                email=entry.get("email", "").strip(),
                agent=entry.get("agent", "").strip(),
                folders=clean,
                line=line,
            )
        )
    return Roles(default, tuple(members), default_line, declared=True)


def _role(value, bad) -> str:
    if not isinstance(value, str) or value not in RANK and value not in HMEM:
        raise bad(f"role {value!r} is not one of reader, writer, maintainer (or hmem's worker, al, pl, ceo)")
    return HMEM.get(value, value)


# -- the rule -------------------------------------------------------------------------------------
def _derived(path: str) -> bool:
    """Files the tool regenerates or appends to for everyone's writes: not anyone's content."""
    return (
        path.rpartition("/")[2] == "index.md"
        or path.startswith(".ihmt/stats/")
        or path == "operations.md"
        or path == GARDEN_FILE
    )


def _protected(path: str) -> bool:
    """The vault's own settings: roles, config, purge tombstones, git's dotfiles."""
    return path.startswith(".ihmt/") or path.startswith(".")


def check(roles: Roles, who: Identity, op: str, path: str, change: str, owner: str | None = None) -> str | None:
    """Why `who` may not make this change (one line), or None when allowed. `change`: write (add or
    edit), delete, or move (the old path of a move); `owner`: a deleted memory's `source:` as last
    committed (None: not a memory, or never committed)."""
    if not roles.declared:
        return None
    derived = _derived(path)
    rule = roles.best_rule(who) if derived else roles.rule_for(who, path)
    if rule.role == "maintainer":
        return None
    if rule.role == "reader":
        return f"{rule.text}; a reader cannot {VERBS.get(op, op)} {path}"
    if derived:
        return None
    if _protected(path):
        return f"{rule.text}; a writer cannot change {path} (maintainers only)"
    if change == "delete" and owner is not None and owner != who.agent:
        return f"{rule.text}; a writer deletes only its own memories ({path} has source: {owner or 'none'})"
    return None


def source_of(text: str | None, path: str) -> str | None:
    """A memory's `source:` in this version of it (None: no such version)."""
    if text is None:
        return None
    try:
        return notes.parse(text, path).source or ""
    except BrokenFile:
        return ""


# -- our write path -------------------------------------------------------------------------------
class Gate:
    """What our code asks before writing: the roles as HEAD has them (cached per HEAD) and the
    e-mail git will author our commit with."""

    def __init__(self, repo: gitlog.Repo):
        self.repo = repo
        self._head: str | None = None
        self._roles: Roles | BrokenFile = Roles()
        self._email: str | None = None
        self._held = False

    @contextmanager
    def held(self):
        """The roles read once for the span of one operation (which holds the vault's lock): its
        thousands of writes are judged by the roles as HEAD had them when it began."""
        self._held = False
        try:
            self.roles()
        except BrokenFile:
            pass  # kept, and raised by the operation's first write, as without `held`
        self._held = True
        try:
            yield
        finally:
            self._held = False

    def roles(self) -> Roles:
        head = self._head if self._held else self.repo.head_fast()
        if head != self._head:
            try:
                self._roles = parse(self.repo.show("HEAD", ROLES_PATH) if head else None)
            except BrokenFile as err:
                self._roles = err
            self._head = head
        if isinstance(self._roles, BrokenFile):
            raise BrokenFile(self._roles.path, self._roles.problem, FIX)
        return self._roles

    def refusal(self, op: str, agent: str, rel: str, change: str) -> str | None:
        """Why this write may not happen (one line), or None."""
        roles = self.roles()
        if not roles.declared:
            return None
        if self._email is None:
            self._email = self.repo.author_email()
        owner = source_of(self.repo.show("HEAD", rel), rel) if change == "delete" and is_memory_path(rel) else None
        return check(roles, Identity(self._email, agent or ""), op, rel, change, owner)

    def check(self, op: str, agent: str, rel: str, change: str) -> None:
        why = self.refusal(op, agent, rel, change)
        if why:
            raise Refused(why)


# -- pushed commits (the server's pre-receive hook, a CI job) --------------------------------------
def pusher_from_env(environ=None) -> str:
    """The pusher as the host authenticated them, when it says ("" when it does not)."""
    environ = os.environ if environ is None else environ
    return next((environ[v].strip() for v in PUSHER_VARS if environ.get(v, "").strip()), "")


Change = tuple[str, str]  # (path, write | delete | move)


def _changes(statuses: list[tuple[str, str, str | None]]) -> list[Change]:
    """Name-status rows as the changes `check` judges: a rename is a move of its old path and a
    write of its new one."""
    out: list[Change] = []
    for status, path, old in statuses:
        if status == "R" and old is not None:
            out += [(old, "move"), (path, "write")]
        else:
            out.append((path, "delete" if status == "D" else "write"))
    return out


def _refusal(
    where: Path, roles: Roles, who: Identity, changes: list[Change], before: str | None, after: str
) -> str | None:
    """Why `who` may not make `changes` (going from commit `before` to `after`), or None."""
    for path, change in changes:
        owner = (
            source_of(gitlog.file_at(where, before, path), path)
            if change == "delete" and before and is_memory_path(path)
            else None
        )
        why = check(roles, who, "change", path, change, owner)
        if why:
            return why
    if (ROLES_PATH, "write") in changes:
        try:
            parse(gitlog.file_at(where, after, ROLES_PATH))
        except BrokenFile as err:
            return f"{err} (a push must leave the roles valid)"
    return None


def _who(c: gitlog.PushedCommit, pusher: str) -> Identity:
    return Identity(pusher or c.author_email, (c.trailers.get("Agent") or [""])[0], authenticated=bool(pusher))


def check_commits(
    where: Path,
    commits: list[str],
    base: str | None,
    pusher: str = "",
    *,
    tip: str | None = None,
    since: str | None = None,
) -> list[str]:
    """One line per commit that changes what its author's role does not allow, judged by the roles
    as `base` has them (the vault at the repository's top). `pusher`: who the host says pushed.

    Each commit is judged by what it changes relative to its first parent, merges included; a
    merge's change that only brings back what the target branch had (`since`, the branch as it
    stood) is not the merger's (pulling a maintainer's change in is no change of one's own). With
    `tip` (the ref's new commit), the push as a whole is judged too: `git diff since tip`, each
    path by whoever of the pushed commits changed it last, else by the tip's author; so a merge
    whose tree is an older commit's (a revert in disguise, with either parent order) is refused
    for what it deletes or brings back, however its parents are arranged."""
    try:
        roles = parse(gitlog.file_at(where, base, ROLES_PATH) if base else None)
    except BrokenFile as err:
        return [f"{(base or '')[:10]}: {err}; every push is refused until it is fixed on the server"]
    out = []
    last: dict[str, Identity] = {}  # a path → who among the pushed commits changed it last
    for sha in commits:
        c = gitlog.pushed_commit(where, sha)
        who = _who(c, pusher)
        changes = _changes(gitlog.commit_changes(where, c))
        if len(c.parents) > 1 and since:
            differs = {
                p for _s, path, old in gitlog.pushes.changes_between(where, since, sha) for p in (path, old) if p
            }
            changes = [(p, change) for p, change in changes if p in differs]
        last.update((p, who) for p, _ in changes)
        why = _refusal(where, roles, who, changes, c.parents[0] if c.parents else None, sha)
        if why:
            out.append(f"{sha[:10]} by {who}: {why}")
    if tip is None or out:
        return out
    by_tip = _who(gitlog.pushed_commit(where, tip), pusher)
    whole = _changes(gitlog.pushes.changes_between(where, since, tip))
    for who in dict.fromkeys([*last.values(), by_tip]):
        mine = [(p, change) for p, change in whole if last.get(p, by_tip) == who]
        why = _refusal(where, roles, who, mine, since, tip) if mine else None
        if why:
            out.append(f"{tip[:10]} by {who}: {why} (what the push changes: {(since or 'nothing')[:10]}..{tip[:10]})")
    return out


def check_push(where: Path, updates: list[str], pusher: str = "") -> list[str]:
    """The pre-receive check of `old new ref` lines: each ref's new commits (those no ref reaches
    yet) and what the push changes in the ref as a whole (`git diff old new`), against the roles of
    the branch before the push; deleting a branch or rewriting its history (a force push, as a
    purge needs) is a maintainer's. A new branch is judged against the default one (what it adds
    to their common ancestor)."""
    out: list[str] = []
    seen: set[str] = set()
    for line in updates:
        old, new, ref = line.split()
        base = old if old != gitlog.ZERO else gitlog.resolve_at(where, "HEAD")  # a new branch: the default one's
        if new == gitlog.ZERO or (old != gitlog.ZERO and not gitlog.is_ancestor(where, old, new)):
            tip = gitlog.pushed_commit(where, new) if new != gitlog.ZERO else None
            who = Identity(pusher or (tip.author_email if tip else ""), authenticated=bool(pusher))
            try:
                rule = parse(gitlog.file_at(where, old, ROLES_PATH)).rule_for(who, "")
            except BrokenFile as err:
                out.append(f"{ref}: {err}")
                continue
            if rule.role != "maintainer":
                what = "delete a branch" if new == gitlog.ZERO else "rewrite history (a force push)"
                out.append(f"{ref} by {who}: {rule.text}; only a maintainer can {what}")
                continue
            if new == gitlog.ZERO:
                continue
        since = old if old != gitlog.ZERO else (base and gitlog.pushes.merge_base(where, base, new))
        commits = [c for c in gitlog.new_commits(where, new, ["--all"]) if c not in seen]
        seen.update(commits)
        out += check_commits(where, commits, base, pusher, tip=new, since=since)
    return out


def check_range(where: Path, spec: str, pusher: str = "") -> list[str]:
    """The same check over `A..B` (a CI job on a host without server hooks): B's commits not in A
    and what B changes against A (against their common ancestor when A is no ancestor of B, as for
    a pull request behind its base), against the roles as A has them."""
    a, sep, b = spec.partition("..")
    if not sep or not a or not b or b.startswith("."):
        raise BadInput(f"--range {spec}: give it as A..B (two commits)")
    base, tip = gitlog.resolve_at(where, a), gitlog.resolve_at(where, b)
    if base is None or tip is None:
        raise BadInput(
            f"--range {spec}: {a if base is None else b} is not a commit in {where}; fetch the history "
            f"(actions/checkout with fetch-depth: 0)"
        )
    since = gitlog.pushes.merge_base(where, base, tip)
    return check_commits(where, gitlog.new_commits(where, tip, [base]), base, pusher, tip=tip, since=since)
