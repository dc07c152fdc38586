"""The code chunker: source cut at its symbols, joined back byte for byte, never raising."""

import ast
import asyncio
import email
import json
import re
import site
from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt_vault.plugins import manager as plugins
from ihmt_vault.plugins.source_code import BRACE_LANGUAGES, BraceChunker, PythonChunker, language_of


def joined(chunks):
    return "".join(c.text for c in chunks)


def symbols(chunks):
    return [c.symbol for c in chunks]


def assert_whole(chunks, *blocks):
    """Each block (a function's full text) sits inside one chunk."""
    for block in blocks:
        assert any(block in c.text for c in chunks), block


def assert_lines(chunks, text):
    """first_line/last_line are each chunk's 1-based inclusive span, one after the other (a line
    ends at \\n, \\r\\n or a lone \\r, as Python counts them)."""
    line = 1
    for c in chunks:
        ends = len(re.findall(r"\r\n|\r|\n", c.text))
        assert (c.first_line, c.last_line) == (line, line + ends - (1 if re.search(r"[\r\n]\Z", c.text) else 0))
        line = c.last_line + 1


# -- language_of --------------------------------------------------------------------------


def test_language_of_reads_the_extension():
    assert [
        language_of(p)
        for p in [
            "a.py",
            "b.pyi",
            "A.java",
            "x.mjs",
            "y.tsx",
            "z.h",
            "z.hpp",
            "p.cs",
            "m.go",
            "lib.rs",
            "build.gradle.kts",
            "v.swift",
            "i.php",
            "n.md",
        ]
    ] == [
        "python",
        "python",
        "java",
        "javascript",
        "typescript",
        "c",
        "cpp",
        "csharp",
        "go",
        "rust",
        "kotlin",
        "swift",
        "php",
        None,
    ]


def test_language_of_reads_a_shebang_when_the_extension_says_nothing():
    assert language_of("bin/tool", "#!/usr/bin/env python3\nprint(1)\n") == "python"
    assert language_of("bin/run", "#!/usr/local/bin/node\n") == "javascript"
    assert language_of("bin/x.sh", "#!/bin/sh\n") is None
    assert language_of("README") is None


# -- Python -------------------------------------------------------------------------------

PYTHON = '''"""Inventory."""
from __future__ import annotations

import os
# the one third-party import
import click

LIMIT = 10


# the reserve rule
@click.command()
def reserve(sku: str) -> bool:
    return True


class Store:
    """Stock."""

    def get(self, sku):
        return 1
'''


def test_python_cuts_at_imports_functions_and_classes():
    chunks = PythonChunker().chunk(PYTHON)
    assert joined(chunks) == PYTHON
    assert symbols(chunks) == ["module", "imports", "module", "function:reserve", "class:Store"]
    assert [(c.first_line, c.last_line) for c in chunks] == [(1, 1), (2, 7), (8, 10), (11, 16), (17, 21)]


def test_python_imports_coalesce_with_the_comments_between_them():
    chunks = PythonChunker().chunk(PYTHON)
    assert (
        chunks[1].text
        == "from __future__ import annotations\n\nimport os\n# the one third-party import\nimport click\n\n"
    )


def test_python_decorators_and_the_comment_above_travel_with_the_function():
    chunks = PythonChunker().chunk(PYTHON)
    assert chunks[3].text.startswith("# the reserve rule\n@click.command()\ndef reserve(")


BIG_CLASS = '''import os


@dataclass
class InventoryService(
        Base, metaclass=Meta):
    """Keeps stock per SKU."""

    limit = 10

    # reserve the stock
    def reserve_stock(self, sku):
        return os.environ.get(sku, "") + "reserve stock for the order"

    @property
    def count(self):
        return len(self.items) + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10
'''


def test_python_an_oversized_class_splits_per_member_with_the_header_set():
    chunks = PythonChunker().chunk(BIG_CLASS, limit=120)
    assert joined(chunks) == BIG_CLASS
    assert symbols(chunks) == ["imports", "class:InventoryService", "field", "method:reserve_stock", "method:count"]
    header = "class InventoryService(\n        Base, metaclass=Meta):"
    assert [c.header for c in chunks] == ["", "", header, header, header]
    assert (
        chunks[1].text
        == '@dataclass\nclass InventoryService(\n        Base, metaclass=Meta):\n    """Keeps stock per SKU."""\n'
    )
    assert chunks[3].text.startswith("    # reserve the stock\n    def reserve_stock(")
    assert_lines(chunks, BIG_CLASS)


