"""Runs you can trust (issue 11): every scenario a new user met, as a test.

Real subprocesses of the ``tczoo`` command, scripted models or a real loopback
OpenAI-compatible server (tests/fake_openai.py), the real sandbox.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI, closed_port

ROOT = Path(__file__).resolve().parents[2]
ZM04_TESTS = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "3 7\n10 15 8\n", "output": "4\n"}]


def tczoo(*args, env=None, timeout=300, cwd=None):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=cwd)


def rules(path: Path, *entries) -> str:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return f"scripted:{path}"


def crux_rules(path: Path, tests=ZM04_TESTS, delay: float = 0) -> str:
    return rules(path, {"match": "test cases", "response": json.dumps(tests), "delay": delay})


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def one_line_error(proc, code: int) -> str:
    assert proc.returncode == code, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [x for x in proc.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def report_json(out: Path) -> list[dict]:
    proc = tczoo("report", out, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- fail fast


def test_an_api_base_nothing_listens_on_fails_in_seconds(tmp_path):
    started = time.monotonic()
    proc = tczoo("run", "-m", "crux", "--model", "openai/gpt-4o-mini", "--api-base",
                 f"http://127.0.0.1:{closed_port()}/v1", "-p", "zm04", "--out", tmp_path / "r")
    line = one_line_error(proc, 2)
    assert "cannot connect" in line and "Connection refused" in line
    assert time.monotonic() - started < 30
    assert not (tmp_path / "r").exists()


def test_an_unknown_provider_fails_in_seconds(tmp_path):
    proc = tczoo("run", "-m", "crux", "--model", "foo/bar", "-p", "zm04", "--out", tmp_path / "r")
    assert "unknown provider 'foo'" in one_line_error(proc, 2)
    assert not (tmp_path / "r").exists()


def test_a_provider_that_only_fails_stops_the_run_and_the_same_command_retries(tmp_path):
    """500 after 500: each call is tried ``--retries`` more times, then the breaker
    stops the run with the provider's error (exit 1); the same command later, with the
    server healthy, generates the failed units again and keeps the failed records,
    superseded."""
    out = tmp_path / "run"
    with FakeOpenAI(default=(500, "the model is loading")) as server:
        args = ["run", "-m", "crux", "--model", "hosted_vllm/m", "--api-base", server.base, "-p", "zm04,zm06",
                "--max-consecutive-errors", "2", "--retries", "1", "--out", out]
        started = time.monotonic()
        proc = tczoo(*args)
        line = one_line_error(proc, 1)
        assert line.startswith("error: stopped: 2 calls in a row failed (server_error)")
        assert "the model is loading" in line and "run the same command again" in line
        assert time.monotonic() - started < 120
        assert len(server.requests) == 2 * 2  # two units' calls, each tried once more
        failed = lines(out / "generations.jsonl")
        assert failed and all(g["suite"]["tests"] == [] for g in failed)
        tables = report_json(out)
        main = next(t for t in tables if t["title"].startswith("TC-Bench") or "nothing could be scored" in t["title"])
        assert all(row.get("PR") is None for row in main["rows"])  # never a score
        assert all(row.get("status", "failed") == "failed" for row in main["rows"])
        server.default = {"status": 200, "text": json.dumps(ZM04_TESTS)}
        again = tczoo(*args)
        assert again.returncode == 0, again.stderr[-3000:]
    gens = lines(out / "generations.jsonl")
    latest = {}
    for g in gens:
        latest[(g["problem_id"], g["task"])] = g
    assert len(gens) == len(failed) + 2 and all(g["attempt"] >= 1 for g in latest.values() if g in gens[len(failed):])
    assert len(latest) == 2 and all(g["error"] is None for g in latest.values())
    assert gens[: len(failed)] == failed  # the failed records stay, superseded


def test_retry_failed_regenerates_what_the_same_command_keeps(tmp_path):
    """A failure that is not transient (no scripted rule matches) is kept by a plain
    re-run and generated again with --retry-failed."""
    model_file = tmp_path / "m.jsonl"
    model = rules(model_file, {"match": "never matches", "response": "[]"})
    out = tmp_path / "run"
    first = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out)
    assert "every LLM call failed (no_rule)" in one_line_error(first, 1)
    crux_rules(model_file)
    same = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out)
    assert same.returncode == 1 and len(lines(out / "generations.jsonl")) == 1
    retried = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out, "--retry-failed")
    assert retried.returncode == 0, retried.stderr
    assert [g["attempt"] for g in lines(out / "generations.jsonl")] == [0, 1]
    [row] = next(t for t in report_json(out) if t["title"].startswith("TC-Bench"))["rows"]
    assert row["PR"] == 100.0 and row["units"] == 1 and row["failed"] == 0


# --------------------------------------------------------------------------- failures in every report


def _crashing_plugin(root: Path) -> dict:
    pkg = root / "crashing_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from tczoo.method import Method

        class Crash(Method):
            name = "crash"
            summary = "always crashes"

            async def generate(self, task, ctx):
                raise RuntimeError("boom in " + task.problem_id)
    '''))
    dist = root / "crashing_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: crashing-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tczoo.methods]\ncrash = crashing_pkg:Crash\n")
    return {"PYTHONPATH": str(root)}


def test_a_method_that_crashes_everywhere_exits_1_and_shows_failed_cells(tmp_path):
    env = _crashing_plugin(tmp_path / "site")
    out = tmp_path / "run"
    proc = tczoo("run", "-m", "crash,crux", "--model", crux_rules(tmp_path / "m.jsonl"), "-p", "zm04",
                 "--out", out, "-f", "json", env=env)
    # crux succeeded: not "every generation failed", but the warning counts the crashes
    assert proc.returncode == 0, proc.stderr
    assert "warning: 1 of 2 generations failed (most: method/crash, 1)" in proc.stderr
    tables = json.loads(proc.stdout)
    main = next(t for t in tables if t["title"].startswith("TC-Bench"))
    rows = {r["method"]: r for r in main["rows"]}
    assert rows["CRASH"]["PR"] is None and rows["CRASH"]["HR"] is None and rows["CRASH"]["failed"] == 1
    assert rows["CRASH"]["status"] == "failed" and rows["CRUX"]["status"] == "ok"
    assert rows["CRUX"]["PR"] == 100.0 and rows["CRUX"]["failed"] == 0
    failures = next(t for t in tables if t["title"] == "failures by stage and reason")
    assert [(r["method"], r["stage"], r["reason"]) for r in failures["rows"]] == [("crash", "method", "crash")]
    assert "RuntimeError: boom in zm04" in failures["rows"][0]["example"]
    for fmt in ("md", "csv"):
        text = tczoo("report", out, "-f", fmt, env=env).stdout
        assert "failed" in text and "method" in text and "crash" in text
    only = tczoo("run", "-m", "crash", "--model", crux_rules(tmp_path / "m.jsonl"), "-p", "zm04",
                 "--out", tmp_path / "only", env=env)
    assert "every generation failed (method/crash): RuntimeError: boom in zm04" in one_line_error(only, 1)


def test_the_readme_scripted_example_shows_no_valid_tests_beside_the_papers_number(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"### Scripted models.*?```jsonl\n(.*?)```", readme, re.S).group(1)
    model_file = tmp_path / "readme.jsonl"
    model_file.write_text(block)
    out = tmp_path / "run"
    proc = tczoo("run", "-m", "crux", "--model", f"scripted:{model_file}", "-p", "zm04", "--out", out, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert "warning: 1 problem(s) without a single valid test" in proc.stderr
    [row] = next(t for t in json.loads(proc.stdout) if t["title"].startswith("TC-Bench"))["rows"]
    # the reference's averaging (a problem without a valid test: every wrong code AC, HackRate 0),
    # never a bare number: JSON keeps the number with the status beside it, the table the marker
    assert row["AC"] == 100.0 and row["HR"] == 0.0 and row["status"] == "no valid tests"
    assert row["no valid tests"] == 1 and "intervals" not in row
    shown = tczoo("report", out, "-f", "md").stdout
    assert "| 100.00 (no valid tests) |" in shown and "| 0.00 (no valid tests) |" in shown


def test_stab_without_the_embed_extra_says_so_in_the_report(tmp_path):
    shadow = tmp_path / "noembed"
    (shadow / "sentence_transformers").mkdir(parents=True)
    (shadow / "sentence_transformers" / "__init__.py").write_text(
        "raise ImportError('sentence-transformers is not installed (simulated)')\n")
    gen = 'def generate() -> str:\n    return "3\\n1 5\\n2 6\\n3 7\\n"\n'
    model = rules(tmp_path / "m.jsonl", {"match": "Structured generation specification",
                                         "response": f"```python\n{gen}```"})
    proc = tczoo("run", "-m", "stab", "--model", model, "-p", "zm01", "--out", tmp_path / "run", "-f", "json",
                 "--params", json.dumps({"stab": {"generators": 1}}), env={"PYTHONPATH": str(shadow)})
    assert proc.returncode == 0, proc.stderr
    failures = next(t for t in json.loads(proc.stdout) if t["title"] == "failures by stage and reason")
    knn = next(r for r in failures["rows"] if r["reason"] == "knn_unavailable")
    assert knn["stage"] == "scenarios" and knn["scored units"] == 1 and "simulated" in knn["example"]


# --------------------------------------------------------------------------- one writer, arguments first


def test_two_runs_on_one_directory_the_second_is_refused(tmp_path):
    out = tmp_path / "run"
    slow = crux_rules(tmp_path / "slow.jsonl", delay=30)
    first = subprocess.Popen([sys.executable, "-m", "tczoo.cli", "run", "-m", "crux", "--model", slow, "-p", "zm04",
                              "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not (out / "provenance.jsonl").exists():
            time.sleep(0.2)
        second = tczoo("run", "-m", "crux", "--model", slow, "-p", "zm04", "--out", out)
        line = one_line_error(second, 2)
        assert f"being written by another tczoo process (pid {first.pid} on" in line
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert lines(out / "generations.jsonl") == []  # nothing recorded twice


def test_a_typo_writes_nothing_and_the_corrected_command_runs(tmp_path):
    out = tmp_path / "run"
    model = crux_rules(tmp_path / "m.jsonl")
    assert "zoo-mini has no problem 'zm99'" in one_line_error(tczoo("run", "-m", "crux", "--model", model, "-p", "zm99",
                                                                     "--out", out), 2)
    for params, needle in (('{"crux": 5}', "the value for 'crux' must be an object"),
                           ('{"crux": {"nope": 1}}', "--params for crux: unknown parameter 'nope' (valid: temperature, "
                                                         "top_p, presence_penalty, max_tokens, max_rounds"),
                           ('{"lcb": {}}', "'lcb', which is not a method of this run"),
                           ('[1, 2]', "--params must be a JSON object")):
        line = one_line_error(tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--params", params,
                                    "--out", out), 2)
        assert needle in line, line
    assert not out.exists()
    assert tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out).returncode == 0
    changed = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--seed", "7", "--out", out)
    assert "different configuration (seed: was 0, now 7)" in one_line_error(changed, 2)


@pytest.mark.parametrize("args,needle", [
    (["run", "-m", "crux", "--out", "{file}"], "exists and is not a directory"),
    (["score", "--benchmark", "zoo-mini", "--tests", "{empty}"], "no test in"),
    (["score", "{run}", "--scale", "2", "--detail", "d.json"], "score external tests"),
    (["score", "--benchmark", "zoo-mini", "--tests", "{stranger}"], "tests name problems not in zoo-mini: 'zz1'"),
    (["run", "-m", "crux", "--model", "scripted:{model}", "--benchmark", "tcbench:{empty}", "--out", "{new}"],
     "has no problems"),
    (["run", "-m", "crux", "--model", "scripted:{model}", "--max-cost", "-1"], "Invalid value for '--max-cost'"),
    (["cache", "prune"], "say what to prune"),
    (["cache", "prune", "--older-than", "soon"], "give an age like 30d"),
])
def test_bad_values_and_files_are_one_line_exit_2(args, needle, tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "model.jsonl").write_text("")
    (tmp_path / "stranger.jsonl").write_text(json.dumps({"problem_id": "zz1", "input": "1\n"}) + "\n")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(json.dumps({"methods": ["crux"], "model": "m",
                                                              "benchmark": "zoo-mini"}))
    fill = {"file": tmp_path / "file", "empty": tmp_path / "empty.jsonl", "run": tmp_path / "run",
            "model": tmp_path / "model.jsonl", "new": tmp_path / "new", "stranger": tmp_path / "stranger.jsonl"}
    proc = tczoo(*[a.format(**fill) for a in args], cwd=tmp_path, env={"TCZOO_CACHE": str(tmp_path / "cache")})
    assert needle in one_line_error(proc, 2)


# --------------------------------------------------------------------------- damaged run directories


def test_a_torn_record_is_named_and_repaired_on_resume(tmp_path):
    out = tmp_path / "run"
    model = crux_rules(tmp_path / "m.jsonl")
    assert tczoo("run", "-m", "crux", "--model", model, "-p", "zm04,zm06", "--out", out).returncode == 0
    gens = out / "generations.jsonl"
    kept = gens.read_text().splitlines()[:1]
    gens.write_text(kept[0] + "\n" + '{"kind": "generat\n')
    report = tczoo("report", out)
    assert report.returncode == 0
    assert f"{gens}:2: skipped a torn last record" in report.stdout + report.stderr
    resumed = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04,zm06", "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{gens}:2: cut a torn record" in resumed.stdout + resumed.stderr
    assert len(lines(gens)) == 2
    # a damaged line inside the file cannot be repaired: named, exit 2
    text = gens.read_text().splitlines()
    gens.write_text(text[0] + "\n{broken\n" + text[1] + "\n")
    assert f"{gens}:2: corrupt record" in one_line_error(tczoo("report", out), 2)


def test_a_full_disk_is_one_line_and_the_run_resumes_afterwards(tmp_path):
    """The file system refuses the records (the file-size limit, EFBIG, at the size the
    exchanges file already has: a full quota as the writer sees it)."""
    import resource

    out = tmp_path / "run"
    out.mkdir(mode=0o700)
    filler = 32 << 20
    (out / "exchanges.jsonl").write_bytes(b"\n" * filler)  # blank lines: no record, read as none

    def full() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (filler, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    model = crux_rules(tmp_path / "m.jsonl")
    cmd = [sys.executable, "-m", "tczoo.cli", "run", "-m", "crux", "--model", model, "-p", "zm04", "--out", str(out)]
    stopped = subprocess.run(cmd, capture_output=True, text=True, timeout=300, preexec_fn=full)
    line = one_line_error(stopped, 1)
    assert "File too large" in line and "run the same command again" in line
    (out / "exchanges.jsonl").unlink()
    again = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out)
    assert again.returncode == 0, again.stderr
    assert len(lines(out / "generations.jsonl")) == 1 and len(lines(out / "scores.jsonl")) == 1


# --------------------------------------------------------------------------- bytes-safe text


def test_lone_surrogates_and_escapes_in_answers_break_no_tcbench_method(tmp_path):
    """One answer with a lone surrogate, NUL and terminal escapes for every prompt:
    the five TC-Bench methods record what they could (no crash), exchanges.jsonl holds
    the answer exactly, and the terminal report shows no raw escape."""
    nasty = json.dumps([{"input": "1 1\n1\udcff\n", "output": "1\x00\n"}]) + "\x1b]0;pwned\x07\x1b[2J \udcff"
    model = rules(tmp_path / "m.jsonl", {"match": "", "response": nasty})
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "-m", "crux,pseudo,algo,lcb,ht", "--model", model,
                           "-p", "zm04", "--out", str(out), "--params",
                           json.dumps({"pseudo": {"candidates": 2, "min_agree": 1}})], capture_output=True, timeout=600)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-3000:]
    assert b"\x1b" not in proc.stdout and b"\x1b" not in proc.stderr
    gens = lines(out / "generations.jsonl")
    assert sorted(g["method"] for g in gens) == ["algo", "crux", "ht", "lcb", "pseudo"]
    assert all(g["error"] is None for g in gens), [g["error"] for g in gens if g["error"]]
    answers = {e["text"] for e in lines(out / "exchanges.jsonl") if e["ok"]}
    assert answers == {nasty}
    crux = next(g for g in gens if g["method"] == "crux")
    assert crux["suite"]["tests"][0]["input"] == "1 1\n1\udcff\n"


# --------------------------------------------------------------------------- provenance, progress, cost


def test_each_session_records_its_provenance(tmp_path):
    out = tmp_path / "run"
    model = crux_rules(tmp_path / "m.jsonl")
    for _ in range(2):
        assert tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out).returncode == 0
    first, second = lines(out / "provenance.jsonl")
    assert first["pid"] != second["pid"]
    assert first["tczoo"]["version"] and first["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    if (ROOT / ".git").exists():
        assert re.fullmatch(r"[0-9a-f]{40}", first["tczoo"]["git"]["commit"])
    assert first["packages"]["pydantic"] and "litellm" in first["packages"]
    assert first["compilers"]["g++"].startswith("g++")
    assert first["sandbox"] and first["benchmark"]["spec"] == "zoo-mini"
    assert re.fullmatch(r"[0-9a-f]{64}", first["benchmark"]["sha256"]) and first["benchmark"]["problems"] == 1
    assert first["model"]["identity"]["backend"] == "scripted"


def test_a_piped_run_prints_progress_lines(tmp_path):
    model = crux_rules(tmp_path / "m.jsonl", delay=1.5)
    proc = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04,zm06", "-n", "2", "--concurrency", "1",
                 "--out", tmp_path / "run", env={"TCZOO_PROGRESS_INTERVAL": "0.5"})
    assert proc.returncode == 0, proc.stderr
    progress = [x for x in proc.stderr.splitlines() if x.startswith("tczoo: [")]
    assert any("loading benchmark zoo-mini" in x for x in progress) or any("units done" in x for x in progress)
    done = [x for x in progress if "units done" in x]
    assert len(done) >= 3 and done[-1].endswith("4/4 units done, 0 failed, 0 tokens")
    assert any(re.search(r"\b[123]/4 units done", x) for x in done)


def test_max_cost_stops_cleanly_and_the_run_resumes_with_a_higher_limit(tmp_path):
    out = tmp_path / "run"
    with FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as server:
        args = ["run", "-m", "crux", "--model", "openai/gpt-4o-mini", "--api-base", server.base, "-p", "zm04,zm06",
                "--concurrency", "1", "--max-connections", "1", "--out", out]
        stopped = tczoo(*args, "--max-cost", "0.000001", env={"OPENAI_API_KEY": "sk-test"})
        line = one_line_error(stopped, 1)
        assert "the cost limit of $1e-06 is reached" in line and "run the same command again" in line
        assert len(server.requests) == 1
        done = tczoo(*args, "--max-cost", "1", env={"OPENAI_API_KEY": "sk-test"})
        assert done.returncode == 0, done.stderr
    latest = {g["problem_id"]: g for g in lines(out / "generations.jsonl")}
    assert len(latest) == 2 and all(g["suite"]["tests"] for g in latest.values())


def test_cache_info_prune_clear(tmp_path):
    env = {"TCZOO_CACHE": str(tmp_path / "cache"), "OPENAI_API_KEY": "sk-test"}
    with FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as a, FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as b:
        for i, server in enumerate((a, b)):
            assert tczoo("run", "-m", "crux", "--model", "hosted_vllm/m", "--api-base", server.base, "-p", "zm04",
                         "--out", tmp_path / f"r{i}", env=env).returncode == 0
        calls = len(a.requests)
        assert calls >= 1 and len(b.requests) == calls  # one model name, two servers: both asked
    info = json.loads(tczoo("cache", "info", "-f", "json", env=env).stdout)
    assert info["entries"] == 2 * calls and info["bytes"] > 0
    assert sorted(m["backend"]["api_base"] for m in info["models"]) == sorted([a.base, b.base])
    table = tczoo("cache", "info", env=env).stdout
    assert "hosted_vllm/m" in table and f"{2 * calls} entries" in table
    assert json.loads(tczoo("cache", "prune", "--older-than", "1d", "-f", "json", env=env).stdout) == {"removed": 0}
    assert json.loads(tczoo("cache", "prune", "--model", "hosted_vllm/m", "-f", "json", env=env).stdout) == {
        "removed": 2 * calls}
    assert json.loads(tczoo("cache", "info", "-f", "json", env=env).stdout)["entries"] == 0
    assert "needs --yes" in one_line_error(tczoo("cache", "clear", env=env), 2)
    cleared = tczoo("cache", "clear", "--yes", env=env)
    assert cleared.returncode == 0 and not (tmp_path / "cache" / "llm.sqlite").exists()


def test_progress_counts_tokens_as_answers_arrive(tmp_path, monkeypatch):
    """A long unit must not show '0 tokens' while its answers come in: the progress
    callback moves with every exchange, before the unit that asked is done."""
    import asyncio

    from tczoo.llm import LLMSettings
    from tczoo.run import RunOptions, run
    from tczoo.schema import RunConfig

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "cache"))
    states = []
    with FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as server:
        config = RunConfig(methods=["crux"], model="openai/gpt-4o-mini", benchmark="zoo-mini", problems=["zm04"])
        options = RunOptions(settings=LLMSettings(api_base=server.base))
        asyncio.run(run(config, tmp_path / "run", options, progress=states.append))
        calls = len(server.requests)
    runs = [s for s in states if s.stage == "run"]
    assert calls >= 1 and runs[-1].done == 1 and runs[-1].tokens == 18 * calls
    assert any(s.done == 0 and s.tokens == 18 for s in runs), [(s.done, s.tokens) for s in runs]


# --------------------------------------------------------------------------- the empty test (issue 42)


def test_the_empty_test_is_invalid_not_a_hack_on_zm01_zm04_zm06(tmp_path):
    """CRUX answering [{"input": "", "output": ""}] scored PR 100 / HR 100 on these three
    (correct codes print nothing on an empty input, wrong ones crash); the problems'
    input validators now reject it: PR 0, HR 0, counted as an invalid input, said in the
    report's header. Its reward is the floor."""
    out = tmp_path / "run"
    model = crux_rules(tmp_path / "r.jsonl", tests=[{"input": "", "output": ""}])
    done = tczoo("run", "-m", "crux", "--model", model, "-p", "zm01,zm04,zm06", "--out", out, "-f", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    table = report_json(out)[0]
    [row] = table["rows"]
    assert row["PR"] == 0 and row["HR"] == 0 and row["invalid inputs"] == 3, row
    assert any("rejected as invalid" in n for n in table["notes"]), table["notes"]
    scores = lines(out / "scores.jsonl")
    assert [s["input_check"]["rejected"] for s in scores] == [1, 1, 1]
    assert all(s["input_check"]["by"] == "validator" for s in scores)
