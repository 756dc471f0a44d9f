"""Content-addressed store of LLM exchanges (SQLite).

LiteLLM's own disk cache crashes on its first hit in recent releases, so tczoo keeps its
own: one row per (model, messages, params, sample index) holding the raw answer, usage
and cost. It doubles as the log of every provider call ever made.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS exchanges (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    usage TEXT NOT NULL,
    cost REAL NOT NULL,
    created REAL NOT NULL
)
"""


def exchange_key(model: str, messages: list[dict], params: dict[str, Any], sample: int) -> str:
    """The cache key: everything that determines an answer, and nothing else."""
    blob = json.dumps(
        {"model": model, "messages": messages, "params": params, "sample": sample},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class ExchangeCache:
    """Thread-safe SQLite store; WAL mode so concurrent runs can share one file."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(SCHEMA)
        self._db.commit()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response, usage, cost FROM exchanges WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return {"text": row[0], "usage": json.loads(row[1]), "cost": row[2]}

    def put(
        self, key: str, model: str, request: dict[str, Any], text: str, usage: dict, cost: float
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO exchanges VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    json.dumps(request, ensure_ascii=False),
                    text,
                    json.dumps(usage),
                    cost,
                    time.time(),
                ),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
