"""Building a TC-Bench-style benchmark from raw problems (TC-Bench §2, Algorithm 1).

Per problem, as the paper (§2.3) and the reference's ``data_construction`` scripts do:

1. wrong codes: only C/C++ submissions (``languages``) whose every failure on the golden
   tests is WA (``only_wa``; the paper "retain[s] only C++ submissions labeled as WA",
   ``filter.only_aw`` keeps rows made of A and W only);
2. the code-test matrix of those, then WrongSelect's filters and search (rank >= 5);
3. correct codes: the same languages, those passing every golden test here, the
   fastest 20% after min-max normalisation of their runtime, 8 of them sampled —
   selected once, here, and written out as the benchmark's ``solutions`` (the HackRate
   runner uses a TC-Bench file's solutions as its validators as they are);
4. the record in the TC-Bench hub schema, plus ``construction``: the counts at every
   step, the WrongSelect search history (Figures 7-8) and the correct-code selection.
"""

from __future__ import annotations

import json
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tczoo.benchmarks.correct_codes import FASTEST_FRACTION, VALIDATORS, select_fastest
from tczoo.benchmarks.wrongselect import MAX_STEPS, RESTARTS, build_benchmark_from_matrix
from tczoo.sandbox.types import Job, Limits
from tczoo.schema import Language, Problem

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

LETTERS = {"AC": "A", "WA": "W", "TLE": "T", "RE": "R", "MLE": "M", "CE": "C", "OLE": "O", "SE": "R"}
PAPER_LANGUAGES = (Language.CPP, Language.C)
WA_ONLY = frozenset({"AC", "WA"})  # the verdicts of a wrong code the paper keeps (``only_wa``)


def judge_matrix(problem: Problem, sandbox, *, keep: frozenset[str] | None = None) -> list[list[str]]:
    """Every wrong code on every golden test, under the problem's own limits, as the
    online judge that produced the matrix did.

    ``keep``: a row is wanted only while its verdicts stay in this set (build-benchmark's
    WA filter drops a code with any other verdict, whatever the rest of its row says):
    the first other verdict stops its row, and its cells not judged yet are ``""``. The
    tests then run largest input first, every code on one test before the next, so a
    code that times out on a big test is not run on the other big tests (a timeout
    costs the whole time limit)."""
    limits = Limits.of(problem)
    tests, codes = problem.golden_tests, problem.wrong_solutions
    rows = [[""] * len(tests) for _ in codes]
    order = [(i, j) for i in range(len(codes)) for j in range(len(tests))]
    if keep is not None:
        by_size = sorted(range(len(tests)), key=lambda j: -len(tests[j].input))
        order = [(i, j) for j in by_size for i in range(len(codes))]
    stopped: set[int] = set()
    sent: deque[tuple[int, int]] = deque()

    def jobs():
        for i, j in order:
            if i in stopped:
                continue
            sent.append((i, j))
            t = tests[j]
            yield Job(program=codes[i], stdin=t.input, expected=t.output, comparator=problem.checker,
                      output_validator=problem.output_validator, limits=limits)

    for result in sandbox.run_many(jobs()):
        i, j = sent.popleft()
        rows[i][j] = result.verdict.value
        if keep is not None and result.verdict.value not in keep:
            stopped.add(i)
    return rows


def tcbench_record(problem: Problem) -> dict:
    """``problem`` in the TC-Bench hub schema (what ``tcbench:PATH`` loads back)."""
    sample = problem.samples[0] if problem.samples else None
    record = {
        "problem_id": problem.id,
        "description": problem.statement,
        "time_limit": problem.time_limit_ms,
        "memory_limit": problem.memory_limit_mb,
        "sample_input": sample.input if sample else "",
        "sample_output": sample.output if sample else "",
        "solutions": [{"code": s.code, "lang": s.language.value} for s in problem.solutions],
        "wrong_solutions": [
            {
                "code": w.code,
                "lang": w.language.value,
                "output_str": "".join(LETTERS.get(v, "R") for v in w.signature.verdicts) if w.signature else "",
            }
            for w in problem.wrong_solutions
        ],
        "rank": problem.rank,
        # tczoo's extension of the schema: how outputs are judged, so that a benchmark built
        # from packages with a tolerance or their own output validator is judged the same
        # when loaded back (tcbench:PATH reads these fields when present)
        **({"checker": problem.checker} if problem.checker else {}),
        **({"output_validator": problem.output_validator.model_dump(mode="json")}
           if problem.output_validator else {}),
        **({"input_validators": [v.model_dump(mode="json") for v in problem.input_validators]}
           if problem.input_validators else {}),
    }
    if "construction" in problem.meta:
        record["construction"] = problem.meta["construction"]
    return record


