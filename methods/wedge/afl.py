"""The AFL++ engine: one sandboxed job per campaign.

AFL++ (Debian package ``afl++``, built with Python 3 custom-mutator support) runs
*inside* the tczoo jail, like any other program: the job is ``afl_driver.py`` (a
Python program the sandbox runs) with the instrumented reference, the model's mutator
and validator as files. AFL++'s fork server, its targets and the model's mutator (loaded
into afl-fuzz's embedded Python) are all descendants of the job, so the jail's
namespaces, the slot's unprivileged uid, the job's cgroup (processes, memory) and its
wall-clock guard bound them, and nothing outlives the job. AFL++ needs nothing the
jail withholds: SysV shared memory works inside the jail's IPC namespace, and the
checks that read /sys or the core pattern are switched off by AFL++'s own variables.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from tczoo.execution import Limits
from tczoo.method import Context
from tczoo.schema import Language, Program

from .harness import AFL_MODULE, VALIDATE_SCRIPT

DRIVER = Program(code=(Path(__file__).parent / "afl_driver.py").read_text(encoding="utf-8"),
                 language=Language.PYTHON, name="tczoo-wedge-afl")
COMPILERS = {Language.CPP: ["afl-clang-fast++", "afl-g++"], Language.C: ["afl-clang-fast", "afl-gcc"]}
BUILD_S = 120
GRACE_S = 15
DISK_CAP_MB = 320  # of the jail's 512 MB tmpfs


@dataclass
class Candidate:
    """An input an engine found, with what the fuzzer measured on the instrumented target."""

    input: str
    source: str  # "afl-queue", "afl-hang", "loop"
    cpu_ms: float = 0.0
    status: str = "AC"
    conditions: list[int] = field(default_factory=list)


@dataclass
class Campaign:
    engine: str
    candidates: list[Candidate] = field(default_factory=list)
    note: str = ""  # what happened, one paragraph for the artifact
    error: str = ""  # failure reason when the engine could not run at all
    detail: str = ""


def available() -> bool:
    """Whether this machine has afl-fuzz and an AFL++ compiler (seen from the jail too:
    it binds /usr read-only)."""
    return shutil.which("afl-fuzz") is not None and any(
        shutil.which(c) for cs in COMPILERS.values() for c in cs)


def supported(language: Language) -> bool:
    return language in COMPILERS


async def run_afl(ctx: Context, target: Program, mutator_code: str, validator_code: str, seeds: list[str], *,
                  fuzz_s: int, time_limit_ms: int, memory_mb: int, exec_timeout_ms: int, candidates: int,
                  max_input_kb: int, triage_s: int, custom_only: bool, trim: bool, validate_ms: int) -> Campaign:
    from tczoo.sandbox.compile import DEFAULT_FLAGS

    if not supported(target.language):
        return Campaign("afl", error="unsupported_language", detail=f"AFL++ does not fuzz {target.language.value}")
    flags = list(target.flags if target.flags is not None else DEFAULT_FLAGS.get(target.language, []))
    source = "target.cpp" if target.language is Language.CPP else "target.c"
    marker = f"@@tczoo-wedge-afl-{secrets.token_hex(8)}@@"
    spec = {
        "marker": marker, "source": source, "compilers": COMPILERS[target.language], "flags": flags,
        "libs": ["-lm"] if target.language is Language.C else [], "build_s": BUILD_S, "seeds": seeds,
        "fuzz_s": fuzz_s, "grace_s": GRACE_S, "exec_timeout_ms": exec_timeout_ms, "target_memory_mb": memory_mb,
        "fuzzer_memory": (memory_mb + 1536) << 20, "validator_memory": 1024 << 20, "validate_ms": validate_ms,
        "validate_batch": 16, "max_len": max_input_kb * 1024, "custom_only": custom_only, "trim": trim,
        "disk_cap": DISK_CAP_MB << 20, "triage_s": triage_s, "candidates": candidates,
    }
    files = {source: target.code, "wedge_model.py": mutator_code, "wedge_mutator.py": AFL_MODULE,
             "wedge_validator.py": validator_code, "wedge_validate.py": VALIDATE_SCRIPT, "spec.json": json.dumps(spec)}
    wall_s = BUILD_S + fuzz_s + GRACE_S + triage_s + 30
    limits = Limits(time_ms=wall_s * 1000, wall_ms=wall_s * 1000, memory_mb=2 * memory_mb + 4096,
                    output_kb=2 * candidates * max_input_kb + 4096, processes=64,
                    file_kb=max(2 * max_input_kb, 16 * 1024))
    run = await asyncio.to_thread(ctx.sandbox.run, DRIVER, "", limits, files=files)
    at = run.stdout.rfind(marker)
    report = None
    if at >= 0:
        try:
            report = json.loads(run.stdout[at + len(marker):].split("\n", 1)[0])
        except ValueError:
            report = None
    if report is None:
        why = run.message or run.stderr[-1500:] or f"exit code {run.exit_code}"
        return Campaign("afl", error="afl_job_failed", detail=f"AFL++ job ended {run.verdict.value}: {why}"[:2000])
    if "error" in report:
        reason = "afl_unavailable" if report["error"] == "unavailable" else f"afl_{report['error']}"
        return Campaign("afl", error=reason, detail=str(report.get("detail", ""))[:2000])
    fuzz = report.get("fuzz", {})
    stats = fuzz.get("stats", {})
    found = [Candidate(input=c["input"], source="afl-hang" if c.get("kind") == "hangs" else "afl-queue",
                       cpu_ms=float(c.get("cpu_ms", 0.0)), status=str(c.get("status", "AC")),
                       conditions=[int(i) for i in c.get("conditions", [])])
             for c in report.get("candidates", []) if isinstance(c.get("input"), str)]
    note = (f"AFL++ ({report.get('compiler')}) {fuzz.get('seconds')} s, stopped: {fuzz.get('stopped')}; "
            f"execs {stats.get('execs_done', '?')}, corpus {stats.get('corpus_count', '?')}, "
            f"hangs {stats.get('saved_hangs', '?')}, crashes {stats.get('saved_crashes', '?')}; "
            f"kept {report.get('kept')}, validated {report.get('validated')}, valid {report.get('valid')}, "
            f"timed {report.get('triaged')}, target failed {report.get('target_failed')}; "
            f"{len(found)} candidates")
    if report.get("rejections"):
        note += "; rejections: " + " | ".join(str(r)[:160] for r in report["rejections"][:3])
    campaign = Campaign("afl", found, note)
    if fuzz.get("returncode") not in (0, None) and not stats:
        campaign.error, campaign.detail = "afl_failed", str(fuzz.get("log", ""))[-2000:]
    return campaign
