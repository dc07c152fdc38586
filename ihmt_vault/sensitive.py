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
    ("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("a SendGrid key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("a Slack webhook", re.compile(r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+")),
    ("an npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("a PyPI token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}")),
    ("an Azure storage key", re.compile(r"AccountKey=[A-Za-z0-9+/]{40,}={0,2}")),
    ("a bearer token", re.compile(r"(?i)\bbearer\s+(?![<$*{])[A-Za-z0-9._~+/-]{20,}=*")),
    ("a password in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:(?![<$*{])[^\s@/]{3,}@[^\s/]+")),
    ("a password or secret assignment", re.compile(
        r"(?i)(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|"
        r"client[_-]?secret|_authToken)[A-Za-z0-9_-]*\s*[:=]\s*['\"]?(?![<$*{%])(?=[^\s'\"]*[0-9!@#%^&+/])[^\s'\"]{8,}")),
]


def find_secret(text: str) -> str | None:
    """The kind of the first secret found in `text`, or None."""
    for kind, pattern in PATTERNS:
        if pattern.search(text):
            return kind
    return None
