"""Source code cut at its symbols: Python by `ast`, the brace languages by a hand-written scanner.

The invariant (every chunker here, every input): the chunks joined are the text byte for byte
(`"".join(c.text for c in chunks) == text`, CRLF, tabs, a BOM, a missing final newline included),
`first_line`/`last_line` are the 1-based inclusive line span of each chunk (a line ends at
`\\n`, `\\r\\n` or a lone `\\r`, as Python's tokenizer counts them), and a logical block (a
function, a class) is never cut, except an oversized class (or namespace) split per member.
An empty text gives no chunks.

Error model: `chunk` never raises on any text. Python that `ast` cannot parse falls back to
blank-line separated blocks; the brace scanner reads unbalanced or unlexable input as best it can
(a missing brace runs its block to the end of the file) and still covers every byte.

Units are whole lines: a chunk starts at a line's start and ends after a line's end, so two
statements sharing a line share a chunk. Symbols: `imports`, `function:f`, `class:C`,
`method:m` and `field` (members split out, `Chunk.header` = the enclosing declaration),
`struct:`/`interface:`/`enum:`/`trait:`/`impl:`/`object:`/`namespace:`..., and `module` for
the other top-level statements; the fallback's blocks have no symbol.

What the scanner reads heuristically (a misreading moves chunk boundaries, never bytes):
statements at depth 0 end by line (a `;`, or no continuation: an operator at the end, `{`, `.`,
`else`... at the start of the next line, or a deeper indent); `#else`/`#elif` branches are
masked whole, as ctags does; a JS `/` after `)`, `]`, `}` or an operand is a division; PHP holes
with quotes inside (`"{$a["k"]}"`) are not read; calls with a callback (`describe(...)`, an
IIFE) and object literals are `module` pieces, not descended; a minified file is one line.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from .chunkers import Chunk
from .hookspecs import hookimpl

EXTENSIONS = {
    "py": "python",
    "pyi": "python",
    "java": "java",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "c": "c",
    "h": "c",
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "hh": "cpp",
    "cs": "csharp",
    "go": "go",
    "rs": "rust",
    "kt": "kotlin",
    "kts": "kotlin",
    "swift": "swift",
    "php": "php",
}
INTERPRETERS = {
    "python": "python",
    "node": "javascript",
    "deno": "typescript",
    "php": "php",
    "kotlin": "kotlin",
    "swift": "swift",
}
BRACE_LANGUAGES = ("java", "javascript", "typescript", "c", "cpp", "csharp", "go", "rust", "kotlin", "swift", "php")

_MAX_SPLITS = 16  # classes nested deeper than this are kept whole (and the recursion bounded)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_SHEBANG = re.compile(r"\A\ufeff?#![ \t]*(\S+)(?:[ \t]+(?:-\S+[ \t]+)*(\S+))?")


def language_of(path: str, text: str | None = None) -> str | None:
    """The language of a file: by its extension, else by its shebang line; None when unknown."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." in name.lstrip("."):
        found = EXTENSIONS.get(name.rsplit(".", 1)[1].lower())
        if found:
            return found
    m = _SHEBANG.match(text or "")
    if not m:
        return None
    program = m.group(1).rsplit("/", 1)[-1]
    if program == "env" and m.group(2):  # `#!/usr/bin/env -S python3 -u`: the interpreter
        program = m.group(2).rsplit("/", 1)[-1]
    word = re.match(r"[a-z]+", program)
    return INTERPRETERS.get(word.group(0)) if word else None


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


# ---------------------------------------------------------------------------------------------
# Units: line spans (0-based, inclusive) that become chunks, shared by both chunkers.


@dataclass
class _Unit:
    first: int
    last: int
    symbol: str
    piece: bool = False  # module-level statements, class fields: merged while they fit
    header: str = ""  # the enclosing declaration, on a member split out of it
    # a class or namespace that can be split: () -> (last line of its header, header text, members)
    body: Callable[[], tuple[int, str, list[_Unit]]] | None = None
    wrapper: bool = False  # a namespace: always split, so the classes in it are chunks


