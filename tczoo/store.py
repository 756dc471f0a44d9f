"""The run directory: append-only JSONL records that survive ``kill -9``.

    DIR/config.json          what was asked (methods, model, benchmark, params)
    DIR/exchanges.jsonl      every LLM exchange (prompt, answer, usage) -- replay:DIR reads it
    DIR/generations.jsonl    one GenerationRecord per (method, problem, task)
    DIR/scores.jsonl         one ScoreRecord per scored generation

Each record is one ``write`` of one line followed by a flush and fsync. A run killed
mid-write leaves at most a torn last line, which is cut off when the directory is
opened again; records already on disk are never rewritten, so a resumed run neither
loses nor duplicates anything.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Iterator

from tczoo.schema import GenerationRecord, RunConfig, ScoreRecord
from tczoo.errors import UserError

FILES = ("exchanges.jsonl", "generations.jsonl", "scores.jsonl")


class RunStoreError(UserError, ValueError):
    pass


def _repair_tail(path: Path) -> None:
    """Cut a torn last line (no trailing newline) left by a killed writer."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 1))
        if fh.read(1) == b"\n":
            return
        # Walk back to the last newline; everything after it is a partial record.
        pos = size - 1
        while pos > 0:
            step = min(65536, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                fh.truncate(pos - step + idx + 1)
                return
            pos -= step
        fh.truncate(0)


class RunStore:
    def __init__(self, root: Path):
        self.root = Path(root)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, root: Path, config: RunConfig | None = None) -> "RunStore":
        """Open (creating or resuming) a run directory. A resumed run must have been
        started with the same config: mixing two experiments in one directory is refused."""
        store = cls(root)
        store.root.mkdir(parents=True, exist_ok=True)
        cfg_path = store.root / "config.json"
        if config is not None:
            if cfg_path.exists():
                old = RunConfig.model_validate_json(cfg_path.read_text())
                if _comparable(old) != _comparable(config):
                    raise RunStoreError(
                        f"{store.root} holds a run with a different configuration; "
                        "use another --out or delete it"
                    )
            else:
                tmp = cfg_path.with_suffix(".tmp")
                tmp.write_text(config.model_dump_json(indent=2))
                os.replace(tmp, cfg_path)
        elif not cfg_path.exists():
            raise RunStoreError(f"{store.root} is not a tczoo run directory (no config.json)")
        for name in FILES:
            _repair_tail(store.root / name)
        return store

    @property
    def config(self) -> RunConfig:
        return RunConfig.model_validate_json((self.root / "config.json").read_text())

    # ------------------------------------------------------------------ writing

    def _append(self, name: str, line: str) -> None:
        data = (line.rstrip("\n") + "\n").encode()
        with self._lock:
            fd = os.open(self.root / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)

    def log_exchange(self, exchange: dict) -> None:
        self._append("exchanges.jsonl", json.dumps(exchange, ensure_ascii=False))

    def add_generation(self, record: GenerationRecord) -> None:
        self._append("generations.jsonl", record.model_dump_json())

    def add_score(self, record: ScoreRecord) -> None:
        self._append("scores.jsonl", record.model_dump_json())

    def replace_scores(self, records: list[ScoreRecord]) -> None:
        """``tczoo score`` recomputes every score: swap the file in one atomic rename."""
        tmp = self.root / "scores.jsonl.tmp"
        with tmp.open("w") as fh:
            for r in records:
                fh.write(r.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.root / "scores.jsonl")

    # ------------------------------------------------------------------ reading

    def _read(self, name: str) -> Iterator[dict]:
        path = self.root / name
        if not path.exists():
            return
        with path.open() as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)

    def generations(self) -> list[GenerationRecord]:
        return [GenerationRecord.model_validate(d) for d in self._read("generations.jsonl")]

    def scores(self) -> list[ScoreRecord]:
        return [ScoreRecord.model_validate(d) for d in self._read("scores.jsonl")]

    def exchanges(self) -> list[dict]:
        return list(self._read("exchanges.jsonl"))


def _comparable(config: RunConfig) -> dict:
    # The version may change between a crash and the resume; the experiment may not.
    return config.model_dump(exclude={"tczoo_version"})
