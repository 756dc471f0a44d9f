"""What a run ran on, so two runs can be told apart and a result reproduced.

``collect(...)`` returns one JSON-able dict per session that writes to a run directory
(``provenance.jsonl``): tczoo's version and git commit (when run from a checkout, with
whether the tree had uncommitted changes), Python, the versions of the packages that
change answers or scores, the compilers the sandbox uses, the sandbox's isolation
level, the benchmark's content hash, the model's identity (a GGUF's sha256, or
provider + api_base + model), where the work ran (``tczoo.distributed``) and every
plugin package (and its version) whose method or runner took part.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("litellm", "openai", "llama-cpp-python", "ortools", "networkx", "numpy", "pydantic", "jinja2",
            "typer", "sentence-transformers", "torch", "datasets")
COMPILERS = (("g++", ["g++", "--version"]), ("gcc", ["gcc", "--version"]), ("python3", ["python3", "--version"]),
             ("java", ["java", "-version"]), ("javac", ["javac", "-version"]))


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


@lru_cache(maxsize=None)
def compiler_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name, cmd in COMPILERS:
        if shutil.which(cmd[0]) is None:
            out[name] = None
            continue
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            out[name] = None
            continue
        text = (done.stdout or done.stderr).strip()
        out[name] = text.splitlines()[0] if text else None
    return out


def git_state() -> dict[str, Any] | None:
    """The commit of the checkout tczoo runs from (None when installed from a wheel)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists() or shutil.which("git") is None:
        return None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=20)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if commit.returncode != 0:
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}


def benchmark_hash(problems: list) -> str:
    """sha256 over the problems as loaded (statement, limits, solutions, tests ...), in
    order: the same benchmark spec with different content hashes differently."""
    digest = hashlib.sha256()
    for p in problems:
        digest.update(json.dumps(p.model_dump(mode="json"), sort_keys=True, ensure_ascii=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def collect(*, benchmark: str, problems: list, model: str, identity: dict[str, Any], isolation: str,
            argv: list[str] | None = None, executor: dict[str, Any] | None = None,
            methods: list[str] = (), runners: list[str] = ()) -> dict[str, Any]:
    from tczoo import __version__
    from tczoo.registry import plugins_used

    return {
        "time": time.time(),
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "argv": list(sys.argv if argv is None else argv),
        "tczoo": {"version": __version__, "git": git_state()},
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "platform": platform.platform(),
        "packages": package_versions(),
        "compilers": compiler_versions(),
        "sandbox": isolation,
        "benchmark": {"spec": benchmark, "problems": len(problems), "sha256": benchmark_hash(problems)},
        "model": {"name": model, "identity": identity},
        # where the work ran: this machine's slots, or a Ray cluster's nodes (each with
        # its host, tczoo version, slots and isolation level)
        "executor": executor or {"kind": "local"},
        # every method and runner an outside package provided: {"runner:NAME": {package, version}}
        # (tczoo report names the package to install when one is missing)
        "plugins": plugins_used(list(methods), list(runners)),
    }
