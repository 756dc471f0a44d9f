"""WEDGE (methods/wedge): contrast mining, the perf_condition contract, and whole runs on
zoo-mini zm04 (Ribbon Pieces; accepted fast/slow solutions in C++ and Python) with a
scripted model, real compilers, AFL++ (when installed) and the real sandbox, scored by
the efficiency runner. Fuzzing budgets are a few seconds."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time

import pytest

from hostile_fixtures import sandbox_uids
from tczoo.execution import score_suite
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.methods.wedge import Wedge
from tczoo.methods.wedge import afl
from tczoo.methods.wedge.conditions import condition_ids, instrument, satisfied
from tczoo.methods.wedge.loop import bucket
from tczoo.methods.wedge.profile import Measured, contrast_pair, similarity
from tczoo.runners.efficiency import EfficiencyRunner
from tczoo.schema import Language, Setting, Task
from tczoo.store import RunStore
from tczoo.templates import Prompts

VALIDATOR = '''def validate_input(text: str) -> None:
    lines = text.split("\\n")
    while lines and not lines[-1].strip():
        lines.pop()
    assert len(lines) == 2, "two lines expected"
    head = lines[0].split()
    assert len(head) == 2, "n and k expected"
    n, k = int(head[0]), int(head[1])
    assert 1 <= n <= 200000, "n out of range"
    assert 1 <= k <= 10**15, "k out of range"
    a = lines[1].split()
    assert len(a) == n, "n lengths expected"
    assert all(1 <= int(x) <= 10**9 for x in a), "a_i out of range"
'''
# Rejects the second sample (it insists on n >= 3): a validator to be repaired.
STRICT_VALIDATOR = VALIDATOR.replace('assert 1 <= n <= 200000, "n out of range"',
                                     'assert 3 <= n <= 200000, "n out of range"')
# Checks the format only: n may exceed the statement's bound.
SLOPPY_VALIDATOR = VALIDATOR.replace('assert 1 <= n <= 200000, "n out of range"', 'pass')
INVARIANTS = """1. n close to 2*10^5: every round of the binary search walks all ribbons (lines 15-17).
2. k above 10^9: the count never reaches k early, so no round exits early (line 17)."""
MUTATOR = '''import random

def mutate_input(text: str) -> str:
    n = random.choice([200000, 199999, random.randint(190000, 200000)])
    k = random.choice([10**15, 10**15 - 1, random.randint(10**14, 10**15)])
    a = [random.choice([1, 2, 3, 5, 7, 9]) for _ in range(n)]
    a[random.randrange(n)] = 10**9
    return f"{n} {k}\\n" + " ".join(map(str, a)) + "\\n"
'''
CRASHING_MUTATOR = "def mutate_input(text: str) -> str:\n    return text.split()[99]\n"
OVERSIZED_MUTATOR = MUTATOR.replace("n = random.choice([200000, 199999, random.randint(190000, 200000)])",
                                    "n = 250000")
# Fine in the probe (a sandboxed call); inside afl-fuzz (AFL_PYTHON_MODULE is set) its
# third call never returns.
HANGING_MUTATOR = MUTATOR.replace("import random\n", "import os\nimport random\n_calls = [0]\n").replace(
    "    n = random.choice(", "    _calls[0] += 1\n    while 'AFL_PYTHON_MODULE' in os.environ and _calls[0] > 2:\n"
    "        pass\n    n = random.choice(")


def checks_for(code: str, language: Language) -> str:
    """The reference with two perf_condition checks after reading the input."""
    if language is Language.PYTHON:
        anchor = "    lo, hi = 0, max(a)"
        checks = "    perf_condition(1, n > 100000)\n    perf_condition(2, k > 10**9)\n"
    else:
        anchor = "    long long lo = 0, hi"
        checks = "    perf_condition(1, n > 100000);\n    perf_condition(2, k > 1000000000LL);\n"
    assert anchor in code
    return code.replace(anchor, checks + anchor, 1)


def fenced(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code.strip()}\n```"


@pytest.fixture(scope="module")
def zm04(sandbox):
    from tczoo.benchmarks import load_benchmark

    [problem] = load_benchmark("zoo-mini", ["zm04"], sandbox=sandbox)
    return problem


def solution(problem, name):
    return next(s for s in problem.solutions if s.name == name)


def script(path, reference, *, validator=(VALIDATOR,), instrumented=None, mutator=(MUTATOR,),
           validator_repair=None, instrument_repair=None, mutator_repair=None):
    """A scripted model's rules for one WEDGE generation on ``reference``; returns ``path``."""
    lang = "python" if reference.language is Language.PYTHON else "cpp"
    instrumented = instrumented or [checks_for(reference.code, reference.language)]
    rules = []
    if validator_repair:
        rules.append(("Your validator", [fenced(v) for v in validator_repair]))
    if instrument_repair:
        rules.append(("Your instrumented program", [fenced(c, lang) for c in instrument_repair]))
    if mutator_repair:
        rules.append(("Your mutator", [fenced(m) for m in mutator_repair]))
    rules += [("def mutate_input", [fenced(m) for m in mutator]),
              (r"perf_condition\(ID", [fenced(c, lang) for c in instrumented]),
              ("def validate_input", [fenced(v) for v in validator]),
              ("between 2 and 5", INVARIANTS)]
    path.write_text("".join(json.dumps({"match": m, "responses": r if isinstance(r, list) else [r]}) + "\n"
                            for m, r in rules))
    return path


