"""The built-in model: WordLlama's static embeddings, as the vector index's embedder (on by
default, `embedder = "wordllama"`) and as an optional re-ranker (`rankers = ["semantic"]`).

WordLlama is a dependency, and its wheel ships its weights (the 256-dimension `l2_supercat` token
embeddings, 16 MB) and its tokenizer: nothing is downloaded, ever. The model is loaded from the
package's own files, not through `WordLlama.load()` (which looks for its tokenizer in a folder the
wheel does not have and then tries the network). Embedding one memory is well under a millisecond
once the model is loaded (about 0.1 s, once per process).

The embedder gives the vector index (`search/vectors.py`) its vectors; the ranker, an older and
optional part, re-orders the lexical candidates near the best, its embeddings cached by content
in `.ihmt/cache/embeddings.sqlite`. Missing or broken, either is left out with one warning and
search stays lexical; `ihmt doctor` says so.
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ..text import CJK_RUN
from .hookspecs import hookimpl

MODEL = "wordllama l2_supercat 256"


@functools.lru_cache(maxsize=1)
def _model():
    import numpy  # noqa: F401  (a dependency of the extra; imported here so a missing one fails early)
    import wordllama
    from safetensors import safe_open
    from wordllama import WordLlama
    from wordllama.inference import WordLlamaInference

    pkg = Path(wordllama.__file__).parent
    tokenizer = WordLlama.load_tokenizer(pkg / "tokenizers" / "l2_supercat_tokenizer_config.json")
    with safe_open(str(pkg / "weights" / "l2_supercat_256.safetensors"), framework="np") as f:
        embedding = f.get_tensor("embedding.weight")
    return WordLlamaInference(embedding, tokenizer)


def problem() -> str | None:
    """None when the model loads; else why not, and what to do."""
    try:
        _model()
        return None
    except ImportError as e:
        return f"{e.name or 'wordllama'} is not installed: pip install 'ihmt-vault[semantic]'"
    except Exception as e:  # a broken install: whatever it raises, search must go on without it
        return f"the model does not load ({e.__class__.__name__}: {e}); reinstall 'ihmt-vault[semantic]'"


class SemanticRanker:
    """Orders candidates by cosine similarity of their embeddings to the query's."""

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = cache_dir
        self._db: sqlite3.Connection | None = None

    def for_vault(self, cache_dir: Path) -> SemanticRanker:
        return SemanticRanker(cache_dir)

    def problem(self) -> str | None:
        return problem()

    def _cache(self) -> sqlite3.Connection | None:
        if self._db is None and self.cache_dir is not None:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.cache_dir / "embeddings.sqlite"), timeout=10, isolation_level=None, check_same_thread=False
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB)")
        return self._db

    def vectors(self, texts: list[str]):
        import numpy as np

        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest()[:20] for t in texts]
        db = self._cache()
        found: dict[str, bytes] = {}
        if db is not None:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                found.update(
                    db.execute(
                        f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(part))})", part
                    ).fetchall()
                )
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            fresh = _model().embed([texts[i] for i in missing], norm=True).astype(np.float32)
            for i, vec in zip(missing, fresh):
                found[keys[i]] = vec.tobytes()
            if db is not None:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)", [(keys[i], found[keys[i]]) for i in missing]
                )
        return np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])

    def rank(self, query: str, candidates: Sequence) -> list[int]:
        if not candidates or CJK_RUN.search(query):
            return []  # its tokenizer cuts Chinese and Japanese into bytes: measured, it only loses there
        docs = self.vectors([f"{c.title}\n{c.body[:2000]}" for c in candidates])
        q = _model().embed([query], norm=True)[0]
        scores = docs @ q
        return sorted(range(len(candidates)), key=lambda i: -float(scores[i]))


class WordLlamaEmbedder:
    """The vector index's built-in model: WordLlama's static embeddings (256 dimensions), from its
    wheel. It does not read Chinese or Japanese (`search/vectors.reads`)."""

    name = MODEL

    def problem(self) -> str | None:
        return problem()

    def embed(self, texts):
        import numpy as np

        return np.asarray(_model().embed(list(texts), norm=True), dtype=np.float32)


@hookimpl
def register_rankers(register):
    register("semantic", SemanticRanker())


@hookimpl
def register_embedders(register):
    register("wordllama", WordLlamaEmbedder())
