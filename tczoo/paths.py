"""Where tczoo keeps things on disk. Everything is overridable; every default works."""

from __future__ import annotations

import os
import importlib.util
from pathlib import Path


def cache_dir() -> Path:
    """Root of tczoo's caches (LLM exchanges, compiled programs, models, embeddings)."""
    root = os.environ.get("TCZOO_CACHE")
    path = Path(root).expanduser() if root else Path.home() / ".cache" / "tczoo"
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_root(package: str) -> Path:
    """Directory of a top-level data package (``prompts``, ``catalog``) shipped with tczoo.

    ``TCZOO_<PACKAGE>`` overrides it. Otherwise the directory beside the ``tczoo``
    package is preferred (a clone or an editable install), then the installed namespace
    package of that name (a wheel install).
    """
    override = os.environ.get(f"TCZOO_{package.upper()}")
    if override:
        return Path(override).expanduser()
    beside = Path(__file__).resolve().parent.parent / package
    if beside.is_dir():
        return beside
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"tczoo data directory {package!r} is not installed")
    return Path(list(spec.submodule_search_locations)[0])
