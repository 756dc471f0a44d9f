"""EvalPerf's doubling loop against a real reference (zoo-mini zm01): it stops at the
first input that the reference cannot finish in time (or, with our option, that
violates the constraints), and keeps the largest input before it; a failing generator
gets one repair, whose prompt never shows a parsed constraint; Appendix A sampling."""

from __future__ import annotations

from tczoo.methods.evalperf import EvalPerf
from tczoo.runners.efficiency import EfficiencyRunner
from tcbench_fixtures import failures, fenced, run_method, script, zoo_problem
from tczoo.schema import Language, Setting

GROWING = '''def perf_input_gen(scale: int) -> str:
    n = 1000 * scale
    return f"{n}\\n" + "".join(f"{n - i} {i + 1}\\n" for i in range(n))
'''
BROKEN = "def perf_input_gen(scale):\n    return undefined_name\n"


def _run(sandbox, tmp_path, answers, repair_answers=None, **params):
    problem = zoo_problem(sandbox, "zm01")
    rules = []
    if repair_answers:
        rules.append((r"Your previous generator failed", [fenced(a) for a in repair_answers]))
    rules.append((r"perf_input_gen", [fenced(a) for a in answers]))
    model = script(tmp_path / "m.jsonl", rules)
    return run_method(EvalPerf, problem, model, sandbox, **params)


def test_doubling_stops_at_the_constraint_and_keeps_the_largest_valid_input(sandbox, tmp_path):
    """Our option check_inputs: the loop also stops at the statement's bound."""
    suite, task = _run(sandbox, tmp_path, [GROWING], generators=1, check_inputs=True)
    assert task.setting is Setting.SPEC_CORRECT and task.correct_programs
    # n = 1000 * scale: 128000 rows is the largest n ≤ 2·10^5 (scale 256 gives 256000).
    assert len(suite.tests) == 1
    test = suite.tests[0]
    assert test.meta["scale"] == 128 and test.meta["stopped"] == "constraint_violation"
    assert test.input.startswith("128000\n128000 1\n")
    assert failures(suite) == []
    assert suite.artifacts[0].note.startswith("scales 1:ok, 2:ok, 4:ok, 8:ok, 16:ok, 32:ok, 64:ok, 128:ok, 256:constraint_violation")


def test_doubling_stops_when_the_reference_exceeds_the_time_limit(sandbox, tmp_path):
    # A 20 ms limit on the reference: the loop must stop at its first TLE and keep the
    # previous (in-time) input, whose reference run is recorded under the limit.
    python_ref = [s for s in zoo_problem(sandbox, "zm01").solutions if s.language is Language.PYTHON][0]
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(r"perf_input_gen", fenced(GROWING))])
    from tczoo.llm import LLMClient, LLMSettings, Session
    from tczoo.method import Context
    from tczoo.templates import Prompts
    from tczoo.schema import Task
    import asyncio

    task = Task.from_problem(problem, Setting.SPEC_CORRECT, budget=1, correct=[python_ref])
    method = EvalPerf(generators=1, time_limit_ms=60, check_inputs=False)
    ctx = Context(llm=Session(LLMClient(model, LLMSettings(cache=False, retries=0))), sandbox=sandbox,
                  prompts=Prompts(), method="evalperf", params=method.params.model_dump())
    suite = asyncio.run(method.generate(task, ctx))
    test = suite.tests[0]
    assert test.meta["stopped"] == "reference_tle"
    assert test.meta["reference_cpu_ms"] <= 60
    assert 1 <= test.meta["scale"] < 1024
    assert test.input.split("\n", 1)[0] == str(1000 * test.meta["scale"])


def test_a_failing_generator_is_repaired_once(sandbox, tmp_path):
    suite, _ = _run(sandbox, tmp_path, [BROKEN, BROKEN], repair_answers=[GROWING, BROKEN], generators=2, repairs=1,
                    max_doublings=2)
    # g0: broken, repaired (the repair answer of sample 0 grows); g1: broken twice.
    assert [(t.meta["generator"], t.meta["scale"], t.meta["repairs"]) for t in suite.tests] == [("g0", 4, 1)]
    assert sorted(failures(suite)) == [("generator", "crash", "g0"), ("generator", "crash", "g1"),
                                       ("generator", "crash", "g1")]


def test_efficiency_runner_gives_evalperf_one_cpp_reference(sandbox):
    problem = zoo_problem(sandbox, "zm01")
    specs = EfficiencyRunner(sandbox).tasks(problem, EvalPerf, samples=1, seed=0)
    assert len(specs) == 1
    refs = specs[0].task.correct_programs
    assert [(r.name, r.language) for r in refs] == [("accepted/fast.cpp", Language.CPP)]
    assert specs[0].task.budget == 5


def test_without_the_check_the_doubling_runs_to_the_reference_and_sampling_is_appendix_a(sandbox, tmp_path):
    params = EvalPerf().params
    assert (params.temperature, params.top_p, params.max_tokens, params.check_inputs) == (1.0, 0.95, 4096, False)
    suite, _ = _run(sandbox, tmp_path, [GROWING], generators=1, max_doublings=3)
    # No statement check: 8000 rows (scale 8) is kept although nothing stopped the loop.
    assert [(t.meta["scale"], t.meta["stopped"]) for t in suite.tests] == [(8, "ok")]


VIOLATING = 'def perf_input_gen(scale: int) -> str:\n    return "300000\\n" + "1 1\\n" * 300000\n'


def test_the_repair_prompt_names_no_parsed_constraint(sandbox, tmp_path):
    import asyncio

    from tczoo.llm import LLMClient, LLMSettings, Session
    from tczoo.method import Context
    from tczoo.schema import Task
    from tczoo.templates import Prompts

    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(r"Your previous generator failed", fenced(GROWING)),
                                          (r"perf_input_gen", fenced(VIOLATING))])
    seen: list[dict] = []
    task = Task.from_problem(problem, Setting.SPEC_CORRECT, budget=1, correct=[problem.solutions[0]])
    method = EvalPerf(generators=1, check_inputs=True, max_doublings=1)
    ctx = Context(llm=Session(LLMClient(model, LLMSettings(cache=False, retries=0), on_exchange=seen.append)),
                  sandbox=sandbox, prompts=Prompts(), method="evalperf", params=method.params.model_dump())
    suite = asyncio.run(method.generate(task, ctx))
    repair = "\n".join(m["content"] for m in seen[1]["messages"])
    assert "constraint_violation at scale 1" in repair and "200000" not in repair
    assert "n = 300000 > 200000" in next(f.detail for f in suite.provenance.failures if f.item == "g0")
    assert [t.meta["repairs"] for t in suite.tests] == [1]
