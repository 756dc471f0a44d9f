"""Distributed execution (issue 20): the same run gives the same records and metrics on
the local worker pool and on a Ray cluster; a worker killed or a node lost mid-run
loses and repeats nothing; answers are cached on the driver whatever node asked; the
flags fail like every other.

The Ray tests share one two-node cluster on this machine (Ray's own ``cluster_utils``:
two raylets of one CPU each, so one sandbox slot per node; no dashboard; usage
statistics off), started once for the module, and skip where Ray is not installed.
Scripted models or a real loopback OpenAI-compatible server, zoo-mini, the real
sandbox on every node.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from tczoo.distributed import ExecutionError, ExecutionOptions, LocalCluster, execution_options, open_cluster
from tczoo.llm import LLMSettings
from tczoo.run import RunOptions, run
from tczoo.sandbox.executor import ordered_stream
from tczoo.sandbox.types import Job, Limits, RunResult, Verdict
from tczoo.schema import Language, Program, RunConfig
from tests.fake_openai import FakeOpenAI

ZM01_TESTS = [{"input": "1\n1 5\n", "output": "5\n"}, {"input": "3\n2 5\n2 5\n2 5\n", "output": "10\n"},
              {"input": "2\n1 3\n1 7\n", "output": "10\n"}]  # the last predicts a wrong output
ZM09_TESTS = [{"input": "1\naaba\n", "output": "8\n"}, {"input": "2\nabab\nb\n", "output": "7\n1\n"},
              {"input": "1\nab\n", "output": "3\n"}]
ZM04_TESTS = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "3 7\n10 15 8\n", "output": "4\n"}]
BRUTE = """```python
import sys

def smallest_period(t):
    for p in range(1, len(t) + 1):
        if all(t[i] == t[i + p] for i in range(len(t) - p)):
            return p

data = sys.stdin.read().split()
for s in data[1:1 + int(data[0])]:
    print(sum(smallest_period(s[:i]) for i in range(1, len(s) + 1)))
```"""
GENERATE = """```python
import random

def generate():
    t = random.randint(1, 3)
    rhythms = ["".join(random.choice("ab") for _ in range(random.randint(1, 6))) for _ in range(t)]
    return "\\n".join([str(t)] + rhythms) + "\\n"
```"""
CRUX_DELAY_S = 1.0  # each CRUX answer takes this long: a kill lands while units are in flight


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def _records(out: Path, name: str) -> list[dict]:
    """A run's records, in a canonical order, without what measures time."""
    rows = []
    for r in _lines(out / name):
        r.pop("seconds", None)
        rows.append(r)
    return sorted(rows, key=lambda r: (r["method"], r["problem_id"], r["task"], r["attempt"]))


def _exchanges(out: Path) -> list[tuple]:
    return sorted((e["key"], e["ok"], e["text"], e["sample"]) for e in _lines(out / "exchanges.jsonl"))


def _tables(out: Path):
    from tczoo.report import run_report

    _, tables, _ = run_report(out)
    return [(t.title, t.columns, t.rows) for t in tables]


def assert_same_run(got: Path, want: Path) -> None:
    """Every record and every table of ``got`` equals ``want``'s: nothing lost, nothing
    repeated, nothing different."""
    for name in ("generations.jsonl", "scores.jsonl"):
        a, b = _records(got, name), _records(want, name)
        keys = [(r["method"], r["problem_id"], r["task"]) for r in a]
        assert len(keys) == len(set(keys)), f"{name}: a unit recorded twice"
        assert a == b, f"{name} differs"
    assert _exchanges(got) == _exchanges(want)
    assert _tables(got) == _tables(want)


def tczoo(*args, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(proc, code: int) -> str:
    assert proc.returncode == code, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [x for x in proc.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


# --------------------------------------------------------------------------- no Ray needed


@pytest.mark.parametrize("args, needle", [
    (["--executor", "slurm"], "--executor 'slurm': expected local or ray"),
    (["--address", "auto"], "--address is for --executor ray"),
    (["--executor", "ray", "--address", "ray://head:10001"], "Ray Client (ray://) is not supported"),
    (["--executor", "ray", "--address", "head"], "expected auto or HOST:PORT"),
    (["--executor", "ray", "--address", "head:99999"], "expected auto or HOST:PORT"),
])
def test_bad_executor_flags_are_one_line_and_write_nothing(args, needle, tmp_path):
    out = tmp_path / "run"
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "test cases", "response": "[]"}) + "\n")
    proc = tczoo("run", "-m", "crux", "--model", f"scripted:{rules}", "-p", "zm01", "--out", out, *args)
    assert needle in one_line_error(proc, 2)
    assert not out.exists()
    score = tczoo("score", tmp_path, *args)
    assert needle in one_line_error(score, 2)


