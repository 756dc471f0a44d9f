import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tczoo.schema import GenerationRecord, Provenance, RunConfig, ScoreRecord, TestSuite
from tczoo.store import RunStore, RunStoreError


def _gen(i: int) -> GenerationRecord:
    suite = TestSuite(problem_id=f"p{i}", provenance=Provenance(method="crux"))
    return GenerationRecord(method="crux", model="m", problem_id=f"p{i}", suite=suite)


def test_torn_last_line_is_cut_on_open(tmp_path):
    store = RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    store.add_generation(_gen(0))
    with open(tmp_path / "generations.jsonl", "a") as fh:
        fh.write('{"kind": "generation", "method": "cr')  # a write cut by kill -9
    again = RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    assert [g.problem_id for g in again.generations()] == ["p0"]
    again.add_generation(_gen(1))
    assert [g.problem_id for g in again.generations()] == ["p0", "p1"]


def test_resume_with_another_config_is_refused(tmp_path):
    RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    with pytest.raises(RunStoreError, match="different configuration"):
        RunStore.open(tmp_path, RunConfig(methods=["lcb"], model="m", benchmark="zoo-mini"))


def test_not_a_run_directory(tmp_path):
    with pytest.raises(RunStoreError, match="not a tczoo run directory"):
        RunStore.open(tmp_path / "nothing")


def test_replace_scores_is_atomic_and_complete(tmp_path):
    store = RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    store.add_score(ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="a"))
    store.replace_scores([ScoreRecord(runner="hackrate", method="crux", model="m", problem_id=p) for p in "bc"])
    assert [s.problem_id for s in store.scores()] == ["b", "c"]


def test_kill_9_while_writing_loses_nothing_that_was_written(tmp_path):
    """A writer hammering the store is SIGKILLed; every record on disk is whole."""
    script = textwrap.dedent(f"""
        from tczoo.store import RunStore
        from tczoo.schema import RunConfig, GenerationRecord, TestSuite, Provenance, TestCase
        store = RunStore.open({str(tmp_path)!r}, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
        i = 0
        while True:
            suite = TestSuite(problem_id=f"p{{i}}", tests=[TestCase(input="x" * 5000)], provenance=Provenance(method="crux"))
            store.add_generation(GenerationRecord(method="crux", model="m", problem_id=f"p{{i}}", suite=suite))
            i += 1
    """)
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.time() + 30
    while time.time() < deadline:
        path = tmp_path / "generations.jsonl"
        if path.exists() and path.stat().st_size > 200_000:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    ids = [g.problem_id for g in store.generations()]
    assert len(ids) >= 20
    assert ids == [f"p{i}" for i in range(len(ids))]  # in order, none lost, none doubled
