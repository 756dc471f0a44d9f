"""The driver's side of a Ray cluster: nodes, the batch executor, remote generation.

- ``RayCluster`` connects (or starts a private instance), puts one ``NodeWorker`` actor
  on every node that offers CPUs (pinned there: its sandbox and compile cache are that
  node's), checks that each runs this tczoo version, and gives the driver a
  ``Sandbox(executor=RayExecutor)``.
- ``RayExecutor`` implements ``tczoo.sandbox.executor.Executor``: jobs are sent in
  chunks (one actor call per chunk, not per run: a call costs about what a run does)
  to the node with the least work per slot; ``ordered_stream`` puts the results back
  in job order. A chunk whose node failed (its actor process killed, the node lost)
  is sent again to another node, so a batch never loses or repeats a result: a run
  is pure, and only the driver uses what comes back.
- ``RayCluster.generate`` sends a unit's generation to a node the same way and sends
  it again elsewhere if that node fails before answering.

Actors restart where they were (``max_restarts=-1``) after their process dies; a
node that is gone takes its actor with it, and the nodes Ray knows then are looked up
again (a replacement joins the pool).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
import uuid
from collections import deque
from concurrent.futures import Future
from typing import Any

from tczoo.distributed.cluster import Cluster, ExecutionError, ExecutionOptions
from tczoo.distributed.node import NodeWorker, RemoteLedger, RunService
from tczoo.generation import GenerationRequest, GenerationResult
from tczoo.errors import RunFailed
from tczoo.llm import LLMSettings
from tczoo.llm.client import Ledger
from tczoo.sandbox.executor import check_job
from tczoo.sandbox.types import Job, RunResult

log = logging.getLogger("tczoo.distributed")
HELLO_TIMEOUT_S = 300.0  # a node's first answer: its actor starts a Python and a Sandbox
RETRY_DELAY_S = 0.2  # before sending again to a node whose actor is restarting
MAX_SENDS = 8  # sends of one chunk or unit before the run gives up on it
CONNECT_TIMEOUT_S = 5.0  # for the head's GCS port to accept a connection
CHUNK_MIN, CHUNK_MAX = 32, 256  # runs per actor call (see RayExecutor)


class ClusterLost(RunFailed):
    """Every node is gone, or a piece of work failed on node after node."""


def _ray():
    # Usage statistics would be sent to the network from the first ray.init; tczoo
    # never reaches out on its own.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise ExecutionError("--executor ray needs Ray: pip install 'tczoo[dist]' (ray>=2.9) on this machine "
                             "and on every node") from None
    return ray


def _infrastructure(exc: BaseException) -> bool:
    """A failure of the machinery (a worker or node died), not of the work: send again."""
    from ray.exceptions import RayError, RayTaskError

    return isinstance(exc, RayError) and not isinstance(exc, RayTaskError)


def _node_gone(exc: BaseException) -> bool:
    from ray import exceptions as rx

    gone = tuple(getattr(rx, n) for n in ("ActorDiedError", "ActorUnschedulableError", "NodeDiedError")
                 if hasattr(rx, n))
    return isinstance(exc, gone)


def _token_auth() -> bool:
    """Turn token mode on, as Ray's driver does for ``address="auto"``, when this machine
    holds a token (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``)
    and no ``RAY_AUTH_MODE`` was chosen; True when it did. Recent Ray enables token
    authentication for every cluster ``ray start`` creates but sends the token for
    ``auto`` only, and tczoo always hands Ray HOST:PORT (``_reachable``). The mode must
    match the cluster's: a token-mode driver on a cluster without authentication loses
    its actors. (A private Ray API: a Ray without it has no token authentication.)"""
    if os.environ.get("RAY_AUTH_MODE") is not None:
        return False
    try:
        from ray._private.authentication import authentication_token_setup as auth
    except ImportError:
        return False
    log = logging.getLogger(auth.__name__)
    level = log.level
    log.setLevel(logging.ERROR)  # its notice that authentication is on is Ray's, not ours
    try:
        return bool(auth.maybe_enable_token_auth_if_token_available(warn_if_disabled=False))
    except Exception:  # noqa: BLE001 - another Ray's signature: ray.init says what is wrong
        return False
    finally:
        log.setLevel(level)


LOOPBACK = "127.0.0.1"
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def _loopback_only():
    """While a private Ray instance starts, make Ray take 127.0.0.1 as this node's
    address, so that its GCS, raylet, object manager and workers listen on loopback
    only (docs/security.md). Ray turns a loopback ``_node_ip_address`` into the
    machine's external address unless clusters are disabled, which on Linux only
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` does (read by Ray at import, so this process's
    copy of the setting is switched too). The processes Ray starts keep it; this process
    gets its old settings back, so that a later connection to a real cluster works."""
    try:
        from ray._private import ray_constants
    except ImportError:  # another Ray's layout: the environment variable alone
        ray_constants = None
    old_env = os.environ.get(LOOPBACK_ENV)
    old_flag = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[LOOPBACK_ENV] = "0"
    if old_flag is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if old_flag is not None:
            ray_constants.ENABLE_RAY_CLUSTER = old_flag
        if old_env is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = old_env


def _private_temp_dir() -> str:
    """A fresh folder of this user's only (``0o700``) for a private instance's sessions,
    sockets and logs. Ray makes its temporary folder (``/tmp/ray`` by default) and every
    session folder in it writable by everyone (``0o777``, sockets included); below a
    private parent nobody else can reach them. Returns the folder to hand Ray."""
    import tempfile

    parent = tempfile.mkdtemp(prefix="tczoo-ray-")  # 0o700, whatever the umask
    return os.path.join(parent, "ray")


def _private_token() -> None:
    """When a private instance will use token authentication and this machine has no
    token yet, write the token Ray would generate (``~/.ray/auth_token``, 256 random
    bits) first, readable by its owner only: Ray writes it with the umask's mode
    (``0o644``, so every local user could join the instance and run code as this user).
    A token that exists, or one given by ``RAY_AUTH_TOKEN``/``RAY_AUTH_TOKEN_PATH``, is
    left as it is."""
    import secrets

    mode = os.environ.get("RAY_AUTH_MODE")
    if (mode is not None and mode.lower() != "token") or os.environ.get("RAY_AUTH_TOKEN") \
            or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return
    from pathlib import Path

    path = Path.home() / ".ray" / "auth_token"
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:  # there already (Ray reads it), or no home to write: Ray says what is wrong
        return
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(32))


def _reachable(ray, address: str) -> str:
    """``address`` as HOST:PORT (``auto``: the cluster this machine joined last, as
    ``ray start`` noted it), once something answers there; else an ExecutionError."""
    import socket
    import tempfile
    from pathlib import Path

    if address == "auto":
        try:
            note = Path(ray._private.utils.get_ray_address_file(None))
        except Exception:  # noqa: BLE001 - a Ray without that helper: its default place
            note = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        if not note.is_file() or not note.read_text().strip():
            raise ExecutionError("--address auto: this machine has joined no Ray cluster (run `ray start --head` "
                                 "or `ray start --address HEAD:PORT` here first, or give --address HOST:PORT)")
        address = note.read_text().strip()
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except (OSError, ValueError) as exc:
        raise ExecutionError(f"cannot reach a Ray cluster at {address}: {exc.strerror or exc} (is `ray start "
                             "--head` running there, and the port open?)") from None
    return address


