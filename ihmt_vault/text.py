"""Text primitives every part of the vault shares: folding and the CJK script ranges.

Placement, file names, facts and search all compare words; they must agree on what "the same
word" is, so there is one `fold` (lower case, accents removed: "Fernández" → "fernandez") and one
definition of which characters are CJK and how a CJK run becomes terms (`cjk_terms`): Chinese
is cut into words by jieba's dictionary (shipped inside the `jieba-py` wheel: nothing downloaded),
common function words left out; kana and Hangul runs into overlapping character pairs.
"""

from __future__ import annotations

import functools
import logging
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


HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Chinese function words and pronouns: they say nothing of a topic (what English stop words are)
CJK_STOP = frozenset(
    """的 了 是 在 我 你 他 她 它 们 吗 呢 吧 啊 呀 哦 嗯 和 与 及 也 就 都 还 又 着 过 这 那 个 一 不
    有 很 太 会 要 说 对 把 被 让 给 从 向 到 为 以 而 但 或 如 若 所 地 得 么 之 其 此 哪 谁 吗 嘛 哈 啦
    我们 你们 他们 她们 它们 自己 什么 怎么 怎样 为什么 一个 一些 没有 这个 那个 这样 那样 这些 那些 就是 还是 可以
    觉得 真的 因为 所以 但是 如果 然后 已经 一下 一点 有点 非常 特别 知道 现在 时候 我的 你的 他的""".split()
)


def pairs(run: str) -> list[str]:
    """Overlapping character pairs (a lone character stays itself)."""
    if len(run) <= 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


@functools.lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def cjk_words(run: str) -> list[str]:
    """The words of a run of CJK characters, function words left out: Chinese by jieba's dictionary
    (search mode: a long word also gives the words inside it, 运动会 → 运动, 运动会); kana and
    Hangul, which it does not know, by character pairs. Placement's keywords are these."""
    if not HAN_RUN.fullmatch(run):
        return pairs(run)
    return [w for w in _jieba().cut_for_search(run, HMM=False) if w not in CJK_STOP]


def cjk_terms(run: str) -> list[str]:
    """What search indexes of a CJK run: its words, and its character pairs too (measured on
    MADial-Bench's Chinese dialogues, words and pairs together found more than either alone: a
    word the dictionary lacks is still met by its pairs; a two-character word is also a pair, so it
    counts twice in a text, which measured better than once). A pair holding a function word
    (的冰, 了一) straddles two words and is left out."""
    words = cjk_words(run)
    if not HAN_RUN.fullmatch(run):
        return words
    return words + [p for p in pairs(run) if len(p) == 2 and p[0] not in CJK_STOP and p[1] not in CJK_STOP]