def test_python_a_class_within_the_limit_stays_whole():
    chunks = PythonChunker().chunk(BIG_CLASS)
    assert symbols(chunks) == ["imports", "class:InventoryService"]


def test_python_an_oversized_function_is_kept_whole_and_marked():
    text = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(50)) + "\n\ndef short():\n    pass\n"
    chunks = PythonChunker().chunk(text, limit=200)
    assert joined(chunks) == text
    assert symbols(chunks) == ["function:long", "function:short"]
    assert [c.oversized for c in chunks] == [True, False]


def test_python_small_module_pieces_merge_up_to_the_limit():
    text = "A = 1\n\nB = 2\n\n\nif A:\n    C = 3\n"
    assert [(c.symbol, c.text) for c in PythonChunker().chunk(text)] == [("module", text)]
    assert symbols(PythonChunker().chunk(text, limit=8)) == ["module", "module", "module"]


def test_python_that_ast_cannot_parse_falls_back_to_blocks():
    text = 'print "python 2"\n\ndef f(:\n    pass\n'
    chunks = PythonChunker().chunk(text, limit=10)
    assert joined(chunks) == text
    assert [c.text for c in chunks] == ['print "python 2"\n\n', "def f(:\n    pass\n"]


def test_python_crlf_bom_tabs_and_no_final_newline_join_back():
    text = "\ufeffimport os\r\n\r\ndef f():\r\n\treturn 1\r\n\r\nclass A:\r\n\tx = 1"
    chunks = PythonChunker().chunk(text)
    assert joined(chunks) == text
    assert symbols(chunks) == ["imports", "function:f", "class:A"]
    assert [(c.first_line, c.last_line) for c in chunks] == [(1, 2), (3, 5), (6, 7)]


def test_an_empty_text_has_no_chunks():
    assert PythonChunker().chunk("") == []
    assert BraceChunker("java").chunk("") == []


def test_blank_text_is_one_chunk():
    assert [(c.text, c.symbol) for c in PythonChunker().chunk("\n\n")] == [("\n\n", "module")]
    assert [(c.text, c.symbol) for c in BraceChunker("c").chunk(" \n")] == [(" \n", "module")]


# -- brace languages: one fixture each, with what trips a naive brace counter -----------------

JAVA = '''package shop.inventory;

import java.util.Map;
import java.util.HashMap;

/**
 * Stock kept per SKU. A brace in a comment: {
 */
@Service
public class InventoryService {
    private final Map<String, Integer> stock = new HashMap<>();

    public boolean reserveStock(String sku, int n) {
        String open = "{ not a block";
        char brace = '}';
        char quote = '\\'';
        String block = """
            a text block with } and "quotes"
            """;
        return stock.getOrDefault(sku, 0) >= n;
    }
}

interface Priced { long price(); }
'''

JAVASCRIPT = """import { readFile } from "node:fs/promises";
import path from "node:path";

// A template literal with nested braces and backticks.
export function render(user) {
  const html = `<p>${user.name ? `${user.name} {` : "}"}</p>`;
  const re = /[{}]+\\//g;
  const half = total / 2 / 3;
  return html.replace(re, "");
}

const handler = async (event) => {
  return { ok: event.body !== "}" };
};

class Cart {
  add(item) { this.items.push(item); }
}
"""

TYPESCRIPT = """import type { Item } from "./item";

export interface Store<T> {
  get(id: string): T | undefined;
}

export const total = (items: Item[]): number => {
  return items.reduce((sum, i) => sum + i.price, 0); // {
};

export class MemoryStore<T extends { id: string }> implements Store<T> {
  private items = new Map<string, T>();
  get(id: string): T | undefined { return this.items.get(id); }
}
"""

C = """#include <stdio.h>
#include "inventory.h"

#define BLOCK { \\
    do_nothing(); \\
}

/* A struct, then a function returning it. */
struct point {
    int x, y;
};

struct point make_point(int x, int y) {
    char c = '{';
    const char *s = "}";
    struct point p = { x, y };
    return p;
}

#ifdef FAST
static int reserve(int n) {
#else
static int reserve(long n) {
#endif
    return n > 0;
}
"""

CPP = """#include <string>

namespace shop {

// The catalogue.
class Catalog {
public:
    std::string name() const { return R"raw(a } brace)raw"; }
    int count = 1'000'000;
};

template <typename T>
T largest(T a, T b) {
    return a > b ? a : b;
}

}  // namespace shop
"""

