"""Fixtures shared across test modules, and the ``e2e`` mark.

The tests mirror the layout: ``kernel/`` (tczoo/), ``methods/``, ``runners/``,
``analyses/``, and ``e2e/`` for the whole pipeline (the CLI end to end, installs,
recorded replays, Ray, the embedded model). Everything in ``e2e/``, everything marked
``slow`` or ``local_model``, and the slow tests marked ``e2e`` in the other folders is
``e2e``: ``pytest -m "not e2e"`` is the inner loop, ``pytest`` (what CI runs) runs all.
"""

from __future__ import annotations

import os
import signal
import sys
import types
from pathlib import Path

import pytest

# ``tests`` is this folder (a namespace package: test modules also import their helpers
# by bare name). A regular package of that name elsewhere on sys.path wins over a
# namespace package wherever it stands, and verl's wheel (the rl extra) installs one
# into site-packages: ``from tests.fake_openai import ...`` must find ours.
_here = str(Path(__file__).resolve().parent)
if _here not in list(getattr(sys.modules.get("tests"), "__path__", [])):
    _tests = types.ModuleType("tests")
    _tests.__path__ = [_here]  # type: ignore[attr-defined]
    sys.modules["tests"] = _tests

E2E = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config):
    # A suite started in the background of a non-interactive shell (``pytest &``, a CI
    # script) inherits an ignored SIGINT, and so would every ``tczoo`` it starts: the
    # Ctrl-C tests would wait for an interrupt that never comes. Give it back its default.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The suite runs on every core (pytest-xdist, ``-n`` in pyproject.toml's addopts). Tests
# that must not overlap share a group, and a group runs on one worker, in order:
# - the embedded model: one model job at a time on a machine (each takes every core);
# - Ray: clusters of their own, but one ``ray start`` at a time keeps ports and memory sane;
# - the wheel and the comparison grid: session fixtures built once, not once per worker;
#   so are the module fixtures that make a whole run (agents, a recorded CRUX run, LCB),
#   and the reproduction targets that share a run folder (test_reproduce.py).
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core this process may use."""
    return max(1, len(os.sched_getaffinity(0)))


GROUPED_FILES = {"test_distributed.py": "ray", "test_reward_serve_ray.py": "ray"}
GROUPED_FIXTURES = {"tczoo_wheel": "wheel", "installed_tczoo": "wheel", "grid_dir": "grid",
                    "agent_run": "agent-run", "recorded": "recorded-run", "lcb_run": "lcb-run"}


def _group(item) -> str | None:
    if item.get_closest_marker("local_model"):
        return "embedded-model"
    group = GROUPED_FILES.get(Path(str(item.fspath)).name)
    if group is None:
        group = next((GROUPED_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in GROUPED_FIXTURES), None)
    return group


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the node ids
def pytest_collection_modifyitems(config, items):
    """The e2e mark, and the groups (which xdist's own hook, after this one, reads)."""
    for item in items:
        path = Path(str(item.fspath)).resolve()
        if E2E in path.parents or item.get_closest_marker("slow") or item.get_closest_marker("local_model"):
            item.add_marker(pytest.mark.e2e)
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def sandbox():
    """One sandbox for the whole session (its worker slots and compile cache are reused)."""
    from tczoo.sandbox import Sandbox

    with Sandbox() as box:
        yield box


@pytest.fixture(scope="session")
def tczoo_wheel(tmp_path_factory):
    """tczoo built as a wheel from this checkout (what `pip install tczoo` installs)."""
    import subprocess
    import sys
    from pathlib import Path

    import shutil

    root = Path(__file__).resolve().parent.parent
    # Built from a copy: setuptools leaves build/ and tczoo.egg-info in the source tree,
    # and an egg-info in the checkout shadows the installed entry points.
    src = tmp_path_factory.mktemp("wheel-src") / "tczoo"
    shutil.copytree(root, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".pytest_cache", "runs", "results"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(src)], check=True, cwd=out, capture_output=True)
    [wheel] = out.glob("tczoo-*.whl")
    return wheel


@pytest.fixture(scope="session")
def installed_tczoo(tczoo_wheel, tmp_path_factory):
    """The wheel unpacked into a directory of its own (put it first on PYTHONPATH)."""
    import subprocess
    import sys

    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    str(tczoo_wheel)], check=True, capture_output=True)
    return target


@pytest.fixture(scope="session")
def grid_dir(tmp_path_factory):
    """A small comparison directory made by ``tczoo compare`` with scripted models: two
    methods (crux, lcb) × two models, one that answers every prompt of zoo-mini's zm01
    and one whose provider never answers (its cells fail). Shared by the CLI and
    browser tests of grids (read-only: copy it before writing)."""
    import os
    import subprocess
    import sys

    from experiment_fixtures import write_rules

    tmp = tmp_path_factory.mktemp("grid")
    good = write_rules(tmp / "good.jsonl")
    down = write_rules(tmp / "down.jsonl", [("this phrase is in no prompt", "x")])
    out = tmp / "cmp"
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "compare", "--methods", "crux,lcb", "--models",
                           f"{good},{down}", "--problems", "zm01", "--out", str(out), "--max-consecutive-errors", "0",
                           "-f", "json"], capture_output=True, text=True, timeout=900, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-3000:]
    return {"dir": out, "good": good, "down": down}


_UNGROUPED = pytest.StashKey[str]()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """On an xdist worker: the groups took effect (xdist puts each one into its tests'
    node ids; pytest 9.2 made that a silent no-op, pytest-xdist issue 1386). Without
    them two embedded-model jobs or two Ray clusters would run at once: every test then
    fails with why (``_groups_in_effect``), before any fixture does work."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    lost = []
    for item in session.items:
        names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        if names and not item.nodeid.endswith("@" + "_".join(sorted(names))):
            lost.append(item.nodeid)
    if lost:
        session.config.stash[_UNGROUPED] = (
            f"pytest-xdist's groups are not in effect ({len(lost)} grouped tests without their group in their "
            f"node ids, e.g. {lost[0]}): install the versions pyproject.toml's dev extra pins (pytest<9.2)")


@pytest.fixture(scope="session", autouse=True)
def _groups_in_effect(request):
    why = request.config.stash.get(_UNGROUPED, None)
    if why:
        pytest.fail(why, pytrace=False)
