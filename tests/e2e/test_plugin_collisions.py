"""Plugins that claim a name someone else has: the registry refuses to guess.

Three small plugin packages are built and installed for real (``pip install --target``,
offline, as docs/plugins.md's recipe for an environment you cannot install into) and
combined through PYTHONPATH:

- ``tczoo-clash-a``: a method ``twin``, a command ``clash``, and a template folder
  (``clash``) holding ``twin/generate.j2`` and ``crux/generate.j2``, which the built-in
  template of that name hides;
- ``tczoo-clash-b``: a method ``twin`` too, a runner ``hackrate`` (tczoo's own name), a
  template folder also named ``clash``, and a command ``extra`` whose ``register``
  adds a command of another name;
- ``tczoo-clash-c``: a command ``run`` (a kernel command's name).

A name two packages declare is an error naming both packages, whichever is found last;
a hidden template is reported when the templates are loaded and by ``tczoo doctor``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from install_fixtures import pip_install

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"

[tool.setuptools]
packages = {packages}

[tool.setuptools.package-data]
"{pkg}" = ["prompts/*/*.j2"]

{entry_points}
"""

METHOD = '''
from tczoo.api import Method, OracleKind


class Twin(Method):
    name = "twin"
    paper = "{dist}"
    summary = "a method whose name {dist} shares"
    produces = OracleKind.EXPECTED_OUTPUT

    async def generate(self, task, ctx):
        return ctx.new_suite(task)
'''

RUNNER = '''
from tczoo.api import Runner


class Hack(Runner):
    name = "hackrate"
    paper = "not TC-Bench"

    def score(self, problem, spec, suite):
        raise NotImplementedError

    def summarize(self, scores):
        return []
'''

COMMAND = '''
import typer


def register(app):
    sub = typer.Typer(help="{help}", no_args_is_help=True)
    app.add_typer(sub, name="{name}")

    @sub.command("hello")
    def hello() -> None:
        """Say hello."""
        print("hello from {name}")
'''

TEMPLATE = "{% block user %}Write tests for {{ task.problem_id }}.{% endblock %}\n"

