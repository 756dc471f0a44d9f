"""The kernel's public modules type-check (mypy, configured in pyproject.toml), and the
plugin API — what a method or runner author subclasses and calls — is checked as
``mypy --strict`` checks it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tczoo.api import PUBLIC_MODULES

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_API = {"tczoo.api", "tczoo.method", "tczoo.runner", "tczoo.schema", "tczoo.errors", "tczoo.templates",
              "tczoo.registry", "tczoo.testing"}


def test_the_public_kernel_modules_type_check(tmp_path):
    mypy = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install 'tczoo[dev]')")
    args = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache")]
    stdout, stderr, status = mypy.run(args + [x for m in PUBLIC_MODULES for x in ("-m", m)])
    assert status == 0, stdout[-6000:] + stderr[-2000:]
    assert "no issues found in" in stdout


def test_the_plugin_api_is_checked_strictly():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    [strict] = [o for o in config["overrides"] if PLUGIN_API <= set(o["module"])]
    assert PLUGIN_API <= set(PUBLIC_MODULES)
    for flag in ("disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_calls",
                 "disallow_any_generics", "warn_return_any", "no_implicit_reexport", "strict_equality"):
        assert strict.get(flag) is True, flag
    assert config["plugins"] == ["pydantic.mypy"]
