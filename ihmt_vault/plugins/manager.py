"""The plugin manager: built-ins and installed plugins, behind the hooks of `hookspecs.py`; choosing one."""

from __future__ import annotations

import functools

import pluggy

from ..errors import BadInput
from . import chunkers, hookspecs, importers, semantic
from . import source_code as code


@functools.lru_cache(maxsize=1)
def manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs.Specs)
    pm.register(importers, "ihmt.importers")
    pm.register(chunkers, "ihmt.chunkers")
    pm.register(code, "ihmt.code")
    pm.register(semantic, "ihmt.semantic")
    pm.load_setuptools_entrypoints(hookspecs.PROJECT)
    return pm


def register(plugin, name: str) -> None:
    """Register a plugin once (what the composition root does for the built-in reactions)."""
    pm = manager()
    if not pm.is_registered(plugin) and pm.get_plugin(name) is None:
        pm.register(plugin, name)


def _collect(hook) -> dict:
    found: dict = {}

    def register(name: str, thing) -> None:
        found[name] = thing

    hook(register=register)
    return found


def importers_by_name() -> dict[str, hookspecs.Importer]:
    return _collect(manager().hook.register_importers)


def chunkers_by_name() -> dict:
    return _collect(manager().hook.register_chunkers)


def embedders_by_name() -> dict:
    return _collect(manager().hook.register_embedders)


def rankers_by_name() -> dict:
    return _collect(manager().hook.register_rankers)


def importer_for(path, name: str = "auto") -> tuple[str, hookspecs.Importer]:
    """The importer called `name`, or with `auto` the one that recognises `path` (its `recognises(path)`
    says yes); a path none recognises is a BadInput naming the formats there are."""
    found = importers_by_name()
    if name != "auto":
        return name, pick("importer", found, name)
    for candidate, importer in found.items():
        recognises = getattr(importer, "recognises", None)
        if recognises is not None and recognises(path):
            return candidate, importer
    raise BadInput(f"{path}: not a store ihmt recognises; give --format, one of: {', '.join(sorted(found))}")


def pick(kind: str, found: dict, name: str):
    """The extension called `name`, or a BadInput naming the ones there are."""
    if name not in found:
        raise BadInput(f"no {kind} called {name!r}; there are: {', '.join(sorted(found)) or 'none'}")
    return found[name]