def test_without_ray_installed_executor_ray_is_one_line(tmp_path):
    fake = tmp_path / "noray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "test cases", "response": json.dumps(ZM01_TESTS)}) + "\n")
    out = tmp_path / "run"
    proc = tczoo("run", "-m", "crux", "--model", f"scripted:{rules}", "-p", "zm01", "--out", out,
                 "--executor", "ray", env={"PYTHONPATH": str(fake.parent)})
    assert "pip install 'tczoo[dist]'" in one_line_error(proc, 2)
    assert not out.exists()


def test_execution_options_in_the_api():
    assert execution_options() == ExecutionOptions()
    assert execution_options("ray", "10.0.0.5:6379").address == "10.0.0.5:6379"
    assert execution_options("ray", "[::1]:6379").address == "[::1]:6379"
    with pytest.raises(ExecutionError, match="--address is for --executor ray"):
        execution_options("local", "auto")
    with pytest.raises(ExecutionError, match="--workers 0"):
        execution_options("ray", None, 0)


class HoldingExecutor:
    """A backend that sends nothing until flushed, in chunks (as the Ray one does)."""

    def __init__(self, chunk: int):
        self.capacity = 2
        self.chunk = chunk
        self.held: list[tuple[Job, Future]] = []
        self.flushes = 0
        self.sent = 0

    def submit(self, job):
        f = Future()
        self.held.append((job, f))
        if len(self.held) >= self.chunk:
            self.flush()
        return f

    def flush(self):
        self.flushes += 1
        held, self.held = self.held, []
        for job, f in held:
            if f.set_running_or_notify_cancel():
                self.sent += 1
                threading.Timer(0.001 * (len(held) - self.sent % len(held)), f.set_result,
                                [RunResult(verdict=Verdict.AC, stdout=job.stdin)]).start()

    def shutdown(self, cancel_pending=True):
        pass


def test_ordered_stream_flushes_a_holding_backend_and_keeps_job_order():
    jobs = [Job(program=Program(language=Language.PYTHON, code=""), stdin=str(i)) for i in range(11)]
    backend = HoldingExecutor(chunk=3)
    out = [r.stdout for r in ordered_stream(backend, jobs, threading.Event())]
    assert out == [str(i) for i in range(11)]
    assert backend.flushes >= 2 and not backend.held  # the tail of 11 = 3k + 2 was flushed, not stranded
    cancelled = threading.Event()
    stream = ordered_stream(HoldingExecutor(chunk=100), jobs, cancelled)
    assert next(stream).stdout == "0"
    cancelled.set()
    assert list(stream) == []


# --------------------------------------------------------------------------- a Ray cluster

