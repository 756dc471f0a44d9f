"""The zoo-mini timing audit (bench/audit_zoo_mini_timing.py): its margin rule on
hand-made measurements, one real measurement in the sandbox, and its command line on
bad input. The band: must-finish <= 0.5x the time limit, TLE >= 2x, memory <= 0.8x,
a crash that runs with more memory needs >= 1.25x."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.schema import FailureSignature, GoldenTest, Language, Problem, Program, WrongProgram

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "audit_zoo_mini_timing.py"


@pytest.fixture(scope="module")
def audit():
    spec = importlib.util.spec_from_file_location("audit_zoo_mini_timing", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(want, cpu, verdicts, *, memory_mb=256, mem_kb=10_000, limit=1000, program="wrong/x.cpp", **extra):
    return {"problem": "zm00-x", "program": program, "language": "cpp", "test": "gen/max", "want": want,
            "limit_ms": limit, "cap_ms": 3 * limit, "memory_mb": memory_mb, "cpu_ms": list(cpu),
            "memory_kb": [mem_kb] * len(cpu), "verdicts": list(verdicts), **extra}


def status(audit, r):
    audit._classify(r)
    return r["status"], r["why"]


def test_tle_cells_need_twice_the_limit(audit):
    assert status(audit, row("TLE", [1500, 1700], ["AC", "AC"])) == ("DANGER", "time")
    assert status(audit, row("TLE", [2100], ["WA"]))[0] == "ok"
    assert status(audit, row("TLE", [900], ["AC"])) == ("MISMATCH", "finishes inside the limit")
    # Stopped runs are lower bounds; a finished run, when there is one, is the real figure.
    stopped = row("TLE", [3000], ["TLE"])
    assert status(audit, stopped)[0] == "ok" and stopped["bound"] and stopped["ratio"] == 3.0
    assert status(audit, row("TLE", [3000, 1800], ["TLE", "AC"])) == ("DANGER", "time")


def test_cells_that_must_finish_stay_under_half_the_limit_and_keep_their_verdict(audit):
    assert status(audit, row("AC", [400, 480], ["AC", "AC"]))[0] == "ok"
    assert status(audit, row("AC", [400, 520], ["AC", "AC"])) == ("DANGER", "time")
    assert status(audit, row("WA", [100], ["WA"]))[0] == "ok"
    assert status(audit, row("WA", [100], ["AC"])) == ("MISMATCH", "verdict AC")
    assert status(audit, row("AC", [3000], ["TLE"]))[0] == "MISMATCH"
    assert status(audit, row("AC", [100], ["AC"], mem_kb=210 * 1024)) == ("DANGER", "memory")
    assert status(audit, row("AC", [100], ["AC"], mem_kb=300 * 1024))[0] == "MISMATCH"


def test_a_crash_is_quick_and_not_a_matter_of_a_few_megabytes(audit):
    still_crashes = dict(probe_verdict="MLE", probe_memory_kb=512 * 1024)
    assert status(audit, row("MLE", [300], ["MLE"], **still_crashes))[0] == "ok"
    assert status(audit, row("RE", [300], ["MLE"], **still_crashes))[0] == "ok"  # one outcome for the tests
    assert status(audit, row("MLE", [600], ["MLE"], **still_crashes)) == ("DANGER", "time")
    assert status(audit, row("MLE", [300], ["MLE"], probe_verdict="AC", probe_memory_kb=400 * 1024))[0] == "ok"
    assert status(audit, row("MLE", [300], ["MLE"], probe_verdict="AC", probe_memory_kb=300 * 1024)) == (
        "DANGER", "memory")
    assert status(audit, row("MLE", [300], ["MLE"], probe_verdict="AC", probe_memory_kb=250 * 1024))[0] == "MISMATCH"
    assert status(audit, row("RE", [300], ["WA"], **still_crashes)) == ("MISMATCH", "verdict WA")


def test_only_cells_near_a_band_edge_are_run_again(audit):
    assert not audit._worth_repeating(row("AC", [150], ["AC"]), 2.0)
    assert audit._worth_repeating(row("AC", [250], ["AC"]), 2.0)
    assert not audit._worth_repeating(row("TLE", [3000], ["TLE"]), 2.0)
    assert audit._worth_repeating(row("TLE", [1700], ["TLE"]), 2.0)  # stopped early by the wall guard


def test_diff_follows_a_renamed_program(audit, capsys):
    before = [row("TLE", [1200], ["AC"], program="wrong/slice_max.py"), row("AC", [10], ["AC"], program="wrong/y.cpp")]
    after = [row("TLE", [3000], ["TLE"], program="wrong/window_scan.py"), row("AC", [10], ["AC"], program="wrong/y.cpp")]
    audit.diff(before, after, 0.5, 2.0, {"wrong/slice_max.py": "wrong/window_scan.py"})
    lines = capsys.readouterr().out.splitlines()
    [cell] = [ln for ln in lines if "window_scan" in ln]
    assert "1.20x DANGER" in cell and ">=3.00x ok" in cell
    assert lines[-2:] == ["before: 1 of 2 cells outside the band", "after: 0 of 2 cells outside the band"]


def test_measure_times_a_tiny_problem_in_the_sandbox(audit, sandbox):
    """Real runs at the generous limits: a busy loop is stopped at the cap (a lower bound
    past 2x), a quick crash is timed under the real memory limit and probed with twice it."""
    hog = WrongProgram(code="while True:\n    pass\n", language=Language.PYTHON, name="wrong/loop.py",
                       signature=FailureSignature(verdicts=["TLE"]))
    crash = WrongProgram(code="import sys\nsys.exit(3)\n", language=Language.PYTHON, name="wrong/exit.py",
                         signature=FailureSignature(verdicts=["RE"]))
    ok = Program(code="print(int(input()) * 2)\n", language=Language.PYTHON, name="accepted/ok.py")
    problem = Problem(id="zm00-double", statement="x", time_limit_ms=200, memory_limit_mb=64, solutions=[ok],
                      wrong_solutions=[hog, crash], golden_tests=[GoldenTest(input="21\n", output="42\n")])
    rows = {r["program"]: r for r in audit.measure(sandbox, [problem], 3.0, 2.0, 2, 2.0, lambda m: None)}
    assert rows["accepted/ok.py"]["status"] == "ok" and rows["accepted/ok.py"]["verdicts"][0] == "AC"
    loop = rows["wrong/loop.py"]
    assert set(loop["verdicts"]) == {"TLE"} and loop["bound"], loop
    # Stopped at the 600 ms cap it is done; on a machine so busy that the wall guard
    # stopped it first, below 2x the limit, it is run again and judged by its best bound.
    assert (loop["status"] == "ok") == (max(loop["cpu_ms"]) >= 400), loop
    assert len(loop["cpu_ms"]) == 1 or loop["cpu_ms"][0] < 400, loop
    assert rows["wrong/exit.py"]["probe_verdict"] == "RE" and rows["wrong/exit.py"]["status"] == "ok"


@pytest.mark.parametrize("content", [b'{"a": 1}', b"\xff\xfe not json", b"[1, 2]"])
def test_diff_of_something_that_is_no_audit_is_a_one_line_error(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    good = tmp_path / "good.json"
    good.write_text(json.dumps([row("AC", [10], ["AC"])]))
    for args in (["--diff", str(good), str(bad)], ["--diff", str(good), str(tmp_path / "missing.json")],
                 ["--diff", str(good), str(good), "--rename", "no-equals-sign"]):
        proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and proc.stderr.strip().splitlines()[-1].startswith(
            "audit_zoo_mini_timing.py: error:")
