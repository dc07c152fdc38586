"""The structure holds: layers, private names, where git runs, the public names, the docs of it.

These parse the package's code; they fail when a change breaks one of the rules ARCHITECTURE.md
states, so the rules stay true without anyone having to remember them.
"""

import ast
import re
from pathlib import Path

import ihmt_vault

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ihmt_vault"
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def _tree(file: Path) -> ast.AST:
    return ast.parse(file.read_text(encoding="utf-8"), str(file))


STDLIB_UNDERSCORED = {("os", "_exit")}  # documented standard-library names that begin with _


def test_no_module_touches_another_objects_private_names():
    offences = []
    for file in MODULES:
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")) and not (
                    isinstance(owner, ast.Name) and (owner.id, node.attr) in STDLIB_UNDERSCORED
                ):
                    offences.append(f"{file.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert offences == []


def test_git_runs_only_in_gitlog():
    offences = []
    for file in MODULES:
        if file.parent.name == "gitlog":
            continue
        text = file.read_text(encoding="utf-8")
        for node in ast.walk(_tree(file)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("run", "Popen", "check_output", "check_call", "call")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "subprocess"
            ):
                segment = ast.get_source_segment(text, node) or ""
                if re.search(r"""["']git["']""", segment):
                    offences.append(f"{file.relative_to(ROOT)}:{node.lineno}")
        assert "import git\n" not in text and "from git " not in text, f"{file.name} imports GitPython"
    assert offences == []


KERNEL = {"errors", "results", "config", "clock", "text", "shipped", "files"}  # the modules at the package's top
FACADE = {"vault", "__init__", "__main__"}
# What each layer may import (its own folder included). A module's layer is its folder; the kernel
# and the façade are the top-level modules. ARCHITECTURE.md draws the same picture.
MAY_IMPORT = {
    "kernel": {"kernel"},
    "search": {"kernel", "search"},
    "storage": {"kernel", "search", "storage"},
    "plugins": {"kernel", "search", "storage", "plugins"},
    "engine": {"kernel", "search", "storage", "plugins", "engine"},
    "ops": {"kernel", "search", "storage", "plugins", "engine", "ops"},
    "project": {"kernel", "search", "storage", "plugins", "project"},
    "facade": {"kernel", "search", "storage", "plugins", "engine", "ops", "facade", "frontends"},
    "frontends": {"kernel", "storage", "project", "facade", "frontends"},
}
FRONT_END_ONLY = {"click", "rich", "mcp", "watchdog", "mkdocs", "pydantic"}
# the storage modules behind the engine: a front end reaches them only through the Vault
ENGINE_PARTS = {"storage.gitlog", "storage.catalog", "storage.lock", "storage.roles", "storage.recall"}


def _module_name(file: Path) -> str:
    return ".".join(file.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__") or "__init__"


def _layer(module: str) -> str:
    head = module.split(".")[0]
    if head in KERNEL:
        return "kernel"
    if head in FACADE or head == "__version__":
        return "facade"
    return head


def _package_imports(file: Path) -> list[tuple[int, str]]:
    """Every package module a module imports, anywhere in it (at its top, under TYPE_CHECKING, or
    inside a function): (line, dotted name relative to the package)."""
    pkg = list(file.relative_to(PACKAGE).parent.parts)
    known = {_module_name(f) for f in MODULES}
    out = []
    for node in ast.walk(_tree(file)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = pkg[: len(pkg) - node.level + 1]
            target = ".".join(base + (node.module.split(".") if node.module else []))
            names = [target] if node.module else [".".join(base + [a.name]) for a in node.names]
            for name in names:
                while name and name not in known and "." in name:
                    name = name.rpartition(".")[0]  # `from .x import Name`: the module is x
                out.append((node.lineno, name or "__init__"))
        elif isinstance(node, ast.Import):
            out += [
                (node.lineno, a.name.removeprefix("ihmt_vault."))
                for a in node.names
                if a.name.startswith("ihmt_vault.")
            ]
    return out


def _third_party(file: Path) -> set[str]:
    names = set()
    for node in ast.walk(_tree(file)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_module_lives_in_a_layer_folder():
    layers = set(MAY_IMPORT) - {"kernel", "facade"}
    for file in MODULES:
        layer = _layer(_module_name(file))
        assert layer in layers | {"kernel", "facade"}, f"{file.relative_to(ROOT)} is in no layer"


def test_each_layer_imports_only_the_layers_below_it():
    offences = []
    for file in MODULES:
        here = _module_name(file)
        for line, target in _package_imports(file):
            if _layer(target) not in MAY_IMPORT[_layer(here)]:
                offences.append(f"{file.relative_to(ROOT)}:{line} ({_layer(here)}) imports {target} ({_layer(target)})")
    assert offences == []


def test_only_front_ends_import_the_front_end_libraries():
    offences = []
    for file in MODULES:
        if _layer(_module_name(file)) not in ("frontends", "facade"):
            offences += [f"{file.relative_to(ROOT)} imports {n}" for n in _third_party(file) & FRONT_END_ONLY]
    assert offences == []


def test_front_ends_reach_git_whoosh_and_sqlite_only_through_the_vault():
    offences = []
    for file in (PACKAGE / "frontends").rglob("*.py"):
        for line, target in _package_imports(file):
            if any(target == p or target.startswith(p + ".") for p in ENGINE_PARTS):
                offences.append(f"{file.relative_to(ROOT)}:{line} imports {target}")
        offences += [f"{file.relative_to(ROOT)} imports {n}" for n in _third_party(file) & {"whoosh", "git", "sqlite3"}]
    assert offences == []


def test_no_import_circle():
    """Imports anywhere in a module count (type-level ones under TYPE_CHECKING too)."""
    graph: dict[str, set[str]] = {}
    for file in MODULES:
        graph.setdefault(_module_name(file), set()).update(t for _line, t in _package_imports(file))

    def visit(node, path):
        if node in path:
            return path[path.index(node) :] + [node]
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + ".") or node.startswith(nxt + ".") or nxt == "__init__" or node == "__init__":
                continue  # a package and its own submodules
            cycle = visit(nxt, path + [node])
            if cycle:
                return cycle
        return None

    for start in sorted(graph):
        cycle = visit(start, [])
        assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def test_the_public_names_are_exactly_these():
    assert sorted(ihmt_vault.__all__) == sorted(
        [
            "Vault",
            "Memory",
            "Draft",
            "Change",
            "FileChange",
            "Problem",
            "ReconcileReport",
            "RebuildReport",
            "UndoReport",
            "ForgetReport",
            "ImportReport",
            "SyncReport",
            "SyncStatus",
            "VaultError",
            "BadInput",
            "BrokenFile",
            "NotFound",
            "NotAVault",
            "LockTimeout",
            "SecretRefused",
        ]
    )
    assert all(hasattr(ihmt_vault, name) for name in ihmt_vault.__all__)


def test_the_facade_only_delegates():
    """Every public method of `Vault` and of its nouns has a docstring and one statement: a
    delegation (the composition root's `init` and `open` aside). No size cap: a new verb is 3 lines."""
    from ihmt_vault import vault as facade

    offences = []
    for cls in [c for c in vars(facade).values() if isinstance(c, type) and c.__module__ == facade.__name__]:
        node = next(
            n for n in _tree(PACKAGE / "vault.py").body if isinstance(n, ast.ClassDef) and n.name == cls.__name__
        )
        for fn in (n for n in node.body if isinstance(n, ast.FunctionDef)):
            if (
                fn.name.startswith("_")
                and fn.name != "__call__"
                or fn.name in ("init", "open", "close")
                or any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)
            ):
                continue
            body = fn.body
            if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
                offences.append(f"{cls.__name__}.{fn.name} has no docstring")
            elif len(body) != 2:
                offences.append(f"{cls.__name__}.{fn.name} does more than delegate ({len(body) - 1} statements)")
    assert offences == []


def test_architecture_md_names_only_what_exists():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name in set(re.findall(r"`([a-z_/]+\.py)`", text)):
        assert (PACKAGE / name).exists(), f"ARCHITECTURE.md names {name}, which does not exist"
    for file in MODULES:
        rel = file.relative_to(PACKAGE).as_posix()
        if file.name != "__init__.py":
            assert f"`{rel}`" in text, f"ARCHITECTURE.md does not say what {rel} owns"


IMPORT_NAMES = {
    "GitPython": "git",
    "markdown-it-py": "markdown_it",
    "mdit-py-plugins": "mdit_py_plugins",
    "whoosh-reloaded": "whoosh",
    "ruamel.yaml": "ruamel",
    "PyYAML": "yaml",
    "detect-secrets": "detect_secrets",
    "jieba-py": "jieba",
}


def test_every_declared_dependency_is_imported_by_the_package():
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    imported = set()
    for file in MODULES:
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                imported.add(node.module.split(".")[0])
    for dep in deps:
        name = re.split(r"[<>=;\[ ]", dep, maxsplit=1)[0]
        assert IMPORT_NAMES.get(name, name.replace("-", "_")) in imported, f"{name} is declared but never imported"


def test_every_package_folder_is_declared_for_the_wheel():
    """A non-editable install ships exactly the packages pyproject.toml lists: a folder left out
    imports in a checkout and fails in a wheel."""
    import tomllib

    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(f.parent.relative_to(ROOT).parts) for f in PACKAGE.rglob("__init__.py")}
    assert found - declared == set()
