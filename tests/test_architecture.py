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


def test_no_module_touches_another_objects_private_names():
    offences = []
    for file in MODULES:
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    offences.append(f"{file.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert offences == []


def test_git_runs_only_in_gitlog():
    offences = []
    for file in MODULES:
        if file.name == "gitlog.py":
            continue
        text = file.read_text(encoding="utf-8")
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "run", "Popen", "check_output", "check_call", "call") and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess":
                segment = ast.get_source_segment(text, node) or ""
                if re.search(r"""["']git["']""", segment):
                    offences.append(f"{file.relative_to(ROOT)}:{node.lineno}")
        assert "import git\n" not in text and "from git " not in text, f"{file.name} imports GitPython"
    assert offences == []


def _local_imports(file: Path) -> set[str]:
    """The package modules a module imports at its top level (not inside functions)."""
    pkg = file.relative_to(PACKAGE).parent.parts
    out = set()
    for node in _tree(file).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(pkg[: len(pkg) - node.level + 1])
            if node.module:
                base += node.module.split(".")
            names = [".".join(base)] if node.module else [".".join(base + [a.name]) for a in node.names]
            out.update(n for n in names if n)
    return out


def test_no_import_circle():
    graph = {}
    for file in MODULES:
        name = ".".join(file.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        graph[name] = {i for i in _local_imports(file)}
    known = set(graph)
    graph = {k: {i if i in known else i.rpartition(".")[0] for i in v} & known for k, v in graph.items()}

    def visit(node, path):
        if node in path:
            return path[path.index(node):] + [node]
        for nxt in graph.get(node, ()):
            if nxt.startswith(node + ".") or node.startswith(nxt + ".") or (not node.count(".") and nxt == "__init__"):
                continue  # a package and its own submodules
            cycle = visit(nxt, path + [node])
            if cycle:
                return cycle
        return None

    for start in graph:
        assert visit(start, []) is None, f"import circle: {' -> '.join(visit(start, []))}"


def test_the_public_names_are_exactly_these():
    assert sorted(ihmt_vault.__all__) == sorted([
        "Vault", "Memory", "Draft", "Change", "FileChange", "Problem", "ReconcileReport", "RebuildReport",
        "UndoReport", "ForgetReport", "ImportReport", "SyncReport", "SyncStatus", "VaultError", "BadInput", "BrokenFile",
        "NotFound", "NotAVault", "LockTimeout", "SecretRefused"])
    assert all(hasattr(ihmt_vault, name) for name in ihmt_vault.__all__)


def test_the_facade_only_delegates():
    """Every public Vault method has a docstring, and vault.py stays a thin façade."""
    from ihmt_vault import Vault
    for name, member in vars(Vault).items():
        if not name.startswith("_") and callable(member):
            assert (member.__doc__ or "").strip(), f"Vault.{name} has no docstring"
    assert len((PACKAGE / "vault.py").read_text().splitlines()) < 350


def test_architecture_md_names_only_what_exists():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name in set(re.findall(r"`([a-z_/]+\.py)`", text)):
        assert (PACKAGE / name).exists(), f"ARCHITECTURE.md names {name}, which does not exist"
    for file in MODULES:
        rel = file.relative_to(PACKAGE).as_posix()
        if file.name != "__init__.py":
            assert f"`{rel}`" in text, f"ARCHITECTURE.md does not say what {rel} owns"


IMPORT_NAMES = {"GitPython": "git", "markdown-it-py": "markdown_it", "mdit-py-plugins": "mdit_py_plugins",
                "whoosh-reloaded": "whoosh", "ruamel.yaml": "ruamel", "PyYAML": "yaml", "detect-secrets": "detect_secrets",
                "jieba-py": "jieba"}


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
