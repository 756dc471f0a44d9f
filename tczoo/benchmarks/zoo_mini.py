"""zoo-mini: the benchmark bundled with tczoo (original problems written for it).

Each problem is a directory under ``zoo_mini/problems/<id>/``::

    problem.yaml      limits, tags, samples, reference solution, descriptions of solutions
    statement.md      contest-style statement
    accepted/*        accepted solutions (C++ and Python, fast and slower)
    wrong/*           wrong solutions, one realistic bug each (described in problem.yaml)
    tests/manual/*.in hand-written golden inputs
    gen.py, tests.yaml  seeded generator and the generated golden tests (max sizes ...)
    tests.lock.json   sha256 of every golden input and expected output
    signatures.json   each wrong solution's verdicts on the golden tests (from our judge)
    input_validators/ the input validator (Kattis protocol: exit 42 valid, 43 invalid); a C++
                      one includes ``zoo_mini/input_validator.h``, pasted in by the loader

Large inputs are produced at load time by ``gen.py`` and expected outputs by the
reference solution in the sandbox; both are checked against ``tests.lock.json`` and
kept in tczoo's data directory (``tczoo.paths.data_dir``: derived once per machine,
checked against the lock on every read), so a later load, with an empty cache too,
reads them back in a second or two. Deriving them (~155 generator runs, ~30 s of CPU
here) runs the generators on every core at once, one interpreter per core, while the
references compile. ``python -m tczoo.benchmarks.zoo_mini lock``
rewrites the lock and signature files after an edit (maintainers only). Every verdict
must sit clear of the limits (TLE at >= 2x the time limit, everything that must run at
<= 0.5x): docs/zoo-mini.md, checked by bench/audit_zoo_mini_timing.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import yaml

from tczoo.paths import data_dir, write_atomic
from tczoo.schema import (
    FailureSignature,
    GoldenTest,
    Language,
    Problem,
    Program,
    Sample,
    Validator,
    WrongProgram,
)

ROOT = Path(__file__).parent / "zoo_mini" / "problems"
NAME = "zoo-mini"


class ZooMiniError(ValueError):
    pass


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def problem_dirs(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in root.iterdir() if (p / "problem.yaml").is_file()) if root.is_dir() else []


def _program(path: Path, meta: dict | None, *, wrong: bool = False, signature=None) -> Program:
    language = Language.parse(path.suffix.lstrip("."))
    meta = meta if isinstance(meta, dict) else {"description": meta or ""}
    cls = WrongProgram if wrong else Program
    kwargs = dict(code=path.read_text(), language=language, name=f"{path.parent.name}/{path.name}", meta=meta)
    if wrong:
        kwargs["signature"] = signature
    return cls(**kwargs)


VALIDATOR_HEADER = Path(__file__).parent / "zoo_mini" / "input_validator.h"
_HEADER_INCLUDE = '#include "input_validator.h"'


def _input_validators(pdir: Path) -> list[Validator]:
    """The problem's input validators, ``input_validators/*`` (every one must accept an
    input for it to be valid). A C++ validator's ``#include "input_validator.h"`` line
    is replaced by the shared reader, so the program the sandbox compiles is one file.
    Time and memory limits are the Kattis format's validation defaults (``Validator``)."""
    folder = pdir / "input_validators"
    if not folder.is_dir():
        return []
    validators = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        try:
            language = Language.parse(path.suffix.lstrip("."))
        except ValueError:
            raise ZooMiniError(f"{pdir.name}: input_validators/{path.name} is not a program in a language "
                               "the sandbox runs") from None
        lines = path.read_text().split("\n")
        if language is Language.CPP and _HEADER_INCLUDE in lines:
            at = lines.index(_HEADER_INCLUDE)
            # #line keeps a compiler's messages pointing into the validator's own file.
            lines[at:at + 1] = [VALIDATOR_HEADER.read_text().rstrip("\n"),
                                f'#line {at + 2} "input_validators/{path.name}"']
        program = Program(code="\n".join(lines), language=language, name=f"input_validators/{path.name}")
        validators.append(Validator(program=program))
    return validators


GEN_DRIVER = Path(__file__).with_name("zoo_mini_gen.py")
GEN_TIMEOUT_S = 120  # one generator process's last answer


