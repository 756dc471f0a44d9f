"""zoo-mini loads and judges cleanly: every accepted solution passes every golden test,
every wrong solution fails where its stored signature says it does."""

import re

import pytest

from tczoo.benchmarks import load_benchmark
from tczoo.benchmarks.zoo_mini import ROOT, problem_dirs
from tczoo.sandbox import Job, Limits, Verdict
from tczoo.schema import Language


@pytest.fixture(scope="module")
def problems(sandbox):
    return load_benchmark("zoo-mini", sandbox=sandbox)


def test_shape(problems):
    assert len(problems) >= 12
    topics = set()
    for p in problems:
        assert "## Input" in p.statement and "## Output" in p.statement, p.id
        assert p.samples, p.id
        assert len(p.golden_tests) >= 15, p.id
        assert len(p.solutions) >= 3, p.id
        assert {s.language for s in p.solutions} >= {Language.CPP, Language.PYTHON}, p.id
        assert len(p.wrong_solutions) >= 10, p.id
        assert all(w.meta.get("bug") for w in p.wrong_solutions), p.id
        for w in p.wrong_solutions:
            assert w.signature and len(w.signature.verdicts) == len(p.golden_tests), (p.id, w.name)
            assert any(v != "AC" for v in w.signature.verdicts), (p.id, w.name)
        assert p.rank and p.rank >= 1, p.id
        topics.update(p.tags)
    latex = [p for p in problems if re.search(r"\$[^$]*\\le", p.statement)]
    assert len(latex) >= 3
    assert any(re.search(r"sum of \$?n\$? over all test cases", p.statement) for p in problems)
    assert any(re.search(r"n \\cdot m \\le 10\^6", p.statement) for p in problems)
    wrong_languages = [w.language for p in problems for w in p.wrong_solutions]
    assert wrong_languages.count(Language.CPP) > wrong_languages.count(Language.PYTHON) > 0


@pytest.mark.e2e
def test_every_accepted_solution_passes_every_golden_test(problems, sandbox):
    for p in problems:
        limits = Limits.of(p)
        jobs = [Job(program=s, stdin=t.input, expected=t.output, comparator=p.checker, limits=limits, tag=(s.name, t.name))
                for s in p.solutions for t in p.golden_tests]
        bad = [(job.tag, r.verdict.value) for job, r in zip(jobs, sandbox.run_many(jobs)) if r.verdict is not Verdict.AC]
        assert not bad, f"{p.id}: {bad[:5]}"


@pytest.mark.e2e
def test_every_wrong_solution_fails_where_its_signature_says(problems, sandbox):
    """Re-judge each wrong code on the first golden test its stored signature fails."""
    for p in problems:
        limits = Limits.of(p)
        jobs = []
        for w in p.wrong_solutions:
            first = next(i for i, v in enumerate(w.signature.verdicts) if v != "AC")
            t = p.golden_tests[first]
            jobs.append(Job(program=w, stdin=t.input, expected=t.output, comparator=p.checker, limits=limits,
                            tag=(w.name, t.name, w.signature.verdicts[first])))
        for job, r in zip(jobs, sandbox.run_many(jobs)):
            name, test, want = job.tag
            assert r.verdict is not Verdict.AC, f"{p.id}: {name} passed {test}"
            assert r.verdict.value == want or {r.verdict.value, want} <= {"RE", "MLE"}, (p.id, name, test, r.verdict)


def test_every_problem_directory_is_locked():
    for d in problem_dirs(ROOT):
        assert (d / "tests.lock.json").is_file() and (d / "signatures.json").is_file(), d.name
