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

Large inputs are produced at load time by ``gen.py`` and expected outputs by the
reference solution in the sandbox; both are checked against ``tests.lock.json`` and
cached, so a second load costs nothing. ``python -m tczoo.benchmarks.zoo_mini lock``
rewrites the lock and signature files after an edit (maintainers only). Every verdict
must sit clear of the limits (TLE at >= 2x the time limit, everything that must run at
<= 0.5x): docs/zoo-mini.md, checked by bench/audit_zoo_mini_timing.py.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import yaml

from tczoo.paths import cached_json
from tczoo.schema import (
    FailureSignature,
    GoldenTest,
    Language,
    Problem,
    Program,
    Sample,
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


def _golden_inputs(pdir: Path) -> list[tuple[str, str]]:
    """(name, input) for every golden test, manual ones first, then generated ones."""
    tests = []
    manual = pdir / "tests" / "manual"
    if manual.is_dir():
        for f in sorted(manual.glob("*.in")):
            tests.append((f"manual/{f.stem}", f.read_text()))
    spec_path = pdir / "tests.yaml"
    specs = yaml.safe_load(spec_path.read_text()) if spec_path.is_file() else []
    for spec in specs or []:
        args = [str(a) for a in spec.get("args", [])]
        proc = subprocess.run(
            [sys.executable, "-I", str(pdir / "gen.py"), str(spec["seed"]), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode != 0:
            raise ZooMiniError(f"{pdir.name}: gen.py failed for {spec['name']}: {proc.stderr[-500:]}")
        tests.append((f"gen/{spec['name']}", proc.stdout))
    return tests


def _reference_outputs(problem: Problem, reference: Program, inputs: list[str], sandbox) -> list[str]:
    from tczoo.sandbox import Job, Limits

    # Generous limits: this computes the answer key, it is not judging the reference.
    limits = Limits(time_ms=max(10_000, problem.time_limit_ms * 5), memory_mb=max(1024, problem.memory_limit_mb))
    jobs = [Job(program=reference, stdin=s, limits=limits) for s in inputs]
    outputs = []
    for (inp, res) in zip(inputs, sandbox.run_many(jobs)):
        if not res.ok:
            raise ZooMiniError(
                f"{problem.id}: reference {reference.name} failed ({res.verdict.value}) on a golden "
                f"input: {res.stderr[-300:]}"
            )
        outputs.append(res.stdout)
    return outputs


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
    """Load one problem with its golden tests (generated and answered once, then cached).

    ``check_lock=False`` (maintainers re-locking after an edit) always regenerates: a
    cache keyed by the old lock would hand back the old tests."""
    problem, meta = _base_problem(pdir)
    lock_path = pdir / "tests.lock.json"
    lock = json.loads(lock_path.read_text()) if lock_path.is_file() else None

    def build() -> list[dict]:
        tests = _build_golden(problem, meta, pdir, sandbox)
        if check_lock and lock is not None:
            _check_against_lock(problem.id, tests, lock)
        return [t.model_dump() for t in tests]

    cacheable = check_lock and lock is not None
    data = cached_json("zoo-mini", [problem.id, lock], build) if cacheable else build()
    problem.golden_tests = [GoldenTest(**t) for t in data]
    _apply_rank(problem)
    return problem


def _build_golden(problem: Problem, meta: dict, pdir: Path, sandbox) -> list[GoldenTest]:
    named_inputs = _golden_inputs(pdir)
    own_sandbox = sandbox is None
    if own_sandbox:
        from tczoo.sandbox import Sandbox

        sandbox = Sandbox()
    try:
        outputs = _reference_outputs(problem, _reference(problem, meta), [i for _, i in named_inputs], sandbox)
    finally:
        if own_sandbox:
            sandbox.close()
    return [GoldenTest(name=n, input=i, output=o) for (n, i), o in zip(named_inputs, outputs)]


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
    loaded = []
    for i, d in enumerate(dirs):
        loaded.append(materialise(d, sandbox))
        if progress is not None:
            progress(i + 1, len(dirs))
    return loaded


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
