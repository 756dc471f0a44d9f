"""Kattis / ICPC problem packages (``--benchmark kattis:PATH``); see docs/kattis.md.

``PATH`` is one package (a folder with ``problem.yaml``) or a folder searched
recursively for packages. :func:`load` gives the problems; packages the zoo cannot
judge (interactive, scoring ...) are skipped with a one-line reason each, logged
here and listed by ``tczoo benchmarks --check kattis:PATH``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tczoo.benchmarks.kattis.package import SCHEMA, PackageError, Scan, Skipped, find_packages, read_package, scan
from tczoo.schema import Problem

log = logging.getLogger("tczoo.kattis")

__all__ = ["SCHEMA", "PackageError", "Scan", "Skipped", "find_packages", "read_package", "scan", "load",
           "load_scan"]


def load_scan(path: str | Path, *, sandbox=None, only: list[str] | None = None, note=None) -> Scan:
    """:func:`scan` plus the format's time limit for packages that state none (which
    runs their accepted submissions once, in ``sandbox`` or a sandbox of its own).

    ``only`` (ids or id prefixes) limits that timing to the problems a run selected: the
    others are still listed, but a run of two packages does not time all eight. ``note``
    hears a line before each timing (``tczoo benchmarks --check``'s progress)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"no such Kattis package or folder: {root}")
    if not root.is_dir():
        raise PackageError(f"{root}: a Kattis package is a folder with problem.yaml")
    result = scan(root)
    pending = [p for p in result.problems if p.meta["kattis"].get("time_limit_pending")
               and (not only or any(p.id == q or p.id.startswith(q) for q in only))]
    if pending:
        from tczoo.benchmarks.kattis.timing import resolve_time_limit

        own = sandbox is None
        if own:
            from tczoo.sandbox import Sandbox

            sandbox = Sandbox()
        try:
            for problem in pending:
                if note is not None:
                    note(f"timing {problem.id} (it states no time limit): its accepted submissions on its "
                         f"{len(problem.samples) + len(problem.golden_tests)} tests, once (cached)")
                resolve_time_limit(problem, sandbox)
        finally:
            if own:
                sandbox.close()
    return result


def load(path: str | Path, *, sandbox=None, only: list[str] | None = None) -> list[Problem]:
    """The problems of every loadable package at or below ``path`` (time limits resolved
    for those ``only`` selects, all when None)."""
    result = load_scan(path, sandbox=sandbox, only=only)
    for skipped in result.skipped:
        log.warning("kattis: skipped %s: %s", skipped.package, skipped.reason)
    if not result.problems:
        reasons = "; ".join(f"{s.package}: {s.reason}" for s in result.skipped[:5])
        raise PackageError(f"{path}: no Kattis package loaded" + (f" ({reasons})" if reasons else
                                                                     " (no folder with problem.yaml)"))
    return result.problems
