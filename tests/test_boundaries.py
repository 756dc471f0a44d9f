"""The package's boundaries, checked on what a user installs (a wheel): the kernel
imports no method or runner, runners import no method, methods import no runner
(import-linter contracts in pyproject.toml), and no generic top-level name lands in
site-packages."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_everything_under_the_tczoo_namespace(installed_tczoo):
    top = {p.name for p in installed_tczoo.iterdir() if not p.name.endswith((".dist-info", ".data")) and p.name != "bin"}
    assert top == {"tczoo"}, top
    for data in ("prompts/crux/generate.j2", "prompts/_shared/problem.j2", "catalog/stab_scenarios.yaml",
                 "sandbox/worker.c", "methods/stab/method.py", "runners/hackrate.py"):
        assert (installed_tczoo / "tczoo" / data).is_file(), data
    assert any((installed_tczoo / "tczoo" / "benchmarks" / "zoo_mini" / "problems").rglob("tests.lock.json"))


def test_import_linter_contracts_hold(installed_tczoo, tmp_path):
    if importlib.util.find_spec("importlinter") is None:
        pytest.skip("import-linter is not installed (pip install 'tczoo[dev]')")
    env = dict(os.environ, PYTHONPATH=str(installed_tczoo))
    # lint-imports through this interpreter (its script may live in another venv's bin/)
    cmd = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                                 "sys.argv[0] = 'lint-imports'; sys.exit(lint_imports_command())"]
    res = subprocess.run([*cmd, "--config", str(ROOT / "pyproject.toml")], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "3 kept, 0 broken" in res.stdout


def test_a_users_own_methods_folder_does_not_shadow_tczoo(tmp_path):
    # a user's working directory with folders named like ours
    for name in ("methods", "runners", "prompts", "catalog"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
    res = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, ''); "
                          "from tczoo.registry import get_method, method_names; "
                          "[get_method(n) for n in method_names()]; print('ok')"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.stdout.strip() == "ok", res.stderr[-2000:]
