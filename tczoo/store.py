"""The run directory: append-only JSONL records that survive ``kill -9``.

    DIR/config.json          what was asked (methods, model, benchmark, params)
    DIR/exchanges.jsonl      every LLM exchange (prompt, answer, usage) -- replay:DIR reads it
    DIR/generations.jsonl    one GenerationRecord per attempt at a (method, problem, task)
    DIR/scores.jsonl         one ScoreRecord per scored generation
    DIR/provenance.jsonl     one line per session that wrote here: versions, machine, model
    DIR/cross_scores.jsonl   scores by runners other than the method's own (tczoo compare --runners)
    DIR/inputs/<sha256>.json a generated test's input or output longer than 64 K characters, once
                             per content; generations.jsonl holds {"$file": "<sha256>", "chars": N}
                             in its place (a generator's 200 MB of inputs no longer sit in one line)
    DIR/.lock                held by the one process writing here (its pid inside)

Each record is one ``write`` of one line followed by an fsync. A run killed mid-write
leaves at most a torn last line, which is cut off when the directory is opened again
for writing; records already on disk are never rewritten, so a resumed run neither
loses nor duplicates anything. A unit generated again (a failed generation retried)
appends a record with a higher ``attempt``: the old one stays in the file, superseded,
and readers see the latest attempt and the scores of that attempt only.

Every string is stored losslessly (``tczoo.safeio.text``): lone surrogates and control
characters a model or a program produced survive the round trip.

A run directory may come from anyone (docs/security.md): it is created owner-only
(``0o700``, files ``0o600``); the lock, the appends, the torn-tail repair and the
atomic rewrites never write through a link or into a FIFO or device someone placed
there (``tczoo.safeio.write``), and reading streams each file with a bound on every
record (``TCZOO_READ_RECORD_MB``, ``tczoo.safeio.read``) and refuses a file that is
not a regular one.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import threading
from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError

from tczoo.errors import RunFailed, UserError
from tczoo.safeio.write import UnsafeFile, open_append, open_rw, private_dir, subdir, write_atomic
from tczoo.schema import RUN_FORMAT, GenerationRecord, RunConfig, ScoreRecord
from tczoo.safeio.text import dumps, model_line
from tczoo.safeio.read import Refused, iter_lines, read_file, record_bytes
from tczoo.safeio.userfiles import NotJSON, UserFileError, loads, type_name

FILES = ("exchanges.jsonl", "generations.jsonl", "scores.jsonl", "provenance.jsonl", "cross_scores.jsonl")
LOCK = ".lock"

# Fields of RunConfig that do not define the experiment: a resume may change them.
OPERATIONAL = {"tczoo_version", "format"}
MAX_CONFIG_BYTES = 16 << 20


class RunStoreError(UserError, ValueError):
    """A run directory that cannot be used as asked (the message says which and why)."""


class RunDirBusy(RunStoreError):
    """Another process is writing to the run directory."""


class StoreFull(RunFailed):
    """The disk (or quota) is full: nothing half-written is kept, the run resumes later."""


# One lock per directory per process: a process may open its own run directory twice.
_HELD: dict[str, list] = {}  # realpath -> [fd, count]
_HELD_GUARD = threading.Lock()


def _acquire(root: Path) -> str:
    key = os.path.realpath(root)
    with _HELD_GUARD:
        if key in _HELD:
            _HELD[key][1] += 1
            return key
        path = root / LOCK
        try:
            fd = open_rw(path)
        except UnsafeFile as exc:
            raise RunStoreError(str(exc)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise RunDirBusy(f"{root} is being written by another tczoo process ({holder}); wait for it to "
                             "finish or use another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        _HELD[key] = [fd, 1]
        return key


def _release(key: str) -> None:
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] <= 0:
            os.close(held[0])  # closing the descriptor releases the flock
            del _HELD[key]


def _cut_torn_tail(path: Path) -> str | None:
    """Cut a torn last line (no trailing newline) left by a killed writer, or a last
    line that is not JSON (a torn record a later newline completed). Returns what was
    cut, for the warning, or None. Works on one descriptor of the regular file itself
    (never through a link), reading at most the last record."""
    if not _is_run_file(path) or os.lstat(path).st_size == 0:  # a link, FIFO or device: refused
        return None
    try:
        fd = open_rw(path, create=False)
    except UnsafeFile as exc:
        raise RunStoreError(str(exc)) from None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        newline_ended = os.pread(fd, 1, size - 1) == b"\n"
        body_end = size - 1 if newline_ended else size
        # Walk back to the newline before the last line.
        pos, start = body_end, 0
        while pos > 0:
            step = min(65536, pos)
            chunk = os.pread(fd, step, pos - step)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                start = pos - step + idx + 1
                break
            pos -= step
        if body_end - start > record_bytes():
            return None  # not a record tczoo can read either way: reading names it, nothing is cut
        last = os.pread(fd, body_end - start, start)
        if newline_ended and not last.strip():
            return None  # blank lines are no record, torn or not
        if newline_ended:
            try:
                loads(last, path)
                return None
            except NotJSON:
                pass  # torn: cut, as the reader skips it
            except UserFileError:
                return None  # a whole record, however bad: the reader names it, nothing is cut
        os.ftruncate(fd, start)
        lineno, offset = 1, 0
        while offset < start:
            chunk = os.pread(fd, min(1 << 20, start - offset), offset)
            lineno += chunk.count(b"\n")
            offset += len(chunk)
    finally:
        os.close(fd)
    return f"{path}:{lineno}: cut a torn record ({len(last)} bytes) left by an interrupted writer"


def _is_run_file(path: Path) -> bool:
    """True when ``path`` is a regular file, False when it is missing; a link, FIFO or
    device in its place is refused (one line)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise RunStoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise RunStoreError(str(_refused(path, mode)))
    return True


