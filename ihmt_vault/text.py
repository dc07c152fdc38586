"""Text primitives every part of the vault shares: folding and the CJK script ranges.

Placement, file names, facts and search all compare words; they must agree on what "the same
word" is, so there is one `fold` (lower case, accents removed: "Fernández" → "fernandez") and one
definition of which characters are CJK and how a CJK run becomes terms (overlapping character
pairs; a lone character stays itself).
"""
from __future__ import annotations

import re
import unicodedata

# Hiragana, Katakana, CJK ideographs (extension A, unified, compatibility) and Hangul syllables.
CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK}]+")


def fold(text: str) -> str:
    """Lower case with accents removed (é → e, ñ → n); other scripts are kept as they are."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c))).lower()


def cjk_terms(run: str) -> list[str]:
    """A run of CJK characters as overlapping character pairs (no dictionary, nothing to download)."""
    if len(run) <= 2:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]
