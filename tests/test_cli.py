"""The CLI as a user meets it: real subprocesses, one-line errors, exit code 2."""

import json
import subprocess
import sys

import pytest


def tczoo(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _one_line_error(proc):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    return lines[0]


def test_methods_lists_registered_methods_as_json():
    proc = tczoo("methods", "--json")
    assert proc.returncode == 0, proc.stderr
    names = {m["name"]: m for m in json.loads(proc.stdout)}
    assert names["crux"]["setting"] == "spec" and names["crux"]["runner"] == "hackrate"


def test_benchmarks_lists_bundled_and_hub_names():
    proc = tczoo("benchmarks", "--json")
    assert proc.returncode == 0, proc.stderr
    names = json.loads(proc.stdout)
    assert "zoo-mini" in names and "tcbench" in names


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "--method", "nosuch", "--model", "scripted:x"], "unknown method 'nosuch'"),
        (["run", "--method", "crux", "--model", "gpt4"], "provider/model"),
        (["run", "--method", "crux", "--model", "scripted:/nonexistent.jsonl"], "not found"),
        (["run", "--method", "crux", "--model", "local/nosuch"], "unknown local model"),
        (["run", "--method", "crux", "--model", "local//tmp/none.gguf"], "not found"),
        (["run", "--method", "crux", "--benchmark", "nosuch", "--model", "local/qwen2.5-coder-1.5b"], "unknown benchmark"),
        (["run", "--method", "crux", "--benchmark", "tcbench:/nonexistent.jsonl", "--model", "local/qwen2.5-coder-1.5b"], "nonexistent"),
        (["report", "/nonexistent-run"], "not a tczoo run directory"),
        (["score"], "give a run directory"),
        (["judge", "/nonexistent.cpp", "--lang", "cpp"], "cannot read"),
        (["wrongselect", "/nonexistent.json"], "nonexistent"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, needle, tmp_path):
    line = _one_line_error(tczoo(*args))
    assert needle in line


def test_missing_api_key_is_reported_before_any_work(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if "API_KEY" not in k}
    env["TCZOO_CACHE"] = str(tmp_path)
    proc = tczoo("run", "--method", "crux", "--model", "openai/gpt-4o-mini", "--out", str(tmp_path / "r"), env=env)
    line = _one_line_error(proc)
    assert "OPENAI_API_KEY" in line
    assert not (tmp_path / "r").exists()


def test_doctor_reports_sandbox_level_and_model():
    proc = tczoo("doctor", "--json")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert "sandbox" in info and info["g++"] != "missing"
    assert "embedded model parts" in info