CSHARP = '''using System;
using System.Collections.Generic;

namespace Shop.Inventory
{
    /// <summary>Stock.</summary>
    [Serializable]
    public class InventoryService
    {
        public string Path = @"C:\\{dir}\\""quoted""";

        public string Describe(int n)
        {
            return $"{n} items {{literal}} {(n > 1 ? "}" : "{")}";
        }
    }

    public enum Color { Red, Green }
}
'''

GO = """package inventory

import (
	"fmt"
	"strings"
)

// Store keeps stock.
type Store struct {
	items map[string]int
}

func (s *Store) Reserve(sku string) bool {
	raw := `a raw { string
spanning lines }`
	r := '}'
	return strings.Contains(raw, string(r))
}

func main() {
	fmt.Println("}")
}
"""

RUST = """use std::collections::HashMap;
use std::fmt::{self, Display};

/// A store.
#[derive(Debug)]
pub struct Store<'a> {
    name: &'a str,
}

impl<'a> Store<'a> {
    pub fn brace(&self) -> char {
        let s = r#"a "raw" } string"#;
        /* a /* nested */ comment } */
        '{'
    }
}

impl<'a> Display for Store<'a> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

fn main() {
    let s = Store { name: "}" };
}
"""

KOTLIN = '''package shop

import kotlin.math.max

/* a /* nested */ comment { */
data class Item(val sku: String, val qty: Int) {
    fun label() = "${sku.uppercase()} { ${qty}"
}

object Registry {
    val raw = """
        raw } string with ${ "nested }" }
    """
}

fun main() {
    val c = '}'
    println(Item("a", 1).label())
}
'''

SWIFT = '''import Foundation

/* a /* nested */ comment { */
struct Item {
    let sku: String
    func label() -> String {
        return "\\(sku.uppercased()) { \\(["}": 1].count)"
    }
}

extension Item {
    static let raw = #"a raw "}" string"#
    static let block = """
        a block }
        """
}

func main() {
    print(Item(sku: "a").label())
}
'''

PHP = """<?php
namespace Shop;

use Shop\\Models\\Item;

# A hash comment with a brace {
class Inventory
{
    public function reserve(string $sku): bool
    {
        $s = "a } brace";
        $t = 'and { another';
        $doc = <<<EOT
        heredoc with } brace
        EOT;
        return true;
    }
}

function helper() {
    return 1;
}
"""

BRACES = {
    "java": (JAVA, ["imports", "class:InventoryService", "interface:Priced"], ["public boolean reserveStock"]),
    "javascript": (
        JAVASCRIPT,
        ["imports", "function:render", "function:handler", "class:Cart"],
        ["export function render(user) {", "const handler = async"],
    ),
    "typescript": (
        TYPESCRIPT,
        ["imports", "interface:Store", "function:total", "class:MemoryStore"],
        ["export const total"],
    ),
    "c": (
        C,
        ["imports", "module", "struct:point", "function:make_point", "module", "function:reserve"],
        ["struct point make_point(int x, int y) {", "static int reserve(int n) {"],
    ),
    "cpp": (CPP, ["imports", "namespace:shop", "class:Catalog", "function:largest"], ["template <typename T>"]),
    "csharp": (
        CSHARP,
        ["imports", "namespace:Shop.Inventory", "class:InventoryService", "enum:Color"],
        ["public string Describe(int n)"],
    ),
    "go": (
        GO,
        ["imports", "struct:Store", "method:Reserve", "function:main"],
        ["func (s *Store) Reserve(sku string) bool {", "func main() {"],
    ),
    "rust": (
        RUST,
        ["imports", "struct:Store", "impl:Store", "impl:Display for Store", "function:main"],
        ["pub fn brace(&self) -> char {", "fn fmt(&self", "fn main() {"],
    ),
    "kotlin": (KOTLIN, ["imports", "class:Item", "object:Registry", "function:main"], ["fun main() {"]),
    "swift": (SWIFT, ["imports", "struct:Item", "extension:Item", "function:main"], ["func label() -> String {"]),
    "php": (PHP, ["imports", "class:Inventory", "function:helper"], ["public function reserve(", "function helper"]),
}


def _function_texts(text: str, starts: list[str]) -> list[str]:
    """From each start, the text to the line that closes the brace opened after it (the fixtures
    are indented so that a closing brace sits at the start's indentation)."""
    out = []
    for start in starts:
        i = text.index(start)
        indent = i - text.rindex("\n", 0, i) - 1
        close = text.index("\n" + " " * indent + "}", i)
        out.append(text[i : text.index("\n", close + 1) + 1])
    return out


