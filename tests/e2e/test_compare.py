"""tczoo compare end to end through the CLI with scripted models (no network): a grid of
run directories, a failed cell marked and never shown as a score, cost and wall time
per cell, one progress view when piped, resuming and growing a grid, usage errors, and
cross-scoring every method's suites with every runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiment_fixtures import write_rules
from tczoo.experiments.cross import distinct_tasks, for_unit, runner_tasks, with_reference_oracle
from tczoo.runner import Runner
from tczoo.schema import Oracle, OracleKind, Provenance, TestCase, TestSuite


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, TCZOO_CACHE=os.environ.get("TCZOO_CACHE", str(tmp_path / "cache")),
                TCZOO_PROGRESS_INTERVAL="0.5")


def _tczoo(args: list[str], tmp_path: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *args], capture_output=True, text=True,
                          env=_env(tmp_path), timeout=timeout)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def _table(tables: list[dict], title_start: str) -> dict:
    return next(t for t in tables if t["title"].startswith(title_start))


def test_compare_grid_marks_a_failed_cell_counts_cost_and_time_and_resumes(tmp_path):
    good = write_rules(tmp_path / "good.jsonl")
    # a provider that never answers (no rule matches: every call fails), and one whose
    # answers hold no test
    down = write_rules(tmp_path / "down.jsonl", [("this phrase is in no prompt", "x")])
    empty = write_rules(tmp_path / "empty.jsonl", [("", "Sorry, I cannot write tests for this.")])
    out = tmp_path / "cmp"
    args = ["compare", "--methods", "crux", "--models", f"{good},{down},{empty}", "--problems", "zm01",
            "--out", str(out), "--max-consecutive-errors", "0", "-f", "json"]
    done = _tczoo(args, tmp_path)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    matrix = _table(tables, "hackrate: HR by model × method")
    cells = {r["model"]: r["crux"] for r in matrix["rows"]}
    # no valid test: the number the paper's averaging gives (HackRate 0), the status beside it
    assert cells[down]["status"] == "failed" and cells[down]["value"] is None
    assert cells[empty]["status"] == "no valid tests" and cells[empty]["value"] == 0.0 and "low" not in cells[empty]
    assert cells[good]["value"] > 0 and cells[good]["status"] == "ok"  # a number, only where tests were made
    assert cells[good]["problems"] == 1 and cells[good]["metric"] == "HR"  # the interval rests on one problem
    shown = _tczoo(["report", str(out)], tmp_path).stdout
    assert "0.00 (no valid tests)" in shown and "failed" in shown
    cost = {r["model"]: r for r in _table(tables, "cost and time per cell")["rows"]}
    assert cost[good]["status"] == "ok" and cost[good]["LLM calls"] >= 1 and cost[good]["wall s"] > 0
    assert cost[down]["status"] == "failed" and cost[down]["failed"] == 1 and cost[down]["LLM failures"] >= 1
    assert cost[empty]["status"] == "no valid tests" and cost[empty]["no valid tests"] == 1
    assert cost[good]["cost USD"] == "not priced" and cost[good]["sessions"] == 1
    failures = _table(tables, "failures by stage and reason")["rows"]
    assert [(f["model"], f["stage"], f["reason"]) for f in failures if f["failed units"]] == [(down, "llm", "no_rule")]
    # one progress view over the grid, piped: the cell it is in, then the counts
    assert "cell 3/3 " in done.stderr and "3/3 units done, 1 failed" in done.stderr
    assert "1 of 3 generations failed" in done.stderr
    # each cell is an ordinary run directory
    dirs = sorted(p.parent for p in out.glob("*/*/config.json"))
    assert len(dirs) == 3 and all(d.name == "crux" for d in dirs)
    generations = {d: len(_lines(d / "generations.jsonl")) for d in dirs}

    # The same command again: nothing is generated or scored again; a second session is logged.
    again = _tczoo(args, tmp_path)
    assert again.returncode == 0, again.stderr
    assert {d: len(_lines(d / "generations.jsonl")) for d in dirs} == generations
    assert json.loads(again.stdout)[0] == matrix
    assert len(_lines(out / "grid.jsonl")) == 6
    # A grid grows by a method; other settings must match.
    grown = _tczoo(["compare", "--methods", "crux,lcb", "--models", good, "--problems", "zm01", "--out", str(out),
                    "-f", "json"], tmp_path)
    assert grown.returncode == 0, grown.stderr
    assert {r["model"]: r["lcb"] for r in json.loads(grown.stdout)[0]["rows"]}[good]["status"] not in ("failed",
                                                                                                    "not run")
    assert {d: len(_lines(d / "generations.jsonl")) for d in dirs} == generations
    assert set(json.loads((out / "grid.json").read_text())["methods"]) == {"crux", "lcb"}
    other = _tczoo(["compare", "--methods", "crux", "--models", good, "--problems", "zm01", "--samples", "2",
                    "--out", str(out)], tmp_path)
    assert other.returncode == 2 and "different settings" in other.stderr and "samples" in other.stderr
    # tczoo report reads the comparison directory
    report = _tczoo(["report", str(out), "-f", "json"], tmp_path)
    assert report.returncode == 0, report.stderr
    assert _table(json.loads(report.stdout), "hackrate: HR by model × method")["columns"] == ["model", "crux", "lcb"]


@pytest.mark.parametrize("args, message", [
    (["--methods", "crux,crux"], "names crux twice"),
    (["--methods", "nope"], "unknown method 'nope'"),
    (["--methods", "crux", "--params", '{"lcb": {}}'], "not a method of this comparison"),
    (["--methods", "crux", "--params", '{"runner:efficiency": {}}'], "scores with runner:hackrate"),
    (["--methods", "crux", "--runners", "nope"], "unknown runner 'nope'"),
    (["--methods", "crux", "--models", "scripted:/no/such/rules.jsonl"], "scripted model file not found"),
    (["--methods", "crux", "--models", "local/qwen2.5-coder-1.5b", "--api-base", "http://127.0.0.1:9/v1",
      "--benchmark", "nope"], "unknown benchmark 'nope'"),
])
def test_compare_usage_errors_are_one_line(tmp_path, args, message):
    rules = write_rules(tmp_path / "m.jsonl")
    if "--models" not in args:
        args = [*args, "--models", rules]
    done = _tczoo(["compare", *args, "--out", str(tmp_path / "out")], tmp_path, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_compare_refuses_a_run_directory_as_out(tmp_path):
    rules = write_rules(tmp_path / "m.jsonl")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text("{}")
    done = _tczoo(["compare", "--methods", "crux", "--models", rules, "--problems", "zm01", "--out", str(run_dir)],
                  tmp_path)
    assert done.returncode == 2 and "is a run directory, not a comparison" in done.stderr


def test_cross_scoring_scores_every_suite_with_every_runner(tmp_path):
    rules = write_rules(tmp_path / "m.jsonl")
    out = tmp_path / "cross"
    params = {"runner:efficiency": {"languages": ["cpp"]}, "runner:bugfind": {"responses": 1, "max_triplets": 2}}
    args = ["compare", "--methods", "crux,stab", "--models", rules, "--problems", "zm01", "--out", str(out),
            "--runners", "hackrate,efficiency,bugfind,agreement", "--params", json.dumps(params), "-f", "json"]
    done = _tczoo(args, tmp_path)
    assert done.returncode == 0, done.stderr
    matrix = _table(json.loads(done.stdout), "cross-scoring: method × metric")
    rows = {r["method"]: r for r in matrix["rows"]}
    assert rows["crux"]["own runner"] == "hackrate" and rows["stab"]["own runner"] == "efficiency"
    for method in ("crux", "stab"):  # every runner gave every method a number
        for column in ("hackrate: HR", "efficiency: Avg", "bugfind: zoo-mini TBR", "agreement: TPR",
                       "agreement: TNR", "agreement: DR"):
            assert isinstance(rows[method][column]["value"], float), rows[method][column]
    # STAB's suites carry inputs only: the runners that judge outputs got the reference solution's
    stab_dir = next(out.glob("*/stab"))
    records = _lines(stab_dir / "cross_scores.jsonl")
    assert {r["runner"] for r in records} == {"hackrate", "bugfind", "agreement"}
    assert all(r["detail"]["cross"]["oracle"].startswith("reference:") for r in records)
    bugfind = [r for r in records if r["runner"] == "bugfind"]
    assert len(bugfind) == 2  # one per wrong code (max_triplets 2), not one per response
    # resumed: nothing is scored twice
    again = _tczoo(args, tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(_lines(stab_dir / "cross_scores.jsonl")) == len(records)


# --------------------------------------------------------------------------- the rules, one by one


class _NeedsTarget(Runner):
    """A runner that scores only suites written against a program under test."""

    name = "needs-target"

    def tasks(self, problem, method_cls, *, samples, seed):
        raise ValueError("runner needs-target scores verdicts on a program under test")

    def score(self, problem, spec, suite):
        raise AssertionError("never scores: it has no task")

    def summarize(self, scores):
        return []


def _zm01(sandbox):
    from tczoo.benchmarks import load_benchmark

    return load_benchmark("zoo-mini", ["zm01"], sandbox=sandbox)[0]


def test_cross_tasks_one_per_context_matched_to_the_program_under_test(sandbox):
    from tczoo.methods.harnessllm.harness import Harness
    from tczoo.registry import get_runner

    problem = _zm01(sandbox)
    bugfind = get_runner("bugfind")(sandbox, responses=3)
    tasks, why = runner_tasks(bugfind, Harness, [problem], seed=0)
    assert why is None
    specs = tasks[problem.id]
    assert len(specs) == len(problem.wrong_solutions)  # the 3 responses of a triplet are one task here
    assert [s.context["wrong"] for s in specs] == list(range(len(problem.wrong_solutions)))
    assert all(s.task.setting.value == "spec" for s in specs)  # scoring hands the method nothing
    assert [s.context["wrong"] for s in for_unit(specs, {"wrong": 3})] == [3]
    assert for_unit(specs, {}) == specs
    hackrate = get_runner("hackrate")(sandbox)
    [only] = runner_tasks(hackrate, Harness, [problem], seed=0)[0][problem.id]
    assert for_unit([only], {"wrong": 3}) == [only]  # a runner whose tasks name no program scores it once
    assert distinct_tasks([only, only]) == [only]
    assert runner_tasks(_NeedsTarget(sandbox), Harness, [problem], seed=0) == (
        {}, "runner needs-target scores verdicts on a program under test")


def test_inputs_only_suites_get_the_reference_solution_as_oracle(sandbox):
    problem = _zm01(sandbox)
    suite = TestSuite(problem_id=problem.id, tests=[TestCase(input="1\n1 5\n")],
                      oracle=Oracle(kind=OracleKind.INPUTS_ONLY), provenance=Provenance(method="stab"))
    judged, how = with_reference_oracle(suite, problem)
    assert judged.oracle.kind is OracleKind.REFERENCE_PROGRAM and judged.oracle.program.language.value == "cpp"
    assert how == f"reference:{judged.oracle.program.name}" and suite.oracle.kind is OracleKind.INPUTS_ONLY
    with_outputs = suite.model_copy(update={"oracle": Oracle(kind=OracleKind.EXPECTED_OUTPUT)})
    assert with_reference_oracle(with_outputs, problem) == (with_outputs, "own")
    assert _NeedsTarget(sandbox).cannot_score(suite.model_copy(update={"tests": []})) == "the suite has no tests"
    assert _NeedsTarget(sandbox).cannot_score(suite) is None


def test_a_provider_that_stops_answering_stops_its_model_not_the_grid(tmp_path):
    """A real OpenAI-compatible server on loopback that refuses every call (401): its
    model's first cell halts, its other cell is not started, the scripted model's cells
    run; the command says so and exits 1 (the same command resumes)."""
    from tests.fake_openai import FakeOpenAI

    good = write_rules(tmp_path / "good.jsonl")
    out = tmp_path / "cmp"
    with FakeOpenAI(default=(401, "invalid key")) as server:
        args = ["compare", "--methods", "crux,lcb", "--models", f"hosted_vllm/m,{good}", "--problems", "zm01",
                "--api-base", server.base, "--max-consecutive-errors", "2", "--out", str(out), "-f", "json"]
        done = _tczoo(args, tmp_path)
    assert done.returncode == 1, done.stderr
    assert "not started because the provider stopped answering: hosted_vllm/m × lcb" in done.stderr
    last = done.stderr.splitlines()[-1]
    assert "stopped: hosted_vllm/m: every call failed (auth)" in last and "run the same command again" in last
    cost = {(r["model"], r["method"]): r for r in _table(json.loads(done.stdout), "cost and time per cell")["rows"]}
    assert cost[("hosted_vllm/m", "crux")]["status"] == "failed"
    assert cost[("hosted_vllm/m", "lcb")]["status"] == "not run: provider down"
    assert cost[(good, "crux")]["status"] == "ok" and cost[(good, "lcb")]["status"] == "ok"
    # --api-base reached the provider model only; the scripted cells record none
    configs = {p.parent.name + "@" + p.parent.parent.name.split("-")[0]: json.loads(p.read_text())
               for p in out.glob("*/*/config.json")}
    assert {c["model"]: c["llm"]["api_base"] for c in configs.values()} == {"hosted_vllm/m": server.base, good: None}


def test_one_grid_over_two_providers_that_answer_alike_and_its_replay(tmp_path):
    """Two providers answering with the same rules — the scripted backend in-process and
    an OpenAI-compatible server on loopback reached through LiteLLM with --api-base — give
    the same tests, so the same numbers in one matrix; each cell's usage is its own
    provider's (the server counts 11 + 7 tokens a call). The recorded grid then replays
    (replay:DIR) as a third provider with the same numbers and no call made."""
    import re

    from tczoo.llm.backends import render_prompt
    from tests.experiment_fixtures import zm01_rules
    from tests.fake_openai import FakeOpenAI

    rules = write_rules(tmp_path / "rules.jsonl")
    compiled = [(re.compile(m, re.S), a) for m, a in zm01_rules()]

    def answer(messages):
        prompt = render_prompt(messages)
        return next((a if isinstance(a, str) else a[0]) for p, a in compiled if p.search(prompt))

    out = tmp_path / "cmp"
    with FakeOpenAI(answer=answer) as server:
        done = _tczoo(["compare", "--methods", "crux,lcb", "--models", f"hosted_vllm/zm01,{rules}", "--problems",
                       "zm01", "--api-base", server.base, "--out", str(out), "-f", "json"], tmp_path)
        calls = len(server.requests)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    matrix = {r["model"]: r for r in _table(tables, "hackrate: HR by model × method")["rows"]}
    assert set(matrix) == {"hosted_vllm/zm01", rules}
    for method in ("crux", "lcb"):
        assert isinstance(matrix[rules][method]["value"], float)  # a number, the same from both providers
        assert matrix["hosted_vllm/zm01"][method] == matrix[rules][method]
    cost = {(r["model"], r["method"]): r for r in _table(tables, "cost and time per cell")["rows"]}
    served = [cost[("hosted_vllm/zm01", m)] for m in ("crux", "lcb")]
    assert calls >= 2 and sum(c["LLM calls"] for c in served) == calls
    assert all(c["status"] == "ok" and c["prompt tokens"] == 11 * c["LLM calls"]
               and c["completion tokens"] == 7 * c["LLM calls"] and c["wall s"] > 0 for c in served)
    assert all(cost[(rules, m)]["cost USD"] == "not priced" for m in ("crux", "lcb"))

    again = _tczoo(["compare", "--methods", "crux,lcb", "--models", f"replay:{out}", "--problems", "zm01",
                    "--out", str(tmp_path / "again"), "-f", "json"], tmp_path)
    assert again.returncode == 0, again.stderr
    replayed = _table(json.loads(again.stdout), "hackrate: HR by model × method")["rows"]
    assert len(replayed) == 1
    assert {m: replayed[0][m] for m in ("crux", "lcb")} == {m: matrix[rules][m] for m in ("crux", "lcb")}
