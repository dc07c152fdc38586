"""Packaging a new user's `pip install .` meets: no deprecated licence table, and, since the wheel
carries exactly the package data pyproject.toml lists (include-package-data is off, which is what
keeps setuptools from warning about every data subfolder), every shipped file matched by it."""

import sys
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_licence_is_an_spdx_string_which_needs_setuptools_77():
    assert CONFIG["project"]["license"] == "MIT"
    assert CONFIG["build-system"]["requires"] == ["setuptools>=77"]


def test_every_file_of_the_sample_vault_templates_hooks_and_site_assets_is_package_data():
    setuptools = CONFIG["tool"]["setuptools"]
    assert setuptools["include-package-data"] is False
    dirs = setuptools["package-dir"]
    missed = []
    for package, patterns in setuptools["package-data"].items():
        folder = ROOT / (dirs.get(package) or package.replace(".", "/"))
        for file in folder.rglob("*"):
            rel = PurePosixPath(file.relative_to(folder).as_posix())
            if file.is_file() and "__pycache__" not in rel.parts and file.suffix != ".py":
                if not any(rel.full_match(p) if hasattr(rel, "full_match") else _match(rel, p) for p in patterns):
                    missed.append(f"{package}: {rel}")
    assert missed == []


def _match(rel: PurePosixPath, pattern: str) -> bool:
    """`**/x` matches at any depth, `x` only at the top (as setuptools' globs do), before Python 3.13."""
    if pattern.startswith("**/"):
        return rel.match(pattern[3:])
    return len(rel.parts) == len(PurePosixPath(pattern).parts) and rel.match(pattern)