def _golden_specs(pdir: Path) -> list[tuple[str, str | None, list[str]]]:
    """(name, manual input or None, generator argv) for every golden test: manual ones
    first, then generated ones."""
    tests: list[tuple[str, str | None, list[str]]] = []
    manual = pdir / "tests" / "manual"
    if manual.is_dir():
        for f in sorted(manual.glob("*.in")):
            tests.append((f"manual/{f.stem}", f.read_text(), []))
    spec_path = pdir / "tests.yaml"
    specs = yaml.safe_load(spec_path.read_text()) if spec_path.is_file() else []
    for spec in specs or []:
        tests.append((f"gen/{spec['name']}", None, [str(spec["seed"]), *(str(a) for a in spec.get("args", []))]))
    return tests


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _generate(work: list[tuple[Path, str, list[str]]]) -> list[str]:
    """Run ``gen.py`` for each (problem dir, test name, argv): as many at once as there
    are cores, each core's runs in one interpreter (``zoo_mini_gen.py``). Returns the
    inputs in order; a generator that fails raises ``ZooMiniError`` naming its test."""
    results: list[str | None] = [None] * len(work)
    errors: list[str] = []
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for i in range(len(work)):
        todo.put(i)

    def worker() -> None:
        proc = subprocess.Popen([sys.executable, "-I", str(GEN_DRIVER)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, encoding="utf-8")
        try:
            while not errors:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                pdir, name, argv = work[i]
                proc.stdin.write(json.dumps([str(pdir / "gen.py"), argv]) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                reply = json.loads(line) if line else {"ok": False, "error": "the generator process died"}
                if not reply["ok"]:
                    errors.append(f"{pdir.name}: gen.py failed for {name.removeprefix('gen/')}: "
                                  f"{reply['error'][-500:]}")
                    return
                results[i] = reply["out"]
        finally:
            proc.stdin.close()
            try:
                proc.wait(GEN_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    threads = [threading.Thread(target=worker, name="zoo-mini-gen", daemon=True)
               for _ in range(max(1, min(len(work), _cores())))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise ZooMiniError(errors[0])
    return results  # type: ignore[return-value]


def _base_problem(pdir: Path) -> tuple[Problem, dict]:
    meta = yaml.safe_load((pdir / "problem.yaml").read_text())
    signatures = {}
    sig_path = pdir / "signatures.json"
    if sig_path.is_file():
        signatures = json.loads(sig_path.read_text())
    accepted_meta = meta.get("accepted") or {}
    wrong_meta = meta.get("wrong") or {}
    solutions = [_program(pdir / "accepted" / f, accepted_meta.get(f)) for f in sorted(accepted_meta)]
    wrongs = []
    for f in sorted(wrong_meta):
        sig = signatures.get(f"wrong/{f}")
        wrongs.append(
            _program(
                pdir / "wrong" / f,
                wrong_meta.get(f),
                wrong=True,
                signature=FailureSignature(verdicts=sig) if sig else None,
            )
        )
    problem = Problem(
        id=meta["id"],
        title=meta.get("title", ""),
        statement=(pdir / "statement.md").read_text(),
        time_limit_ms=int(meta.get("time_limit_ms", 2000)),
        memory_limit_mb=int(meta.get("memory_limit_mb", 256)),
        samples=[Sample(input=s["input"], output=s["output"]) for s in meta.get("samples", [])],
        solutions=solutions,
        wrong_solutions=wrongs,
        checker=meta.get("checker"),
        input_validators=_input_validators(pdir),
        tags=list(meta.get("tags", [])),
        source=NAME,
    )
    return problem, meta


def _reference(problem: Problem, meta: dict) -> Program:
    ref_name = meta.get("reference") or ""
    for p in problem.solutions:
        if p.name == ref_name:
            return p
    raise ZooMiniError(f"{problem.id}: reference {ref_name!r} is not among the accepted solutions")


def materialise(pdir: Path, sandbox=None, *, check_lock: bool = True) -> Problem:
    """Load one problem with its golden tests (derived once, then kept).

    ``check_lock=False`` (maintainers re-locking after an edit) always derives them: a
    copy kept under the old lock would hand back the old tests."""
    if check_lock:
        return materialise_many([pdir], sandbox)[0]
    problem, meta = _base_problem(pdir)
    problem.golden_tests = _derive([(problem, meta, pdir)], sandbox)[0]
    _apply_rank(problem)
    return problem


_DERIVING = threading.Lock()  # one derivation at a time in this process (others wait, then read it)


def materialise_many(dirs: list[Path], sandbox=None,
                     progress: Callable[[int, int], None] | None = None) -> list[Problem]:
    """Load problems with their golden tests: read back those this machine derived
    before (checked against tests.lock.json), derive the others all at once.
    ``progress(done, total)`` hears each problem whose tests are ready."""
    loaded = [(*_base_problem(d), d) for d in dirs]
    say = progress or (lambda done, total: None)
    locks = [_lock(pdir) for _, _, pdir in loaded]
    tests: dict[int, list[GoldenTest]] = {}

    def read_kept(indices) -> list[int]:
        missing = []
        for i in indices:
            kept = _read_kept(loaded[i][0].id, locks[i]) if locks[i] is not None else None
            if kept is None:
                missing.append(i)
            else:
                tests[i] = kept
                say(len(tests), len(loaded))
        return missing

    missing = read_kept(range(len(loaded)))
    if missing:
        with _DERIVING:
            missing = read_kept(missing)  # another thread may have derived them meanwhile
            derived = _derive([loaded[i] for i in missing], sandbox) if missing else []
            for i, golden in zip(missing, derived):
                problem_id, lock = loaded[i][0].id, locks[i]
                if lock is not None:
                    _check_against_lock(problem_id, golden, lock)
                    write_atomic(_kept_path(problem_id, lock),
                                 json.dumps([[t.name, t.input, t.output] for t in golden]))
                tests[i] = golden
                say(len(tests), len(loaded))
    problems = []
    for i, (problem, _, _) in enumerate(loaded):
        problem.golden_tests = tests[i]
        _apply_rank(problem)
        problems.append(problem)
    return problems


def _lock(pdir: Path) -> dict | None:
    path = pdir / "tests.lock.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _kept_path(problem_id: str, lock: dict) -> Path:
    digest = hashlib.sha256(json.dumps(lock, sort_keys=True).encode()).hexdigest()[:24]
    return data_dir() / "zoo-mini" / f"{problem_id}-{digest}.json"


def _read_kept(problem_id: str, lock: dict) -> list[GoldenTest] | None:
    """The golden tests this machine derived before, if every one still matches the lock
    (a damaged or stale file is derived again, never trusted)."""
    try:
        rows = json.loads(_kept_path(problem_id, lock).read_text())
        tests = [GoldenTest(name=name, input=inp, output=out) for name, inp, out in rows]
        _check_against_lock(problem_id, tests, lock)
    except (OSError, ValueError, TypeError, ZooMiniError):
        return None
    return tests


def _derive(items: list[tuple[Problem, dict, Path]], sandbox) -> list[list[GoldenTest]]:
    """Golden tests of several problems at once: every generator run on all cores while
    the references compile, then every reference run in one batch over all slots."""
    from tczoo.sandbox import Job, Limits

    own_sandbox = sandbox is None
    if own_sandbox:
        from tczoo.sandbox import Sandbox

        sandbox = Sandbox()
    try:
        references = [_reference(problem, meta) for problem, meta, _ in items]
        specs = [_golden_specs(pdir) for _, _, pdir in items]
        with ThreadPoolExecutor(max(1, sandbox.workers), thread_name_prefix="zoo-mini-compile") as pool:
            compiled = [pool.submit(sandbox.compile, ref) for ref in references]
            made = iter(_generate([(pdir, name, argv) for (_, _, pdir), sp in zip(items, specs)
                                   for name, text, argv in sp if text is None]))
            inputs = [[(name, text if text is not None else next(made)) for name, text, _ in sp] for sp in specs]
            for (problem, _, _), ref, c in zip(items, references, compiled):
                built = c.result()
                if not built.ok:
                    raise ZooMiniError(f"{problem.id}: reference {ref.name} does not compile: {built.message[:300]}")
        jobs = []
        for (problem, _, _), ref, named in zip(items, references, inputs):
            # Generous limits: this computes the answer key, it is not judging the reference.
            limits = Limits(time_ms=max(10_000, problem.time_limit_ms * 5),
                            memory_mb=max(1024, problem.memory_limit_mb))
            jobs += [Job(program=ref, stdin=inp, limits=limits) for _, inp in named]
        runs = iter(sandbox.run_many(jobs))
        derived = []
        for (problem, _, _), ref, named in zip(items, references, inputs):
            golden = []
            for name, inp in named:
                res = next(runs)
                if not res.ok:
                    raise ZooMiniError(f"{problem.id}: reference {ref.name} failed ({res.verdict.value}) on golden "
                                       f"test {name}: {res.stderr[-300:]}")
                golden.append(GoldenTest(name=name, input=inp, output=res.stdout))
            derived.append(golden)
        return derived
    finally:
        if own_sandbox:
            sandbox.close()


def _check_against_lock(problem_id: str, tests: list[GoldenTest], lock: dict) -> None:
    for t in tests:
        want = lock.get(t.name)
        if want is None or want["input"] != sha256(t.input) or want["output"] != sha256(t.output):
            raise ZooMiniError(
                f"{problem_id}: golden test {t.name} does not match tests.lock.json "
                "(generator or reference changed; maintainers: python -m tczoo.benchmarks.zoo_mini lock)"
            )
    if set(lock) != {t.name for t in tests}:
        raise ZooMiniError(f"{problem_id}: tests.lock.json lists other tests than the problem has")


def _apply_rank(problem: Problem) -> None:
    """TC-Bench's test budget unit: the rank of the wrong-code x golden-test matrix."""
    rows = [w.signature.bits for w in problem.wrong_solutions if w.signature]
    if rows:
        import numpy as np

        problem.rank = int(np.linalg.matrix_rank(np.array(rows, dtype=float)))


def ids(root: Path = ROOT) -> list[str]:
    """The problem ids, in order, without loading anything."""
    return sorted(yaml.safe_load((d / "problem.yaml").read_text())["id"] for d in problem_dirs(root))


def load(problems: list[str] | None = None, *, sandbox=None, root: Path = ROOT, limit: int | None = None,
         progress=None) -> list[Problem]:
    """The problems (``problems``: ids or id prefixes; ``limit``: the first N), each
    with its golden tests -- built in ``sandbox`` the first time, then cached;
    ``progress(done, total)`` as each is ready."""
    dirs = problem_dirs(root)
    if problems:
        from tczoo.benchmarks.ids import match_ids

        by_id = {}
        for d in dirs:
            pid = yaml.safe_load((d / "problem.yaml").read_text())["id"]
            by_id[pid] = d
        chosen = {k for hits in match_ids(problems, sorted(by_id), missing="zoo-mini has no problem").values()
                  for k in hits}
        dirs = [d for pid, d in sorted(by_id.items()) if pid in chosen]
    if limit is not None:
        dirs = dirs[:limit]
    return materialise_many(dirs, sandbox, progress=progress)


# --------------------------------------------------------------------------- maintenance


def lock(root: Path = ROOT, problems: list[str] | None = None) -> None:
    """Recompute tests.lock.json and signatures.json with our own judge."""
    from tczoo.sandbox import Job, Limits, Sandbox

    with Sandbox() as sandbox:
        for pdir in problem_dirs(root):
            if problems and not any(pdir.name.startswith(p) for p in problems):
                continue
            problem = materialise(pdir, sandbox, check_lock=False)
            lock_data = {t.name: {"input": sha256(t.input), "output": sha256(t.output)} for t in problem.golden_tests}
            (pdir / "tests.lock.json").write_text(json.dumps(lock_data, indent=1, sort_keys=True) + "\n")
            limits = Limits.of(problem)
            sigs = {}
            for w in problem.wrong_solutions:
                jobs = [
                    Job(program=w, stdin=t.input, expected=t.output, comparator=problem.checker, limits=limits)
                    for t in problem.golden_tests
                ]
                sigs[w.name] = [r.verdict.value for r in sandbox.run_many(jobs)]
            (pdir / "signatures.json").write_text(json.dumps(sigs, indent=1, sort_keys=True) + "\n")
            print(f"{problem.id}: {len(problem.golden_tests)} tests, {len(sigs)} signatures")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "lock":
        lock(problems=sys.argv[2:] or None)
    else:
        print("usage: python -m tczoo.benchmarks.zoo_mini lock [PROBLEM_ID_PREFIX ...]")