class Node:
    def __init__(self, node_id: str, actor, workers: int):
        self.node_id = node_id
        self.actor = actor
        self.workers = workers
        self.facts: dict[str, Any] = {}
        self.jobs = 0  # runs in flight
        self.units = 0  # generations in flight
        self.alive = True
        self.back_at = 0.0  # restarting: not chosen before this time
        # what it did for this driver (bench, tests, the log)
        self.served_jobs = 0
        self.served_units = 0
        self.failures = 0

    def load(self) -> float:
        return (self.jobs + self.units * self.workers) / self.workers


class NodePool:
    """The cluster's nodes and the work each has in flight."""

    def __init__(self, ray, workers: int | None):
        self.ray = ray
        self.workers = workers
        self.nodes: list[Node] = []
        self.lost: list[str] = []  # hosts whose nodes went away, for the error message
        self._lock = threading.Lock()
        self._actor = ray.remote(NodeWorker)
        self.capacity = 0
        self.join()
        if not self.nodes:
            raise ExecutionError("the Ray cluster has no node with CPUs to run on (every node was started with "
                                 "--num-cpus=0?)")
        self.capacity = sum(n.workers for n in self.nodes)

    def join(self) -> None:
        """Put a NodeWorker on every live node with CPUs that has none yet; wait for
        each to answer."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        known = {n.node_id for n in self.nodes}
        fresh = []
        for info in self.ray.nodes():
            cpus = int(info.get("Resources", {}).get("CPU", 0))
            if not info.get("Alive") or cpus < 1 or info["NodeID"] in known:
                continue
            workers = self.workers or cpus
            actor = self._actor.options(
                num_cpus=0, max_restarts=-1, max_task_retries=0, max_concurrency=1000,
                scheduling_strategy=NodeAffinitySchedulingStrategy(info["NodeID"], soft=False),
            ).remote(workers)
            fresh.append(Node(info["NodeID"], actor, workers))
        if not fresh:
            return
        try:
            facts = self.ray.get([n.actor.hello.remote() for n in fresh], timeout=HELLO_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - whatever Ray says, in one line
            raise ExecutionError(f"a Ray node did not start tczoo's worker: {type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0] if str(exc) else ''}"[:600]) from None
        for node, f in zip(fresh, facts):
            node.facts = f
        self._check_versions(fresh)
        with self._lock:
            self.nodes.extend(fresh)

    @staticmethod
    def _check_versions(nodes: list[Node]) -> None:
        from tczoo import __version__

        other = [f"{n.facts['host']} ({n.facts['tczoo']})" for n in nodes if n.facts.get("tczoo") != __version__]
        if other:
            raise ExecutionError(f"the driver runs tczoo {__version__}, but these Ray nodes run another version: "
                                 f"{', '.join(other)}; install the same tczoo on every node")

    def alive(self) -> list[Node]:
        with self._lock:
            return [n for n in self.nodes if n.alive]

    def pick(self, jobs: int = 0, units: int = 0) -> Node | None:
        """The live node with the least work per slot, its load counted up; None when
        every live node is restarting. ``ClusterLost`` when none is left."""
        now = time.monotonic()
        with self._lock:
            live = [n for n in self.nodes if n.alive]
            if not live:
                raise ClusterLost(f"every Ray node is gone ({', '.join(self.lost) or 'none left'}); "
                                  "run the same command again to resume")
            ready = [n for n in live if n.back_at <= now]
            if not ready:
                return None
            node = min(ready, key=Node.load)
            node.jobs += jobs
            node.units += units
            return node

    def done(self, node: Node, jobs: int = 0, units: int = 0) -> None:
        with self._lock:
            node.jobs -= jobs
            node.units -= units

    def failed(self, node: Node, exc: BaseException) -> None:
        """``node`` failed a call: gone for good (its actor cannot come back), or
        restarting (its process was killed: Ray starts it again)."""
        host = node.facts.get("host", node.node_id[:12])
        with self._lock:
            node.failures += 1
        if _node_gone(exc):
            with self._lock:
                if not node.alive:
                    return
                node.alive = False
                self.lost.append(host)
            log.warning("Ray node %s is gone (%s); its work goes to the other nodes", host, type(exc).__name__)
            try:
                self.join()  # a replacement node may have joined the cluster
            except Exception as join_error:  # noqa: BLE001 - the nodes we have go on
                log.warning("looking for new Ray nodes failed: %s", join_error)
        else:
            log.warning("Ray node %s failed a call (%s); sending it again", host, type(exc).__name__)
            with self._lock:
                node.back_at = time.monotonic() + RETRY_DELAY_S


class _Chunk:
    __slots__ = ("jobs", "futures", "sends", "node", "errors")

    def __init__(self, jobs: list[Job], futures: list[Future]):
        self.jobs = jobs
        self.futures = futures
        self.sends = 0
        self.node: Node | None = None
        self.errors: list[str] = []


class RayExecutor:
    """``tczoo.sandbox.executor.Executor`` on a Ray cluster (see the module docstring).

    ``submit`` holds jobs back until a chunk is full or ``flush`` is called; one
    thread collects what the nodes answer and sends again what failed."""

    def __init__(self, ray, pool: NodePool, chunk: int | None = None):
        self.ray = ray
        self.pool = pool
        nodes = pool.alive()
        self.slots = min(n.workers for n in nodes)
        # One actor call costs about what a trivial run does: a chunk carries many runs
        # (32 on this 2-core machine: 0.5x the local pool's throughput with a call per
        # 2 runs, 1.4x with 32 -- bench/bench_ray.py). ordered_stream keeps twice
        # ``capacity`` jobs in flight: two chunks per node, so a node never waits for
        # the driver between chunks.
        self.chunk = chunk or min(CHUNK_MAX, max(CHUNK_MIN, 2 * self.slots))
        self.capacity = max(pool.capacity, self.chunk * len(nodes))
        self._held: list[tuple[Job, Future]] = []
        self._flight: dict[Any, _Chunk] = {}  # object ref -> chunk
        self._later: deque[tuple[float, _Chunk]] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._collect, name="tczoo-ray-collect", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ Executor

    def submit(self, job: Job) -> "Future[RunResult]":
        check_job(job)
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the Ray executor is shut down")
            self._held.append((job, future))
            full = len(self._held) >= self.chunk
        if full:
            self._send_held(self.chunk)
        return future

    def flush(self) -> None:
        """Send what is held. A short batch (a HackRate round) is split over the nodes,
        as long as each part still fills a node's slots."""
        self._send_held(None)

    def _send_held(self, part: int | None) -> None:
        with self._lock:
            held, self._held = self._held, []
        held = [(j, f) for j, f in held if f.set_running_or_notify_cancel()]
        if not held:
            return
        if part is None:
            nodes = max(1, len(self.pool.alive()))
            part = min(self.chunk, max(self.slots, -(-len(held) // nodes)))
        for at in range(0, len(held), part):
            piece = held[at:at + part]
            self._send(_Chunk([j for j, _ in piece], [f for _, f in piece]))

    def shutdown(self, cancel_pending: bool = True) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            held, self._held = self._held, []
            flight = list(self._flight.values()) + [c for _, c in self._later]
            self._flight.clear()
            self._later.clear()
        self._wake.set()
        for _, f in held:
            f.cancel()
        for chunk in flight:
            for f in chunk.futures:
                if not f.done():
                    f.set_exception(RuntimeError("the Ray executor was shut down"))

    # ------------------------------------------------------------------ internals

    def _send(self, chunk: _Chunk) -> None:
        try:
            node = self.pool.pick(jobs=len(chunk.jobs))
        except ClusterLost as exc:
            self._fail(chunk, exc)
            return
        if node is None:  # every node is restarting: try again shortly
            with self._lock:
                self._later.append((time.monotonic() + RETRY_DELAY_S, chunk))
            self._wake.set()
            return
        chunk.node = node
        chunk.sends += 1
        ref = node.actor.execute.remote(chunk.jobs)
        with self._lock:
            self._flight[ref] = chunk
        self._wake.set()

    def _collect(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                refs = list(self._flight)
                now = time.monotonic()
                due = [c for t, c in self._later if t <= now]
                self._later = deque((t, c) for t, c in self._later if t > now)
            for chunk in due:
                self._send(chunk)
            if not refs:
                self._wake.wait(RETRY_DELAY_S if self._later else 1.0)
                self._wake.clear()
                continue
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=0.05)
            for ref in ready:
                with self._lock:
                    chunk = self._flight.pop(ref, None)
                if chunk is not None:
                    self._landed(ref, chunk)

    def _landed(self, ref, chunk: _Chunk) -> None:
        node = chunk.node
        self.pool.done(node, jobs=len(chunk.jobs))
        try:
            results = self.ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - sorted below
            if not _infrastructure(exc):
                self._fail(chunk, exc)  # the work itself raised: every caller sees it
                return
            self.pool.failed(node, exc)
            chunk.errors.append(f"{node.facts.get('host', '?')}: {type(exc).__name__}")
            if chunk.sends >= MAX_SENDS:
                self._fail(chunk, ClusterLost(f"a batch of {len(chunk.jobs)} runs failed on {chunk.sends} nodes "
                                              f"({'; '.join(chunk.errors)}); run the same command again"))
                return
            self._send(chunk)
            return
        with self.pool._lock:
            node.served_jobs += len(results)
        for future, result in zip(chunk.futures, results):
            future.set_result(result)

    @staticmethod
    def _fail(chunk: _Chunk, exc: BaseException) -> None:
        for f in chunk.futures:
            if not f.done():
                f.set_exception(exc)


class RayCluster(Cluster):
    """A Ray cluster (see the module docstring and ``tczoo.distributed``)."""

    remote = True

    def __init__(self, options: ExecutionOptions):
        ray = _ray()
        self.ray = ray
        self.options = options
        self._own_ray = False
        self._closed = False
        self._temp_dir: str | None = None  # a private instance's (see _private_temp_dir)
        if not ray.is_initialized():
            try:
                self._connect(options)
            except BaseException:
                self._drop_temp_dir()
                raise
        self._services: list = []  # one per run: see ledger()
        self.warnings: list[str] = []
        self.executor = None
        self.sandbox = None
        try:
            self.pool = NodePool(ray, options.workers)
            self.executor = RayExecutor(ray, self.pool)
            from tczoo.sandbox import Sandbox

            # Single runs (a loader's check, a CLI judge) stay here; batches go out.
            self.sandbox = Sandbox(executor=self.executor)
        except BaseException:
            self.close()
            raise
        self.warnings += self._commit_warnings()

    def _connect(self, options: ExecutionOptions) -> None:
        given = options.address or os.environ.get("RAY_ADDRESS")
        address = None
        if given:
            # ray.init waits without end for an address nothing answers on (a stale
            # `auto`, a typo): find out first, in seconds.
            address = _reachable(self.ray, given)
            if given == "auto":
                _token_auth()  # what ray.init(address="auto") does; we hand it HOST:PORT
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "logging_level": logging.WARNING}
        if not address:
            kwargs["_node_ip_address"] = LOOPBACK  # a private instance: nothing listens beyond this machine
            kwargs["_temp_dir"] = self._temp_dir = _private_temp_dir()  # nor reaches its files
            _private_token()
        # A private instance gets a second chance: Ray gives its raylet 30 s to start,
        # which a heavily loaded machine can miss once. A HOST:PORT that refused us gets
        # one in token mode, when this machine holds a token (see _token_auth).
        for attempt in range(2):
            try:
                if address:
                    self.ray.init(address=address, **kwargs)
                else:
                    with _loopback_only():
                        self.ray.init(**kwargs)
                break
            except Exception as exc:  # noqa: BLE001 - ConnectionError, ValueError, RuntimeError ...
                if self.ray.is_initialized():
                    self.ray.shutdown()
                if address and not attempt and _token_auth():
                    continue
                if attempt or address:
                    where = f"at {address}" if address else "on this machine"
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                    hint = ""
                    if address and os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
                        hint = (" (a cluster with token authentication needs its token here: copy the head's "
                                "~/.ray/auth_token or set RAY_AUTH_TOKEN)")
                    raise ExecutionError(f"cannot start or reach a Ray cluster {where}: {first}{hint}"[:800]) from None
        self._own_ray = True

    def _commit_warnings(self) -> list[str]:
        from tczoo.provenance import git_state

        mine = (git_state() or {}).get("commit")
        other = sorted({n.facts["host"] for n in self.pool.alive()
                        if mine and (n.facts.get("git") or {}).get("commit") not in (None, mine)})
        if not other:
            return []
        return [f"Ray nodes {', '.join(other)} run tczoo {self.pool.nodes[0].facts['tczoo']} from another git commit "
                "than the driver"]

    # ------------------------------------------------------------------ Cluster

    def check_methods(self, names: list[str]) -> None:
        for node in self.pool.alive():
            missing = sorted(set(names) - set(node.facts.get("methods", [])))
            if missing:
                raise ExecutionError(f"Ray node {node.facts.get('host')} has no method {', '.join(missing)}: "
                                     "install the same plugins on every node")

    def ledger(self, settings: LLMSettings) -> RemoteLedger:
        """A run's ledger, held by a service actor on this machine that also holds the
        LLM exchange cache every node's client reads and writes (one per run: several
        runs may share the cluster)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from tczoo.paths import cache_dir

        cache_path = str(settings.cache_path or cache_dir() / "llm.sqlite") if settings.cache else None
        here = self.ray.get_runtime_context().get_node_id()
        service = self.ray.remote(RunService).options(
            num_cpus=0, max_restarts=-1,
            scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False),
        ).remote(cache_path, settings.spent_before)
        self._services.append(service)
        return RemoteLedger(service, settings.spent_before, run=uuid.uuid4().hex)

    async def generate(self, request: GenerationRequest, ledger: Ledger | None) -> GenerationResult:
        """``request`` generated on the least busy node; on another if that one fails
        before it answers. ``ledger``: the run's, from ``ledger()``."""
        if not isinstance(ledger, RemoteLedger):
            raise TypeError("a generation on Ray needs the run's ledger from RayCluster.ledger()")
        errors: list[str] = []
        while True:
            node = self.pool.pick(units=1)
            if node is None:
                await asyncio.sleep(RETRY_DELAY_S)
                continue
            try:
                result = await node.actor.generate.remote(request, ledger.service, ledger.run)
                node.served_units += 1
                return result
            except Exception as exc:  # noqa: BLE001 - sorted below
                if not _infrastructure(exc):
                    raise
                self.pool.failed(node, exc)
                errors.append(f"{node.facts.get('host', '?')}: {type(exc).__name__}")
                if len(errors) >= MAX_SENDS:
                    raise ClusterLost(f"unit {request.method}/{request.problem_id}/{request.task_key or '-'} failed "
                                      f"on {len(errors)} nodes ({'; '.join(errors)}); run the same command "
                                      "again") from None
            finally:
                self.pool.done(node, units=1)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "ray",
            "address": self.options.address or os.environ.get("RAY_ADDRESS") or "private",
            "ray": getattr(self.ray, "__version__", None),
            "chunk": self.executor.chunk if self.executor else None,
            "nodes": [{k: n.facts.get(k) for k in ("host", "node_id", "tczoo", "git", "workers", "isolation")}
                      for n in self.pool.nodes],
        }

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.executor is not None:
            self.executor.shutdown()
        if self.sandbox is not None:
            self.sandbox.close()
        pool = getattr(self, "pool", None)
        actors = [n.actor for n in pool.nodes] if pool is not None else []
        for actor in actors + self._services:
            try:
                self.ray.kill(actor)  # its Sandbox's slots die with its process
            except Exception:  # noqa: BLE001 - already gone
                pass
        if self._own_ray:
            self.ray.shutdown()
            self._own_ray = False
        self._drop_temp_dir()

    def _drop_temp_dir(self) -> None:
        if self._temp_dir is not None:
            import shutil

            shutil.rmtree(os.path.dirname(self._temp_dir), ignore_errors=True)
            self._temp_dir = None
