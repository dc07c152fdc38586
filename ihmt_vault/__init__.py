"""IHMT Vault: long-term memory for AI agents, kept as a git repository of Markdown files.

    from ihmt_vault import Vault
    v = Vault.init("~/notes/memory")
    m = v.save("Staging runs PostgreSQL 17", topic="work/infrastructure")
"""
from .errors import BadInput, BrokenFile, LockTimeout, NotAVault, NotFound, SecretRefused, VaultError
from .results import (
           Change,
           FileChange,
           ForgetReport,
           ImportReport,
           Problem,
           RebuildReport,
           ReconcileReport,
           SyncReport,
           SyncStatus,
           UndoReport,
)
from .storage.draft import Draft
from .storage.notes import Memory
from .vault import Vault

__version__ = "0.1.0"
__all__ = ["Vault", "Memory", "Draft", "Change", "FileChange", "Problem", "ReconcileReport", "RebuildReport",
           "UndoReport", "ForgetReport", "ImportReport", "SyncReport", "SyncStatus", "VaultError", "BadInput", "BrokenFile",
           "NotFound", "NotAVault", "LockTimeout", "SecretRefused"]