def _refused(path: Path, mode: int) -> Exception:
    from tczoo.safeio.write import refusal

    return refusal(path, mode)


class RunStore:
    def __init__(self, root: Path):
        self.root = Path(root)
        self._lock = threading.Lock()
        self._unsynced: set[str] = set()  # files appended to without fsync since the last record that syncs
        self._held: str | None = None
        self.warnings: list[str] = []  # what opening or reading repaired or skipped
        self.session: Any = None  # what the last tczoo.run.run() on this store did
        # a read-only store (reports) reads each file once while it is unchanged: one
        # report reads generations.jsonl for every setting it states, megabytes each time
        self._memo: dict[str, tuple[tuple[int, int, int], Any]] | None = None

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, root: Path, config: RunConfig | None = None, *, write: bool | None = None) -> "RunStore":
        """Open a run directory. With ``config`` (or ``write=True``) it is opened for
        writing: created if needed, locked against other processes, torn tails cut, and
        a resumed run must have been started with the same experiment configuration.
        Without, it is opened read-only (reports)."""
        store = cls(root)
        write = config is not None if write is None else write
        cfg_path = store.root / "config.json"
        if store.root.exists() and not store.root.is_dir():
            raise RunStoreError(f"{store.root} exists and is not a directory")
        has_config = _is_run_file(cfg_path)
        if not write:
            if not has_config:
                raise RunStoreError(f"{store.root} is not a tczoo run directory (no config.json)")
            store._memo = {}
            return store
        if config is None and not has_config:
            raise RunStoreError(f"{store.root} is not a tczoo run directory (no config.json)")
        try:
            private_dir(store.root)
        except OSError as exc:
            raise RunStoreError(f"cannot create run directory {store.root}: {exc.strerror or exc}") from exc
        store._held = _acquire(store.root)
        try:
            if config is not None:
                if has_config:
                    old = store._read_config()
                    diff = config_diff(old, config)
                    if diff:
                        raise RunStoreError(
                            f"{store.root} holds a run with a different configuration ({'; '.join(diff)}); "
                            "use another --out, or delete it")
                else:
                    store._write_atomic(cfg_path, config.model_dump_json(indent=2))
            for name in FILES:
                cut = _cut_torn_tail(store.root / name)
                if cut:
                    store.warnings.append(cut)
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        with self._lock:
            for name in sorted(self._unsynced):
                try:
                    fd = open_append(self.root / name)
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                except (OSError, UnsafeFile):
                    pass  # closing: what was written is in the file; only its flush to disk failed
            self._unsynced.clear()
        if self._held is not None:
            _release(self._held)
            self._held = None

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read_config(self) -> RunConfig:
        path = self.root / "config.json"
        try:
            data = loads(read_file(path, cap=MAX_CONFIG_BYTES, follow=False), path)
        except (Refused, UserFileError) as exc:
            raise RunStoreError(f"{exc}") from None
        found = data.get("format") if isinstance(data, dict) else None
        if isinstance(found, int) and not isinstance(found, bool) and found > RUN_FORMAT:
            from tczoo import __version__

            raise RunStoreError(f"{path}: a run of format {found}, written by a newer tczoo (tczoo {__version__} "
                                f"reads run formats up to {RUN_FORMAT}); upgrade tczoo to read it")
        try:
            return RunConfig.model_validate(data)
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0]
            raise RunStoreError(f"{path}: not a tczoo run configuration ({first})") from None

    @property
    def config(self) -> RunConfig:
        return self._remembered("config.json", self._read_config)

    def _remembered(self, name: str, read):
        """``read()``, or, in a read-only store, what it gave while ``name`` is unchanged
        (same inode, size and modification time). Records are shared: read, not changed."""
        if self._memo is None:
            return read()
        try:
            st = (self.root / name).stat()
        except OSError:
            return read()
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        held = self._memo.get(name)
        if held is not None and held[0] == key:
            return held[1]
        value = read()
        self._memo[name] = (key, value)
        return value

    # ------------------------------------------------------------------ writing

    def _append(self, name: str, line: str, *, sync: bool = True) -> None:
        """Append one record. ``sync`` False leaves the fsync to the next record that
        syncs (an exchange: the generation that uses it), which also syncs this file:
        a sampled method's hundred answers cost one fsync, not a hundred."""
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        path = self.root / name
        with self._lock:
            try:
                if sync:
                    for other in sorted(self._unsynced - {name}):
                        fd = open_append(self.root / other)
                        try:
                            os.fsync(fd)
                        finally:
                            os.close(fd)
                    self._unsynced.clear()
                fd = open_append(path)
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                    if sync:
                        os.fsync(fd)
                    else:
                        self._unsynced.add(name)
                finally:
                    os.close(fd)
            except UnsafeFile as exc:
                raise RunStoreError(str(exc)) from None
            except OSError as exc:
                raise _write_error(exc, path) from exc

    def _write_atomic(self, path: Path, text: str) -> None:
        try:
            write_atomic(path, text)
        except UnsafeFile as exc:
            raise RunStoreError(str(exc)) from None
        except OSError as exc:
            raise _write_error(exc, path) from exc

    def log_exchange(self, exchange: dict) -> None:
        self._append("exchanges.jsonl", dumps(exchange), sync=False)

    def add_generation(self, record: GenerationRecord) -> None:
        data = record.model_dump(mode="json")
        for test in _tests_of(data):  # large texts go beside the record, written before it
            for field in ("input", "output"):
                text = test.get(field)
                if isinstance(text, str) and len(text) > FILE_CHARS:
                    test[field] = self._put_text(text)
        self._append("generations.jsonl", dumps(data))

    def _put_text(self, text: str) -> dict[str, Any]:
        """``text`` in ``inputs/<sha256>.json`` (JSON: lossless for any string; once per
        content, owner-only, never through a link), and the reference that replaces it."""
        import hashlib

        body = dumps(text)
        name = hashlib.sha256(body.encode("utf-8")).hexdigest()
        try:
            folder = subdir(self.root, FILES_DIR)
            path = folder / f"{name}.json"
            if not (path.is_file() and not path.is_symlink()):
                write_atomic(path, body)
        except UnsafeFile as exc:
            raise RunStoreError(str(exc)) from None
        except OSError as exc:
            raise _write_error(exc, self.root / FILES_DIR) from exc
        return {FILE_KEY: name, "chars": len(text)}

    def _get_text(self, ref: dict[str, Any], where: str) -> str:
        """The text a reference stands for; a missing, foreign or altered file is an error
        naming the record (its name is its content's digest)."""
        import hashlib
        import re

        name = ref.get(FILE_KEY)
        if not isinstance(name, str) or not re.fullmatch(r"[0-9a-f]{64}", name):
            raise RunStoreError(f"{where}: corrupt record (a test text refers to {str(name)[:80]!r})")
        path = self.root / FILES_DIR / f"{name}.json"
        try:
            raw = read_file(path, cap=record_bytes(), follow=False)
        except Refused as exc:
            raise RunStoreError(f"{where}: a test text is missing or unreadable ({exc})") from None
        if hashlib.sha256(raw).hexdigest() != name:
            raise RunStoreError(f"{where}: {path} does not hold the text the record names (altered)")
        try:
            text = loads(raw, path)
        except UserFileError as exc:
            raise RunStoreError(f"{where}: {exc}") from None
        if not isinstance(text, str):
            raise RunStoreError(f"{where}: {path} holds {type_name(text)}, not a text")
        return text

    def add_score(self, record: ScoreRecord) -> None:
        self._append("scores.jsonl", model_line(record))

    def add_provenance(self, info: dict[str, Any]) -> None:
        self._append("provenance.jsonl", dumps(info, default=str))

    def add_cross_score(self, record: ScoreRecord) -> None:
        """A generation scored by another runner than its method's own (cross-scoring);
        kept apart from scores.jsonl, whose records are one per unit."""
        self._append("cross_scores.jsonl", model_line(record))

    def replace_scores(self, records: list[ScoreRecord]) -> None:
        """``tczoo score`` recomputes every score: swap the file in one atomic rename."""
        self._write_atomic(self.root / "scores.jsonl", "".join(model_line(r) + "\n" for r in records))

    # ------------------------------------------------------------------ reading

    def records(self, name: str) -> Iterator[tuple[int, dict]]:
        """(line number, record) of one file. A line that is not JSON is an error
        naming the file and line, except a torn last line, which is skipped with a
        warning (the next ``tczoo run`` on the directory cuts it)."""
        path = self.root / name
        if not _is_run_file(path):
            return
        # The last non-blank line is the one a killed writer may have torn: a record
        # that fails to parse there is skipped with a warning, anywhere else refused.
        pending: tuple[int, bytes] | None = None
        try:
            for lineno, raw in iter_lines(path, max_line=record_bytes(), follow=False):
                if not raw.strip():
                    continue
                if pending is not None:
                    yield pending[0], self._record(path, *pending, last=False)
                pending = (lineno, raw)
        except Refused as exc:
            raise RunStoreError(str(exc)) from None
        if pending is not None:
            record = self._record(path, *pending, last=True)
            if record is not None:
                yield pending[0], record

    def _record(self, path: Path, lineno: int, raw: bytes, *, last: bool) -> Any:
        # the reader of every user file (tczoo.safeio.userfiles): strict UTF-8, no NaN or
        # Infinity, nesting bounded; a record is an object
        where = f"{path}:{lineno}"
        try:
            value = loads(raw, path, line=lineno)
        except UserFileError as exc:
            if last and isinstance(exc, NotJSON):
                self.warnings.append(f"{where}: skipped a torn last record (run the same `tczoo run` "
                                     "again to repair it)")
                return None
            why = str(exc).removeprefix(f"{where}: ")
            raise RunStoreError(f"{where}: corrupt record ({why}); the file was edited or damaged") from None
        if not isinstance(value, dict):
            raise RunStoreError(f"{where}: corrupt record ({type_name(value)}, not an object); the file was "
                                "edited or damaged")
        return value

    def _models(self, name: str, cls):
        return list(self._remembered(name, lambda: self._read_models(name, cls)))

    def _read_models(self, name: str, cls):
        out = []
        for lineno, data in self.records(name):
            if name == "generations.jsonl":
                for test in _tests_of(data):
                    for field in ("input", "output"):
                        if isinstance(test.get(field), dict) and FILE_KEY in test[field]:
                            test[field] = self._get_text(test[field], f"{self.root / name}:{lineno}")
            try:
                out.append(cls.model_validate(data))
            except ValidationError as exc:
                first = str(exc).splitlines()
                raise RunStoreError(f"{self.root / name}:{lineno}: not a {cls.__name__} "
                                    f"({' '.join(first[:3])})") from None
        return out

    def all_generations(self) -> list[GenerationRecord]:
        """Every generation record, superseded attempts included, in file order."""
        return self._models("generations.jsonl", GenerationRecord)

    def generations(self) -> list[GenerationRecord]:
        """The latest attempt of each unit, in the order units first appear."""
        latest: dict[tuple, GenerationRecord] = {}
        for g in self.all_generations():
            latest[(g.method, g.problem_id, g.task)] = g
        return list(latest.values())

    def all_scores(self) -> list[ScoreRecord]:
        return self._models("scores.jsonl", ScoreRecord)

    def scores(self) -> list[ScoreRecord]:
        """The scores of the latest attempt of each unit (the last one when scored twice)."""
        attempt = {(g.method, g.problem_id, g.task): g.attempt for g in self.generations()}
        current: dict[tuple, ScoreRecord] = {}
        for s in self.all_scores():
            key = (s.method, s.problem_id, s.task)
            if attempt.get(key, 0) == s.attempt:
                current[key] = s
        return list(current.values())

    def cross_scores(self) -> list[ScoreRecord]:
        """Cross-scores of the latest attempt of each unit, the last one per (runner, unit, task)."""
        attempt = {(g.method, g.problem_id, g.task): g.attempt for g in self.generations()}
        current: dict[tuple, ScoreRecord] = {}
        for s in self._models("cross_scores.jsonl", ScoreRecord):
            unit = (s.method, s.problem_id, (s.detail.get("cross") or {}).get("unit", s.task))
            if attempt.get(unit, -1) == s.attempt:
                current[(s.runner, s.method, s.problem_id, s.task)] = s
        return list(current.values())

    def exchanges(self) -> list[dict]:
        return [d for _, d in self.records("exchanges.jsonl")]

    def provenance(self) -> list[dict]:
        return [d for _, d in self.records("provenance.jsonl")]


