"""The error model of the library.

Every error a user can cause is a `VaultError` whose message is one line naming the file or
argument at fault and what to do about it. Front ends print `str(error)` and exit non-zero; they
never show a traceback for a `VaultError`. Anything else escaping the library is a bug.

Invariant: an operation that raises a `VaultError` has changed nothing on disk (it raises before
writing, or the transaction it was in is rolled back / repairable by `ihmt doctor --repair`).
"""

from __future__ import annotations


class VaultError(Exception):
    """Base of every error a user can cause; the message is one actionable line."""

    exit_code = 1


class BadInput(VaultError):
    """An argument given to an operation is invalid (empty text, a topic with '..', ...)."""

    exit_code = 2


class BrokenFile(VaultError):
    """A file in the vault cannot be read as a memory (bad YAML, not UTF-8 text, ...)."""

    def __init__(self, path: str, problem: str, fix: str = "fix the file by hand or run 'ihmt doctor'"):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}; {fix}")


class NotFound(VaultError):
    """No memory or folder matches the id or path asked for."""


class NotAVault(VaultError):
    """The path given is not a vault (or does not exist)."""

    exit_code = 2


class LockTimeout(VaultError):
    """Another process held the vault's write lock for longer than the configured timeout."""

    exit_code = 3


class SecretRefused(BadInput):
    """The text looks like it contains a secret; memories are stored in git in plain text."""


class Refused(VaultError):
    """The vault's roles (`.ihmt/roles.toml`) do not let the one writing make this change; the
    message names the rule. The operation it stopped changed nothing (its transaction is rolled back)."""

    exit_code = 2
