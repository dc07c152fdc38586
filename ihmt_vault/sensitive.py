"""What counts as a secret in a memory's text.

Memories live in git in plain text and travel to every clone, so a save (and the pre-commit hook)
refuses text that looks like a credential. Patterns are the common shapes of cloud keys, tokens,
private key blocks and password assignments; a placeholder (`<token>`, `${API_KEY}`, `****`) is not
a secret.
"""
from __future__ import annotations

import re

PATTERNS: list[tuple[str, re.Pattern]] = [
    ("a private key block", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("an API key", re.compile(r"\b(?:sk|rk)[-_](?:[a-z0-9]{2,8}[-_]){0,3}(?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{20,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("a password or secret assignment", re.compile(
        r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
        r"\s*[:=]\s*['\"]?(?![<$*{%])(?=[^\s'\"]*[0-9!@#%^&+/])[^\s'\"]{8,}")),
]


def find_secret(text: str) -> str | None:
    """The kind of the first secret found in `text`, or None."""
    for kind, pattern in PATTERNS:
        if pattern.search(text):
            return kind
    return None