class _Level:
    """The lines of one text, what the assembly asks of them (blank? a comment? how big?), and
    the assembly: units covering every line, then chunks."""

    def __init__(self, lines: list[str], comment: Callable[[int], bool]):
        self.lines = lines
        self.comment = comment
        self.starts = [0]
        for line in lines:
            self.starts.append(self.starts[-1] + len(line))

    def blank(self, i: int) -> bool:
        return not self.lines[i].strip(" \t\r\n\f\v\ufeff")

    def size(self, first: int, last: int) -> int:
        return self.starts[last + 1] - self.starts[first]

    def assemble(self, units: list[_Unit], lo: int, hi: int, piece: str, limit: int) -> list[_Unit]:
        """Cover lines lo..hi-1 with the code units given (sorted, disjoint): the comment lines
        directly above a unit join it; other gaps become pieces; blank lines go with the unit
        before them (the first unit takes the blank lines that open the range). Then
        consecutive imports coalesce, and consecutive pieces merge while they fit the limit."""
        out: list[_Unit] = []
        pos = lo
        for u in units + [None]:
            end = hi
            if u:
                while u.first - 1 >= pos and self.comment(u.first - 1):
                    u.first -= 1
                end = u.first
            content = [i for i in range(pos, end) if not self.blank(i)]
            if pos < end and not out and not u:  # blank lines alone are still the text
                content = content or [pos]
            if content:
                start = content[0] if out else pos
                if out:
                    out[-1].last = start - 1
                out.append(_Unit(start, end - 1, piece, piece=True))
            elif pos < end and out:
                out[-1].last = end - 1
            elif pos < end and u:
                u.first = pos
            if u:
                out.append(u)
                pos = u.last + 1
        merged: list[_Unit] = []
        for u in out:
            prev = merged[-1] if merged else None
            if prev and u.symbol == "imports" == prev.symbol:
                prev.last = u.last
            elif prev and u.piece and prev.piece and self.size(prev.first, u.last) <= limit:
                prev.last = u.last
            else:
                merged.append(u)
        return merged

    def chunks(self, units: list[_Unit], limit: int, nesting: int = 0) -> list[Chunk]:
        out = []
        for u in units:
            size = self.size(u.first, u.last)
            if u.body and (u.wrapper or size > limit) and nesting < _MAX_SPLITS:
                header_last, header_text, members = u.body()
                if members:
                    members[-1].last = u.last  # the closing brace and the blank lines after it
                    for m in members:
                        m.header = header_text
                    out.append(self.chunk(_Unit(u.first, header_last, u.symbol, header=u.header), limit))
                    out += self.chunks(members, limit, nesting + 1)
                    continue
            out.append(self.chunk(u, limit))
        return out

    def chunk(self, u: _Unit, limit: int) -> Chunk:
        text = "".join(self.lines[u.first : u.last + 1])
        return Chunk(text, u.first + 1, u.last + 1, symbol=u.symbol, header=u.header, oversized=len(text) > limit)


def _blocks(text: str, limit: int) -> list[Chunk]:
    """The fallback for text no parser reads: blank-line separated blocks, merged up to the limit."""
    level = _Level(_lines(text), lambda i: False)
    units, i = [], 0
    while i < len(level.lines):
        j = i
        while j + 1 < len(level.lines) and not level.blank(j + 1):
            j += 1
        if not level.blank(i):
            units.append(_Unit(i, j, "", piece=True))
        i = j + 1
    return level.chunks(level.assemble(units, 0, len(level.lines), "", limit), limit)


# ---------------------------------------------------------------------------------------------
# Python


def _python_comment(lines: list[str]):
    return lambda i: lines[i].lstrip(" \t\f\ufeff").startswith("#")


