"""TRAILS and its baselines with a scripted model, the real sandbox and real compilers:
scenarios, validation, the repair loop (succeeding and exhausting its budget), early
stop, coverage deduplication, per-pair verdicts and thresholds; zero-shot CoT;
HoarePrompt's statement tree, unrolling and call budget; answers that are not as asked."""

from __future__ import annotations

import pytest

from trails_fixtures import (
    B,
    BRANCH,
    COT,
    HOARE_VERDICT,
    INPUTS,
    JUDGE,
    LOOP,
    PRECONDITION,
    PROPERTIES,
    REPAIR,
    SCENARIOS,
    STATEMENT,
    code,
    inputs,
    run,
    scenarios,
)
from tczoo.methods.trails.answers import read_inputs, read_scenarios, read_state, read_verdict
from tczoo.methods.trails.cot import ZeroShotCoT
from tczoo.methods.trails.hoare import HoarePrompt
from tczoo.methods.trails.structure import Block, Cond, Func, Loop, Stmt, StructureError, program_tree
from tczoo.methods.trails.trails import Trails
from tczoo.schema import CodeVerdict, Language, OracleKind, Problem, Program

FAST = "accepted/fast.py"
GREEDY = "wrong/greedy_by_deadline.cpp"
PROPS = (PROPERTIES, "It reads standard input.\nProperties: first line n, then n lines `d p`.")


# --------------------------------------------------------------------------- reading answers


@pytest.mark.parametrize("text, verdict", [
    ("... so it works.\nCorrectness: **True**", True),
    ("Correctness: False", False),
    ("reasoning\n\nVerdict: INCORRECT", False),
    ("Verdict: **CORRECT**", True),
    ("The output isn't correct.", False),
    ("Everything matches, the output is correct.", True),
    ("Final answer: false", False),
    ("<think>it is correct</think>\nVerdict: INCORRECT", False),
    ("<think>unterminated reasoning says correct", True),
    ("The tail matters: first I thought INCORRECT, but on reflection\nCorrectness: True", True),
    ("I cannot decide.", None),
    ("", None),
    ("\ud800 lone surrogate, no verdict", None),
])
def test_read_verdict(text, verdict):
    assert read_verdict(text) is verdict


@pytest.mark.timeout(20)
def test_read_verdict_on_huge_and_pathological_answers():
    """Linear patterns on bounded slices: no catastrophic backtracking (a hang fails the
    test through its timeout, not through a measured time)."""
    assert read_verdict("correctness " * 200_000 + ":" * 100_000) is None  # no value after any colon
    assert read_verdict("correctness " * 200_000 + "Verdict: correct") is True
    assert read_verdict("_" * 500_000 + "x" * 3) is None
    assert read_verdict("Correctness:" + " " * 500_000 + "True") is True


def test_read_scenarios_json_list_and_prose():
    assert read_scenarios(scenarios("one", "two", "three", "four"), 3) == [
        "one; preconditions: one inputs; behaviour: as specified",
        "two; preconditions: two inputs; behaviour: as specified",
        "three; preconditions: three inputs; behaviour: as specified"]
    prose = "Here:\n1. Single offer: n = 1\n2. **Ties** on deadlines\n   with equal fees\n- Large n\n\nDone."
    assert read_scenarios(prose, 5) == ["Single offer: n = 1", "**Ties** on deadlines with equal fees", "Large n"]
    assert read_scenarios("no list at all", 3) == []


def test_read_inputs_stdin_functional_and_broken():
    got, problems = read_inputs(inputs("1\n1 5", "2\n1 5\n1 7") + "```python\nprint(1)\n```", functional=False)
    assert got == ["1\n1 5\n", "2\n1 5\n1 7\n"] and problems == []
    got, problems = read_inputs(f'{B}json\n{{"nums": [1, 2]}}\n{B}\n{B}json\n{{"input": {{"nums": [3]}}}}\n{B}\n'
                                f'{B}json\n[1, 2\n{B}\n{B}json\n7\n{B}', functional=True)
    assert got == ['{"nums": [1, 2]}', '{"nums": [3]}'] and len(problems) == 2
    assert read_inputs('["1\\n1 5", "1\\n2 7"]', functional=False)[0] == ["1\n1 5\n", "1\n2 7\n"]
    assert read_inputs("nothing", functional=False) == ([], ["no_input_blocks"])


