"""Passage vectors by content, so that re-indexing re-embeds only what changed.

Document indexes are cached by the whole text's hash; when a new version of a document arrives
(an amended draft, a re-export with one clause changed) every passage whose embedded text is
unchanged finds its vector here, keyed by the embedder and the sha1 of that text. One SQLite file
per cache folder, shared safely by web and worker processes (WAL, busy timeout).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

_CHUNK = 500  # keys per SELECT (SQLite's variable limit is 999 on old builds)


def passage_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


class PassageVectorCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID"
            )
            conn.commit()
            self._conn = conn
        return self._conn

    def get_many(self, model: str, keys: list[bytes], dimension: int) -> dict[bytes, np.ndarray]:
        return {
            key: vector
            for key, vector in self._vectors(model, keys)
            if vector.shape[0] == dimension
        }

    def get_matrices(
        self, model: str, keys: list[bytes], dimension: int
    ) -> dict[bytes, np.ndarray]:
        """Like ``get_many``, for entries that hold several vectors (a passage's unit matrix,
        pooled.py): each as an (n, dimension) array."""
        return {
            key: flat.reshape(-1, dimension)
            for key, flat in self._vectors(model, keys)
            if flat.shape[0] % dimension == 0
        }

    def _vectors(self, model: str, keys: list[bytes]) -> list[tuple[bytes, np.ndarray]]:
        found: list[tuple[bytes, np.ndarray]] = []
        if not keys:
            return found
        with self._lock:
            db = self._db()
            for i in range(0, len(keys), _CHUNK):
                chunk = keys[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(
                    f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})",
                    [model, *chunk],
                )
                found.extend(
                    (bytes(key), np.frombuffer(blob, dtype=np.float32)) for key, blob in rows
                )
        return found

    def put_many(self, model: str, items: Iterable[tuple[bytes, np.ndarray]]) -> None:
        rows = [(model, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items]
        if not rows:
            return
        with self._lock:
            db = self._db()
            db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
            db.commit()

    def delete_many(self, keys: Iterable[bytes]) -> int:
        """Forget these passages' vectors, of every model; returns how many rows went."""
        keys = list(keys)
        if not keys or not self.path.exists():
            return 0
        removed = 0
        with self._lock:
            db = self._db()
            for i in range(0, len(keys), _CHUNK):
                chunk = keys[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                removed += db.execute(f"DELETE FROM vectors WHERE key IN ({marks})", chunk).rowcount
            db.commit()
        return removed

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
