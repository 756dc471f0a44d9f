import pytest
from pydantic import ValidationError

from tczoo.schema import (
    Artifact, Failure, FailureSignature, GenerationRecord, GoldenTest, Language, Oracle, OracleKind,
    Problem, Program, Provenance, RunConfig, Sample, ScoreRecord, Setting, Task, TestCase, TestSuite,
    Usage, WrongProgram,
)


def _problem() -> Problem:
    return Problem(
        id="p1",
        title="Sum",
        statement="Print a+b.\n\n$1 \\le a, b \\le 10^9$",
        samples=[Sample(input="1 2\n", output="3\n")],
        solutions=[Program(code="print(sum(map(int,input().split())))", language=Language.PYTHON, name="ok.py")],
        wrong_solutions=[
            WrongProgram(code="int main(){}", language="cpp", name="w.cpp",
                         signature=FailureSignature(verdicts=["AC", "WA", "TLE"]))
        ],
        golden_tests=[GoldenTest(input="1 1\n", output="2\n", name="t1")],
        rank=1,
        tags=["math"],
    )


def test_problem_round_trips_through_json():
    p = _problem()
    again = Problem.model_validate_json(p.model_dump_json())
    assert again == p
    assert again.wrong_solutions[0].signature.bits == [0, 1, 1]


def test_suite_and_records_round_trip():
    suite = TestSuite(
        problem_id="p1",
        tests=[TestCase(input="1 2\n", output="3\n", origin="crux")],
        oracle=Oracle(kind=OracleKind.REFERENCE_PROGRAM, program=_problem().solutions[0]),
        artifacts=[Artifact(role="generator", program=_problem().solutions[0], ok=False, note="crashed")],
        provenance=Provenance(method="crux", model="scripted:x", params={"t": 0.2}, seed=3,
                              usage=Usage(calls=2, prompt_tokens=10, completion_tokens=5, cost_usd=0.01),
                              failures=[Failure(stage="parse", reason="bad_json", detail="x")]),
    )
    assert TestSuite.model_validate_json(suite.model_dump_json()) == suite
    gen = GenerationRecord(method="crux", model="m", problem_id="p1", task="s1", suite=suite, seconds=1.5)
    assert GenerationRecord.model_validate_json(gen.model_dump_json()) == gen
    score = ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="p1",
                        metrics={"hack_rate": 50.0}, detail={"wrong": {"w.cpp": "wa"}})
    assert ScoreRecord.model_validate_json(score.model_dump_json()) == score
    cfg = RunConfig(methods=["crux"], model="m", benchmark="zoo-mini")
    assert RunConfig.model_validate_json(cfg.model_dump_json()) == cfg


def test_oracle_needing_a_program_refuses_none():
    with pytest.raises(ValidationError):
        Oracle(kind=OracleKind.CHECKER_PROGRAM)


def test_unknown_fields_are_rejected_not_dropped():
    with pytest.raises(ValidationError):
        TestCase(input="1", expected="2")


def test_task_never_carries_more_than_its_setting():
    p = _problem()
    spec = Task.from_problem(p, Setting.SPEC)
    assert spec.correct_programs == [] and spec.target is None
    correct = Task.from_problem(p, Setting.SPEC_CORRECT)
    assert correct.correct_programs == p.solutions and correct.target is None
    target = Task.from_problem(p, Setting.SPEC_TARGET, target=p.wrong_solutions[0])
    # the program under test is handed over as code only: its name and meta tell its bug
    wrong = p.wrong_solutions[0]
    assert target.correct_programs == [] and target.target.code == wrong.code
    assert (target.target.name, target.target.meta, target.target.language) == ("target", {}, wrong.language)
    with pytest.raises(ValidationError):
        Task(problem_id="p", statement="s", time_limit_ms=1, memory_limit_mb=1, setting=Setting.SPEC,
             correct_programs=p.solutions)
    with pytest.raises(ValidationError):
        Task.from_problem(p, Setting.SPEC_TARGET)  # no program under test given


@pytest.mark.parametrize("text,lang", [("C++", "cpp"), ("cpp17", "cpp"), ("Python3", "python"),
                                       ("PyPy3", "pypy"), ("GNU C", "c"), ("java", "java"), ("Kotlin", "kotlin"),
                                       ("hs", "haskell"), ("Rust", "rust"), ("golang", "go"), ("python2", "python2")])
def test_language_spellings(text, lang):
    assert Language.parse(text).value == lang


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language"):
        Language.parse("brainfuck")


def _pair_problem(n_wrong: int) -> Problem:
    fast = Program(code="#include <cstdio>\nint main(){long long a,b;scanf(\"%lld%lld\",&a,&b);printf(\"%lld\",a+b);}\n",
                   language=Language.CPP, name="accepted/fast.cpp")
    py = Program(code="a, b = map(int, input().split())\nprint(a + b)\n", language=Language.PYTHON,
                 name="accepted/sol.py")
    wrong = [WrongProgram(code=f"a, b = map(int, input().split())\nprint(a + b + {k})\n", language=Language.PYTHON,
                          name=f"wrong/off{k}.py", meta={"bug": f"adds {k}"}) for k in range(1, n_wrong + 1)]
    return Problem(id="pairs", statement="Add.", solutions=[fast, py], wrong_solutions=wrong)


def test_spec_correct_wrong_shows_half_the_wrong_submissions_with_a_fix():
    from tczoo.schema import SHOWN_WRONG_SHARE, fix_for, shown_wrong

    problem = _pair_problem(5)
    shown = shown_wrong(problem)
    assert len(shown) == int(SHOWN_WRONG_SHARE * 5) == 2
    # the split does not depend on the order the loader listed the submissions in
    reordered = problem.model_copy(update={"wrong_solutions": problem.wrong_solutions[::-1]})
    assert [w.name for w in shown_wrong(reordered)] == [w.name for w in shown]
    assert shown_wrong(_pair_problem(1)) == []  # at least as many held out as shown
    # the fix: the closest accepted program, same language first; or the one meta names
    assert fix_for(shown[0], problem.solutions).name == "accepted/sol.py"
    named = shown[0].model_copy(update={"meta": {"fixed": "fast.cpp"}})
    assert fix_for(named, problem.solutions).name == "accepted/fast.cpp"

    task = Task.from_problem(problem, Setting.SPEC_CORRECT_WRONG)
    assert len(task.correct_programs) == 2 and len(task.wrong_pairs) == 2
    # what the method sees names nothing and describes no bug
    assert {(p.wrong.name, p.fixed.name) for p in task.wrong_pairs} == {("wrong", "fixed")}
    assert all(p.wrong.meta == {} for p in task.wrong_pairs)
    shown_digests = task.shown_programs()
    assert {w.digest for w in shown} <= shown_digests
    held_out = [w for w in problem.wrong_solutions if w.digest not in shown_digests]
    assert len(held_out) == 3
    # other settings carry no wrong submissions
    assert Task.from_problem(problem, Setting.SPEC_CORRECT).wrong_pairs == []
    with pytest.raises(ValueError, match="must not carry wrong submissions"):
        Task(problem_id="p", statement="s", time_limit_ms=1, memory_limit_mb=1, setting=Setting.SPEC_CORRECT,
             correct_programs=problem.solutions, wrong_pairs=task.wrong_pairs)
    with pytest.raises(ValueError, match="needs at least one correct program"):
        Task(problem_id="p", statement="s", time_limit_ms=1, memory_limit_mb=1, setting=Setting.SPEC_CORRECT_WRONG)
