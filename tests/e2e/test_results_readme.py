"""results/README.md lists the command behind every result file: each ``tczoo
reproduce`` and ``tczoo compare`` line in its shell blocks (with the variables it sets
expanded) names a known target, and the CLI accepts every option of it — checked by
running the command with an output path that is a file, which the CLI refuses (exit 2)
only after parsing and checking everything else, so nothing is run."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.experiments.targets import targets

README = Path(__file__).resolve().parents[2] / "results" / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)


def _commands() -> tuple[dict[str, str], list[str]]:
    """The variables the README sets and its tczoo command lines (continuations joined)."""
    variables: dict[str, str] = {}
    commands = []
    for block in _blocks():
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            assignment = re.fullmatch(r"([A-Z_]+)=(.*)", line)
            if assignment:
                variables[assignment[1]] = assignment[2]
            elif line.startswith("tczoo "):
                commands.append(line)
    return variables, commands


def _expand(line: str, variables: dict[str, str]) -> list[str]:
    """``line`` as bash would split it, the README's variables expanded."""
    env = " ".join(f"{k}={v}" for k, v in variables.items())
    done = subprocess.run(["bash", "-c", f'{env}; set -f; for a in {line.split(">")[0]}; do printf "%s\\0" "$a"; done'],
                          capture_output=True, text=True, check=True)
    return done.stdout.split("\0")[:-1]


VARIABLES, COMMANDS = _commands()
REPRODUCED = {_expand(c, VARIABLES)[2] for c in COMMANDS if c.startswith("tczoo reproduce ") and "--model replay:" not in c}


def test_every_target_has_its_command_here_with_the_embedded_model():
    assert set(targets()) <= REPRODUCED, f"no command for {sorted(set(targets()) - REPRODUCED)}"
    local = [c for c in COMMANDS if c.startswith("tczoo reproduce ") and "$M" in c]
    assert "local/" in VARIABLES["M"] and local
    # a target whose own default model answers (released generations) needs no model of ours
    with_model = {n for n, t in targets().items() if t.run is not None and t.model is None}
    assert with_model <= {_expand(c, VARIABLES)[2] for c in local}
    assert "kattis:$KATTIS" in VARIABLES["K"]  # the packages' folder is a variable, not a path of this repo


@pytest.mark.parametrize("line", COMMANDS, ids=[re.sub(r"\s+", " ", c)[:60] for c in COMMANDS])
def test_every_command_in_the_readme_is_accepted(line, tmp_path):
    variables = {**VARIABLES, "KATTIS": str(tmp_path)}  # wherever the packages are
    args = _expand(line, variables)
    assert args[0] == "tczoo"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    option = "--results" if args[1] == "reproduce" else "--out"
    env = dict(os.environ, TCZOO_CACHE=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", *args[1:], option, str(blocker)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 2, (line, done.stdout, done.stderr)
    assert f"{option} {blocker} exists and is not a directory" in done.stderr, (line, done.stderr)