@pytest.mark.parametrize("language", sorted(BRACES))
def test_each_brace_language_cuts_at_its_declarations_and_joins_back(language):
    text, expected, functions = BRACES[language]
    chunks = BraceChunker(language).chunk(text)
    assert joined(chunks) == text
    assert symbols(chunks) == expected
    assert_whole(chunks, *_function_texts(text, functions))
    assert_lines(chunks, text)


def test_comments_and_annotations_above_a_declaration_travel_with_it():
    chunks = BraceChunker("java").chunk(JAVA)
    assert chunks[1].text.startswith("/**\n * Stock kept per SKU. A brace in a comment: {\n */\n@Service\npublic class")


def test_brace_imports_coalesce_across_blank_lines():
    chunks = BraceChunker("javascript").chunk(JAVASCRIPT)
    assert chunks[0].text == 'import { readFile } from "node:fs/promises";\nimport path from "node:path";\n\n'


def test_an_oversized_class_splits_per_member_with_the_declaration_as_header():
    chunks = BraceChunker("java").chunk(JAVA, limit=150)
    assert joined(chunks) == JAVA
    assert symbols(chunks) == ["imports", "class:InventoryService", "field", "method:reserveStock", "interface:Priced"]
    assert [c.header for c in chunks] == [
        "",
        "",
        "public class InventoryService {",
        "public class InventoryService {",
        "",
    ]
    assert chunks[1].text.endswith("@Service\npublic class InventoryService {\n")
    assert chunks[3].text.endswith("        return stock.getOrDefault(sku, 0) >= n;\n    }\n}\n\n")
    assert [c.oversized for c in chunks] == [False, False, False, True, False]


def test_a_namespace_is_descended_so_its_classes_are_chunks():
    chunks = BraceChunker("csharp").chunk(CSHARP)
    assert [(c.symbol, c.header) for c in chunks[1:]] == [
        ("namespace:Shop.Inventory", ""),
        ("class:InventoryService", "namespace Shop.Inventory\n{"),
        ("enum:Color", "namespace Shop.Inventory\n{"),
    ]
    assert chunks[-1].text == "    public enum Color { Red, Green }\n}\n"


def test_members_of_a_class_inside_a_namespace_name_the_class():
    chunks = BraceChunker("csharp").chunk(CSHARP, limit=100)
    assert [(c.symbol, c.header) for c in chunks if c.symbol.startswith("method")] == [
        ("method:Describe", "public class InventoryService\n{")
    ]


def test_an_oversized_brace_function_is_kept_whole_and_marked():
    text = "fn main() {\n" + "    let x = 1;\n" * 40 + "}\n\nfn small() {}\n"
    chunks = BraceChunker("rust").chunk(text, limit=100)
    assert symbols(chunks) == ["function:main", "function:small"]
    assert [c.oversized for c in chunks] == [True, False]


def test_a_missing_closing_brace_runs_to_the_end_and_still_joins_back():
    text = "class A {\n  void f() {\n    x();\n\nclass B {}\n"
    chunks = BraceChunker("java").chunk(text, limit=10)
    assert joined(chunks) == text
    assert symbols(chunks) == ["class:A", "method:f"]


def test_a_stray_closing_brace_is_ignored():
    text = "}\nint f() {\n  return 1;\n}\n"
    chunks = BraceChunker("c").chunk(text)
    assert joined(chunks) == text
    assert symbols(chunks) == ["module", "function:f"]


def test_a_regex_literal_is_told_from_a_division():
    text = "const a = x / 2 / y;\nconst re = /}/;\nfunction f() {\n  return 1;\n}\n"
    assert symbols(BraceChunker("javascript").chunk(text, limit=20)) == ["module", "module", "function:f"]


def test_allman_braces_and_multiline_signatures_stay_with_their_declaration():
    text = "public static int Add(\n    int a,\n    int b)\n{\n    return a + b;\n}\n"
    chunks = BraceChunker("csharp").chunk(text)
    assert [(c.symbol, c.text) for c in chunks] == [("function:Add", text)]


def test_brace_crlf_bom_and_no_final_newline_join_back():
    text = '\ufeffpackage main\r\n\r\nfunc main() {\r\n\tprintln("}")\r\n}'
    chunks = BraceChunker("go").chunk(text)
    assert joined(chunks) == text
    assert symbols(chunks) == ["imports", "function:main"]
    assert [(c.first_line, c.last_line) for c in chunks] == [(1, 2), (3, 5)]


# -- the hooks -----------------------------------------------------------------------------


