"""Where tczoo keeps things on disk. Everything is overridable; every default works."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from tczoo.errors import UserError


class CacheRefused(UserError, ValueError):
    """A cache folder tczoo will not use (someone else's, writable by others, not a
    folder): one line, exit 2."""


def cache_dir() -> Path:
    """Root of tczoo's caches (LLM exchanges, compiled programs, models, embeddings),
    created readable by its owner only (prompts and answers can be proprietary).

    tczoo runs what it finds there (the sandbox's worker, compiled programs) and replays
    answers from it, so an existing root must be a folder owned by the user running
    tczoo and writable by nobody else (docs/security.md); anything else is refused with
    one line (``CacheRefused``)."""
    from tczoo.safeio.write import private_dir

    root = os.environ.get("TCZOO_CACHE")
    path = Path(root).expanduser() if root else Path.home() / ".cache" / "tczoo"
    name = f"TCZOO_CACHE={path}" if root else f"the cache folder {path}"
    try:
        private_dir(path)
    except OSError as exc:
        _trusted_cache(path, name)  # it exists as something else: say what
        raise CacheRefused(f"{name}: cannot create it ({exc.strerror or exc}); "
                           "give another folder in TCZOO_CACHE") from None
    _trusted_cache(path, name)
    return path


def _trusted_cache(path: Path, name: str) -> None:
    """Refuse a cache root that is not a folder, is someone else's, or that group or
    others may write (they could plant a worker or a compiled program tczoo runs). The
    path itself is followed: the user named it (a link the user made is theirs)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return  # not made (yet): the caller says why
    except OSError as exc:
        raise CacheRefused(f"{name}: {exc.strerror or exc}; give another folder in TCZOO_CACHE") from None
    if not stat.S_ISDIR(st.st_mode):
        from tczoo.safeio.read import kind_name

        what = "a file" if stat.S_ISREG(st.st_mode) else kind_name(st.st_mode)
        raise CacheRefused(f"{name} is {what}, not a folder: give a folder in TCZOO_CACHE "
                           "(tczoo makes it if it is missing)")
    if st.st_uid != os.geteuid():
        raise CacheRefused(f"{name} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()}): tczoo runs "
                           "what its cache holds, so it uses only a folder of yours (give one in TCZOO_CACHE)")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheRefused(f"{name} is writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'} "
                           f"(mode {stat.S_IMODE(st.st_mode):o}): tczoo runs what its cache holds; "
                           f"`chmod go-w {path}` or give another folder in TCZOO_CACHE")


def cache_subdir(*parts: str) -> Path:
    """``cache_dir()/part/...``, each folder created owner-only (``0o700``); a part that
    is a link or not a folder is refused (``tczoo.safeio.write.subdir``): nothing in the
    cache is followed elsewhere."""
    from tczoo.safeio.write import subdir

    return subdir(cache_dir(), *parts)


def write_cache_file(path: Path, text: str | bytes) -> None:
    """A file of the cache, replaced atomically and owner-only (``0o600``); its folder
    must exist (``cache_subdir``)."""
    from tczoo.safeio.write import PRIVATE_FILE, write_atomic as atomic

    atomic(path, text, mode=PRIVATE_FILE)


def read_cache_file(path: Path, cap: int = 256 << 20) -> bytes | None:
    """A file of the cache: its bytes, or None when it is missing or is not a regular
    file (a link, a FIFO: never followed, never waited on) or is larger than ``cap``."""
    from tczoo.safeio.read import Refused, read_file

    try:
        return read_file(path, cap=cap, follow=False)
    except (OSError, Refused):
        return None


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
        value = _read_cached(path)
        if value is not _MISSING and (keep is None or keep(value)):
            return value
        value = compute()
        if keep is not None and not keep(value):
            return value
        write_cache_file(path, json.dumps(value))
        return value


def cached_json_many(namespace: str, keys: list[Any], compute: Callable[[list[int]], list[Any]],
                     keep: Callable[[Any], bool] | None = None) -> list[Any]:
    """``cached_json`` for a batch: the values of ``keys`` kept before are read, the
    others computed in one ``compute(indices)`` call (one sandbox batch, say) and kept.
    A stored value that is not JSON or that ``keep`` refuses is computed again; a
    computed one ``keep`` refuses is returned but never stored."""
    folder = cache_subdir(namespace)
    paths = [_cached_path(namespace, k, folder) for k in keys]
    values: dict[int, Any] = {}
    for i, path in enumerate(paths):
        value = _read_cached(path)
        if value is _MISSING:
            continue
        if keep is None or keep(value):
            values[i] = value
    todo = [i for i in range(len(keys)) if i not in values]
    for i, value in zip(todo, compute(todo) if todo else []):
        values[i] = value
        if keep is None or keep(value):
            write_cache_file(paths[i], json.dumps(value))
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


_MISSING = object()


def _read_cached(path: Path) -> Any:
    """A kept value, or ``_MISSING`` when there is none, it is not a regular file (never
    followed) or not JSON: computed again."""
    data = read_cache_file(path)
    if data is None:
        return _MISSING
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return _MISSING


def _cached_path(namespace: str, key_parts: Any, folder: Path | None = None) -> Path:
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()[:24]
    return (folder or cache_subdir(namespace)) / f"{key}.json"


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
    written through (``tczoo.safeio.write.write_atomic``)."""
    from tczoo.safeio.write import write_atomic as atomic

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic(path, text, mode=mode)
