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


def test_resume_with_another_config_is_refused_naming_the_fields(tmp_path):
    RunStore.open(tmp_path, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini")).close()
    with pytest.raises(RunStoreError, match="different configuration") as err:
        RunStore.open(tmp_path, RunConfig(methods=["lcb"], model="m", benchmark="zoo-mini", seed=3))
    assert 'methods: was ["crux"], now ["lcb"]' in str(err.value) and "seed: was 0, now 3" in str(err.value)
    assert "model" not in str(err.value).split("(", 1)[1]


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


CONFIG = RunConfig(methods=["crux"], model="m", benchmark="zoo-mini")


def test_a_second_writer_is_refused_naming_the_holder(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from tczoo.store import RunStore
        from tczoo.schema import RunConfig
        RunStore.open({str(tmp_path)!r}, RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
        print("locked", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunStoreError, match=rf"another tczoo process \(pid {holder.pid} on "):
            RunStore.open(tmp_path, CONFIG)
        RunStore.open(tmp_path).generations()  # reading needs no lock
    finally:
        holder.kill()
        holder.wait()
    RunStore.open(tmp_path, CONFIG).close()  # the lock died with its holder


def test_a_torn_record_completed_by_a_newline_is_reported_then_repaired(tmp_path):
    store = RunStore.open(tmp_path, CONFIG)
    store.add_generation(_gen(0))
    store.close()
    with open(tmp_path / "generations.jsonl", "a") as fh:
        fh.write('{"kind": "generat\n')  # torn, then a later writer's newline
    reader = RunStore.open(tmp_path)
    assert [g.problem_id for g in reader.generations()] == ["p0"]
    assert reader.warnings == [f"{tmp_path / 'generations.jsonl'}:2: skipped a torn last record "
                               "(run the same `tczoo run` again to repair it)"]
    writer = RunStore.open(tmp_path, CONFIG)
    assert writer.warnings and "generations.jsonl:2: cut a torn record" in writer.warnings[0]
    writer.add_generation(_gen(1))
    assert [g.problem_id for g in writer.generations()] == ["p0", "p1"]
    writer.close()


def test_a_corrupt_line_inside_a_file_names_file_and_line(tmp_path):
    store = RunStore.open(tmp_path, CONFIG)
    store.add_generation(_gen(0))
    with open(tmp_path / "generations.jsonl", "a") as fh:
        fh.write("not json at all\n")
    store.add_generation(_gen(1))
    store.close()
    with pytest.raises(RunStoreError, match=r"generations.jsonl:2: corrupt record"):
        RunStore.open(tmp_path).generations()
    (tmp_path / "scores.jsonl").write_text('{"kind": "score"}\n')
    with pytest.raises(RunStoreError, match=r"scores.jsonl:1: not a ScoreRecord"):
        RunStore.open(tmp_path).all_scores()


def test_a_retried_unit_supersedes_its_failed_record(tmp_path):
    store = RunStore.open(tmp_path, CONFIG)
    failed = _gen(0)
    store.add_generation(failed)
    store.add_score(ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="p0", metrics={"x": 0.0}))
    retried = _gen(0).model_copy(update={"attempt": 1, "seconds": 2.0})
    store.add_generation(retried)
    assert [g.attempt for g in store.all_generations()] == [0, 1]  # the failed record stays
    assert [(g.problem_id, g.attempt) for g in store.generations()] == [("p0", 1)]
    assert store.scores() == []  # the old score belongs to the superseded attempt
    store.add_score(ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="p0", attempt=1))
    assert [s.attempt for s in store.scores()] == [1]
    store.close()


def test_a_full_disk_is_one_error_and_nothing_half_written_stays(tmp_path):
    """The file system refuses the write (here the file-size limit: EFBIG, what a full
    quota looks like to a writer; a link to /dev/full is refused as a link now)."""
    import resource

    from tczoo.errors import RunFailed

    store = RunStore.open(tmp_path, CONFIG)
    store.log_exchange({"text": "kept"})
    size = (tmp_path / "exchanges.jsonl").stat().st_size
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))  # no byte more (Python ignores SIGXFSZ)
    try:
        with pytest.raises(RunFailed, match="File too large; free some space and run the same command"):
            store.log_exchange({"text": "x" * 100})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    store.close()
    assert (tmp_path / "exchanges.jsonl").stat().st_size == size
    assert [e["text"] for e in RunStore.open(tmp_path).exchanges()] == ["kept"]


def test_lone_surrogates_nul_and_escapes_round_trip(tmp_path):
    from tczoo.schema import TestCase

    text = "a\udcffb\x00c\x1b]0;t\x07d\ud800"
    store = RunStore.open(tmp_path, CONFIG)
    gen = _gen(0)
    gen.suite.tests = [TestCase(input=text, output=text)]
    store.add_generation(gen)
    store.log_exchange({"text": text})
    store.close()
    again = RunStore.open(tmp_path)
    assert again.generations()[0].suite.tests[0].input == text
    assert again.exchanges()[0]["text"] == text
    (tmp_path / "generations.jsonl").read_bytes().decode("utf-8")  # valid UTF-8 on disk
