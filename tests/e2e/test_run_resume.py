"""tczoo run end to end through the CLI; kill -9 mid-run and resume without loss or duplicates."""

import json
import os
import signal
import subprocess
import sys
import time


def _rules(path, delay):
    answer = json.dumps([{"input": "1\n5 100\n", "output": "100\n"}, {"input": "2\n1 5\n1 7\n", "output": "7\n"}])
    path.write_text(json.dumps({"match": "test cases", "response": answer, "delay": delay}) + "\n")


def _cmd(model, out):
    return [sys.executable, "-m", "tczoo.cli", "run", "--method", "crux", "--model", model,
            "--benchmark", "zoo-mini", "--problems", "zm01", "--samples", "3", "--concurrency", "1",
            "--out", str(out)]


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_killed_run_resumes_without_losing_or_duplicating(tmp_path):
    rules = tmp_path / "rules.jsonl"
    _rules(rules, delay=1.5)
    out = tmp_path / "run"
    env = dict(os.environ, TCZOO_CACHE=os.environ.get("TCZOO_CACHE", str(tmp_path / "cache")))
    proc = subprocess.Popen(_cmd(f"scripted:{rules}", out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and len(_lines(out / "generations.jsonl")) < 1:
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = _lines(out / "generations.jsonl")
    assert 1 <= len(first) < 3, "the kill should land mid-run"

    _rules(rules, delay=0)
    done = subprocess.run(_cmd(f"scripted:{rules}", out), env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    gens = _lines(out / "generations.jsonl")
    keys = [(g["method"], g["problem_id"], g["task"]) for g in gens]
    assert sorted(keys) == [("crux", "zm01-commission-deadlines", f"s{i}") for i in range(3)]
    assert gens[: len(first)] == first  # what was on disk stays as it was
    scores = _lines(out / "scores.jsonl")
    assert sorted(s["task"] for s in scores) == ["s0", "s1", "s2"]
    assert all(s["metrics"]["pass_rate"] == 100.0 for s in scores)
    # The report prints the paper's table; re-running a finished run changes nothing.
    report = subprocess.run([sys.executable, "-m", "tczoo.cli", "report", str(out), "--format", "json"],
                            capture_output=True, text=True, env=env, timeout=120)
    [table] = json.loads(report.stdout)
    assert table["rows"][0]["method"] == "CRUX" and table["rows"][0]["PR"] == 100.0
    again = subprocess.run(_cmd(f"scripted:{rules}", out), env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0
    assert len(_lines(out / "generations.jsonl")) == 3 and len(_lines(out / "scores.jsonl")) == 3


def test_replay_rescores_a_recorded_run_offline(tmp_path):
    rules = tmp_path / "rules.jsonl"
    _rules(rules, delay=0)
    env = dict(os.environ, TCZOO_CACHE=os.environ.get("TCZOO_CACHE", str(tmp_path / "cache")))
    first = tmp_path / "first"
    assert subprocess.run(_cmd(f"scripted:{rules}", first), env=env, capture_output=True, timeout=600).returncode == 0
    rules.unlink()  # the original model is gone; the recorded exchanges answer
    second = tmp_path / "second"
    done = subprocess.run(_cmd(f"replay:{first}", second), env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    suites = lambda d: [g["suite"]["tests"] for g in _lines(d / "generations.jsonl")]  # noqa: E731
    assert suites(second) == suites(first)


def test_a_scoring_crash_is_recorded_not_fatal(tmp_path):
    """A tcbench problem without correct code cannot be validated: recorded, reported, run goes on."""
    bench = tmp_path / "b.jsonl"
    rec = {"problem_id": "p", "description": "Print n.", "time_limit": 1000, "memory_limit": 64,
           "sample_input": "1\n", "sample_output": "1\n", "solutions": [],
           "wrong_solutions": [{"code": "print(0)", "lang": "python", "output_str": "W"}], "rank": 1}
    bench.write_text(json.dumps(rec) + "\n")
    rules = tmp_path / "rules.jsonl"
    _rules(rules, delay=0)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "crux", "--model", f"scripted:{rules}",
                           "--benchmark", f"tcbench:{bench}", "--out", str(out)], capture_output=True, text=True, timeout=300)
    # every unit failed to score: the run says so in one line and exits 1, nothing shown as a score
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: no generation could be scored: UnscorableInput: "
                                                           "problem p has no correct code")
    [score] = _lines(out / "scores.jsonl")
    assert "no correct code" in score["error"]
    assert "failures by stage and reason" in done.stdout