FILES_DIR = "inputs"  # large test texts beside generations.jsonl
FILE_CHARS = 64 * 1024  # a test input or output longer than this is stored there
FILE_KEY = "$file"


def _tests_of(record: Any) -> list[dict[str, Any]]:
    """The test cases of a generation record (its suite's tests and screened-out ones)."""
    suite = record.get("suite") if isinstance(record, dict) else None
    if not isinstance(suite, dict):
        return []
    return [t for key in ("tests", "rejected") if isinstance(suite.get(key), list)
            for t in suite[key] if isinstance(t, dict)]


def _write_error(exc: OSError, path: Path) -> Exception:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return StoreFull(f"cannot write {path}: {os.strerror(exc.errno)}; free some space and run the same "
                         "command again: it resumes where it stopped")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return RunStoreError(f"cannot write {path}: {os.strerror(exc.errno)}")
    return exc


def config_diff(old: RunConfig, new: RunConfig) -> list[str]:
    """The experiment fields that differ, as 'field: was X, now Y'."""
    a = old.model_dump(exclude=OPERATIONAL)
    b = new.model_dump(exclude=OPERATIONAL)
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            out.append(f"{key}: was {json.dumps(a.get(key), default=str)}, now {json.dumps(b.get(key), default=str)}")
    return out


