"""An outside package adds a method through an entry point, with no change to tczoo."""

import json
import subprocess
import sys
import textwrap

from tczoo import registry


def _install_plugin(root):
    pkg = root / "outside_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from tczoo.method import Method
        from tczoo.schema import OracleKind, Setting, TestCase

        class Echo(Method):
            name = "echo-samples"
            paper = "none"
            summary = "returns the samples as tests"
            setting = Setting.SPEC
            produces = OracleKind.EXPECTED_OUTPUT

            async def generate(self, task, ctx):
                suite = ctx.new_suite(task)
                suite.tests = [TestCase(input=s.input, output=s.output) for s in task.samples]
                return suite
    '''))
    dist = root / "outside_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tczoo.methods]\necho-samples = outside_pkg:Echo\n")


def test_entry_point_method_is_discovered_and_runs(tmp_path, monkeypatch):
    _install_plugin(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._group.cache_clear()
    try:
        assert "echo-samples" in registry.method_names()
        cls = registry.get_method("echo-samples")
        assert cls.describe()["setting"] == "spec"
    finally:
        registry._group.cache_clear()


def test_plugin_shows_in_the_cli(tmp_path):
    _install_plugin(tmp_path)
    env_path = f"{tmp_path}"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "methods", "--format", "json"], capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": env_path}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "echo-samples" in {m["name"] for m in json.loads(proc.stdout)}


def test_unknown_names_list_what_is_known():
    import pytest

    with pytest.raises(registry.UnknownNameError, match="known: .*crux"):
        registry.get_method("nope")