@pytest.fixture(scope="module")
def ray_cluster():
    """Two Ray nodes on this machine, one CPU each; this process is the driver."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    saved = os.environ.get("RAY_USAGE_STATS_ENABLED")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    temp = tempfile.mkdtemp(prefix="tcray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    small = {"object_store_memory": 80 << 20}
    # cluster_utils notes the head's address in Ray's default directory whatever temp_dir says
    address_file = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
    address_file.parent.mkdir(exist_ok=True)
    cluster = None
    try:
        for attempt in range(2):
            # Ray gives a raylet 30 s to register: a machine under heavy load may miss that once.
            try:
                cluster = Cluster(initialize_head=True, head_node_args={
                    "num_cpus": 1, "include_dashboard": False, "temp_dir": temp, **small,
                    # a lost node is noticed in about 2 s instead of 30
                    "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 4,
                                       "health_check_initial_delay_ms": 0}})
                worker = cluster.add_node(num_cpus=1, **small)
                break
            except Exception:
                if cluster is not None:
                    cluster.shutdown()
                    cluster = None
                if attempt:
                    raise
        ray.init(address=cluster.address, log_to_driver=False, include_dashboard=False)
        cluster.wait_for_nodes()
        yield cluster, worker
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
            if address_file.is_file() and address_file.read_text().strip() == cluster.address:
                address_file.unlink()  # else `--address auto` here would look for this dead cluster
        for _ in range(3):  # processes that were stopping may still write their last logs
            shutil.rmtree(temp, ignore_errors=True)
            if not os.path.exists(temp):
                break
            time.sleep(1)
        if saved is None:
            os.environ.pop("RAY_USAGE_STATS_ENABLED", None)
        else:
            os.environ["RAY_USAGE_STATS_ENABLED"] = saved


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    """CRUX answers per problem (slowly), ALGO's brute force and generator (it fits
    zm09; on zm01 no oracle passes the samples: suites without a valid test are part of the run)."""
    path = tmp_path_factory.mktemp("model") / "rules.jsonl"
    rules = [
        {"match": "(?s)Commission Deadlines.*test cases for this problem", "response": json.dumps(ZM01_TESTS),
         "delay": CRUX_DELAY_S},
        {"match": "(?s)Prefix Rhythms.*test cases for this problem", "response": json.dumps(ZM09_TESTS),
         "delay": CRUX_DELAY_S},
        {"match": "brute-force program for this problem", "response": BRUTE},
        {"match": "exhaustive search over the input finishes instantly", "response": GENERATE},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rules))
    return f"scripted:{path}"


def _config(model: str) -> RunConfig:
    return RunConfig(methods=["crux", "algo"], model=model, benchmark="zoo-mini", problems=["zm01", "zm09"],
                     samples=2)


@pytest.fixture(scope="module")
def baseline(model, sandbox, tmp_path_factory) -> Path:
    """The run on the local worker pool."""
    out = tmp_path_factory.mktemp("local") / "run"
    asyncio.run(run(_config(model), out, cluster=LocalCluster(sandbox)))
    gens = _lines(out / "generations.jsonl")
    scores = _lines(out / "scores.jsonl")
    assert len(gens) == 8 and len(scores) == 8
    # algo on zm01: no valid test, scored as HackRate 0 (the reference's rule): part of the run
    assert any(s["method"] == "algo" and s["n_valid"] == 0 for s in scores)
    return out


def test_a_run_on_ray_gives_the_local_records_and_metrics(ray_cluster, model, baseline, tmp_path):
    out = tmp_path / "run"
    with open_cluster(ExecutionOptions(executor="ray")) as cluster:
        assert len(cluster.pool.alive()) == 2
        asyncio.run(run(_config(model), out, cluster=cluster))
        nodes = cluster.pool.alive()
        # both nodes generated and ran batches
        assert all(n.served_units > 0 and n.served_jobs > 0 for n in nodes), [vars(n) for n in nodes]
        assert sum(n.served_units for n in nodes) == 8
    assert_same_run(out, baseline)
    [prov] = _lines(out / "provenance.jsonl")
    assert prov["executor"]["kind"] == "ray" and len(prov["executor"]["nodes"]) == 2
    assert all(n["tczoo"] and n["isolation"] for n in prov["executor"]["nodes"])


def test_batches_on_ray_match_the_local_pool(ray_cluster, sandbox):
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import run_programs
    from tczoo.sandbox.types import PyCall

    [problem] = load_benchmark("zoo-mini", ["zm01"], sandbox=sandbox)
    programs = list(problem.wrong_solutions) + [problem.solutions[0]]
    inputs = [t.input for t in problem.golden_tests[:4]] + ["", "garbage\n"]
    limits = Limits.of(problem)
    calls = [PyCall(code="def f(x):\n    return 1 // x\n", function="f", args=[x]) for x in (2, 0, 1)]
    with open_cluster(ExecutionOptions(executor="ray")) as cluster:
        remote = run_programs(cluster.sandbox, programs, inputs, limits=limits)
        remote_calls = cluster.sandbox.call_many(calls)
    local = run_programs(sandbox, programs, inputs, limits=limits)
    strip = lambda rows: [[(e.verdict, e.output, e.detail[:40]) for e in row] for row in rows]  # noqa: E731
    assert strip(remote) == strip(local)
    assert {e.verdict for row in local for e in row} >= {Verdict.AC, Verdict.RE}
    assert [(c.ok, c.value, c.error_type) for c in remote_calls] == \
        [(c.ok, c.value, c.error_type) for c in sandbox.call_many(calls)]


def _kill_when_busy(cluster, what: str):
    """SIGKILL the actor process of a node that has ``what`` ('units' or 'jobs') in
    flight; returns the node."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        busy = [n for n in cluster.pool.alive() if getattr(n, what) > 0]
        if busy:
            os.kill(busy[0].facts["pid"], signal.SIGKILL)
            return busy[0]
        time.sleep(0.02)
    raise AssertionError(f"no node had {what} in flight")