def _first_line(node: ast.stmt) -> int:
    """0-based: decorators are part of what they decorate."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1


class PythonChunker:
    """Python by `ast`: coalesced imports, top-level functions and classes, module-level pieces;
    an oversized class split into its header (with the docstring) and its members."""

    def chunk(self, text: str, limit: int = 4000) -> list[Chunk]:
        if not text:
            return []
        try:
            with warnings.catch_warnings():  # invalid escapes and the like are not ours to report
                warnings.simplefilter("ignore")
                tree = ast.parse(text.removeprefix("\ufeff"))
        except Exception:  # SyntaxError, null bytes, nesting too deep: not Python 3 we can read
            return _blocks(text, limit)
        lines = _lines(text)
        level = _Level(lines, _python_comment(lines))
        return level.chunks(self._units(level, tree.body, 0, len(lines), True, limit), limit)

    def _units(self, level: _Level, body: list[ast.stmt], lo: int, hi: int, top: bool, limit: int):
        piece = "module" if top else "field"
        units: list[_Unit] = []
        for node in body:
            first, last = _first_line(node), (node.end_lineno or node.lineno) - 1
            if units and first <= units[-1].last:  # `a = 1; def f(): ...` on one line: one piece
                units[-1] = _Unit(units[-1].first, max(last, units[-1].last), piece, piece=True)
                continue
            units.append(self._unit(level, node, first, last, top, limit))
        return level.assemble(units, lo, hi, piece, limit)

    def _unit(self, level: _Level, node: ast.stmt, first: int, last: int, top: bool, limit: int) -> _Unit:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return _Unit(first, last, "imports")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _Unit(first, last, ("function:" if top else "method:") + node.name)
        if not isinstance(node, ast.ClassDef):
            return _Unit(first, last, "module" if top else "field", piece=True)
        header_last = max([node.lineno] + [b.end_lineno or b.lineno for b in node.bases + node.keywords]) - 1
        header_text = "".join(level.lines[node.lineno - 1 : header_last + 1]).rstrip("\r\n")
        members = node.body
        if (
            isinstance(members[0], ast.Expr)
            and isinstance(members[0].value, ast.Constant)
            and isinstance(members[0].value.value, str)
        ):
            header_last = (members[0].end_lineno or members[0].lineno) - 1
            members = members[1:]
        u = _Unit(first, last, "class:" + node.name)
        if members and _first_line(members[0]) > header_last:  # not `class A: x = 1`
            u.body = lambda: (
                header_last,
                header_text,
                self._units(level, members, header_last + 1, last + 1, False, limit),
            )
        return u


# ---------------------------------------------------------------------------------------------
# Brace languages: a scanner masks comments, strings, character literals, regex literals and
# preprocessor lines (blanked, newlines kept), so the braces left in the masked text are code.


@dataclass(frozen=True)
class _Lexicon:
    single: str = "char"  # what `'` opens: "char", "rust" (or a lifetime), "string", "" nothing
    backtick: str = ""  # "template" (JS), "raw" (Go), "line" (a quoted identifier), "shell" (PHP)
    nested: bool = False  # block comments nest (Rust, Swift, Kotlin)
    multiline: bool = False  # a plain "..." may span lines (Rust, PHP)
    triple: bool = False  # """text blocks"""
    interp: str = ""  # holes in strings: "${" (Kotlin), "\\(" (Swift), "{" (C# $"...")
    preprocessor: bool = False  # `#` lines (C, C++, C#)
    regex: bool = False  # /regex/ literals (JS, TS)
    php: bool = False  # <?php ... ?> around, # comments, heredocs


LEXICONS = {
    "java": _Lexicon(triple=True),
    "c": _Lexicon(preprocessor=True),
    "cpp": _Lexicon(preprocessor=True),
    "csharp": _Lexicon(triple=True, interp="{", preprocessor=True),
    "go": _Lexicon(backtick="raw"),
    "javascript": _Lexicon(single="string", backtick="template", regex=True),
    "typescript": _Lexicon(single="string", backtick="template", regex=True),
    "rust": _Lexicon(single="rust", nested=True, multiline=True),
    "kotlin": _Lexicon(backtick="line", nested=True, triple=True, interp="${"),
    "swift": _Lexicon(single="", backtick="line", nested=True, triple=True, interp="\\("),
    "php": _Lexicon(single="string", backtick="shell", multiline=True, php=True),
}
_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_REGEX_KEYWORDS = frozenset("return typeof case do else in of new delete void throw yield await instanceof".split())
_IDENT = re.compile(r"[\w$]+\Z")
_HEREDOC = re.compile(r"<<<[ \t]*(['\"]?)([A-Za-z_]\w*)\1[ \t]*(?:\r\n|\r|\n)")
_PHP_OPEN = re.compile(r"<\?(?:php\b|=)?", re.I)
_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(\w*)")
_NEWLINE = re.compile(r"[\r\n]")
_QUOTES = re.compile(r'"+')
_MAX_NESTING = 64  # interpolation holes nested deeper are read as plain string text


class _Scanner:
    """One pass over a text: the spans (start, end) to mask."""

    def __init__(self, lex: _Lexicon, text: str):
        self.lex, self.text, self.n = lex, text, len(text)
        self.spans: list[tuple[int, int]] = []
        quotes = "\"'" if lex.single else '"'
        chars = (
            "/"
            + quotes
            + ("`" if lex.backtick else "")
            + ("#" if lex.preprocessor or lex.php else "")
            + ("?<" if lex.php else "")
        )
        self.top = re.compile("[" + re.escape(chars) + "]")
        self.inner = re.compile("[" + re.escape(chars + "{}()") + "]")
        self.patterns: dict[str, re.Pattern] = {}
        self.conditions: list[bool] = []  # per open #if: whether an #else branch was reached

    def run(self) -> list[tuple[int, int]]:
        i = 1 if self.text.startswith("\ufeff") else 0
        if i:
            self.spans.append((0, 1))
        if self.lex.php:
            end = self.html(i)
            self.spans.append((i, end))
            i = end
        self.code(i, "", 0)
        return self.spans

    def code(self, i: int, closer: str, nesting: int) -> int:
        """Code from i: to the end (closer "") or past the closer of an interpolation hole."""
        text, pattern = self.text, self.inner if closer else self.top
        opener = {"}": "{", ")": "("}.get(closer, "")
        depth, floor, sig = 0, i, ""
        while True:
            m = pattern.search(text, i)
            if not m:
                return self.n
            i, c = m.start(), m.group()
            if c in "{}()":
                if c == opener:
                    depth += 1
                elif c == closer:
                    if depth == 0:
                        return i + 1
                    depth -= 1
                i += 1
                continue
            sig = self.before(i, floor, sig)
            end, operand = self.token(i, c, sig, nesting)
            if end is None:
                i += 1
                continue
            if not closer:
                self.spans.append((i, end))
            if operand:
                sig = '"'
            i = floor = end

    def before(self, i: int, floor: int, sig: str) -> str:
        """The last word or character of code before i (what came before the last token when
        there is none since it, at floor): whether a `/` opens a regex depends on it."""
        text, j = self.text, i
        while j > floor and text[j - 1] in " \t\r\n\f\v":
            j -= 1
        if j == floor:
            return sig
        word = _IDENT.search(text, max(floor, j - 32), j)
        return word.group() if word else text[j - 1]

    def token(self, i: int, c: str, sig: str, nesting: int) -> tuple[int | None, bool]:
        """Where the token starting at i ends, and whether it is an operand (for regex
        detection); (None, False) when the character starts no token."""
        text, lex, nxt = self.text, self.lex, self.text[i + 1 : i + 2]
        if c == "/":
            if nxt == "/":
                return self.line_end(i), False
            if nxt == "*":
                return self.block_comment(i), False
            if lex.regex and self.regex_allowed(sig):
                end = self.regex(i)
                return end, end is not None
            return None, False
        if c == '"':
            return self.double(i, nesting), True
        if c == "'":
            return self.single(i), True
        if c == "`":
            if lex.backtick == "template":
                return self.string(i, 1, "`", False, True, "${", nesting), True
            return self.string(i, 1, "`", lex.backtick == "line", lex.backtick == "shell", "", nesting), True
        if c == "#":
            if lex.php:
                return (None, False) if nxt == "[" else (self.line_end(i), False)
            return self.directive(i) if self.at_line_start(i) else None, False
        if c == "?" and nxt == ">":
            return self.html(i + 2), False
        if c == "<" and text.startswith("<<<", i):
            m = _HEREDOC.match(text, i)
            if m:
                close = re.compile(r"^[ \t]*" + m.group(2) + r"\b", re.M).search(text, m.end())
                return (close.end() if close else self.n), True
        return None, False

    # -- comments, regex literals, preprocessor, PHP's HTML ----------------------------------

    def line_end(self, i: int) -> int:
        m = _NEWLINE.search(self.text, i)
        return m.start() if m else self.n

    def block_comment(self, i: int) -> int:
        if not self.lex.nested:
            end = self.text.find("*/", i + 2)
            return self.n if end < 0 else end + 2
        depth, j = 0, i
        for m in re.compile(r"/\*|\*/").finditer(self.text, i):
            if m.start() < j:
                continue  # "/*/": the "*/" inside the opener does not close it
            depth += 1 if m.group() == "/*" else -1
            j = m.end()
            if depth == 0:
                return j
        return self.n

    def regex_allowed(self, sig: str) -> bool:
        if not sig:
            return True
        if sig[-1] in _REGEX_AFTER:
            return True
        word = _IDENT.search(sig)
        return word is not None and word.group() in _REGEX_KEYWORDS

    def regex(self, i: int) -> int | None:
        """A /regex/ literal ends on its line; one that does not was a division after all."""
        text, j, in_class = self.text, i + 1, False
        while j < self.n:
            c = text[j]
            if c in "\r\n":
                return None
            if c == "\\":
                j += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                return j + 1
            j += 1
        return None

    def at_line_start(self, i: int) -> bool:
        j = i - 1
        while j >= 0 and self.text[j] in " \t":
            j -= 1
        return j < 0 or self.text[j] in "\r\n"

    def directive(self, i: int) -> int:
        """A preprocessor line (with its continuations). The #else/#elif branches of a
        conditional are masked whole, as ctags does: only the first branch counts its braces."""
        text, end = self.text, self.line_end(i)
        while end < self.n and text[end - 1 : end] == "\\":
            end = self.line_end(end + (2 if text.startswith("\r\n", end) else 1))
        directive = _DIRECTIVE.match(text, i)
        assert directive is not None  # i is at the line's '#'
        name = directive.group(1)
        if name in ("if", "ifdef", "ifndef"):
            self.conditions.append(False)
        elif name == "endif" and self.conditions:
            self.conditions.pop()
        elif name in ("elif", "else") and self.conditions and not self.conditions[-1]:
            self.conditions[-1] = True
            return self.skip(end)
        return end

    def skip(self, i: int) -> int:
        """From the end of an #else line to the start of its #endif line (nested #ifs inside)."""
        nesting, pos = 0, i
        for m in re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b", re.M).finditer(self.text, i):
            if m.group(1) != "endif":
                nesting += 1
            elif nesting:
                nesting -= 1
            else:
                pos = m.start()
                break
        else:
            pos = self.n
        return pos

    def html(self, i: int) -> int:
        """PHP: text outside <?php ... ?> is HTML; it ends after the next opening tag."""
        m = _PHP_OPEN.search(self.text, i)
        return m.end() if m else self.n

    # -- strings ---------------------------------------------------------------------------

    def single(self, i: int) -> int | None:
        text, lex = self.text, self.lex
        if lex.single == "string":
            return self.string(i, 1, "'", not lex.multiline, True, "", 0)
        if lex.single == "rust" and text[i + 1 : i + 2] != "\\" and text[i + 2 : i + 3] != "'":
            return None  # a lifetime or a label: 'a
        if lex.preprocessor:  # C++14 digit separators: 1'000'000, 0xFF'FF
            word = _IDENT.search(text, max(0, i - 64), i)
            if word and word.group()[0].isdigit():
                return None
        end = self.string(i, 1, "'", True, True, "", 0)
        return end if text[end - 1 : end] == "'" and end > i + 2 else None

    def double(self, i: int, nesting: int) -> int:
        text, lex = self.text, self.lex
        hashes = 0
        while i - hashes - 1 >= 0 and text[i - hashes - 1] == "#":
            hashes += 1
        before = text[max(0, i - hashes - 3) : i - hashes]
        if lex.single == "rust" and before.endswith("r"):
            return self.string(i, 1, '"' + "#" * hashes, False, False, "", nesting)
        if lex.interp == "\\(" and hashes:  # Swift #"..."#: no escapes, no plain holes
            quotes = 3 if text.startswith('"""', i) else 1
            return self.string(i, quotes, '"' * quotes + "#" * hashes, quotes == 1, False, "", nesting)
        if lex.preprocessor and before.endswith("R") and not lex.interp:  # C++ R"delim( ... )delim"
            m = re.compile(r'"([^()\\\s"]{0,16})\(').match(text, i)
            if m:
                end = text.find(")" + m.group(1) + '"', m.end())
                return self.n if end < 0 else end + len(m.group(1)) + 2
        if lex.interp == "{":  # C#: @"verbatim" "" escapes; $"holes {x}"; """raw"""
            if text.startswith('"""', i):
                opening = _QUOTES.match(text, i)
                assert opening is not None  # text[i:] starts with '"""'
                run = opening.end() - i
                end = text.find('"' * run, i + run)
                return self.n if end < 0 else end + run
            verbatim = "@" in before[-2:]
            return self.string(
                i, 1, '"', not verbatim, not verbatim, "{" if "$" in before[-2:] else "", nesting, doubled=verbatim
            )
        if lex.triple and text.startswith('"""', i):
            return self.string(i, 3, '"""', False, lex.interp != "${", lex.interp, nesting)
        return self.string(i, 1, '"', not lex.multiline, True, lex.interp, nesting)

    def string(
        self,
        i: int,
        opening: int,
        close: str,
        line_bounded: bool,
        escapes: bool,
        interp: str,
        nesting: int,
        doubled: bool = False,
    ) -> int:
        """A string from i: past its closing delimiter; at the end of the line if it may not span
        lines and is not closed on it; the holes of an interpolated string scanned as code."""
        text, n = self.text, self.n
        if nesting >= _MAX_NESTING:
            interp = ""
        key = f"{close}|{line_bounded}|{escapes}|{interp}"
        pattern = self.patterns.get(key)
        if pattern is None:
            chars = (
                close[0] + ("\\" if escapes else "") + ("\r\n" if line_bounded else "") + (interp[0] if interp else "")
            )
            pattern = self.patterns[key] = re.compile("[" + re.escape(chars) + "]")
        j = i + opening
        while True:
            m = pattern.search(text, j)
            if not m:
                return n
            j, c = m.start(), m.group()
            if c == "\\" and escapes:
                if interp == "\\(" and text.startswith("(", j + 1):
                    j = self.code(j + 2, ")", nesting + 1)
                else:
                    j += 2
                continue
            if c in "\r\n" and line_bounded:
                return j
            if text.startswith(close, j):
                if doubled and text.startswith(close, j + len(close)):
                    j += 2 * len(close)
                    continue
                return j + len(close)
            if interp == "${" and text.startswith("${", j):
                j = self.code(j + 2, "}", nesting + 1)
            elif interp == "{" and c == "{":
                j = j + 2 if text.startswith("{{", j) else self.code(j + 1, "}", nesting + 1)
            else:
                j += 1


