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
                                       ("PyPy3", "python"), ("GNU C", "c"), ("java", "java")])
def test_language_spellings(text, lang):
    assert Language.parse(text).value == lang


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language"):
        Language.parse("brainfuck")
