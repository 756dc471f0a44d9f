"""A method plugin, end to end, exactly as the README shows it.

The files of the README's "Adding a method" section are written out as an outside
package, which is installed with pip into a fresh virtualenv next to tczoo — once with
tczoo installed editable from this checkout, once from its wheel — and run through the
installed ``tczoo`` command: its method generates a suite with a scripted model, the
built-in runner scores it, its template is found in its own folder (including the
built-in ``_shared`` partial) and its own CLI command works.

The fresh virtualenvs download nothing: their dependencies are this interpreter's
site-packages, listed in a ``.pth`` file, and pip runs with ``--no-index --no-deps``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from install_fixtures import fresh_venv, pip_install

ROOT = Path(__file__).resolve().parents[2]
RECIPE = re.compile(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", re.S)

# Valid tests of zm04 (ribbon pieces): the largest L with sum(a_i // L) >= k.
EDGE_TESTS = [
    {"input": "1 1\n1\n", "output": "1\n"},
    {"input": "1 2\n1\n", "output": "0\n"},
    {"input": "1 1\n1000000000\n", "output": "1000000000\n"},
    {"input": "2 3\n5 5\n", "output": "2\n"},
    {"input": "3 7\n10 15 8\n", "output": "4\n"},
]


def recipe() -> dict[str, str]:
    """The files of the README's plugin section: {path: content}."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Adding a method"):]
    section = section[: section.index("\n## ", 3)]
    return {m.group(1): m.group(2) for m in RECIPE.finditer(section)}


def test_the_readme_recipe_is_complete():
    files = recipe()
    assert set(files) == {"pyproject.toml", "tczoo_edge/__init__.py", "tczoo_edge/prompts/edge/generate.j2",
                          "tczoo_edge/cli.py"}
    assert "methods.common" not in "".join(files.values())  # the kernel's parsing, not a built-in's helpers
    assert "tczoo.parsing import tests_from_json_answer" in files["tczoo_edge/__init__.py"]


@pytest.fixture
def plugin_source(tmp_path) -> Path:
    src = tmp_path / "tczoo-edge"
    for rel, content in recipe().items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(content)
    return src