def build_problem(problem: Problem, sandbox: "Sandbox", *, restarts: int = RESTARTS, max_steps: int = MAX_STEPS,
                  seed: int = 0, min_rank: int = 5, languages: tuple[Language, ...] | None = PAPER_LANGUAGES,
                  only_wa: bool = True, validators: int = VALIDATORS,
                  fastest_fraction: float = FASTEST_FRACTION) -> tuple[Problem | None, dict]:
    """One problem through the paper's pipeline: (the TC-Bench problem or None, report row)."""
    row: dict = {"problem": problem.id, "kept": False, "wrong_codes": len(problem.wrong_solutions)}
    if not problem.golden_tests or not problem.wrong_solutions:
        return None, {**row, "reason": "no golden tests or no wrong codes"}
    wanted = [w for w in problem.wrong_solutions if languages is None or w.language in languages]
    row["wrong_in_languages"] = len(wanted)
    rows = judge_matrix(problem.model_copy(update={"wrong_solutions": wanted}), sandbox,
                        keep=WA_ONLY if only_wa else None)
    pairs = [(w, r) for w, r in zip(wanted, rows) if not only_wa or set(r) <= WA_ONLY]
    row["wrong_only_wa"] = len(pairs)
    correct = [s for s in problem.solutions if languages is None or s.language in languages]
    selection = select_fastest(problem.model_copy(update={"solutions": correct}), sandbox, n=validators,
                               fraction=fastest_fraction, seed=seed)
    row["correct_codes"] = len(correct)
    row["selected_correct"] = len(selection.chosen)
    if not pairs:
        return None, {**row, "reason": "no wrong code left after the language / WA filter"}
    if not selection.chosen:
        return None, {**row, "reason": "no correct code passes the golden tests"}
    filtered = problem.model_copy(update={"wrong_solutions": [w for w, _ in pairs],
                                          "solutions": selection.chosen})
    built = build_benchmark_from_matrix(filtered, [r for _, r in pairs], restarts=restarts, max_steps=max_steps,
                                       seed=seed, min_rank=min_rank)
    if built is None:
        return None, {**row, "reason": "excluded by WrongSelect's filters (all-ones column or rank < min_rank)"}
    search = built.meta.pop("wrongselect")
    built.meta["construction"] = {
        "wrong_pool": len(problem.wrong_solutions),
        "wrong_in_languages": len(wanted),
        "wrong_only_wa": len(pairs),
        "wrong_after_row_filter": search["after_row_filter"],
        "rank": built.rank,
        "languages": [lang.value for lang in languages] if languages else None,
        "only_wa": only_wa,
        "wrongselect": {k: v for k, v in search.items() if k not in ("wrong_before", "after_row_filter")},
        "correct": {
            "pool": len(correct),
            "selected": [s.name for s in selection.chosen],
            "failed": selection.failed,
            "runtime_ms": selection.runtimes,
            "timed_on": selection.timed_on,
            "fraction": fastest_fraction,
            "seed": seed,
        },
    }
    row.update(kept=True, selected=len(built.wrong_solutions), rank=built.rank)
    return built, row


def build_benchmark(problems: list[Problem], sandbox: "Sandbox", out: Path, *, restarts: int = RESTARTS,
                    max_steps: int = MAX_STEPS, seed: int = 0, min_rank: int = 5,
                    languages: tuple[Language, ...] | None = PAPER_LANGUAGES, only_wa: bool = True,
                    progress: Callable[[str], None] | None = None) -> list[dict]:
    """Judge, filter and select every problem; write the kept ones to ``out`` (JSONL,
    atomically). Returns one report row per problem, saying what was kept and why not.

    Several problems are built at once (their batches share the sandbox's slots: one
    problem's compiles and its batch's start overlap another's tail); the output and
    the report keep the problems' order."""

    def one(problem: Problem) -> tuple[Problem | None, dict]:
        result = build_problem(problem, sandbox, restarts=restarts, max_steps=max_steps, seed=seed,
                               min_rank=min_rank, languages=languages, only_wa=only_wa)
        if progress is not None:
            progress(problem.id)
        return result

    from tczoo.paths import write_atomic

    at_once = max(1, min(len(problems), max(2, sandbox.workers // 4)))
    with ThreadPoolExecutor(at_once, thread_name_prefix="build-benchmark") as pool:
        built_rows = list(pool.map(one, problems))
    kept = [built for built, _ in built_rows if built is not None]
    report = [row for _, row in built_rows]
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, "".join(json.dumps(tcbench_record(p)) + "\n" for p in kept))
    return report