def _mask(text: str, lex: _Lexicon) -> tuple[str, list[tuple[int, int]]]:
    spans = _Scanner(lex, text).run()
    parts, pos = [], 0
    for start, end in spans:
        if start < pos:  # a span inside one already masked
            start = pos
        if end <= start:
            continue
        parts.append(text[pos:start])
        parts.append(re.sub(r"[^\r\n]", " ", text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts), spans


# -- the structure over the masked text ------------------------------------------------------

_CONT_END = frozenset("=,([.+-*/%|&?:<>\\^~!")  # a line ending so goes on
_CONT_START = frozenset(").]?:,=|&+{")  # a line starting so continues the one before
_CONT_WORDS = frozenset("else catch finally where extends implements throws".split())
_ATTRIBUTES = re.compile(
    r"\s*(?:@(?!interface\b)[\w.]+(?:\s*\([^()]*(?:\([^()]*\)[^()]*)*\))?|\[[^\[\]]*\]|#!?\[[^\[\]]*\])"
)
_ATTRIBUTES_PREFIX = re.compile(rf"(?:{_ATTRIBUTES.pattern})*")
_IMPORT = re.compile(
    r"\s*(?:import|package|use|using(?!\s*\()|require|require_once|include|include_once|"
    r"extern\s+crate|mod\s+\w+\s*;|namespace\s+[\w\\.]+\s*;|export\b.*\bfrom\b|"
    r"(?:const|let|var)\s[^=]*=\s*require\s*\()",
    re.S,
)
_KEYWORD = re.compile(
    r"(?<![.$])\b(class|struct|interface|enum|trait|impl|object|union|record|protocol|extension|"
    r"namespace|mod|module|extern|fn|func|fun|function|type)\b(?![.$])"
)  # not module.exports
_NAME = re.compile(r"\s*\*?\s*([\w$.:\\]*)")
_ASSIGNED = re.compile(
    r"(?:\b(?:const|let|var)\s+)?([\w$.]+)\s*(?::[^=]*)?[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]*)?=>|[\w$]+\s*=>)"
)
_CALLED = re.compile(r"([\w$~]+(?:::[\w$~]+)*)\s*\Z")
_ASSIGNS = re.compile(r"(?<![=!<>+\-*/%&|^])=(?![=>])")


def _opening_brace(text: str) -> int | None:
    """Where the brace opening a unit's block is in its masked text: the first one outside
    parentheses (`@Component({...}) class A {`), else the first one (`describe("x", () => {`)."""
    depth, parens, first = 0, 0, None
    for m in re.finditer(r"[{}()]", text):
        c = m.group()
        if c == "{":
            if depth == 0 and parens == 0:
                return m.start()
            first = m.start() if first is None else first
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            parens = parens + 1 if c == "(" else max(0, parens - 1)
    return first


def _ungrouped(text: str) -> str:
    """The text without its (parenthesised) groups: default arguments are not assignments."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)", " ", text)
    return text


_NOT_FUNCTIONS = frozenset(
    "if for while switch catch using lock foreach synchronized return with fixed sizeof "
    "typeof when do else try unsafe checked".split()
)
_WRAPPERS = frozenset("namespace extern module".split())
_CONTAINERS = frozenset("class struct interface enum trait impl object union record protocol extension mod".split())


class BraceChunker:
    """A brace language by a scanner: coalesced imports, each top-level declaration that opens a
    block from its leading comments and attributes to its closing brace (and the rest of that
    line); namespaces descended; an oversized class split into its header and its members."""

    def __init__(self, language: str):
        self.language = language
        self.lex = LEXICONS[language]

    def chunk(self, text: str, limit: int = 4000) -> list[Chunk]:
        if not text:
            return []
        masked, spans = _mask(text, self.lex)
        return _Structure(self, text, masked, spans, limit).chunks()


class _Structure:
    """Per line of one text: the brace depth and bracket depth at its start, the lowest and
    highest depth reached on it, whether it starts inside a masked token; then the units."""

    def __init__(self, chunker: BraceChunker, text: str, masked: str, spans, limit: int):
        self.language, self.limit = chunker.language, limit
        self.lines, self.masked = _lines(text), _lines(masked)
        n = len(self.lines)
        self.level = _Level(self.lines, self.comment)
        self.depth, self.parens, self.low, self.high = [0] * (n + 1), [0] * (n + 1), [0] * n, [0] * n
        self.inside = [False] * (n + 1)
        depth, parens, stack = 0, 0, []
        for i, line in enumerate(self.masked):
            self.depth[i], self.parens[i] = depth, parens
            low = high = depth
            for c in re.findall(r"[{}()\[\]]", line):
                if c == "{":
                    stack.append(parens)
                    depth, parens = depth + 1, 0
                    high = max(high, depth)
                elif c == "}":
                    if depth:  # a stray closing brace at depth 0 is ignored
                        depth, parens = depth - 1, stack.pop()
                        low = min(low, depth)
                elif c in "([":
                    parens += 1
                elif parens:
                    parens -= 1
            self.low[i], self.high[i] = low, high
        self.depth[n], self.parens[n] = depth, parens
        starts, k = self.level.starts, 0
        for start, end in spans:  # a line starting strictly inside a span continues a token
            while k < n and starts[k] <= start:
                k += 1
            while k < n and starts[k] < end:
                self.inside[k] = True
                k += 1
        self.directives = [
            bool(chunker.lex.preprocessor and not self.inside[i] and re.match(r"[ \t\ufeff]*#", line))
            for i, line in enumerate(self.lines)
        ]

    def code(self, i: int) -> bool:
        return bool(self.masked[i].strip()) or self.directives[i]

    def comment(self, i: int) -> bool:
        return not self.code(i) and not self.level.blank(i)

    def chunks(self) -> list[Chunk]:
        units = self.units(0, len(self.lines), 0, False)
        return self.level.chunks(units, self.limit)

    def units(self, lo: int, hi: int, d: int, in_class: bool) -> list[_Unit]:
        found, i = [], lo
        while i < hi:
            if not self.code(i):
                i += 1
                continue
            j = self.extent(i, hi, d)
            found.append(self.unit(i, j, d, in_class))
            i = j + 1
        return self.level.assemble(found, lo, hi, "field" if in_class else "module", self.limit)

    def extent(self, i: int, hi: int, d: int) -> int:
        """The last line of the unit starting at line i, at depth d."""
        j, block = i, False
        while True:
            block = block or self.high[j] > d
            while j + 1 < hi and (self.depth[j + 1] > d or self.parens[j + 1] or self.inside[j + 1]):
                j += 1
                block = block or self.high[j] > d
            if self.directives[i]:
                return j
            k = j + 1
            while k < hi and not self.code(k):
                k += 1
            if k >= hi or self.directives[k] or not self.continues(i, j, k, block):
                return j
            j = k

    def continues(self, i: int, j: int, k: int, block: bool) -> bool:
        """Whether line k goes on with the unit of lines i..j (which has opened a block or not)."""
        last, nxt = self.masked[j].rstrip(), self.masked[k].lstrip()
        if last.endswith(";"):
            return False
        word = re.match(r"\w+", nxt)
        if word and word.group() in _CONT_WORDS:
            return True
        if nxt[:1] in _CONT_START:
            return not (block and nxt[:1] == "{")
        if last[-1:] in _CONT_END:
            return not (block and last[-1:] == ",")
        if j - i < 50 and not _ATTRIBUTES.sub("", _ungrouped("".join(self.masked[i : j + 1]))).strip():
            return True  # annotations and attributes above a declaration
        indent = len(self.lines[i]) - len(self.lines[i].lstrip())
        return not block and len(self.lines[k]) - len(self.lines[k].lstrip()) > indent

    def unit(self, i: int, j: int, d: int, in_class: bool) -> _Unit:
        piece = _Unit(i, j, "field" if in_class else "module", piece=True)
        if self.directives[i]:
            return _Unit(i, j, "imports") if re.match(r"[ \t\ufeff]*#\s*(include|import)\b", self.lines[i]) else piece
        text = "".join(self.masked[i : j + 1])
        at = _opening_brace(text)
        head = text if at is None else text[:at]
        prefix = _ATTRIBUTES_PREFIX.match(head)
        assert prefix is not None  # (...)* matches every text
        attributes = prefix.end()
        head = head[attributes:]
        if _IMPORT.match(head):
            return _Unit(i, j, "imports")
        if at is None:
            return piece
        kind, name = self.name(head)
        if not kind:
            return piece
        if kind == "function":
            kind = "method" if in_class else "function"
        u = _Unit(i, j, kind + (":" + name if name else ""))
        if kind in _WRAPPERS or kind in _CONTAINERS:
            u.wrapper = kind in _WRAPPERS
            opening = self.line_at(i, at)
            close = next((x for x in range(opening + 1, j + 1) if self.low[x] <= d), j + 1)
            if self.depth[opening + 1] > d and close > opening + 1:
                first = self.line_at(i, attributes + len(head) - len(head.lstrip()))
                header = "\n".join(line.strip() for line in self.lines[first : opening + 1])
                members = kind in _CONTAINERS and kind != "mod"
                u.body = lambda: (opening, header, self.units(opening + 1, close, d + 1, members))
        return u

    def line_at(self, i: int, offset: int) -> int:
        """The line holding the character at offset in the text of the lines from line i."""
        return bisect.bisect_right(self.level.starts, self.level.starts[i] + offset) - 1

    def name(self, head: str) -> tuple[str, str]:
        """The kind and name of a declaration from the masked text before its brace."""
        assigned = _ASSIGNED.search(head)  # const f = (a) => {, Foo.prototype.f = function (a) {
        if assigned and "(" not in head[: assigned.start()]:
            return "function", assigned.group(1)
        head = head.replace("->", "  ").replace("=>", "  ")
        previous = None
        while previous != head:  # generics out: Foo<T, List<U>> -> Foo
            previous, head = head, re.sub(r"<[^<>]*>", " ", head)
        m = re.search(r"\bfunc\s*\([^)]*\)\s*(\w+)", head)  # Go: func (r *Recv) Name(
        if m:
            return "method", m.group(1)
        keyword, paren = _KEYWORD.search(head), head.find("(")
        if keyword and (paren < 0 or keyword.start() < paren):
            kind, rest = keyword.group(1), head[keyword.end() :]
            if _ASSIGNS.search(_ungrouped(head if kind in _CONTAINERS else head[: keyword.start()])):
                return "", ""  # struct point origin = {...}, x = func() {...}: values, not declarations
            if self.language in ("c", "cpp") and kind in ("struct", "union", "enum", "class"):
                returned = re.match(r"\s+\w+[\s*&]+([\w:~]+)\s*\(", rest)  # struct point make(...) {
                if returned:
                    return "function", returned.group(1)
            if kind == "enum":
                rest = re.sub(r"^\s*(?:class|struct)\b", "", rest)
            if kind == "impl":
                m = re.match(r"\s*([\w:]+)(?:\s+for\s+([\w:]+))?", rest)
                return kind, (m.group(1) + (" for " + m.group(2) if m.group(2) else "")) if m else ""
            if kind == "type":
                m = re.match(r"\s*(\w+)\s+(struct|interface)\b", rest)
                if m:
                    return m.group(2), m.group(1)
            if kind == "extern":
                return "extern", ""
            if kind in ("fn", "func", "fun", "function"):
                kind = "function"
            named = _NAME.match(rest)
            assert named is not None  # every part of _NAME is optional
            return kind, named.group(1).strip(".:")
        if paren >= 0 and head.count("(") == head.count(")"):
            m = _CALLED.search(head[:paren])
            if m and m.group(1) not in _NOT_FUNCTIONS:
                return "function", m.group(1)
        return "", ""


@hookimpl
def register_chunkers(register):
    register("python", PythonChunker())
    for language in BRACE_LANGUAGES:
        register(language, BraceChunker(language))
