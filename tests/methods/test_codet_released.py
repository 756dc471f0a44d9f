"""Generations made elsewhere, through the same path a live model's answers take: files
in CodeT's released layout (``{"prompt", "samples"}`` per line; this test's own small
fixture, written here) answered by ``released:``, read by ``codet``'s completion mode
with CodeT's post-processing, ranked by ``bestofn``'s dual agreement, pass@k as CodeT's
evaluation computes it (checked by hand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.llm.client import LLMClient, LLMSettings
from tczoo.methods.codet import STOP_WORDS, completion_asserts, cut_at_stop_words
from tczoo.runners.bestofn import codet_pass_at_k, consensus_sets, dual_agreement, unbiased_pass_at_k

FIXTURE_PATH = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"

# Two problems in HumanEval's schema, prompted as CodeT prompts them (no examples).
PROBLEMS = [
    {"task_id": "Rel/0", "entry_point": "add",
     "prompt": "\n\ndef add(a: int, b: int) -> int:\n    \"\"\" The sum of a and b.\n    \"\"\"\n",
     "canonical_solution": "    return a + b\n",
     "test": "\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"},
    {"task_id": "Rel/2", "entry_point": "neg",
     "prompt": "\n\ndef neg(x: int) -> int:\n    \"\"\" Minus x.\n    \"\"\"\n",
     "canonical_solution": "    return -x\n", "test": "\n\ndef check(candidate):\n    assert candidate(2) == -2\n"},
    {"task_id": "Rel/1", "entry_point": "first",
     "prompt": "from typing import List\n\n\ndef first(xs: List[int]) -> int:\n    \"\"\" The first element, or -1 "
               "for an empty list.\n    \"\"\"\n",
     "canonical_solution": "    return xs[0] if xs else -1\n",
     "test": "\n\ndef check(candidate):\n    assert candidate([4, 5]) == 4\n    assert candidate([]) == -1\n"},
]
ADD = [
    "    return a + b\n\n\ndef unused():\n    pass\n",  # cut at "\ndef": a right one
    "    return a + b\n\n",  # the same program once the first is cut: a duplicate
    "    return a - b\n",
    "    return b + a  # fine\n#tail\n",
    "    while True:\n        pass\n",  # never returns: its asserts time out
]
ADD_TESTS = [
    "add(1, 2) == 3\nassert add(2, 2) == 4\n",
    "\n    add(1, 1) == 2\nassert add(0, 0) == 0\n",  # CodeT drops "assert \n    add(...)" (no compile)
    "add(1, 2) == 3\nassert add(5, 3) == 2\nassert foo(1)\n",  # a wrong test, and one not naming add
]
FIRST = ["    return xs[0]\n", "    return xs[0] if xs else -1\n", "    return xs[-1] if xs else -1\n", "    pass\n",
         "    return 0\n"]
FIRST_TESTS = ["first([1, 2]) == 1\nassert first([]) == -1\n", "first([3]) == 3\n", "\n"]


def stub(problem: dict) -> str:
    return problem["prompt"] + "    pass\n\n# check the correctness of " + problem["entry_point"] + "\nassert "


@pytest.fixture
def released(tmp_path):
    bench = tmp_path / "problems.jsonl"
    bench.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS))
    sols, tests = tmp_path / "solutions.jsonl", tmp_path / "tests.jsonl"
    # Rel/2: no test sample holds a usable assert -- CodeT ranks its solutions by its
    # fallback (a random sample), and so does tczoo: the unit is scored, not failed
    sols.write_text(json.dumps({"prompt": PROBLEMS[0]["prompt"], "samples": ADD}) + "\n"
                    + json.dumps({"prompt": PROBLEMS[2]["prompt"], "samples": FIRST}) + "\n"
                    + json.dumps({"prompt": PROBLEMS[1]["prompt"], "samples": ["    return -x\n", "    return x\n"] * 2
                                  + ["    return -x\n"]}) + "\n")
    tests.write_text(json.dumps({"prompt": stub(PROBLEMS[0]), "samples": ADD_TESTS}) + "\n"
                     + json.dumps({"prompt": stub(PROBLEMS[2]), "samples": FIRST_TESTS}) + "\n"
                     + json.dumps({"prompt": stub(PROBLEMS[1]), "samples": ["\n", "neg(", "\n    neg(1) == -1\n"]})
                     + "\n")
    return bench, f"released:{sols}+{tests}"


def test_codet_post_processing_as_the_authors_code_does_it():
    assert cut_at_stop_words(ADD[0], STOP_WORDS) == ADD[1]
    assert cut_at_stop_words(ADD[3], STOP_WORDS) == "    return b + a  # fine"
    assert completion_asserts(ADD_TESTS[0], "add", STOP_WORDS) == ["assert add(1, 2) == 3", "assert add(2, 2) == 4"]
    assert completion_asserts(ADD_TESTS[1], "add", STOP_WORDS) == ["assert add(0, 0) == 0"]
    assert completion_asserts(ADD_TESTS[2], "add", STOP_WORDS) == ["assert add(1, 2) == 3", "assert add(5, 3) == 2"]
    # cut at a stop word, kept only when it compiles; the name is matched as text (CodeT's rule)
    assert completion_asserts("add(1) == 2\nif x:\n    pass\nassert add(1,) ==\nassert (add(2)\n    == 3)",
                              "add", STOP_WORDS) == ["assert add(1) == 2", "assert (add(2)\n    == 3)"]


def test_pass_at_k_of_the_dual_agreement_by_hand():
    # five candidates: c0, c1 pass {t0, t1} (2 tests); c2 passes {t2}; c3 passes {t0}; c4 nothing
    sig = [("3",), ("3",), ("4",), ("1",), ("0",)]
    passed = [2, 2, 1, 1, 0]
    golden = [True, False, False, True, True]
    assert [(score, members) for score, members in consensus_sets(sig, passed)] == [(4, [0, 1]), (1, [2, 3])]
    # pass@1: a random pick of the best set {c0, c1}
    assert codet_pass_at_k(sig, passed, golden, 1) == 0.5
    # pass@2: one from {c0, c1}, one from the tied sets {c2} + {c3} merged: 1 - 1/2 * 1/2
    assert codet_pass_at_k(sig, passed, golden, 2) == 0.75
    # pass@3: two sets only: the first is drawn twice (with replacement), round robin from the top
    assert codet_pass_at_k(sig, passed, golden, 3) == pytest.approx(1 - 0.5 * 0.5 * 0.5)
    # sqrt: sqrt(2) x 2 = 2.83 still beats 1 x 1
    assert codet_pass_at_k(sig, passed, golden, 1, sqrt=True) == 0.5
    assert dual_agreement(sig, passed, golden) == 0.5
    assert codet_pass_at_k([("0",)] * 2, [0, 0], [True, False], 1) is None  # CodeT's fallback: the caller's
    # the unbiased estimator: n = 5, c = 3
    assert unbiased_pass_at_k(5, 3, 1) == pytest.approx(0.6)
    assert unbiased_pass_at_k(5, 3, 2) == pytest.approx(1 - 1 / 10)
    assert unbiased_pass_at_k(5, 3, 3) == 1.0 and unbiased_pass_at_k(5, 0, 2) == 0.0


def test_the_released_backend_answers_by_prompt_and_fails_loudly_otherwise(released, tmp_path):
    _, model = released
    client = LLMClient(model, LLMSettings(retries=0, cache=False))
    messages = [{"role": "user", "content": PROBLEMS[0]["prompt"].strip()}]  # templates trim: matched alike
    got = client.complete_sync(messages, n=6)
    assert [c.text for c in got[:5]] == ADD and all(c.ok for c in got[:5])
    assert not got[5].ok and got[5].reason == "no_sample"  # a sixth sample was never released
    [other] = client.complete_sync([{"role": "user", "content": "def nothing():\n    pass"}])
    assert not other.ok and other.reason == "not_released"
    # a second generation (--samples 2) is not in the files either
    [again] = client.complete_sync(messages, n=1, first_sample=1000)
    assert not again.ok and again.reason == "no_sample"


@pytest.mark.parametrize("content, why", [
    ('{"prompt": "x"}\n', "samples"),
    ('{"prompt": 3, "samples": []}\n', "prompt"),
    ('{"prompt": "x", "samples": ["a"]}\n{"prompt": "x ", "samples": ["b"]}\n', "already released"),
    ("not json\n", "released"),
    ("", "holds no record"),
])
def test_a_broken_released_file_is_one_line_exit_2(tmp_path, content, why):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet", "--benchmark",
                           f"humaneval:{tmp_path / 'none.jsonl'}", "--model", f"released:{path}",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr[-1500:]
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("error:") and why in line


def test_released_generations_through_codet_and_bestofn_end_to_end(released, tmp_path):
    bench, model = released
    params = {"codet": {"prompts": "completion", "hide_examples": False, "solutions": 5, "test_samples": 3},
              "runner:bestofn": {"golden_time_s": 0.5, "pass_at": [1, 2, 10]}}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet", "--benchmark",
                           f"humaneval:{bench}", "--model", model, "--params", json.dumps(params),
                           "--out", str(out), "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    gens = {json.loads(x)["problem_id"]: json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()}
    scores = {json.loads(x)["problem_id"]: json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()}
    suite = gens["Rel/0"]["suite"]
    assert [t["input"] for t in suite["tests"]] == [
        "assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(0, 0) == 0", "assert add(1, 2) == 3",
        "assert add(5, 3) == 2"]
    codes = [a["program"]["code"] for a in suite["artifacts"] if a["role"] == "candidate"]
    assert codes[0] == codes[1] == PROBLEMS[0]["prompt"] + "    return a + b\n\n"
    add = scores["Rel/0"]["detail"]
    assert add["golden"] == [True, True, False, True, False]
    assert add["passed"] == [4, 4, 2, 4, 0]  # add(5, 3) == 2 holds for a - b, and add(0, 0) == 0
    assert add["test_timeouts"] == 5 and add["golden_timeouts"] == 1
    first = scores["Rel/1"]["detail"]
    assert first["golden"] == [False, True, False, False, False] and first["passed"] == [2, 3, 2, 0, 0]
    tables = json.loads(proc.stdout)
    table = next(t for t in tables if t["title"].startswith("pass@k"))
    rows = {(r["selection"], r["consensus"]): r for r in table["rows"]}
    # Rel/0: one set {c0, c1, c3} of 3 x 4 = 12 beats {c2}: 2 x 1; all three right -> 1.0 at every k
    # Rel/1: sets {c1}: 3, then {c0}: 2 and {c2}: 2 tied and merged (both wrong): every k draws c1 first
    # Rel/2: no test at all: CodeT's fallback, the baseline (3 of 5 right)
    assert scores["Rel/2"]["detail"]["golden"] == [True, False, True, False, True]
    assert scores["Rel/2"]["metrics"]["tests"] == 0.0
    for consensus in ("|S|x|T| (paper)", "sqrt|S|x|T| (released code)"):
        row = rows[("CodeT", consensus)]
        assert row["pass@1"] == pytest.approx(100 * (1 + 1 + 0.6) / 3)
        assert row["pass@2"] == pytest.approx(100 * (1 + 1 + 0.9) / 3)
    base = rows[("baseline", None)]
    assert base["pass@1"] == pytest.approx(100 * (3 / 5 + 1 / 5 + 3 / 5) / 3)
    assert base["pass@2"] == pytest.approx(100 * ((1 - 1 / 10) + (1 - 6 / 10) + (1 - 1 / 10)) / 3)
    assert base["pass@10"] is None  # five candidates per problem: no pass@10 (said in a note)
    assert any("no pass@10" in n for n in table["notes"])
    assert any("no candidate passed any generated test in 1 selection(s)" in n for n in table["notes"])
    # the same files, replayed: byte for byte the same scores
    again = tmp_path / "again"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet", "--benchmark",
                           f"humaneval:{bench}", "--model", model, "--params", json.dumps(params),
                           "--out", str(again), "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0
    strip = [{k: v for k, v in json.loads(x).items() if k not in ("seconds", "created")}
             for x in (out / "scores.jsonl").read_text().splitlines()]
    assert sorted(map(json.dumps, strip)) == sorted(map(json.dumps, [
        {k: v for k, v in json.loads(x).items() if k not in ("seconds", "created")}
        for x in (again / "scores.jsonl").read_text().splitlines()]))


def test_the_reproduction_target_names_its_data_and_runs_on_released_files(released, tmp_path):
    bench, model = released
    results = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "reproduce", "codet-humaneval-codegen16b",
                           "--model", model, "--benchmark", f"humaneval:{bench}", "--out", str(tmp_path / "runs"),
                           "--results", str(results), "--params",
                           json.dumps({"codet": {"solutions": 5, "test_samples": 3}}), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (results / "codet" / "codet-humaneval-codegen16b.md").read_text()
    assert "CodeGen-Mono-16B" in text and "36.7" in text and "29.7" in text
    import csv

    rows = list(csv.DictReader((results / "codet" / "codet-humaneval-codegen16b.csv").open()))
    ours = [r for r in rows if r["source"] == "ours"]
    assert sorted((r["selection"], r["consensus"]) for r in ours) == [
        ("CodeT", "sqrt|S|x|T| (released code)"), ("CodeT", "|S|x|T| (paper)"), ("baseline", "")]
    assert sorted(r["selection"] for r in rows if r["source"] != "ours") == ["CodeT", "baseline"]


def test_asserts_that_compile_only_at_module_level_fail_everyone_as_in_codets_harness(sandbox):
    """CodeT's harness packs a problem's asserts into one function; one that compiles only
    at module level (a `from m import *` the model wrote after an assert: HumanEval/68,
    106 and 143 of the released data) makes every candidate pass none of them. That is
    the default (the authors' code); statement_scope "module" compiles each alone."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution.statements import statement_test
    from tczoo.runners.bestofn import BestOfNRunner, packing_error
    from tczoo.schema import Language, Oracle, OracleKind, Program, Provenance, TestSuite

    tests = ["assert add(1, 2) == 3", "assert add(2, 2) == 4\nfrom math import *"]
    assert packing_error(tests[:1]) is None and "import *" in packing_error(tests)
    problem = load_benchmark(f"humaneval:{FIXTURE_PATH}", ["Mini/0"], sandbox=sandbox)[0]
    problem = problem.model_copy(update={"entry_point": "add"})
    suite = TestSuite(problem_id=problem.id, tests=[statement_test(t) for t in tests],
                      oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT), provenance=Provenance(method="codet"))
    cand = [Program(code="def add(a, b):\n    return a + b\n", language=Language.PYTHON, name="s0")]
    assert BestOfNRunner(sandbox).pass_matrix(problem, suite, suite.tests, cand) == [[False, False]]
    assert BestOfNRunner(sandbox, statement_scope="module").pass_matrix(problem, suite, suite.tests, cand) == [
        [True, True]]
