"""A Chinese query against an English one of the same length (issue 19: no slower than 1.5×).

    python bench/languages.py [--lengths 8 32 128] [--rounds 3]

MADial-Bench dev (/work/shared/data/madial-dev/, never copied) has one English and one Chinese
user: each user's memories are indexed as `bench/retrieval.py` indexes them, and each dialogue
query is cut to its first N words (English: words between spaces; Chinese: the words jieba cuts,
punctuation left out), so both languages ask queries of N words. The English and the Chinese query
of each pair are asked in turn (a busy machine slows both alike); p50 per length and the zh/en
ratio are printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import jieba  # noqa: E402
from retrieval import Ours, load  # noqa: E402

_HAN = re.compile(r"[\u3400-\u9fff]")


def first_words(text: str, lang: str, n: int) -> str:
    if lang == "en":
        return " ".join(text.split()[:n])
    words = [w for w in jieba.lcut(text) if _HAN.search(w)]
    return "".join(words[:n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", nargs="+", type=int, default=[8, 32, 128])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    mems, qs = load("madial-dev")
    tmp = Path(tempfile.mkdtemp(prefix="languages-"))
    engines, queries = {}, {}
    for lang in ("en", "zh"):
        ms = [m for m in mems if m["conv"].startswith(lang)]
        today = dt.date.fromisoformat(max(m["date"][:10] for m in ms))
        engines[lang] = Ours(ms, tmp / lang, today)
        queries[lang] = [q["question"] for q in qs if q["conv"].startswith(lang)]
    for n in args.lengths:
        pairs = list(
            zip((first_words(q, "en", n) for q in queries["en"]), (first_words(q, "zh", n) for q in queries["zh"]))
        )
        lat = {"en": [], "zh": []}
        for lang, q in [(lang, p[i]) for p in pairs for i, lang in enumerate(("en", "zh"))]:
            engines[lang].search(q)  # warm: postings read, as a long-lived process has them
        for _ in range(args.rounds):
            for en, zh in pairs:
                for lang, q in (("en", en), ("zh", zh)):
                    t = time.perf_counter()
                    engines[lang].search(q)
                    lat[lang].append((time.perf_counter() - t) * 1000)
        en, zh = statistics.median(lat["en"]), statistics.median(lat["zh"])
        print(
            f"{n:>4} words: en p50 {en:.2f} ms, zh p50 {zh:.2f} ms, zh/en {zh / en:.2f} (target ≤ 1.5) "
            f"over {len(pairs)} query pairs × {args.rounds}"
        )


if __name__ == "__main__":
    main()
