"""Content-addressed store of LLM exchanges (SQLite).

LiteLLM's own disk cache crashes on its first hit in recent releases, so tczoo keeps its
own: one row per exchange, keyed by everything that determines the answer — the
backend's identity (provider, ``api_base``, model, or a local GGUF's sha256), the
rendered messages, every sampling parameter and the sample index — holding the raw
answer, usage and cost. Text is stored as JSON (``tczoo.safeio.text.dumps``), so an answer
with lone surrogates or NUL round-trips exactly.

``tczoo cache info|prune|clear`` manages the file (``CacheAdmin``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from tczoo.safeio.text import dumps

TABLE = "exchanges_v2"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    backend TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    usage TEXT NOT NULL,
    cost REAL NOT NULL,
    created REAL NOT NULL
)
"""
# Rows of the first schema (keys without the backend's identity) are never read; `tczoo
# cache prune --legacy` or `clear` removes them.
LEGACY_TABLE = "exchanges"


def exchange_key(identity: dict[str, Any], messages: list[dict], params: dict[str, Any], sample: int) -> str:
    """The cache key: everything that determines an answer, and nothing else."""
    blob = dumps({"backend": identity, "messages": messages, "params": params, "sample": sample}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _connect(path: Path) -> sqlite3.Connection:
    from tczoo.safeio.write import PRIVATE_FILE, check_regular

    # SQLite follows links: a link (or a FIFO) where the database, its WAL or its
    # shared-memory file belongs is refused, so that no prune or write reaches another file
    for extra in ("-wal", "-shm"):
        check_regular(f"{path}{extra}")
    if not check_regular(path):
        # owner-only from the start: the WAL and shared-memory files SQLite adds take
        # the database file's mode
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE))
    db = sqlite3.connect(path, check_same_thread=False, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(SCHEMA)
    db.commit()
    return db


class ExchangeCache:
    """Thread-safe SQLite store; WAL mode so concurrent runs can share one file."""

    def __init__(self, path: Path):
        from tczoo.safeio.write import private_dir

        self.path = Path(path)
        private_dir(self.path.parent)
        self._lock = threading.Lock()
        self._db = _connect(self.path)

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(f"SELECT response, usage, cost FROM {TABLE} WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return {"text": json.loads(row[0]), "usage": json.loads(row[1]), "cost": row[2]}

    def put(self, key: str, model: str, identity: dict[str, Any], request: dict[str, Any], text: str,
            usage: dict, cost: float) -> None:
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, model, dumps(identity, sort_keys=True), dumps(request), dumps(text), json.dumps(usage),
                 cost, time.time()),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CacheAdmin:
    """What ``tczoo cache`` shows and removes."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def exists(self) -> bool:
        return self.path.is_file()

    def _db(self) -> sqlite3.Connection:
        return _connect(self.path)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())

    def info(self) -> dict[str, Any]:
        """Size on disk, entries, and per model: entries, bytes of answers, oldest and
        newest entry (Unix time)."""
        out: dict[str, Any] = {"path": str(self.path), "exists": self.exists(), "bytes": 0, "entries": 0,
                               "models": [], "legacy_entries": 0}
        if not self.exists():
            return out
        db = self._db()
        try:
            rows = db.execute(
                f"SELECT model, backend, COUNT(*), SUM(LENGTH(response) + LENGTH(request)), MIN(created), MAX(created) "
                f"FROM {TABLE} GROUP BY model, backend ORDER BY model, backend").fetchall()
            legacy = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name=?",
                                (LEGACY_TABLE,)).fetchone()
            out["legacy_entries"] = db.execute(f"SELECT COUNT(*) FROM {LEGACY_TABLE}").fetchone()[0] if legacy else 0
        finally:
            db.close()
        out["bytes"] = self.size_bytes()
        out["entries"] = sum(r[2] for r in rows)
        out["models"] = [{"model": m, "backend": json.loads(b), "entries": n, "bytes": int(size or 0),
                          "oldest": lo, "newest": hi} for m, b, n, size, lo, hi in rows]
        return out

    def prune(self, *, older_than_s: float | None = None, model: str | None = None, legacy: bool = False) -> int:
        """Delete entries older than ``older_than_s`` seconds and/or of ``model`` (both
        when both are given); ``legacy`` drops the rows of the old key schema. Returns
        how many entries went."""
        if not self.exists():
            return 0
        where, args = [], []
        if older_than_s is not None:
            where.append("created < ?")
            args.append(time.time() - older_than_s)
        if model is not None:
            where.append("model = ?")
            args.append(model)
        db = self._db()
        try:
            removed = 0
            if where:
                removed += db.execute(f"DELETE FROM {TABLE} WHERE " + " AND ".join(where), args).rowcount
            if legacy:
                exists = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name=?",
                                    (LEGACY_TABLE,)).fetchone()
                if exists:
                    removed += db.execute(f"SELECT COUNT(*) FROM {LEGACY_TABLE}").fetchone()[0]
                    db.execute(f"DROP TABLE {LEGACY_TABLE}")
            db.commit()
            db.execute("VACUUM")
        finally:
            db.close()
        return removed

    def clear(self) -> int:
        """Remove the cache file (and its WAL files); returns how many entries it held."""
        n = self.info()["entries"] + self.info()["legacy_entries"] if self.exists() else 0
        for p in self.path.parent.glob(self.path.name + "*"):
            if p.name in (self.path.name, self.path.name + "-wal", self.path.name + "-shm"):
                p.unlink(missing_ok=True)
        return n