def run_wedge(sandbox, tmp_path, problem, reference, *, validator=(VALIDATOR,), instrumented=None,
              mutator=(MUTATOR,), validator_repair=None, instrument_repair=None, mutator_repair=None, **params):
    """One WEDGE generation with scripted answers; returns (suite, task, prompts seen)."""
    path = script(tmp_path / "model.jsonl", reference, validator=validator, instrumented=instrumented,
                  mutator=mutator, validator_repair=validator_repair, instrument_repair=instrument_repair,
                  mutator_repair=mutator_repair)
    seen: list[dict] = []
    task = Task.from_problem(problem, Setting.SPEC_CORRECT, budget=5, correct=[reference])
    method = Wedge(**params)
    ctx = Context(llm=Session(LLMClient(f"scripted:{path}", LLMSettings(cache=False, retries=0),
                                        on_exchange=seen.append)),
                  sandbox=sandbox, prompts=Prompts(), method="wedge", params=method.params.model_dump())
    suite = ctx.finish(asyncio.run(method.generate(task, ctx)))
    prompts = ["\n".join(m["content"] for m in e["messages"]) for e in seen]
    return suite, task, prompts


def failures(suite):
    return [(f.stage, f.reason) for f in suite.provenance.failures]


def n_of(test) -> int:
    return int(test.input.split()[0])


# --------------------------------------------------------------------------- pure functions


def _m(cost: float, text: str) -> Measured:
    return Measured(input=text, cost=cost, status="AC")


def test_contrast_pair_mines_as_wedge_does():
    # Sorted by cost: 10, 11, 12 | 30 (median, dropped), 40, 41, 90. Fast half [10, 11, 12],
    # slow half [40, 41, 90]: 12 * 1.2 <= 40, so every (slow, fast) pair qualifies and the
    # most similar one wins, then the larger ratio.
    runs = [_m(40, "5\n1 2 3 4 5"), _m(10, "5\n1 2 3 4 6"), _m(12, "9\n9 9 9"), _m(30, "x"),
            _m(11, "3\n7 7 7"), _m(41, "4\n1 1 1 1"), _m(90, "6\n8 8 8 8 8 8")]
    slow, fast, sim = contrast_pair(runs, 1.2, 0.1)
    assert (slow.cost, fast.cost) == (40, 10)
    assert sim == pytest.approx(5 / 6 + 5 / 6)  # 5 of 6 tokens agree in place; sets share 5 of 6
    # Halves too close (no fast input 1.2x below a slow one): no pair.
    assert contrast_pair([_m(10, "1 2"), _m(11, "1 2")], 1.2, 0.1) == (None, None, None)
    # Far apart but nothing alike (similarity 0 <= 0.1): no pair either; one input: none.
    assert contrast_pair([_m(10, "a b"), _m(50, "c d")], 1.2, 0.1) == (None, None, None)
    assert contrast_pair([_m(10, "a")], 1.2, 0.1) == (None, None, None)
    # The shifting halves: [1, 2, 9] vs [10, 11, 12] fails (9 * 1.2 > 10), so the halves
    # shrink to [1, 2] vs [11, 12]: the identical pair (10, 2) is out; of the two equally
    # similar pairs left the larger ratio wins.
    texts = {1: "1 2 3", 2: "7 7 7", 9: "1 2 3", 10: "7 7 7", 11: "1 2 4", 12: "1 2 5"}
    slow, fast, _ = contrast_pair([_m(c, t) for c, t in texts.items()], 1.2, 0.1)
    assert (slow.cost, fast.cost) == (12, 1)


