"""Line coverage of a program on test inputs, measured in the sandbox.

``line_coverage(sandbox, program, inputs, limits=...)`` returns one ``Coverage`` per
input: how many times each line of the program's source ran (``hits``), which lines
hold code at all (``executable``), and how the measured run ended (``status``). TRAILS
uses the sets of lines hit to drop inputs that exercise the same code; WEDGE uses the
counts. The lines are those of ``program.code`` as given (1-based).

How it is measured, always inside the sandbox:

- **Python**: a driver program runs the source under ``sys.settrace`` counting ``line``
  events of the source's own frames — as ``__main__`` reading the input on stdin, or,
  for functional problems, importing it and calling the entry point with the input's
  JSON arguments (the convention of ``tczoo.execution.programs``). One fresh process per
  input. Tracing is slow: the CPU limit is ``slowdown`` times the given one.
- **C / C++**: a driver compiles the source with ``--coverage -O0`` (the program's other
  flags kept), runs the binary on each input in turn under the given limits and reads
  gcov's JSON report for the source file after each run. One sandboxed job per call:
  the instrumented build happens once.

The measured run is a measurement, not a judgement: outputs and verdicts of record
come from ``run_program``. A run killed by a signal (C/C++) leaves no coverage data;
its ``hits`` are empty and ``detail`` says so.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from tczoo.sandbox.types import Limits, Verdict
from tczoo.schema import Language, Program

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

PYTHON_SLOWDOWN = 5.0  # settrace costs several times the untraced CPU time
OUTPUT_CAP = 64 * 1024  # bytes of each measured run's output kept
BUILD_SECONDS = 60  # the instrumented build (and gcov) inside the C/C++ job


class CoverageUnavailable(ValueError):
    """Coverage cannot be measured for this program (its language has no tracer here)."""


class Coverage(BaseModel):
    """What one input made the program execute."""

    status: Verdict  # how the measured run ended; CE: the instrumented build failed; SE: ours
    hits: dict[int, int] = Field(default_factory=dict)  # line -> times it ran (lines run at least once)
    executable: list[int] = Field(default_factory=list)  # lines holding code ([] when unknown)
    output: str = ""  # the measured run's output (truncated to OUTPUT_CAP)
    detail: str = ""  # why nothing or only part was measured, or the run's error tail

    @property
    def lines(self) -> frozenset[int]:
        """The lines that ran at least once."""
        return frozenset(self.hits)

    @property
    def measured(self) -> bool:
        """Whether coverage data was collected (a crashed Python run still yields some)."""
        return self.status not in (Verdict.CE, Verdict.SE) and (bool(self.hits) or not self.detail)


def supported(language: Language) -> bool:
    return language in (Language.PYTHON, Language.CPP, Language.C)


def line_coverage(sandbox: "Sandbox", program: Program, inputs: list[str], *, limits: Limits,
                  entry_point: str | None = None, slowdown: float = PYTHON_SLOWDOWN) -> list[Coverage]:
    """One ``Coverage`` per input, in input order. ``entry_point``: the input is the JSON
    arguments of that function (Python only). Raises ``CoverageUnavailable`` for a
    language without a tracer (Java)."""
    if not inputs:
        return []
    if program.language is Language.PYTHON:
        return _python(sandbox, program, inputs, limits, entry_point, slowdown)
    if entry_point is not None:
        raise CoverageUnavailable("functional problems need Python programs")
    if program.language in (Language.CPP, Language.C):
        return _native(sandbox, program, inputs, limits)
    raise CoverageUnavailable(f"no line coverage for {program.language.value} programs")


# --------------------------------------------------------------------------- Python


_PY_DRIVER = r'''
import json, os, sys, traceback

def _emit(marker, payload):
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    os.write(1, ("\n" + marker + json.dumps(payload) + "\n").encode())

def _lines_of(code, out):
    for _, _, line in code.co_lines():
        if line:
            out.add(line)
    for const in code.co_consts:
        if hasattr(const, "co_lines"):
            _lines_of(const, out)

def _main():
    with open("cov.json", encoding="utf-8") as f:
        spec = json.load(f)
    marker = spec["marker"]
    with open("target.py", encoding="utf-8", errors="surrogateescape") as f:
        source = f.read()
    try:
        code = compile(source, "target.py", "exec")
    except BaseException:
        sys.stderr.write(traceback.format_exc()[-2000:])
        _emit(marker, {"exit": 1, "hits": {}, "executable": [], "error": "compile: " + traceback.format_exc()[-1500:]})
        os._exit(1)
    executable = set()
    _lines_of(code, executable)
    hits = {}

    def local(frame, event, arg):
        if event == "line":
            n = frame.f_lineno
            hits[n] = hits.get(n, 0) + 1
        return local

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != "target.py":
            return None
        return local(frame, event, arg)

    import threading
    status, error, output = 0, "", None
    entry = spec.get("entry")
    ns = {"__name__": "__main__" if entry is None else "solution", "__builtins__": __builtins__}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    threading.settrace(tracer)
    sys.settrace(tracer)
    try:
        exec(code, ns)
        if entry is not None:
            fn = ns.get(entry)
            if not callable(fn) and isinstance(ns.get("Solution"), type):
                fn = getattr(ns["Solution"](), entry)
            try:
                args = json.loads(spec["payload"])
            except ValueError:  # a Python literal where JSON cannot carry the arguments
                import ast
                args = ast.literal_eval(spec["payload"])
            value = fn(**args) if isinstance(args, dict) else fn(*args)
            output = repr(value)
    except SystemExit as e:
        code_ = e.code
        status = 0 if code_ is None else (code_ if isinstance(code_, int) else 1)
    except BaseException as e:
        # the driver's own frame first: leave it out of what the caller reads
        status = 1
        error = "".join(traceback.format_exception(type(e), e, e.__traceback__.tb_next))[-1500:]
    finally:
        sys.settrace(None)
        threading.settrace(None)
    if error:
        sys.stderr.write(error)
    payload = {"exit": status, "hits": hits, "executable": sorted(executable), "error": error}
    if output is not None:
        payload["output"] = output[:@CAP@]
    _emit(marker, payload)
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    os._exit(status if 0 <= status < 256 else 1)

_main()
'''.replace("@CAP@", str(OUTPUT_CAP))

PY_DRIVER_PROGRAM = Program(code=_PY_DRIVER, language=Language.PYTHON, name="tczoo-coverage-py")


def _python(sandbox, program, inputs, limits, entry_point, slowdown) -> list[Coverage]:
    from tczoo.sandbox.types import Job

    traced = limits.model_copy(update={"time_ms": int(limits.time_ms * slowdown) + 1000, "wall_ms": None})
    jobs, markers = [], []
    for text in inputs:
        marker = f"@@tczoo-coverage-{secrets.token_hex(8)}@@"
        spec = {"marker": marker, "entry": entry_point}
        if entry_point is not None:
            spec["payload"] = text
        files = {"target.py": program.code, "cov.json": json.dumps(spec)}
        jobs.append(Job(program=PY_DRIVER_PROGRAM, stdin="" if entry_point else text, limits=traced, files=files))
        markers.append(marker)
    out = []
    for run, marker in zip(sandbox.run_many(jobs), markers):
        out.append(_read_python(run, marker))
    return out


def _marked_json(stdout: str, marker: str) -> tuple[int, dict[str, Any] | None]:
    """Where the driver's last ``marker`` line starts and the JSON object after it (None
    if unreadable, or not an object: the program may have printed the marker itself)."""
    at = stdout.rfind(marker)
    if at < 0:
        return at, None
    try:
        data = json.loads(stdout[at + len(marker):].split("\n", 1)[0])
    except ValueError:
        return at, None
    return at, data if isinstance(data, dict) else None


def _read_python(run, marker: str) -> Coverage:
    at, data = _marked_json(run.stdout, marker)
    program_output = run.stdout[:at].removesuffix("\n") if at >= 0 else run.stdout
    if run.verdict is Verdict.SE:
        return Coverage(status=Verdict.SE, detail=run.message[:2000])
    if data is None:
        # killed (time, memory, output) or exited behind the driver's back (os._exit)
        status = run.verdict if run.verdict is not Verdict.AC else Verdict.RE
        why = run.message or "the program exited without letting the tracer report"
        return Coverage(status=status, output=program_output[:OUTPUT_CAP], detail=why[:2000])
    hits = {int(k): int(v) for k, v in data.get("hits", {}).items()}
    error = data.get("error") or ""
    if error.startswith("compile: "):
        return Coverage(status=Verdict.CE, detail=error[:2000])
    if run.verdict in (Verdict.TLE, Verdict.MLE, Verdict.OLE):
        status = run.verdict
    else:
        status = Verdict.AC if data.get("exit", 1) == 0 else Verdict.RE
    output = data["output"] if "output" in data else program_output
    return Coverage(status=status, hits=hits, executable=list(data.get("executable", [])),
                    output=output[:OUTPUT_CAP], detail=error[:2000])


# --------------------------------------------------------------------------- C / C++


_NATIVE_DRIVER = r'''
import json, os, resource, shutil, signal, subprocess, sys

def _emit(marker, payload):
    os.write(1, ("\n" + marker + json.dumps(payload) + "\n").encode())

def _gcov(gcda):
    # gcov's JSON report of the source file: line -> count
    p = subprocess.run(["gcov", "--json-format", "--stdout", gcda], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    counts = {}
    for line in p.stdout.decode(errors="replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        report = json.loads(line)
        for f in report.get("files", []):
            if os.path.basename(f.get("file", "")) != SOURCE:
                continue
            for entry in f.get("lines", []):
                n = int(entry["line_number"])
                counts[n] = counts.get(n, 0) + int(entry["count"])
    return counts

def _limit(cpu_s, memory, fsize):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_STACK, (memory, memory))
    return apply

def _main():
    global SOURCE
    with open("cov.json", encoding="utf-8") as f:
        spec = json.load(f)
    marker, SOURCE = spec["marker"], spec["source"]
    if shutil.which("gcov") is None or shutil.which(spec["compiler"]) is None:
        _emit(marker, {"error": "gcov or %s is not installed" % spec["compiler"]})
        return
    build = [spec["compiler"], *spec["flags"], "-O0", "--coverage", "-c", SOURCE, "-o", "main.o"]
    link = [spec["compiler"], "--coverage", "main.o", "-o", "prog", *spec["libs"]]
    for argv in (build, link):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=@BUILD@)
        if p.returncode != 0:
            _emit(marker, {"error": "build: " + p.stdout.decode(errors="replace")[-2000:]})
            return
    executable = sorted(_gcov("main.gcno"))
    results = []
    for i, text in enumerate(spec["inputs"]):
        if os.path.exists("main.gcda"):
            os.remove("main.gcda")
        with open("in.txt", "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
        status, detail = "AC", ""
        with open("in.txt", "rb") as fin, open("out.txt", "wb") as fout, open("err.txt", "wb") as ferr:
            try:
                p = subprocess.run(["./prog"], stdin=fin, stdout=fout, stderr=ferr, timeout=spec["wall_s"],
                                   preexec_fn=_limit(spec["cpu_s"], spec["memory"], spec["fsize"]))
                rc = p.returncode
                if rc < 0:
                    sig = -rc
                    status = {signal.SIGXCPU: "TLE", signal.SIGXFSZ: "OLE"}.get(sig, "RE")
                    detail = "signal %d" % sig
                elif rc != 0:
                    status, detail = "RE", "exit code %d" % rc
            except subprocess.TimeoutExpired:
                status, detail = "TLE", "wall-clock guard"
        with open("out.txt", "rb") as fh:
            output = fh.read(@CAP@).decode(errors="replace")
        with open("err.txt", "rb") as fh:
            err = fh.read(4000).decode(errors="replace")
        hits = {}
        if os.path.exists("main.gcda"):
            hits = {n: c for n, c in _gcov("main.gcda").items() if c > 0}
        elif not detail:
            detail = "no coverage data"
        elif status != "AC":
            detail += " (killed before writing coverage data)"
        results.append({"status": status, "hits": hits, "output": output,
                        "detail": (detail + ("\n" + err[-1500:] if err and status != "AC" else ""))[:2000]})
    _emit(marker, {"executable": executable, "results": results})

_main()
'''.replace("@CAP@", str(OUTPUT_CAP)).replace("@BUILD@", str(BUILD_SECONDS))

NATIVE_DRIVER_PROGRAM = Program(code=_NATIVE_DRIVER, language=Language.PYTHON, name="tczoo-coverage-native")


def _native(sandbox, program, inputs, limits) -> list[Coverage]:
    from tczoo.sandbox.compile import DEFAULT_FLAGS

    flags = program.flags if program.flags is not None else DEFAULT_FLAGS.get(program.language, [])
    flags = [f for f in flags if not f.startswith("-O")]  # -O0: counts per source line
    cpp = program.language is Language.CPP
    marker = f"@@tczoo-coverage-{secrets.token_hex(8)}@@"
    cpu_s = max(1, -(-limits.time_ms // 1000))
    per_run_wall = 2 * cpu_s + 2
    spec = {
        "marker": marker, "source": "main.cpp" if cpp else "main.c", "compiler": "g++" if cpp else "gcc",
        "flags": flags, "libs": [] if cpp else ["-lm"], "inputs": inputs, "cpu_s": cpu_s, "wall_s": per_run_wall,
        "memory": limits.memory_mb << 20, "fsize": max(limits.output_kb, 1024) * 1024,
    }
    # the driver, the compiler and one program at a time share the job's limits
    budget_s = 2 * BUILD_SECONDS + len(inputs) * (per_run_wall + 5)
    job_limits = Limits(time_ms=budget_s * 1000, wall_ms=budget_s * 1000, memory_mb=max(2048, limits.memory_mb + 1024),
                        output_kb=max(64 * 1024, len(inputs) * (OUTPUT_CAP // 1024 + 64)), processes=64,
                        file_kb=max(limits.file_kb, limits.output_kb, 16 * 1024))
    files = {spec["source"]: program.code, "cov.json": json.dumps(spec)}
    run = sandbox.run(NATIVE_DRIVER_PROGRAM, "", job_limits, files=files)
    at, data = _marked_json(run.stdout, marker)
    if data is None:
        status = Verdict.SE
        why = f"coverage job failed ({run.verdict.value}): {run.message or run.stderr[-1500:]}"
        return [Coverage(status=status, detail=why[:2000]) for _ in inputs]
    if "error" in data:
        status = Verdict.CE if data["error"].startswith("build: ") else Verdict.SE
        return [Coverage(status=status, detail=data["error"][:2000]) for _ in inputs]
    executable = [int(n) for n in data.get("executable", [])]
    return [Coverage(status=Verdict(r["status"]), hits={int(k): int(v) for k, v in r["hits"].items()},
                     executable=executable, output=r.get("output", ""), detail=r.get("detail", ""))
            for r in data["results"]]