@pytest.mark.parametrize("install", ["editable", "wheel"])
def test_an_outside_method_package_runs_through_the_cli(install, plugin_source, tmp_path, request):
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    if install == "editable":
        pip_install(python, "-e", str(ROOT), cwd=tmp_path)
    else:
        pip_install(python, str(request.getfixturevalue("tczoo_wheel")), cwd=tmp_path)
    pip_install(python, str(plugin_source), cwd=tmp_path)
    tczoo = venv / "bin" / "tczoo"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    work = tmp_path / "work"  # not the checkout: nothing there may shadow the install
    work.mkdir()

    where = subprocess.run([python, "-c", "import tczoo, tczoo_edge; print(tczoo.__file__); print(tczoo_edge.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True).stdout.split()
    expected_root = ROOT if install == "editable" else venv
    assert Path(where[0]).is_relative_to(expected_root), where
    assert Path(where[1]).is_relative_to(venv), where

    listed = subprocess.run([tczoo, "methods", "--format", "json"], cwd=work, env=env, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert "edge-only" in {m["name"] for m in json.loads(listed.stdout)}

    rules = work / "rules.jsonl"
    rules.write_text(json.dumps({"match": "edge-case tests", "response": json.dumps(EDGE_TESTS)}) + "\n")
    out = work / "run"
    done = subprocess.run([tczoo, "run", "--method", "edge-only", "--model", f"scripted:{rules}", "--problems", "zm04",
                           "--out", str(out), "--format", "json"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [gen] = [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]
    assert gen["error"] is None and gen["suite"]["provenance"]["failures"] == []
    assert [t["input"] for t in gen["suite"]["tests"]] == [t["input"] for t in EDGE_TESTS]
    [score] = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert score["runner"] == "hackrate" and score["n_valid"] == len(EDGE_TESTS)
    assert score["metrics"]["pass_rate"] == 100.0
    [table] = [t for t in json.loads(done.stdout) if t["title"].startswith("TC-Bench")]
    [row] = table["rows"]
    assert row["method"] == "EDGE-ONLY" and row["PR"] == 100.0 and isinstance(row["HR"], float)

    shown = subprocess.run([tczoo, "edge", "prompt", "zm04", "--format", "json"], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr
    user = json.loads(shown.stdout)[-1]["content"]
    assert user.startswith("# Problem: Ribbon Pieces") and "Write 10 edge-case tests" in user
    bad = subprocess.run([tczoo, "edge", "prompt", "zm99"], cwd=work, env=env, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("error: zoo-mini has no problem 'zm99'"), bad.stderr


# --------------------------------------------------------------------------- a runner plugin


def runner_recipe() -> dict[str, str]:
    """The files of docs/plugins.md's runner package: {path: content}."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    section = text[text.index("## Adding a runner"):]
    section = section[: section.index("\n## ", 3)]
    return {m.group(1): m.group(2) for m in RECIPE.finditer(section)}


def test_the_runner_recipe_is_complete():
    files = runner_recipe()
    assert set(files) == {"pyproject.toml", "tczoo_caught/__init__.py"}
    assert '"tczoo.runners"' in files["pyproject.toml"]
    assert "from tczoo.api import" in files["tczoo_caught/__init__.py"]


def test_an_outside_runner_package_scores_is_recorded_and_named_when_missing(tmp_path):
    """docs/plugins.md's runner, installed next to tczoo (editable) in a fresh virtualenv:
    it is listed with its parameters, scores a run through the CLI, the run's provenance
    names its package and version, and this interpreter's tczoo (which lacks the plugin)
    refuses to report the run in one line naming what to install."""
    src = tmp_path / "tczoo-caught"
    for rel, content in runner_recipe().items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(content)
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    pip_install(python, "-e", str(ROOT), cwd=tmp_path)
    pip_install(python, str(src), cwd=tmp_path)
    tczoo = venv / "bin" / "tczoo"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    work = tmp_path / "work"
    work.mkdir()

    def run(*args, cli=(str(tczoo),)):
        return subprocess.run([*cli, *map(str, args)], cwd=work, env=env, capture_output=True, text=True, timeout=600)

    listed = run("runners", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    assert "caught" in {r["name"] for r in json.loads(listed.stdout)}
    described = json.loads(run("runners", "caught", "-f", "json").stdout)
    [param] = described["params"]
    assert (param["name"], param["default"]) == ("max_tests", 50) and param["description"].startswith("tests of")
    refused = run("run", "--method", "crux", "--runner", "caught", "--model", "scripted:x",
                  "--params", '{"runner:caught": {"max_test": 3}}')
    assert refused.returncode == 2 and "unknown parameter 'max_test' (did you mean max_tests?" in refused.stderr

    rules = work / "rules.jsonl"
    rules.write_text(json.dumps({"match": "test cases", "response": json.dumps(EDGE_TESTS)}) + "\n")
    out = work / "run"
    done = run("run", "--method", "crux", "--runner", "caught", "--model", f"scripted:{rules}", "--problems", "zm04",
               "--out", out, "--format", "json")
    assert done.returncode == 0, done.stderr[-3000:]
    [score] = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert score["runner"] == "caught" and score["n_valid"] == len(EDGE_TESTS) and score["metrics"]["valid"] == 100.0
    assert 0 < score["metrics"]["caught"] <= 100.0
    [table] = json.loads(done.stdout)[:1]
    assert table["title"].startswith("caught:") and table["rows"][0]["units"] == 1
    [line] = [json.loads(x) for x in (out / "provenance.jsonl").read_text().splitlines()]
    assert line["plugins"] == {"runner:caught": {"package": "tczoo-caught", "version": "0.1.0"}}

    missing = run("report", out, cli=(sys.executable, "-m", "tczoo.cli"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr, missing.stderr
    [error] = missing.stderr.strip().splitlines()
    assert "runner 'caught', which is not installed" in error and "pip install 'tczoo-caught==0.1.0'" in error


PLUGIN_TEST = re.compile(r"<!-- plugin test: (\S+) -->\n```python\n(.*?)```", re.S)


def test_the_readme_plugin_test_passes_with_tczoo_testing(plugin_source, tmp_path):
    """The README's test of its plugin (tczoo.testing's harness and self-check), run with
    pytest in a fresh virtualenv where tczoo and the plugin are installed."""
    section = (ROOT / "README.md").read_text().split("## Adding a method", 1)[1]
    [(name, code)] = PLUGIN_TEST.findall(section)
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    pip_install(python, "-e", str(ROOT), cwd=tmp_path)
    pip_install(python, str(plugin_source), cwd=tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / name).write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", name], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


# --------------------------------------------------------------------------- another environment, a changed plugin


def test_a_plugin_installed_with_target_and_pythonpath_records_its_source(plugin_source, tmp_path):
    """docs/plugins.md's recipe for an environment you cannot install into: pip install
    --target DIR, then PYTHONPATH=DIR. The run's config records the plugin's source
    digest; a changed plugin is another experiment: the default run folder moves (its
    units are generated again), and the old folder given with --out is refused, naming it."""
    from install_fixtures import pip_install

    target = tmp_path / "plugins"
    pip_install(Path(sys.executable), "--target", str(target), str(plugin_source), cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": str(target)}
    work = tmp_path / "work"
    work.mkdir()
    rules = work / "rules.jsonl"
    rules.write_text(json.dumps({"match": "edge-case tests", "response": json.dumps(EDGE_TESTS)}) + "\n")
    args = [sys.executable, "-m", "tczoo.cli", "run", "--method", "edge-only", "--model", f"scripted:{rules}",
            "--problems", "zm04"]

    def run(*extra):
        return subprocess.run([*args, *extra], cwd=work, env=env, capture_output=True, text=True, timeout=600)

    first = run()
    assert first.returncode == 0, first.stderr[-3000:]
    [folder] = [p for p in (work / "runs").iterdir() if p.name != "latest"]
    config = json.loads((folder / "config.json").read_text())
    digest = config["plugins"]["method:edge-only"]
    assert digest.startswith("sha256:") and "runner:hackrate" not in config["plugins"]  # tczoo's own: its version

    module = target / "tczoo_edge" / "__init__.py"
    module.write_text(module.read_text() + "\n# a change to the plugin\n")
    second = run()
    assert second.returncode == 0, second.stderr[-3000:]
    folders = sorted(p for p in (work / "runs").iterdir() if p.name != "latest")
    assert len(folders) == 2  # another experiment: its own folder, its units generated there
    [new] = [p for p in folders if p != folder]
    assert json.loads((new / "config.json").read_text())["plugins"]["method:edge-only"] != digest
    refused = run("--out", str(folder))
    assert refused.returncode == 2
    assert "holds a run with a different configuration (plugins: was" in refused.stderr and digest in refused.stderr
