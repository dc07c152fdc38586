"""The hook scripts, shipped in wheels as the package `ihmt_vault._hooks` (pyproject.toml).

This file makes it a regular package, so `importlib.resources.files("ihmt_vault._hooks")` is a real
folder in an installed wheel (for a folder without it, a namespace package, it is a MultiplexedPath,
which `githooks._templates` cannot turn into a path).
"""
