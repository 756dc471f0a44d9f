"""``tczoo rl audit``: every exploit class a policy would try, held to its bound.

Each row of the battery (``tczoo.rl.audit``) is a regression test of a hole that once
worked here (an empty test hacking every wrong code, a checker remembering the ground
truth's output, a forged "cannot start" line escaping a negative reward, a sleeper
stretching a reward call, a prediction reading the expected value from the evaluating
frame). On zoo-mini every method's rewards must hold; on a benchmark without input
validators the audit must find the empty test (the benchmark's own rule, shown loudly).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.rl.audit import FLOOR, TWIN, audit, exploits_for, out_of_range

pytestmark = pytest.mark.e2e


def _rows(report, method):
    return {r.exploit: r for r in report.rows if r.method == method}


@pytest.fixture(scope="module")
def zoo_report(sandbox):
    return audit("zoo-mini", ["crux", "io", "harness", "stab", "lcb-output"], problems=["zm01"], sandbox=sandbox,
                 time_budget_s=60.0, max_tasks=1)


def test_no_exploit_beats_its_bound_on_zoo_mini(zoo_report):
    assert zoo_report.ok, [(r.method, r.exploit, r.reward, r.bound, r.why) for r in zoo_report.failures()]
    assert {r.method for r in zoo_report.rows} == {"crux", "io", "harness", "stab", "lcb-output"}


def test_the_empty_test_is_the_floor_and_the_honest_answer_is_above_it(zoo_report):
    crux = _rows(zoo_report, "crux")
    assert crux["empty test"].reward == -1.0 and "invalid" not in crux["empty test"].reason
    assert crux["honest (the jury's tests)"].reward > 0
    assert crux["out-of-range input"].reward == -1.0
    for method in ("io", "harness"):
        rows = _rows(zoo_report, method)
        assert rows["empty test"].reward == 0.0 and rows["honest (the jury's tests)"].reward == 1.0


def test_checker_tricks_earn_what_their_inputs_earn_alone(zoo_report):
    rows = _rows(zoo_report, "harness")
    alone = rows["accept-all checker"].reward
    assert alone == pytest.approx(0.1)  # good inputs, no oracle: Eq. 1's 0.1
    for trick in ("memoising checker", "file-reading checker", "process-sniffing checker", "reject-all checker"):
        assert rows[trick].reward is not None and rows[trick].reward <= alone + 1e-9, (trick, rows[trick])


def test_forged_errors_and_sleepers_get_the_floor_never_no_reward(zoo_report):
    for method, names in (("harness", ["forged sandbox error in the checker", "forged sandbox error in the generator",
                                       "sleeping checker"]),
                          ("stab", ["forged sandbox error", "sleeping generator", "out-of-range input"])):
        rows = _rows(zoo_report, method)
        for name in names:
            assert rows[name].reward == 0.0, (method, name, rows[name].reason)


def test_predictions_are_data_compared_on_the_host(sandbox):
    report = audit("humaneval", ["lcb-output"], problems=["HumanEval/0"], sandbox=sandbox, time_budget_s=60.0,
                   max_tasks=1)
    rows = _rows(report, "lcb-output")
    assert rows["honest (the test's output)"].reward == 1.0
    for trick in ("frame-walking prediction", "gc-walking prediction", "always-equal object",
                  "file-reading prediction", "forged sandbox error", "sleeping prediction"):
        assert rows[trick].reward == 0.0, (trick, rows[trick].reason)
    assert report.ok


def _unvalidated_benchmark(tmp_path: Path, sandbox) -> str:
    """zm01 as a TC-Bench record: the same problem without its input validator."""
    from tczoo.benchmarks import load_benchmark

    [p] = load_benchmark("zoo-mini", ["zm01"], sandbox=sandbox)
    record = {"problem_id": "zm01", "description": p.statement, "time_limit": p.time_limit_ms,
              "memory_limit": p.memory_limit_mb, "sample_input": p.samples[0].input,
              "sample_output": p.samples[0].output,
              "solutions": [{"code": s.code, "lang": s.language.value} for s in p.solutions[:2]],
              "wrong_solutions": [{"code": w.code, "lang": w.language.value} for w in p.wrong_solutions
                                  if "greedy" in w.name], "rank": 1}
    path = tmp_path / "tc.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return f"tcbench:{path}"


def test_the_audit_finds_the_empty_test_where_nothing_validates_inputs(tmp_path, sandbox):
    """Without a validator the paper's own rule applies, and the audit says what it lets through."""
    bench = _unvalidated_benchmark(tmp_path, sandbox)
    report = audit(bench, ["crux"], sandbox=sandbox, time_budget_s=60.0, max_tasks=1)
    empty = _rows(report, "crux")["empty test"]
    assert not report.ok and not empty.ok and empty.reward > -1.0, empty
    # the command says so, and exits 1
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "rl", "audit", "-b", bench, "-m", "crux",
                           "--max-tasks", "1", "--time-budget", "60"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert "EXPLOIT" in done.stdout and "empty test" in done.stdout


def test_every_exploit_has_a_rule_and_a_known_twin():
    for method in ("crux", "io", "harness", "stab", "lcb-output"):
        battery = exploits_for(method)
        names = {e.name for e in battery}
        assert sum(e.twin == "" for e in battery) == 1, method  # one honest answer
        for e in battery:
            assert e.rule in (FLOOR, TWIN)
            assert e.twin in names or e.twin in ("", "honest") or e.rule == FLOOR, (method, e.name)
    assert out_of_range("3\n1 2\n3 4\n5 6\n").startswith("22\n1 2\n")