def test_similarity_is_position_agreement_plus_jaccard():
    assert similarity("1 2 3", "1 2 3") == 2.0
    assert similarity("1 2 3 4", "1 9") == pytest.approx(0.5 + 1 / 5)
    assert similarity("", "1") == 0.0 and similarity(" \n ", "") == 0.0


def test_instrumentation_contract():
    code = ('#include <cstdlib>\n#define perf_condition(a, b) 0\nint main(){ perf_condition(2, 1 > 0); '
            'perf_condition( 7 ,x); perf_condition(id_of(3), y); perf_condition(2, z); std::abort(); abort (); }\n')
    assert condition_ids(code) == [2, 7, 1000]
    program = instrument(code, Language.CPP)
    assert "#define perf_condition(a, b) 0" not in program.code and "abort" not in program.code.split("*/", 1)[1]
    assert program.code.startswith("#include <stdio.h>")
    py = instrument('"""doc"""\nfrom __future__ import annotations\nimport sys\nperf_condition(1, True)\n',
                    Language.PYTHON)
    assert py.code.startswith("from __future__ import annotations\n")
    compile(py.code, "x.py", "exec")
    own = instrument("def perf_condition(i, c):\n    raise SystemExit\nperf_condition(1, True)\n", Language.PYTHON)
    assert "def _model_perf_condition(i, c):" in own.code and condition_ids(own.code) == [1]
    assert satisfied("noise\n@@wedge-condition 3@@\nx@@wedge-condition 1@@@@wedge-condition 3@@\n") == [1, 3]
    assert satisfied("@@wedge-condition abc@@") == []
    assert [bucket(c) for c in (1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 10**9)] == [0, 1, 2, 3, 3, 4, 4, 5, 5,
                                                                                       6, 6, 7, 7]


def test_instrumented_copies_report_each_condition_once_and_print_what_the_reference_prints(sandbox, zm04):
    from tczoo.execution import Limits, run_program

    big = "200000 1000000000000\n" + " ".join(["1"] * 200000) + "\n"
    for name in ("accepted/fast.cpp", "accepted/fast.py"):
        reference = solution(zm04, name)
        program = instrument(checks_for(reference.code, reference.language), reference.language)
        inputs = [zm04.samples[0].input, big]
        plain, marked = (run_program(sandbox, p, inputs, limits=Limits(time_ms=10_000)) for p in (reference, program))
        assert [r.output for r in plain] == [r.output for r in marked]
        assert [satisfied(r.detail) for r in marked] == [[], [1, 2]], name
        assert marked[1].detail.count("@@wedge-condition 1@@") == 1


def test_efficiency_runner_gives_wedge_one_cpp_reference_and_the_registry_lists_it(sandbox, zm04):
    from tczoo.registry import method_names

    [spec] = EfficiencyRunner(sandbox).tasks(zm04, Wedge, samples=1, seed=0)
    assert [(r.name, r.language) for r in spec.task.correct_programs] == [("accepted/fast.cpp", Language.CPP)]
    assert spec.task.budget == 5 and not spec.task.samples[0].input == ""
    assert "wedge" in method_names()
    assert Wedge.describe()["runner"] == "efficiency" and Wedge.produces.value == "inputs_only"


# --------------------------------------------------------------------------- whole runs