def test_read_state():
    assert read_state("step...\nOutput State: **`n` is 3, `max_val` is 0**") == "`n` is 3, `max_val` is 0"
    assert read_state("first para\n\nlast para only") == "last para only"
    assert read_state("") == ""
    assert len(read_state("Output State: " + "x" * 10_000)) == 1500


def test_code_verdict_thresholds():
    v = CodeVerdict(correct=True, score=0.8, threshold=0.7)
    assert v.label(0.6) is True and v.label(0.8) is False  # above τ, as in Figure 2
    assert v.label() is True
    binary = CodeVerdict(correct=False)
    assert binary.label(0.6) is False and CodeVerdict().label(0.7) is None


# --------------------------------------------------------------------------- TRAILS


def test_trails_repair_loop_that_succeeds(tmp_path, sandbox):
    """Scenario 1's first input crashes the program; the repair prompt carries the
    error and its corrected input is valid. Scenarios 2 and 3 are valid at once."""
    rules = [
        (SCENARIOS, scenarios("single", "conflict", "spread")),
        PROPS,
        (REPAIR + ".*abc.*ValueError", inputs("1\n1 5")),  # only matches when the error reached the prompt
        ("single inputs.*" + INPUTS, inputs("abc")),
        ("conflict inputs.*" + INPUTS, inputs("2\n1 5\n1 7", "2\n1 9\n1 3", "1\n1 5")),
        ("spread inputs.*" + INPUTS, inputs("1\n2 7")),
        (JUDGE, "The best total is the printed value.\nVerdict: CORRECT"),
    ]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox)
    assert not [f for f in suite.provenance.failures if f.stage in ("llm", "parse")], suite.provenance.failures
    v = suite.verdict
    assert suite.oracle.kind is OracleKind.LLM_JUDGE
    assert (v.correct, v.score, v.reason, v.judgements) == (True, 1.0, "judged", 4)
    by_scenario = {t.meta["scenario"]: t for t in suite.tests if t.meta["scenario"] == 1}
    assert by_scenario[1].input == "1\n1 5\n" and by_scenario[1].meta["step"] == 1  # the repaired input
    assert by_scenario[1].meta["output"] == "5\n"
    assert [d["valid"] for d in v.detail["inputs_per_scenario"]] == [1, 3, 1]
    # conflict: "2\n1 5\n1 7" and "2\n1 9\n1 3" run the same lines (deduplicated); "1\n1 5" does not
    conflict = [t.input for t in suite.tests if t.meta["scenario"] == 2]
    assert conflict == ["2\n1 5\n1 7\n", "1\n1 5\n"]
    assert all(t.meta["judgement"] == "CORRECT" for t in suite.tests)
    assert "Properties:" in v.detail["properties"]
    # calls: scenarios, properties, 3 generations, 1 repair, 4 judgements
    assert suite.provenance.usage.calls == 10


def test_trails_repair_budget_exhausted_then_early_stop(tmp_path, sandbox):
    """Every input and every repair crashes: g = 3 steps per scenario, and two
    consecutive empty scenarios end the run with INCORRECT, no verdict asked."""
    rules = [(SCENARIOS, scenarios("a", "b", "c")), PROPS, (REPAIR, inputs("still bad")), (INPUTS, inputs("abc"))]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox)
    v = suite.verdict
    assert (v.correct, v.reason, v.score) == (False, "early_stop", None)
    assert v.detail["inputs_per_scenario"] == [{"valid": 0, "kept": 0}, {"valid": 0, "kept": 0}]
    assert suite.tests == []
    assert suite.provenance.usage.calls == 2 + 3 + 3  # scenarios, properties, 2 scenarios x g steps
    assert v.label(0.6) is False  # incorrect at every threshold


def test_trails_budget_and_early_stop_are_parameters(tmp_path, sandbox):
    rules = [(SCENARIOS, scenarios("a", "b", "c")), PROPS, (REPAIR, inputs("still bad")), (INPUTS, inputs("abc"))]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox, budget=1, early_stop=3)
    assert suite.verdict.reason == "early_stop" and suite.provenance.usage.calls == 2 + 3