PACKAGES = {
    "tczoo-clash-a": {
        "entry_points": {"tczoo.methods": {"twin": "tczoo_clash_a:Twin"},
                         "tczoo.commands": {"clash": "tczoo_clash_a.cli:register"},
                         "tczoo.prompts": {"clash": "tczoo_clash_a.prompts"}},
        "files": {"__init__.py": METHOD, "cli.py": COMMAND.format(help="clash: a plugin's group", name="clash"),
                  "prompts/__init__.py": "", "prompts/twin/generate.j2": TEMPLATE,
                  "prompts/crux/generate.j2": TEMPLATE},
    },
    "tczoo-clash-b": {
        "entry_points": {"tczoo.methods": {"twin": "tczoo_clash_b:Twin"},
                         "tczoo.runners": {"hackrate": "tczoo_clash_b.runner:Hack"},
                         "tczoo.commands": {"extra": "tczoo_clash_b.cli:register"},
                         "tczoo.prompts": {"clash": "tczoo_clash_b.prompts"}},
        "files": {"__init__.py": METHOD, "runner.py": RUNNER,
                  "cli.py": COMMAND.format(help="a group named unlike its entry point", name="other"),
                  "prompts/__init__.py": "", "prompts/twin/generate.j2": TEMPLATE},
    },
    "tczoo-clash-c": {
        "entry_points": {"tczoo.commands": {"run": "tczoo_clash_c:register"}},
        "files": {"__init__.py": COMMAND.format(help="a group named like a kernel command", name="run")},
    },
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """{dist: the --target folder it is installed in}."""
    root = tmp_path_factory.mktemp("clash")
    found = {}
    for dist, spec in PACKAGES.items():
        pkg = dist.replace("-", "_")
        src = root / "src" / dist
        groups = "\n".join(f'[project.entry-points."{group}"]\n' +
                           "".join(f'"{k}" = "{v}"\n' for k, v in eps.items())
                           for group, eps in spec["entry_points"].items())
        (src / pkg).mkdir(parents=True)
        packages = [pkg] + ([f"{pkg}.prompts"] if "prompts/__init__.py" in spec["files"] else [])
        (src / "pyproject.toml").write_text(PYPROJECT.format(dist=dist, pkg=pkg, entry_points=groups,
                                                             packages=json.dumps(packages)))
        for rel, text in spec["files"].items():
            (src / pkg / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / pkg / rel).write_text(text.replace("{dist}", dist))
        target = root / "site" / dist
        pip_install(Path(sys.executable), "--target", str(target), str(src), cwd=root)
        found[dist] = target
    return found


def tczoo(installed: dict[str, Path], dists: list[str], *args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(installed[d]) for d in dists),
           "TCZOO_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stdout[-1000:] + proc.stderr[-2000:]
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_one_plugin_alone_is_listed_and_its_command_runs(installed, tmp_path):
    listed = tczoo(installed, ["tczoo-clash-a"], "methods", "-f", "json", tmp_path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    twin = [m for m in json.loads(listed.stdout) if m["name"] == "twin"]
    assert twin and twin[0]["paper"] == "tczoo-clash-a"
    hello = tczoo(installed, ["tczoo-clash-a"], "clash", "hello", tmp_path=tmp_path)
    assert hello.returncode == 0 and hello.stdout == "hello from clash\n", hello.stderr


@pytest.mark.parametrize("order", [["tczoo-clash-a", "tczoo-clash-b"], ["tczoo-clash-b", "tczoo-clash-a"]])
def test_two_packages_declaring_one_method_name_are_an_error_naming_both(installed, order, tmp_path):
    for args in (["methods"], ["methods", "twin"], ["run", "--method", "twin", "--model", "scripted:none.jsonl"]):
        line = one_line_error(tczoo(installed, order, *args, tmp_path=tmp_path))
        assert "method 'twin' is provided by two packages" in line, line
        assert "tczoo-clash-a 0.1.0 (tczoo_clash_a:Twin)" in line and "tczoo-clash-b 0.1.0 (tczoo_clash_b:Twin)" in line
    assert not (tmp_path / "runs").exists()  # refused before anything was written


def test_a_plugin_taking_a_built_in_name_is_an_error_naming_tczoo_and_the_plugin(installed, tmp_path):
    line = one_line_error(tczoo(installed, ["tczoo-clash-b"], "runners", tmp_path=tmp_path))
    assert "runner 'hackrate' is provided by two packages" in line
    assert "tczoo 0.1.0 (tczoo.runners.hackrate:HackRateRunner)" in line and "tczoo-clash-b 0.1.0" in line
    line = one_line_error(tczoo(installed, ["tczoo-clash-c"], "--help", tmp_path=tmp_path))
    assert "command 'run' is provided by two packages: tczoo (a kernel command) and tczoo-clash-c 0.1.0" in line
    # the kernel's own command is what `tczoo run` runs: no plugin is read for it
    assert tczoo(installed, ["tczoo-clash-c"], "run", "--help", tmp_path=tmp_path).returncode == 0


def test_two_template_folders_of_one_name_are_an_error(installed, tmp_path):
    probe = "from tczoo.templates import Prompts\nPrompts()\n"
    env = {**os.environ, "PYTHONPATH": f"{installed['tczoo-clash-a']}{os.pathsep}{installed['tczoo-clash-b']}"}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert "template folder 'clash' is provided by two packages" in proc.stderr
    assert "tczoo-clash-a 0.1.0 (tczoo_clash_a.prompts)" in proc.stderr and "tczoo-clash-b" in proc.stderr


def test_a_plugin_command_registering_another_name_is_refused_by_name_and_warned_in_help(installed, tmp_path):
    line = one_line_error(tczoo(installed, ["tczoo-clash-b"], "extra", "--help", tmp_path=tmp_path))
    assert "plugin commands 'extra'" in line and "registered other" in line
    # help lists the others and warns in one line; the plugin's other name is not a command
    shown = tczoo(installed, ["tczoo-clash-a", "tczoo-clash-b"], "--help", tmp_path=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "│ clash " in shown.stdout and "│ other " not in shown.stdout and "│ extra " not in shown.stdout
    warned = [x for x in shown.stderr.splitlines() if x.strip()]
    assert len(warned) == 1 and "plugin commands 'extra'" in warned[0] and "registered other" in warned[0]


def test_a_plugin_template_hidden_by_a_built_in_is_reported_at_load_and_by_doctor(installed, tmp_path):
    probe = "from tczoo.templates import Prompts\nPrompts()\nPrompts()\nprint(Prompts().shadowed())\n"
    env = {**os.environ, "PYTHONPATH": str(installed["tczoo-clash-a"])}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    hidden = installed["tczoo-clash-a"] / "tczoo_clash_a" / "prompts" / "crux" / "generate.j2"
    warned = [x for x in proc.stderr.splitlines() if x.strip()]
    assert warned == [f"the plugin template {hidden} is never used: a template named 'crux/generate' comes first "
                      "(a built-in or an earlier plugin folder); give it a name of its own"]  # once per process
    assert "twin/generate" not in proc.stderr
    doctor = tczoo(installed, ["tczoo-clash-a"], "doctor", "-f", "json", tmp_path=tmp_path)
    assert doctor.returncode == 0, doctor.stderr
    info = json.loads(doctor.stdout)
    assert info["plugin templates never used"] == "1"
    assert any(str(hidden) in w for w in info["warnings"])