def test_a_batch_survives_a_killed_worker_in_order(ray_cluster):
    slow = Program(language=Language.PYTHON, code="import time\nn = int(input())\ntime.sleep(0.2)\nprint(n * n)\n")
    jobs = [Job(program=slow, stdin=f"{i}\n", limits=Limits(time_ms=5000)) for i in range(24)]
    with open_cluster(ExecutionOptions(executor="ray")) as cluster:
        results: list = []
        reader = threading.Thread(target=lambda: results.extend(cluster.sandbox.run_many(jobs)))
        reader.start()
        victim = _kill_when_busy(cluster, "jobs")
        reader.join(timeout=300)
        assert victim.failures >= 1
    assert [(r.verdict, r.stdout) for r in results] == [(Verdict.AC, f"{i * i}\n") for i in range(24)]


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(ray_cluster, model, baseline, tmp_path):
    out = tmp_path / "run"
    with open_cluster(ExecutionOptions(executor="ray")) as cluster:
        async def main():
            task = asyncio.create_task(run(_config(model), out, cluster=cluster))
            victim = await asyncio.to_thread(_kill_when_busy, cluster, "units")
            await task
            return victim

        victim = asyncio.run(main())
        assert victim.failures >= 1 and victim.alive  # Ray restarted it; its unit ran again
    assert_same_run(out, baseline)


def test_cli_run_and_score_on_a_ray_cluster(ray_cluster, model, baseline, tmp_path):
    head, _ = ray_cluster
    out = tmp_path / "run"
    proc = tczoo("run", "-m", "crux,algo", "--model", model, "-p", "zm01,zm09", "-n", "2", "--out", out,
                 "--executor", "ray", "--address", head.address, "-f", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert_same_run(out, baseline)
    again = tczoo("score", out, "--executor", "ray", "--address", head.address, "-f", "json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert _records(out, "scores.jsonl") == _records(baseline, "scores.jsonl")


def test_cli_compare_runs_its_cells_on_a_ray_cluster(ray_cluster, model, baseline, tmp_path):
    """compare (and reproduce, through the same RunOptions) takes --executor: every cell
    runs on the cluster and gives the local pool's scores."""
    head, _ = ray_cluster
    out = tmp_path / "grid"
    proc = tczoo("compare", "--methods", "crux", "--models", model, "-p", "zm01,zm09", "-n", "2", "--out", out,
                 "--executor", "ray", "--address", head.address, "-f", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    [cell] = [p.parent for p in out.rglob("scores.jsonl")]
    executors = [json.loads(line).get("executor") for line in (cell / "provenance.jsonl").read_text().splitlines()]
    assert executors and all(e["kind"] == "ray" for e in executors)
    local = [s for s in _records(baseline, "scores.jsonl") if s["method"] == "crux"]
    assert _records(cell, "scores.jsonl") == local


def test_answers_are_cached_on_the_driver_whatever_node_asked(ray_cluster, sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "cache"))
    config = lambda: RunConfig(methods=["crux"], model="hosted_vllm/m", benchmark="zoo-mini",  # noqa: E731
                               problems=["zm04", "zm06"], samples=2)
    with FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as server:
        settings = lambda: LLMSettings(api_base=server.base)  # noqa: E731
        with open_cluster(ExecutionOptions(executor="ray")) as cluster:
            asyncio.run(run(config(), tmp_path / "first", RunOptions(settings=settings()), cluster=cluster))
            asked = len(server.requests)
            assert asked >= 4  # 2 problems x 2 samples, at least one call each
            served = sum(n.served_units for n in cluster.pool.nodes)
            # a caller that shares one cluster between runs (tczoo compare) generates on its nodes each time
            asyncio.run(run(config(), tmp_path / "second", RunOptions(settings=settings()), cluster=cluster))
            assert sum(n.served_units for n in cluster.pool.nodes) == served + 4
        assert len(server.requests) == asked
        assert all(e["cached"] for e in _lines(tmp_path / "second" / "exchanges.jsonl"))
        # the driver's cache is the local run's cache too
        asyncio.run(run(config(), tmp_path / "local", RunOptions(settings=settings()), cluster=LocalCluster(sandbox)))
        assert len(server.requests) == asked
    assert (tmp_path / "cache" / "llm.sqlite").is_file()
    assert _records(tmp_path / "second", "scores.jsonl") == _records(tmp_path / "local", "scores.jsonl")


def test_the_cost_limit_holds_across_nodes(ray_cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "cache"))
    config = RunConfig(methods=["crux"], model="openai/gpt-4o-mini", benchmark="zoo-mini",
                       problems=["zm04", "zm06"], samples=2)
    with FakeOpenAI(default=(200, json.dumps(ZM04_TESTS))) as server:
        settings = LLMSettings(api_base=server.base, api_key="sk-test", max_cost=0.000001)
        store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=settings, concurrency=1,
                                                                  execution=ExecutionOptions(executor="ray"))))
        # the first answer spent the budget: no node asks again, the run says why
        assert len(server.requests) == 1
    assert store.session.halted is not None and store.session.halted.reason == "cost_limit"
    reasons = [f["reason"] for g in _lines(tmp_path / "run" / "generations.jsonl") for f in g["suite"].get("failures", [])]
    assert "cost_limit" in reasons or store.session.skipped > 0