def test_trails_scores_share_of_correct_pairs_and_thresholds(tmp_path, sandbox):
    """The wrong greedy code: the judge rejects the output 4 on the separating input."""
    rules = [
        (SCENARIOS, scenarios("single", "replace")),
        PROPS,
        ("single inputs.*" + INPUTS, inputs("1\n1 5", "1\n3 9")),
        ("replace inputs.*" + INPUTS, inputs("3\n1 1\n2 3\n2 2")),
        (JUDGE + r".*\n4\n", "Day 1 takes 2, day 2 takes 3: 5 is required.\nVerdict: INCORRECT"),
        (JUDGE, "Verdict: CORRECT"),
    ]
    suite = run(Trails, code(GREEDY), rules, tmp_path, sandbox, scenarios=2, threshold=0.6)
    v = suite.verdict
    judged = {t.input: t.meta["judgement"] for t in suite.tests}
    assert judged["3\n1 1\n2 3\n2 2\n"] == "INCORRECT"
    assert [t.meta["output"] for t in suite.tests if t.meta["scenario"] == 2] == ["4\n"]
    # gcov deduplicated the two single-offer inputs (same lines of the C++ code)
    assert [t.meta["scenario"] for t in suite.tests] == [1, 2] and suite.tests[0].meta["lines"] > 0
    assert (v.score, v.correct, v.threshold) == (0.5, False, 0.6)
    assert v.label(0.4) is True and v.label(0.5) is False


def test_trails_malformed_verdicts_retry_once_then_drop(tmp_path, sandbox):
    rules = [
        (SCENARIOS, scenarios("only")),
        PROPS,
        (INPUTS, inputs("1\n1 5", "2\n1 5\n1 7")),
        (JUDGE + r".*\n5\n", ["I am not sure what to say.", "After all: Verdict: **CORRECT**"]),
        (JUDGE, "Hmm."),  # never readable
    ]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox, scenarios=1)
    v = suite.verdict
    judged = {t.input: t.meta["judgement"] for t in suite.tests}
    assert judged == {"1\n1 5\n": "CORRECT", "2\n1 5\n1 7\n": None}
    assert (v.score, v.judgements, v.correct) == (1.0, 1, True)
    assert sum(f.reason == "no_verdict" for f in suite.provenance.failures) == 3  # 1 + 2 unreadable answers


def test_trails_unreadable_scenarios_and_silent_provider(tmp_path, sandbox):
    suite = run(Trails, code(FAST), [(SCENARIOS, "I would rather not."), PROPS], tmp_path, sandbox)
    assert (suite.verdict.correct, suite.verdict.reason) == (None, "no_scenarios")
    assert sum(f.reason == "no_scenarios" for f in suite.provenance.failures) == 2  # asked twice
    # no rule for the judge: the provider fails every judgement -> undecided, recorded
    rules = [(SCENARIOS, scenarios("only")), PROPS, (INPUTS, inputs("1\n1 5"))]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox, scenarios=1)
    assert (suite.verdict.correct, suite.verdict.reason) == (None, "unparsed")
    assert any(f.stage == "llm" for f in suite.provenance.failures)


def test_trails_code_that_does_not_compile_is_incorrect(tmp_path, sandbox):
    broken = Program(code="int main() { return x; }", language=Language.CPP, name="broken")
    rules = [(SCENARIOS, scenarios("a")), PROPS, (INPUTS, inputs("1\n1 5"))]
    suite = run(Trails, broken, rules, tmp_path, sandbox)
    assert (suite.verdict.correct, suite.verdict.reason) == (False, "compile_error")
    assert suite.provenance.usage.calls == 3


def test_trails_never_shows_the_code_to_its_judge_or_generator(tmp_path, sandbox):
    """The code appears only in the properties prompt: a rule that matches any other
    prompt containing the code answers nonsense, which the test would see."""
    marker = "heappushpop"  # a name only fast.py contains
    rules = [
        (PROPERTIES, "Properties: n, then n lines."),
        (marker, "LEAK"),
        (SCENARIOS, scenarios("only")),
        (INPUTS, inputs("1\n1 5")),
        (JUDGE, "Verdict: CORRECT"),
    ]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox, scenarios=1)
    assert suite.verdict.reason == "judged" and suite.verdict.correct is True


