"""Where tczoo keeps things on disk. Everything is overridable; every default works."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable


def cache_dir() -> Path:
    """Root of tczoo's caches (LLM exchanges, compiled programs, models, embeddings),
    created readable by its owner only (prompts and answers can be proprietary)."""
    from tczoo.safewrite import private_dir

    root = os.environ.get("TCZOO_CACHE")
    path = Path(root).expanduser() if root else Path.home() / ".cache" / "tczoo"
    return private_dir(path)


def data_dir() -> Path:
    """Root of data tczoo derives once per machine and checks on every read, so that a
    fresh ``TCZOO_CACHE`` does not derive it again (zoo-mini's golden tests, checked
    against the sha256 in each problem's tests.lock.json). ``TCZOO_DATA``, default
    ``$XDG_DATA_HOME/tczoo`` (``~/.local/share/tczoo``)."""
    root = os.environ.get("TCZOO_DATA")
    if root:
        path = Path(root).expanduser()
    else:
        xdg = os.environ.get("XDG_DATA_HOME")
        path = (Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share") / "tczoo"
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_root(package: str) -> Path:
    """Directory of a data package shipped with tczoo (``prompts``, ``catalog``),
    installed as ``tczoo.<package>`` (from the repository's top-level folder of that
    name, editable or wheel alike). ``TCZOO_<PACKAGE>`` overrides it."""
    override = os.environ.get(f"TCZOO_{package.upper()}")
    if override:
        return Path(override).expanduser()
    spec = importlib.util.find_spec(f"tczoo.{package}")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"tczoo data package tczoo.{package} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


_ONCE_LOCKS: dict[str, threading.Lock] = {}
_ONCE_GUARD = threading.Lock()


def cached_json(namespace: str, key_parts, compute: Callable[[], Any],
                keep: Callable[[Any], bool] | None = None) -> Any:
    """``compute()`` once per key, kept as JSON under ``cache_dir()/namespace``.

    Concurrent callers with the same key (several tasks of one problem scored at once)
    wait for the first instead of repeating its work; the file is written atomically.
    A value ``keep`` refuses is returned but never stored, and a stored one it refuses
    is computed again (a timing that hit the limit on a loaded machine must not decide
    every later run).
    """
    path = _cached_path(namespace, key_parts)
    key = path.stem
    with _ONCE_GUARD:
        lock = _ONCE_LOCKS.setdefault(f"{namespace}/{key}", threading.Lock())
    with lock:
        if path.is_file():
            value = json.loads(path.read_text())
            if keep is None or keep(value):
                return value
        value = compute()
        if keep is not None and not keep(value):
            return value
        write_atomic(path, json.dumps(value))
        return value


def cached_json_many(namespace: str, keys: list[Any], compute: Callable[[list[int]], list[Any]],
                     keep: Callable[[Any], bool] | None = None) -> list[Any]:
    """``cached_json`` for a batch: the values of ``keys`` kept before are read, the
    others computed in one ``compute(indices)`` call (one sandbox batch, say) and kept.
    A stored value that is not JSON or that ``keep`` refuses is computed again; a
    computed one ``keep`` refuses is returned but never stored."""
    paths = [_cached_path(namespace, k) for k in keys]
    values: dict[int, Any] = {}
    for i, path in enumerate(paths):
        try:
            value = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if keep is None or keep(value):
            values[i] = value
    todo = [i for i in range(len(keys)) if i not in values]
    for i, value in zip(todo, compute(todo) if todo else []):
        values[i] = value
        if keep is None or keep(value):
            write_atomic(paths[i], json.dumps(value))
    return [values[i] for i in range(len(keys))]


def texts_digest(pairs: Iterable[Iterable[str]]) -> str:
    """A digest of (input, output) texts for a cache key: megabytes of tests would cost
    ``cached_json`` a JSON encoding per lookup (0.1 s for one zoo-mini problem, paid by
    every suite a runner scores); a hash of each text, length-delimited, costs a quarter."""
    h = hashlib.sha256()
    for pair in pairs:
        for text in pair:
            data = text.encode("utf-8", "surrogatepass")
            h.update(b"%d:" % len(data))
            h.update(data)
        h.update(b";")
    return h.hexdigest()


def _cached_path(namespace: str, key_parts: Any) -> Path:
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()[:24]
    return cache_dir() / namespace / f"{key}.json"


def entry_point_sources(eps: Iterable[Any]) -> list[Path]:
    """The source files a description of these entry points can depend on: every ``.py``
    of tczoo and of the package (or module) behind each entry point, in a stable order.
    Finding a package imports its parents' ``__init__``; ImportError when one is gone.
    (The method metadata cache and the CLI's replayed help are keyed by them.)"""
    roots = {Path(__file__).parent}
    for ep in eps:
        module = ep.value.split(":", 1)[0]
        spec = importlib.util.find_spec(module.rpartition(".")[0] or module)
        if spec is None:
            raise ImportError(module)
        if spec.submodule_search_locations:
            roots.update(Path(p) for p in spec.submodule_search_locations)
        elif spec.origin:
            roots.add(Path(spec.origin))
    files: list[Path] = []
    for root in sorted(roots):
        files.extend(sorted(root.rglob("*.py")) if root.is_dir() else [root])
    return files


def write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    """``text`` into ``path`` whole or not at all (a crash leaves the old file or none);
    the temporary file has a fresh random name and a link at ``path`` is replaced, never
    written through (``tczoo.safewrite.write_atomic``)."""
    from tczoo.safewrite import write_atomic as atomic

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic(path, text, mode=mode)
