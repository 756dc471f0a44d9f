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


def _install_broken(root):
    """Entry points that name the wrong kind of thing, as a careless plugin would."""
    pkg = root / "broken_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from tczoo.method import Method

        def not_a_class(task, ctx):
            return None

        class NoGenerate(Method):
            name = "no-generate"

        class Fine(Method):
            name = "fine"

            async def generate(self, task, ctx):
                return ctx.new_suite(task)
    '''))
    dist = root / "broken_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[tczoo.methods]\nfunction = broken_pkg:not_a_class\nabstract = broken_pkg:NoGenerate\n"
        "missing = broken_pkg:Nowhere\n\n[tczoo.runners]\nmethod-as-runner = broken_pkg:Fine\n\n"
        "[tczoo.analyses]\nclass-as-analysis = broken_pkg:Fine\n")


def test_an_entry_point_must_yield_the_kind_its_group_promises(tmp_path, monkeypatch):
    import pytest

    _install_broken(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._group.cache_clear()
    try:
        with pytest.raises(registry.PluginError, match=r"method 'function' \(tczoo.methods entry point "
                                                       r"broken_pkg:not_a_class\) is not a tczoo.method.Method "
                                                       r"subclass \(it is a function\)"):
            registry.get_method("function")
        with pytest.raises(registry.PluginError, match="method 'abstract' .* does not implement generate"):
            registry.get_method("abstract")
        with pytest.raises(registry.PluginError, match="method 'missing' .* cannot be loaded: AttributeError"):
            registry.get_method("missing")
        with pytest.raises(registry.PluginError, match="not a tczoo.runner.Runner subclass .*broken_pkg.Fine"):
            registry.get_runner("method-as-runner")
        with pytest.raises(registry.PluginError, match="analysis 'class-as-analysis' .* is not a function"):
            registry.get_analysis("class-as-analysis")
        # each is a UserError: the command line prints one line and exits 2
        assert issubclass(registry.PluginError, __import__("tczoo.errors").errors.UserError)
    finally:
        registry._group.cache_clear()


def test_a_misspelt_name_is_answered_with_the_closest_ones():
    import pytest

    with pytest.raises(registry.UnknownNameError, match=r"unknown method 'cruxx' \(did you mean crux\? known: "):
        registry.get_method("cruxx")
    with pytest.raises(registry.UnknownNameError, match=r"unknown runner 'hackrat' \(did you mean hackrate\?"):
        registry.get_runner("hackrat")
    with pytest.raises(registry.UnknownNameError, match=r"unknown method 'zzzz' \(known: "):
        registry.get_method("zzzz")  # nothing close: no guess