def test_a_node_lost_mid_run_loses_and_repeats_nothing(ray_cluster, model, baseline, tmp_path):
    """Last: it takes the second node away for good."""
    head, worker = ray_cluster
    out = tmp_path / "run"
    with open_cluster(ExecutionOptions(executor="ray")) as cluster:
        [lost] = [n for n in cluster.pool.nodes if n.node_id == worker.node_id]

        def remove_when_busy():
            deadline = time.monotonic() + 120
            while lost.units == 0 and time.monotonic() < deadline:
                time.sleep(0.02)
            head.remove_node(worker, allow_graceful=False)

        async def main():
            task = asyncio.create_task(run(_config(model), out, cluster=cluster))
            await asyncio.to_thread(remove_when_busy)
            await task

        asyncio.run(main())
        assert not lost.alive and lost.failures >= 1
    assert_same_run(out, baseline)


def _free_ports(n: int) -> list[int]:
    import socket

    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def test_a_cluster_started_by_ray_start_with_token_authentication(model, tmp_path):
    """What docs/distributed.md tells a user to do: `ray start --head`, then `tczoo run
    --executor ray --address HOST:PORT`. Recent Ray turns token authentication on for
    such a cluster and connects a driver given HOST:PORT without the token unless told
    to; tczoo must use the token this machine holds (here: RAY_AUTH_TOKEN)."""
    pytest.importorskip("ray")
    import secrets

    token = secrets.token_hex(32)
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_MODE", "RAY_ADDRESS")}
    env.update(RAY_AUTH_TOKEN=token, RAY_USAGE_STATS_ENABLED="0")
    temp = tempfile.mkdtemp(prefix="tcrs", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    gcs, agent, agent_grpc, runtime_env, metrics = _free_ports(5)
    start = [sys.executable, "-c", "from ray.scripts.scripts import main; main()", "start", "--head",
             "--port", str(gcs), "--num-cpus", "1", "--include-dashboard=false", "--temp-dir", temp,
             "--object-store-memory", str(80 << 20),
             "--dashboard-agent-listen-port", str(agent), "--dashboard-agent-grpc-port", str(agent_grpc),
             "--runtime-env-agent-port", str(runtime_env), "--metrics-export-port", str(metrics)]
    # its own session: every Ray process it starts is in one process group, ended below by id
    head = subprocess.Popen(start, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        started = head.communicate(timeout=120)[0]
        assert head.returncode == 0, started[-3000:]
        address = f"127.0.0.1:{gcs}"
        out = tmp_path / "run"
        proc = tczoo("run", "-m", "crux", "--model", model, "-p", "zm09", "--out", out,
                     "--executor", "ray", "--address", address, "-f", "json", env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        [prov] = _lines(out / "provenance.jsonl")
        assert prov["executor"]["kind"] == "ray" and len(prov["executor"]["nodes"]) == 1
        assert len(_lines(out / "scores.jsonl")) == 1
        # a driver without the token is refused in one line that says what to do
        bare = {k: v for k, v in env.items() if k != "RAY_AUTH_TOKEN"}
        bare["HOME"] = str(tmp_path / "home")  # no ~/.ray/auth_token either
        refused = tczoo("score", out, "--executor", "ray", "--address", address, env=bare, timeout=120)
        assert "auth_token" in one_line_error(refused, 2)
    finally:
        for sig, wait in ((signal.SIGTERM, 8), (signal.SIGKILL, 2)):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(wait)
        shutil.rmtree(temp, ignore_errors=True)


def test_rewards_on_ray_are_the_local_pools(ray_cluster, sandbox):
    """RL rewards (tczoo.rewards) with their runs fanned out over the cluster's nodes."""
    from tczoo.rewards import RewardScorer
    from tczoo.rl.export import collect

    [item] = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox,
                     params={"runner:bugfind": {"wrong": ["greedy_by_deadline"]}}).items
    answers = ["```json\n" + json.dumps([{"input_str": tests["input"], "expected_output": tests["output"]}]) + "\n```"
               for tests in ZM01_TESTS[:3]] + ["no tests"]
    refs = [item.reference] * len(answers)
    with RewardScorer(sandbox=sandbox) as local:
        want = [r.score for r in local.score_many(refs, answers)]
    with RewardScorer(execution=ExecutionOptions(executor="ray")) as remote:
        got = remote.score_many(refs, answers)
    assert [r.score for r in got] == want and None not in want