def test_the_code_chunkers_come_through_the_hooks():
    found = plugins.chunkers_by_name()
    assert isinstance(found["python"], PythonChunker)
    assert all(found[name].language == name for name in BRACE_LANGUAGES)
    assert "markdown" in found


# -- real files ----------------------------------------------------------------------------


def _python_files():
    for module in (json, email, asyncio, click):
        yield from sorted(Path(module.__file__).parent.rglob("*.py"))


def _inside_one(chunks, node) -> bool:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return any(c.first_line <= first and node.end_lineno <= c.last_line for c in chunks)


def test_the_standard_library_and_click_round_trip_byte_exact_with_no_block_cut():
    files = list(_python_files())
    assert len(files) > 50
    for file in files:
        text = file.read_text(encoding="utf-8")
        chunks = PythonChunker().chunk(text, limit=2000)
        assert joined(chunks) == text, file
        assert_lines(chunks, text)
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert _inside_one(chunks, node), (file, node.name)
            elif isinstance(node, ast.ClassDef):
                assert _inside_one(chunks, node) or all(
                    _inside_one(chunks, m) for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                ), (file, node.name)


def _brace_files():
    roots = {Path(p) for p in site.getsitepackages() + [site.getusersitepackages()] if Path(p).is_dir()}
    found = []
    for root in roots:
        for pattern in ("*.js", "*.ts", "*.c", "*.h"):
            found += sorted(root.rglob(pattern))
    return found


def test_javascript_and_c_files_found_on_the_machine_round_trip_byte_exact():
    files = _brace_files()
    if not files:
        pytest.skip("no .js, .ts, .c or .h file in site-packages")
    for file in files:
        text = file.read_text(encoding="utf-8", errors="surrogateescape")
        chunks = BraceChunker(language_of(str(file))).chunk(text)
        assert joined(chunks) == text, file
        assert_lines(chunks, text)


# -- any text ------------------------------------------------------------------------------

CODE_ALPHABET = st.sampled_from(
    list("{}()[]\"'`/*#\\$@rR<?>;:=,.\n\r\t af1_")
    + [
        "//",
        "/*",
        "*/",
        '"""',
        "${",
        "\\(",
        "#if\n",
        "#else\n",
        "#endif\n",
        "<<<EOT\n",
        "\nEOT;\n",
        'r#"',
        '"#',
        "'a",
        "<?php",
        "?>",
        "class A",
        "fn f()",
        "def f():\n",
        "\n    ",
        "import x\n",
        "\ufeff",
        "\r\n",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(CODE_ALPHABET, max_size=60).map("".join), st.integers(min_value=1, max_value=80))
def test_any_text_joins_back_exactly_in_every_language(text, limit):
    for chunker in [PythonChunker()] + [BraceChunker(name) for name in BRACE_LANGUAGES]:
        chunks = chunker.chunk(text, limit)
        assert joined(chunks) == text
        assert_lines(chunks, text)


@pytest.mark.parametrize(
    "text",
    [
        "class A {\n" * 3000 + "}\n" * 3000,
        "`${" * 3000,
        "x = " + "(" * 3000,
        "".join("    " * i + "class A:\n" for i in range(60)) + "    " * 60 + "pass\n",
    ],
)
def test_deeply_nested_input_neither_raises_nor_recurses_without_bound(text):
    for chunker in [PythonChunker()] + [BraceChunker(name) for name in BRACE_LANGUAGES]:
        assert joined(chunker.chunk(text, limit=50)) == text


def test_an_initialised_value_is_not_a_declaration():
    js = "module.exports = {\n  a: 1,\n};\n"
    c = "struct point origin = {\n    0, 0\n};\n"
    assert symbols(BraceChunker("javascript").chunk(js)) == ["module"]
    assert symbols(BraceChunker("c").chunk(c)) == ["module"]


def test_a_decorator_with_an_object_argument_travels_with_its_class():
    text = (
        'import { Component } from "@angular/core";\n\n@Component({\n  selector: "app-root",\n})\n'
        'export class AppComponent {\n  title = "shop";\n\n  open() {\n    return 1;\n  }\n}\n'
    )
    chunks = BraceChunker("typescript").chunk(text, limit=60)
    assert symbols(chunks) == ["imports", "class:AppComponent", "field", "method:open"]
    assert chunks[1].text.startswith("@Component({") and chunks[2].header == "export class AppComponent {"


def test_a_function_value_assigned_is_not_a_function_declaration():
    text = 'var handlers = map[string]func(){\n\t"a": func() {},\n}\n'
    assert symbols(BraceChunker("go").chunk(text)) == ["module"]
