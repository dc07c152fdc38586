"""IHMT Vault: long-term memory for AI agents, kept as a git repository of Markdown files.

    from ihmt_vault import Vault
    v = Vault.init("~/notes/memory")
    m = v.memories.save("Staging runs PostgreSQL 17", topic="work/infrastructure")

The public names below are imported when first used (PEP 562), so `ihmt --help` and the MCP
server's handshake do not pay for the whole library.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"
_WHERE = {
    "Vault": "vault",
    "Memory": "storage.notes",
    "Draft": "storage.draft",
    **{
        name: "results"
        for name in (
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
        )
    },
    **{
        name: "errors"
        for name in ("VaultError", "BadInput", "BrokenFile", "NotFound", "NotAVault", "LockTimeout", "SecretRefused")
    },
}
__all__ = list(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