def test_trails_functional_problem(tmp_path, sandbox):
    from harness_fixtures import second_largest

    problem = second_largest()
    rules = [
        (SCENARIOS, scenarios("duplicates")),
        (PROPERTIES, "Properties: nums is a list of ints."),
        (INPUTS, f'{B}json\n{{"nums": [5, 5, 3]}}\n{B}\n{B}json\n{{"nums": [1, 2]}}\n{B}\n{B}json\n{{"numz": 1}}\n{B}'),
        (REPAIR + ".*numz", f'{B}json\n{{"nums": [4, 4]}}\n{B}'),
        (r"\[5, 5, 3\].*" + JUDGE + r".*\n5\n", "The second largest distinct value is 3.\nVerdict: INCORRECT"),
        (JUDGE, "Verdict: CORRECT"),
    ]
    wrong = problem.wrong_solutions[0]
    suite = run(Trails, wrong, rules, tmp_path, sandbox, problem=problem, scenarios=1)
    # every valid input runs the same lines of this one-path function: one is kept
    assert [t.input for t in suite.tests] == ['{"nums": [5, 5, 3]}'] and suite.verdict.correct is False
    suite = run(Trails, wrong, rules, tmp_path, sandbox, problem=problem, scenarios=1, dedup="text")
    outputs = {t.input: (t.meta["output"], t.meta["step"]) for t in suite.tests}
    assert outputs == {'{"nums": [5, 5, 3]}': ("5", 0), '{"nums": [1, 2]}': ("1", 0), '{"nums": [4, 4]}': ("4", 1)}
    assert suite.verdict.correct is False and suite.verdict.score == pytest.approx(2 / 3)


# --------------------------------------------------------------------------- zero-shot CoT


def test_cot_verdicts_retry_and_undecided(tmp_path, sandbox):
    suite = run(ZeroShotCoT, code(GREEDY), [(COT, "Step by step... it never replaces.\nCorrectness: **False**")],
                tmp_path, sandbox)
    assert (suite.verdict.correct, suite.verdict.reason, suite.verdict.score) == (False, "judged", None)
    suite = run(ZeroShotCoT, code(FAST), [(COT, ["Looks plausible.", "Correctness: True"])], tmp_path, sandbox)
    assert suite.verdict.correct is True and suite.provenance.usage.calls == 2
    suite = run(ZeroShotCoT, code(FAST), [(COT, "No idea.")], tmp_path, sandbox)
    assert (suite.verdict.correct, suite.verdict.reason) == (None, "unparsed")
    suite = run(ZeroShotCoT, code(FAST), [(COT, "No idea.")], tmp_path, sandbox, parse_retries=0)
    assert suite.provenance.usage.calls == 1


# --------------------------------------------------------------------------- HoarePrompt


def test_structure_python_and_cpp():
    py = program_tree("import sys\nn = int(input())\nfor i in range(n):\n    if i % 2:\n        print(i)\n"
                      "def f(x):\n    return x\n", Language.PYTHON)
    assert [type(n).__name__ for n in py] == ["Stmt", "Stmt", "Loop", "Func"]
    assert py[0].kind == "skip" and isinstance(py[2].body[0], Cond) and py[3].body[0].kind == "return"
    cpp = program_tree('#include <cstdio>\nint a[5];\nint main() {\n  int n; scanf("%d", &n); // ; { \n'
                       '  for (int i = 0; i < n; i++) { if (i > 2) break; else a[i] = i; }\n'
                       '  auto f = [&](int x) { return x + 1; };\n  do n--; while (n > 0);\n  return 0;\n}\n',
                       Language.CPP)
    assert [type(n).__name__ for n in cpp] == ["Stmt", "Stmt", "Func"]
    body = cpp[2].body
    assert [type(n).__name__ for n in body] == ["Stmt", "Stmt", "Loop", "Stmt", "Loop", "Stmt"]
    assert isinstance(body[2].body[0], Cond) and body[2].body[0].orelse[0].code == "a[i] = i;"
    assert body[3].code.startswith("auto f = [&]") and body[4].head == "do ... while (n > 0)"
    assert body[5].kind == "return"
    with pytest.raises(StructureError):
        program_tree("def f(:\n", Language.PYTHON)


def test_structure_survives_hostile_sources():
    for text in ["{{{{", "}}}} int main() { ", '"unterminated', "/* open comment", "#define X {\n", "\x00\ud800",
                 "for (;;", "if", "do", "template <", "int main() { if (x) else }"]:
        nodes = program_tree(text, Language.CPP)
        assert isinstance(nodes, list)
    deep = "int main() {" + "{" * 2000 + "}" * 2000 + "}"
    assert isinstance(program_tree(deep, Language.CPP)[0], Func)


HOARE_RULES = [
    (PRECONDITION, "Precondition: n offers, each with a deadline and a fee."),
    (HOARE_VERDICT, "The annotations show the greedy never replaces a kept offer.\nVerdict: INCORRECT"),
    (BRANCH, "Output State: **merged**"),
    (LOOP, "Output State: **after the loop**"),
    (STATEMENT, "Output State: **updated**"),
]