@pytest.mark.e2e
@pytest.mark.skipif(not afl.available(), reason="AFL++ is not installed (apt-get install afl++)")
def test_afl_run_on_zm04_finds_large_valid_inputs_and_the_efficiency_runner_scores_them(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.cpp")
    suite, task, prompts = run_wedge(sandbox, tmp_path, zm04, reference, fuzz_seconds=3, fuzzer="afl")
    # Two samples of different shapes and costs: no contrast pair, said in the prompt and the
    # suite. AFL++ keeps an input only for new coverage: how many it keeps in 3 s on a loaded
    # machine varies, and fewer than five tests is said too.
    assert failures(suite)[0] == ("profile", "no_contrast")
    assert set(failures(suite)[1:]) <= {("fuzz", "few_tests")}
    assert 1 <= len(suite.tests) <= 5 and [t.meta["engine"] for t in suite.tests] == ["afl"] * len(suite.tests)
    assert all(t.meta["source"].startswith("afl-") and t.meta["conditions"] == [1, 2] for t in suite.tests)
    assert all(190000 <= n_of(t) <= 200000 and t.meta["violations"] == [] for t in suite.tests)
    assert all(t.meta["reference_verdict"] == "AC" for t in suite.tests)
    times = [t.meta["reference_cpu_ms"] for t in suite.tests]
    assert times == sorted(times, reverse=True)
    roles = {a.role: a for a in suite.artifacts}
    assert set(roles) == {"validator", "instrumented", "mutator", "fuzzer"}
    assert roles["fuzzer"].note.startswith("afl: AFL++ (afl-clang-fast++)") and "execs" in roles["fuzzer"].note
    assert roles["instrumented"].program.code.count("perf_condition(") >= 2
    # The prompts: hit counts in the profile, STAB's parsed bounds and the checks for the mutator.
    invariants = next(p for p in prompts if "between 2 and 5" in p)
    assert "No contrast" in invariants and "|          1 | int main() {" in invariants
    mutator = next(p for p in prompts if "def mutate_input" in p)
    assert "1 ≤ n ≤ 200000" in mutator and "`n` = 200000" in mutator and "perf_condition(1, n > 100000);" in mutator
    # Scored like every efficiency method (through the input screen, the one way a suite is
    # scored): the tests on the C++ references and on the reference WEDGE was given (Table 6).
    # zm04's own validator accepts every test WEDGE kept (its validator and STAB's bounds held),
    # and N_gen is the tests generated (count_missing off, the paper's): as many as AFL++ kept.
    runner = EfficiencyRunner(sandbox, languages=["cpp"], repeats=1)
    [spec] = runner.tasks(zm04, Wedge, samples=1, seed=0)
    record = score_suite(runner, zm04, spec, suite)
    assert record.input_check is not None and record.input_check.by == "validator", record.input_check
    assert (record.input_check.tests, record.input_check.rejected) == (len(suite.tests), 0), record.input_check
    assert "excluded" not in record.metrics, record.detail
    assert record.metrics["n_generated"] == record.metrics["ref:cpp:n"] == len(suite.tests)
    assert record.metrics["cpp:fast:n"] == record.metrics["cpp:slow:n"] == len(suite.tests)
    assert {"asr:cpp:fast", "asr:cpp:slow", "asr:ref:cpp"} <= set(record.metrics)


@pytest.mark.e2e
def test_python_reference_uses_the_loop_with_line_coverage(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.py")
    suite, _, _ = run_wedge(sandbox, tmp_path, zm04, reference, fuzz_seconds=1, loop_batch=5)
    assert failures(suite) == [("profile", "no_contrast")]
    note = next(a.note for a in suite.artifacts if a.role == "fuzzer")
    assert note.startswith("loop: pure-Python loop: rounds ") and "coverage on" in note and "conditions seen [1, 2]" in note
    assert len(suite.tests) == 5 and all(t.meta["engine"] == "loop" for t in suite.tests)
    assert all(t.meta["conditions"] == [1, 2] and 190000 <= n_of(t) for t in suite.tests)


@pytest.mark.e2e
def test_validator_instrumented_copy_and_mutator_are_repaired(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.cpp")
    # An instrumented copy that prints something else, a mutator that crashes, a validator
    # that rejects a sample: each gets its error back and is fixed on the next answer.
    wrong_output = checks_for(reference.code, Language.CPP).replace('printf("%lld\\n", lo);', 'printf("%lld\\n", lo + 1);')
    suite, _, prompts = run_wedge(
        sandbox, tmp_path, zm04, reference, validator=[STRICT_VALIDATOR], validator_repair=[VALIDATOR],
        instrumented=[wrong_output], instrument_repair=[checks_for(reference.code, Language.CPP)],
        mutator=[CRASHING_MUTATOR], mutator_repair=[MUTATOR], fuzz_seconds=1, fuzzer="loop", loop_coverage=False)
    assert failures(suite) == [("validator", "rejects_samples"), ("profile", "no_contrast"),
                               ("instrument", "unusable_copy"), ("mutator", "unusable_mutator")]
    repair = {k: next(p for p in prompts if k in p) for k in ("Your validator", "Your instrumented", "Your mutator")}
    assert "It rejects sample input 2" in repair["Your validator"] and "n out of range" in repair["Your validator"]
    assert "prints something other than the original program" in repair["Your instrumented"]
    assert "IndexError" in repair["Your mutator"]
    assert suite.tests and all(t.meta["conditions"] == [1, 2] for t in suite.tests)


@pytest.mark.e2e
def test_a_validator_that_fails_on_load_is_told_so_and_repairs_see_the_models_own_code(sandbox, zm04, tmp_path):
    # What the embedded 1.5B model wrote: a validator plus an "example usage" at the top level
    # that raises on its own made-up input, so no sample ever reaches validate_input.
    example = VALIDATOR + '\nvalidate_input("3 7\\n10 15\\n")\n'
    reference = solution(zm04, "accepted/fast.cpp")
    suite, _, prompts = run_wedge(sandbox, tmp_path, zm04, reference, validator=[example],
                                  validator_repair=[VALIDATOR], fuzz_seconds=1, fuzzer="loop", loop_coverage=False)
    assert failures(suite)[0] == ("validator", "validator_crashed")
    repair = next(p for p in prompts if "Your validator" in p)
    assert "failed before validate_input judged any input" in repair and "It rejects sample" not in repair
    assert "n lengths expected" in repair  # the error of the top-level call
    # The model sees what it wrote, not our prelude in front of it.
    assert "from typing import" not in repair and 'validate_input("3 7' in repair
    assert suite.tests and next(a for a in suite.artifacts if a.role == "validator").ok


@pytest.mark.e2e
def test_a_validator_repair_starts_from_the_answer_that_accepted_the_most_samples(sandbox, zm04, tmp_path):
    # What the embedded model did on zm10: a first answer rejecting one sample, then
    # repairs of repairs rejecting both. The next repair must start from the nearly
    # right answer, not from the worse one (unless repair_from="last").
    worse = VALIDATOR.replace('assert 1 <= n <= 200000, "n out of range"', 'assert 4 <= n <= 200000, "n too small"')
    reference = solution(zm04, "accepted/fast.cpp")
    # The scripted model answers by sample index: repair k (sample k) gets validator_repair[k].
    common = dict(validator=[STRICT_VALIDATOR], validator_repair=[worse, worse, VALIDATOR], fuzz_seconds=1,
                  fuzzer="loop", loop_coverage=False)
    for repair_from, shown in (("best", STRICT_VALIDATOR), ("last", worse)):
        suite, _, prompts = run_wedge(sandbox, tmp_path, zm04, reference, repair_from=repair_from, **common)
        repairs = [p for p in prompts if "Your validator" in p]
        assert len(repairs) == 2
        assert "3 <= n" in repairs[0] and "It rejects sample input 2" in repairs[0]
        assert ("3 <= n" in repairs[1]) == (repair_from == "best") and (shown.strip() in repairs[1])
        assert ("n too small" in repairs[1]) == (repair_from == "last")
        assert suite.tests and next(a for a in suite.artifacts if a.role == "validator").ok


def test_without_a_validator_there_are_no_tests(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.cpp")
    suite, _, prompts = run_wedge(sandbox, tmp_path, zm04, reference, validator=[STRICT_VALIDATOR],
                                  validator_repair=[STRICT_VALIDATOR], validator_tries=2)
    assert suite.tests == [] and failures(suite)[-1] == ("validator", "no_validator")
    assert not any("def mutate_input" in p for p in prompts)
    # A validator accepting the empty input is refused too.
    suite, _, _ = run_wedge(sandbox, tmp_path, zm04, reference, validator=["def validate_input(text):\n    pass\n"],
                            validator_tries=1)
    assert failures(suite) == [("validator", "accepts_empty"), ("validator", "no_validator")]


@pytest.mark.e2e
def test_inputs_breaking_the_parsed_constraints_are_flagged_or_dropped(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.cpp")
    common = dict(validator=[SLOPPY_VALIDATOR], mutator=[OVERSIZED_MUTATOR], fuzz_seconds=1, fuzzer="loop",
                  loop_coverage=False, loop_batch=3)
    suite, _, _ = run_wedge(sandbox, tmp_path, zm04, reference, **common)
    assert suite.tests and all(n_of(t) == 250000 for t in suite.tests)
    assert all(any("200000" in v for v in t.meta["violations"]) for t in suite.tests)
    assert ("validator", "invalid_input_kept") in failures(suite)
    suite, _, _ = run_wedge(sandbox, tmp_path, zm04, reference, check_inputs=True, **common)
    assert suite.tests == [] and ("validator", "constraint_violation") in failures(suite)
    assert failures(suite)[-1] == ("fuzz", "no_tests")


@pytest.mark.e2e
@pytest.mark.skipif(not afl.available(), reason="AFL++ is not installed (apt-get install afl++)")
def test_a_mutator_hanging_inside_afl_is_stopped_and_the_campaign_still_reports(sandbox, zm04, tmp_path):
    reference = solution(zm04, "accepted/fast.cpp")
    started = time.monotonic()
    suite, _, _ = run_wedge(sandbox, tmp_path, zm04, reference, mutator=[HANGING_MUTATOR], fuzz_seconds=2,
                            fuzzer="afl", triage_seconds=10)
    elapsed = time.monotonic() - started
    note = next(a.note for a in suite.artifacts if a.role == "fuzzer")
    # afl-fuzz is stuck in the mutator's third call: the driver kills it after the budget
    # plus its grace, then validates and times what the queue holds.
    assert "stopped: killed after the budget" in note, note
    assert elapsed < afl.BUILD_S + 2 + afl.GRACE_S + 10 + 60
    assert suite.tests and all(190000 <= n_of(t) for t in suite.tests)  # the two calls before the hang
    # Only this sandbox's afl-fuzz (its slots' uids): another process's tests may be fuzzing.
    uids = sandbox_uids(sandbox)
    mine = ["-U", ",".join(map(str, sorted(uids)))] if uids else []
    left = subprocess.run(["pgrep", "-x", "afl-fuzz", *mine], capture_output=True, text=True).stdout.split()
    assert left == []


# --------------------------------------------------------------------------- the command line


@pytest.mark.e2e
def test_tczoo_run_wedge_on_zoo_mini_generates_tests_the_efficiency_runner_scores(zm04, tmp_path):
    """The issue's acceptance: ``tczoo run --method wedge --benchmark zoo-mini`` (one problem,
    a scripted model, a two-second fuzzing budget) records WEDGE's tests and the efficiency
    runner's ASR tables report them."""
    import os
    import sys

    reference = solution(zm04, "accepted/fast.cpp")  # what the efficiency runner hands WEDGE
    model = f"scripted:{script(tmp_path / 'model.jsonl', reference)}"
    out = tmp_path / "run"
    params = {"wedge": {"fuzz_seconds": 2, "triage_seconds": 10},
              "runner:efficiency": {"languages": ["cpp"], "repeats": 1}}

    def tczoo(*args):
        return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "TCZOO_CACHE": str(tmp_path / "cache")})

    proc = tczoo("run", "--method", "wedge", "--benchmark", "zoo-mini", "-p", "zm04", "--model", model,
                 "--out", out, "--params", json.dumps(params))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    # Read back as every reader does (tczoo.store): an input over 64 K characters lies in
    # run/inputs/, its record holding a {"$file": sha256, "chars": N} reference in its place.
    lines = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines() if x.strip()]
    assert len(lines) == 1 and all(isinstance(t["input"], dict) and t["input"]["chars"] > 64 * 1024
                                   for t in lines[0]["suite"]["tests"])
    [gen] = RunStore.open(out).generations()
    assert gen.error is None
    tests = gen.suite.tests
    assert 1 <= len(tests) <= 5 and all(190000 <= n_of(t) <= 200000 for t in tests)
    assert all(t.meta["conditions"] == [1, 2] for t in tests)
    report = tczoo("report", out, "-f", "json")
    assert report.returncode == 0, report.stderr
    tables = {t["title"]: t for t in json.loads(report.stdout)}
    [main] = next(t for title, t in tables.items() if title.startswith("ASR across five"))["rows"]
    assert main["method"] == "WEDGE" and main["problems"] == 1
    assert all(isinstance(main[k], float) and 0.0 <= main[k] <= 100.0 for k in ("C++ Fast", "C++ Slow"))
    [row] = next(t for title, t in tables.items() if title.startswith("ASR averaged over five"))["rows"]
    assert row["method"] == "WEDGE" and isinstance(row["ASR C++"], float)
    [given] = next(t for title, t in tables.items() if title.startswith("ASR on the reference"))["rows"]
    assert given["reference"] == "C++" and given["problems"] == 1
