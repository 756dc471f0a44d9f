"""The lazy command line: a command's module is imported when the command line names it,
help and the listings import nothing heavy, and nothing they print is kept anywhere.
(How fast that is: bench/bench_cli_start.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("ortools", "networkx", "pandas", "torch", "litellm", "ray", "numpy", "jinja2", "datasets",
         "sentence_transformers", "llama_cpp")
PROBE = ("import sys\nfrom tczoo.cli import main\n"
         "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
         "sys.stderr.write('\\nLOADED ' + ','.join(sorted(m for m in sys.modules if m.startswith('tczoo') or "
         "m in {heavy!r})) + '\\n')\n")


def loaded(args: list[str], cache: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, TCZOO_CACHE=str(cache), COLUMNS="100")
    proc = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = proc.stderr.rstrip("\n").splitlines()[-1]
    assert line.startswith("LOADED "), proc.stderr[-500:]
    return proc, set(line[len("LOADED "):].split(",")) - {""}


def command_modules(modules: set[str]) -> set[str]:
    from tczoo.cli import COMMANDS

    return modules & set(COMMANDS.values())


def test_a_command_imports_its_own_module_only(tmp_path):
    _, modules = loaded(["run", "--help"], tmp_path)
    assert command_modules(modules) == {"tczoo.cli.runs"}
    assert not {m for m in modules if m.startswith("tczoo.methods") or m in HEAVY}
    _, modules = loaded(["cache", "--help"], tmp_path)
    assert command_modules(modules) == {"tczoo.cli.cache"}


@pytest.mark.parametrize("args", [["methods"], ["methods", "-f", "json"]])
def test_the_method_listing_reads_the_declarations_without_importing_a_method(args, tmp_path):
    proc, modules = loaded(args, tmp_path)
    assert command_modules(modules) == {"tczoo.cli.installed"}
    # no method module, and not the kernel a method imports (tczoo.method, tczoo.schema, the sandbox)
    assert not {m for m in modules if m.startswith(("tczoo.methods.", "tczoo.sandbox", "tczoo.llm"))}, modules
    assert not modules & {"tczoo.method", "tczoo.schema", *HEAVY}, modules
    if args[-1] == "json":
        assert "crux" in {m["name"] for m in json.loads(proc.stdout)}


def test_help_lists_every_command_and_every_plugins_command(tmp_path):
    """`tczoo --help` imports every command module (each imports typer and the CLI
    helpers only) and every plugin's command module, and no method."""
    from importlib.metadata import entry_points

    from tczoo.cli import COMMANDS

    proc, modules = loaded(["--help"], tmp_path)
    assert command_modules(modules) == set(COMMANDS.values())
    assert not modules & {"tczoo.method", "tczoo.schema", *HEAVY}, modules
    plugins = sorted(ep.name for ep in entry_points(group="tczoo.commands"))
    assert {"harness", "stab", "tcbench", "trails"} <= set(plugins)
    rows = [line[2:].split()[0] for line in proc.stdout.splitlines() if line.startswith("│ ") and line[2:3].strip()]
    listed = [name for name in rows if name in {*COMMANDS, *plugins}]
    assert listed == [*COMMANDS, *plugins]  # the table's order, then the plugins' in name order


def test_the_table_names_what_each_module_registers():
    from tczoo.cli import COMMANDS, module_commands

    for module in dict.fromkeys(COMMANDS.values()):
        assert set(module_commands(module)) == {n for n, m in COMMANDS.items() if m == module}, module


def test_a_plugin_command_is_loaded_by_its_name_alone(tmp_path):
    proc, modules = loaded(["stab", "--help"], tmp_path)
    assert "tczoo.methods.stab.cli" in modules
    assert not {m for m in modules if m.endswith(".cli") and m != "tczoo.methods.stab.cli"
                and m.startswith("tczoo.methods")}, modules
    assert command_modules(modules) == set()
    assert "boundary" in proc.stdout


def test_nothing_is_kept_and_every_run_prints_the_same(tmp_path):
    cache = tmp_path / "cache"
    first = [loaded(args, cache)[0].stdout for args in (["--help"], ["methods"], ["run", "--help"])]
    second = [loaded(args, cache)[0].stdout for args in (["--help"], ["methods"], ["run", "--help"])]
    assert first == second and all(first)
    kept = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert kept == []


def test_an_unknown_command_is_one_line_with_the_closest_name(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "rnu"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TCZOO_CACHE=str(tmp_path)))
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: No such command 'rnu'. Did you mean 'run'? (see 'tczoo --help')"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "stabb"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TCZOO_CACHE=str(tmp_path)))
    assert proc.returncode == 2 and "Did you mean 'stab'?" in proc.stderr  # a plugin's command is a candidate too


def test_the_console_script_is_the_command_line():
    """No second door in front of the CLI: the script tczoo declares calls tczoo.cli.main."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"tczoo": "tczoo.cli:main"}
    script = Path(sys.executable).with_name("tczoo")
    if script.is_file():  # installed here: it answers as the CLI does
        done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.startswith("tczoo "), done.stderr