# --------------------------------------------------------------------------- what a path names

GRID_FILE = "grid.json"  # a comparison directory (tczoo compare / reproduce): one run directory per cell


def model_slug(model: str) -> str:
    """A directory name for a model string: readable, and distinct for distinct strings
    (``a/b`` and ``a_b`` differ in the hash). A grid's cell of (model, method) lies in
    ``GRID/<model_slug(model)>/<method>/``."""
    import hashlib
    import re

    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._")[:48] or "model"
    return f"{readable}-{hashlib.sha256(model.encode()).hexdigest()[:6]}"


def is_run_dir(path: Path) -> bool:
    return (Path(path) / "config.json").is_file()


def is_grid(path: Path) -> bool:
    """A comparison directory: ``grid.json`` and one run directory per (model, method)."""
    return (Path(path) / GRID_FILE).is_file()


def grid_cells(path: Path) -> list[Path]:
    """The run directories of a comparison, in the grid's order (model by model, the
    methods in the order asked), then any other run directory under it (a cell a later
    comparison added with other settings, a grid.json edited by hand)."""
    root = Path(path)
    ordered: list[Path] = []
    grid = root / GRID_FILE
    try:  # bounded, strict, a link refused (docs/security.md)
        spec = loads(read_file(grid, cap=MAX_CONFIG_BYTES, follow=False), grid)
    except (Refused, UserFileError) as exc:
        raise RunStoreError(str(exc)) from None
    if isinstance(spec, dict):
        for model in spec.get("models") or []:
            for method in spec.get("methods") or []:
                if isinstance(model, str) and isinstance(method, str):
                    cell = root / model_slug(model) / method
                    if is_run_dir(cell):
                        ordered.append(cell)
    seen = set(ordered)
    ordered += sorted(p.parent for p in root.glob("*/*/config.json") if p.parent not in seen)
    return ordered


def run_dirs(paths: list[Path] | tuple[Path, ...] | Path) -> list[Path]:
    """The run directories that ``paths`` name: a run directory is itself, a comparison
    directory (``tczoo compare`` / ``tczoo reproduce --out``) is every run it holds, in
    grid order; several are read in the order given (a run named twice is read twice, as
    asked). Every command that reads runs takes its arguments through here, so a grid is
    a run everywhere. A path that is neither, or a comparison with no run yet, is a
    ``RunStoreError`` (one line, exit 2) naming it."""
    if isinstance(paths, (str, Path)):
        paths = [Path(paths)]
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if is_run_dir(path):
            dirs = [path]
        elif is_grid(path):
            dirs = grid_cells(path)
            if not dirs:
                raise RunStoreError(f"{path} is a comparison directory with no run in it yet "
                                    "(run the tczoo compare or reproduce command that made it)")
        elif not path.exists():
            raise RunStoreError(f"{path} is not a tczoo run directory: no such folder")
        else:
            raise RunStoreError(f"{path} is not a tczoo run directory (no config.json) "
                                f"nor a comparison directory (no {GRID_FILE})")
        found += dirs
    return found
