"""Every run's config.json says its format; a run of an older format is read, one a
newer tczoo wrote is refused in one line. ``--params`` is checked once per run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tczoo.schema import RUN_FORMAT, RunConfig
from tczoo.store import RunStore, RunStoreError


def make_run(root):
    config = RunConfig(methods=["crux"], model="scripted:rules.jsonl", benchmark="zoo-mini", problems=["zm04"])
    RunStore.open(root, config).close()
    return root / "config.json"


def test_a_new_run_writes_its_format(tmp_path):
    path = make_run(tmp_path / "run")
    assert json.loads(path.read_text())["format"] == RUN_FORMAT
    assert RunStore.open(tmp_path / "run").config.format == RUN_FORMAT


def test_a_run_from_before_the_format_field_is_read_and_resumed(tmp_path):
    path = make_run(tmp_path / "run")
    data = json.loads(path.read_text())
    del data["format"]
    path.write_text(json.dumps(data))
    assert RunStore.open(tmp_path / "run").config.format == 1
    # resuming it with the same experiment is allowed: the format is not the experiment
    RunStore.open(tmp_path / "run", RunConfig(**{k: v for k, v in data.items()})).close()


def test_a_run_of_a_newer_format_is_refused_in_one_line(tmp_path):
    path = make_run(tmp_path / "run")
    data = json.loads(path.read_text())
    data["format"] = RUN_FORMAT + 1
    data["a_field_of_the_future"] = True
    path.write_text(json.dumps(data))
    with pytest.raises(RunStoreError, match=f"a run of format {RUN_FORMAT + 1}, written by a newer tczoo"):
        RunStore.open(tmp_path / "run").config
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "report", str(tmp_path / "run")], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, TCZOO_CACHE=str(tmp_path / "cache")))
    assert proc.returncode == 2, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.strip()]
    assert line.startswith("error: ") and "upgrade tczoo to read it" in line


def test_the_default_run_folder_does_not_follow_the_format():
    """Runs made before the field existed keep their default folder (and resume there)."""
    from tczoo.cli.runs import default_run_dir

    config = RunConfig(methods=["crux"], model="scripted:r.jsonl", benchmark="zoo-mini")
    assert default_run_dir(config) == default_run_dir(config.model_copy(update={"format": RUN_FORMAT + 5}))


def test_params_are_checked_once_per_process():
    from tczoo import run

    config = RunConfig(methods=["crux"], model="scripted:r.jsonl", benchmark="zoo-mini",
                       params={"crux": {"max_rounds": 3}, "runner:hackrate": {}})
    key = json.dumps([config.methods, config.runner, config.params], sort_keys=True, default=repr)
    run._CHECKED.discard(key)
    run.check_params(config)
    assert key in run._CHECKED
    bad = config.model_copy(update={"params": {"crux": {"max_roundz": 3}}})
    for _ in range(2):  # a refused check is never remembered as passed
        with pytest.raises(run.ParamsError, match="max_roundz"):
            run.check_params(bad)