def test_hoareprompt_walks_statements_unrolls_loops_and_judges(tmp_path, sandbox):
    prog = Program(code="n = int(input())\ntotal = 0\nfor i in range(n):\n    if i % 2:\n        total += i\n"
                        "print(total)\n", language=Language.PYTHON)
    # the default is TRAILS's setting (§3.3, "no unrolling"): by hand, the two statements,
    # one summary of the loop from its code alone, the print: 4 walk calls, and with the
    # precondition and the verdict 6 model calls in all
    suite = run(HoarePrompt, prog, HOARE_RULES, tmp_path, sandbox)
    v = suite.verdict
    assert (v.correct, v.reason) == (False, "judged")
    assert v.detail["calls"] == 2 + 1 + 1
    assert suite.provenance.usage.calls == 1 + 4 + 1
    annotated = v.detail["annotated"]
    assert "# state: updated" in annotated and "# state: after the loop" in annotated
    assert annotated.index("for i in range(n):") < annotated.index("# state: after the loop")
    # the HoarePrompt paper's k = 3, an option: 2 statements, three unrolled bodies (if:
    # then-statement + merge = 2 calls each), the summary, the print
    suite = run(HoarePrompt, prog, HOARE_RULES, tmp_path, sandbox, unroll=3)
    assert suite.verdict.detail["calls"] == 2 + 3 * 2 + 1 + 1


def test_hoareprompt_cpp_and_call_budget(tmp_path, sandbox):
    suite = run(HoarePrompt, code(GREEDY), HOARE_RULES, tmp_path, sandbox, unroll=1)
    v = suite.verdict
    assert v.reason == "judged" and "// state: after the loop" in v.detail["annotated"]
    suite = run(HoarePrompt, code(GREEDY), HOARE_RULES, tmp_path, sandbox, unroll=3, max_calls=10)
    assert (suite.verdict.correct, suite.verdict.reason) == (None, "call_budget")
    assert any(f.reason == "call_budget" for f in suite.provenance.failures)


def test_hoareprompt_malformed_answers(tmp_path, sandbox):
    rules = [(PRECONDITION, "Precondition: n."), (HOARE_VERDICT, ["hmm", "hmm again"]),
             (r"\nCode:\n.*int\(input", ""), (STATEMENT, "Output State: **the state after the code**")]
    prog = Program(code="n = int(input())\nprint(n)\n", language=Language.PYTHON)
    suite = run(HoarePrompt, prog, rules, tmp_path, sandbox)
    assert (suite.verdict.correct, suite.verdict.reason) == (None, "unparsed")
    assert "state: the state is unknown" in suite.verdict.detail["annotated"]
    # an empty answer and an echo of the instructions both leave the state unknown, recorded
    assert sum(f.reason == "no_state" for f in suite.provenance.failures) == 2
    assert "the state after the code" not in suite.verdict.detail["annotated"]
    broken = Program(code="def f(:\n", language=Language.PYTHON)
    assert run(HoarePrompt, broken, rules, tmp_path, sandbox).verdict.reason == "no_structure"


def test_methods_refuse_nothing_but_need_the_program():
    for cls in (Trails, ZeroShotCoT, HoarePrompt):
        assert cls.setting.value == "spec+target" and cls.produces is OracleKind.LLM_JUDGE
        assert cls.runner == "verdict" and cls().params.temperature == 0.5
    assert Trails().params.scenarios == 3 and Trails().params.budget == 3 and Trails().params.max_inputs == 3
    assert HoarePrompt().params.unroll == 0  # TRAILS §3.3: HoarePrompt with no unrolling
    assert isinstance(Problem, type) and Stmt and Block and Loop  # names used by the structure test


def test_trails_runs_no_more_inputs_than_it_asked_for(tmp_path, sandbox):
    many = inputs(*(f"1\n{d} 5" for d in range(1, 9)))
    rules = [(SCENARIOS, scenarios("only")), PROPS, (INPUTS, many), (JUDGE, "Verdict: CORRECT")]
    suite = run(Trails, code(FAST), rules, tmp_path, sandbox, scenarios=1, n_inputs=2, dedup="text")
    assert suite.verdict.detail["inputs_per_scenario"] == [{"valid": 2, "kept": 2}]
    assert any(f.reason == "over_budget" for f in suite.provenance.failures)
