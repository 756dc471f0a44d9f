"""What runs on the cluster: one ``NodeWorker`` per node, one ``RunService`` on the driver's.

These are plain classes; ``tczoo.distributed.ray_cluster`` makes them Ray actors, so
this module imports Ray only where a method needs it (on a node, where Ray is there).

A ``NodeWorker`` holds its node's ``Sandbox`` (its jailed slots, its compile cache:
programs travel as source and are compiled where they run) and, once the run
generates, one LLM client. Its client asks the provider itself, but reads and writes
the driver's exchange cache and shares the driver's ledger through the ``RunService``:
an answer paid for once is never paid for again, wherever the unit runs next (a
retried unit gets the same answers, so its record is the same), and the cost limit
and a halt hold for the whole run. A unit's exchanges are collected while it runs and
go back with its record; the driver writes both to the run store when the unit is
done, so a node lost mid-unit leaves nothing half-recorded.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from tczoo.errors import UserError
from tczoo.generation import GenerationRequest, GenerationResult, generate_unit
from tczoo.llm.backends import ProviderError
from tczoo.llm.client import Ledger
from tczoo.sandbox.types import Job, RunResult

# The exchanges of the unit whose code is running (asyncio tasks inherit it), so that
# one client shared by a node's concurrent units files each exchange under its unit.
_EXCHANGES: contextvars.ContextVar[list | None] = contextvars.ContextVar("tczoo_exchanges", default=None)


def node_facts(sandbox) -> dict[str, Any]:
    """What a node says about itself when it joins (checked by the driver, recorded in
    the run's provenance)."""
    from tczoo import __version__
    from tczoo.provenance import git_state
    from tczoo.registry import method_names

    return {"host": socket.gethostname(), "pid": os.getpid(), "tczoo": __version__, "git": git_state(),
            "workers": sandbox.workers, "isolation": sandbox.isolation_level, "methods": method_names()}


class NodeWorker:
    """A node's sandbox and, per run, an LLM client and the run's method instances,
    serving the driver (an asyncio Ray actor: batches and generations run
    concurrently, sandbox work in threads)."""

    RUNS_KEPT = 4  # runs whose client and methods a node keeps (a cluster may serve several)

    def __init__(self, workers: int):
        from tczoo.sandbox import Sandbox

        self.sandbox = Sandbox(workers=workers)
        self._runs: dict[str, _RunState] = {}
        self._prompts = None

    async def hello(self) -> dict[str, Any]:
        import ray

        return {**node_facts(self.sandbox), "node_id": ray.get_runtime_context().get_node_id()}

    async def execute(self, jobs: list[Job]) -> list[RunResult]:
        """A chunk of the driver's batch on this node's slots, results in job order."""
        return await asyncio.to_thread(lambda: list(self.sandbox.run_many(jobs)))

    async def generate(self, request: GenerationRequest, service, run: str) -> GenerationResult:
        """One unit, as ``tczoo.generation.generate_unit`` makes it on the driver of a
        local run; ``run`` names the run (its client, ledger and methods are its own, as
        in a local run, even when the cluster serves several runs)."""
        from tczoo.templates import Prompts

        state = self._state(run, request, service)
        if self._prompts is None:
            self._prompts = Prompts()
        sink: list[dict] = []
        token = _EXCHANGES.set(sink)
        try:
            method = state.method(request.method, request.params)
            record = await generate_unit(method, request.task, name=request.method, problem_id=request.problem_id,
                                         task_key=request.task_key, sample=request.sample, attempt=request.attempt,
                                         client=state.client, sandbox=self.sandbox, prompts=self._prompts)
        except UserError as exc:
            return GenerationResult(None, sink, user_error=str(exc), host=socket.gethostname())
        finally:
            _EXCHANGES.reset(token)
        return GenerationResult(record, sink, host=socket.gethostname())

    def _state(self, run: str, request: GenerationRequest, service) -> "_RunState":
        if run not in self._runs:
            from tczoo.llm import LLMClient

            settings = request.settings
            client = LLMClient(request.model, settings, on_exchange=_file_exchange, cache=RemoteCache(service),
                               ledger=RemoteLedger(service, settings.spent_before))
            self._runs[run] = _RunState(client)
            while len(self._runs) > self.RUNS_KEPT:
                self._runs.pop(next(iter(self._runs)))
        return self._runs[run]


class _RunState:
    def __init__(self, client):
        self.client = client
        self.methods: dict[tuple[str, str], Any] = {}

    def method(self, name: str, params: dict[str, Any]):
        """One instance per method and parameters, as the driver builds them for a run
        (a method may keep state across the units it generates)."""
        from tczoo.registry import get_method

        key = (name, json.dumps(params, sort_keys=True, default=str))
        if key not in self.methods:
            self.methods[key] = get_method(name)(**params)
        return self.methods[key]


def _file_exchange(exchange: dict) -> None:
    sink = _EXCHANGES.get()
    if sink is not None:
        sink.append(exchange)


# --------------------------------------------------------------------------- the driver's service


class RunService:
    """On the driver's machine: the run's exchange cache (the driver's own SQLite file)
    and ledger (USD spent, why the run halted), shared by every node's client."""

    def __init__(self, cache_path: str | None, spent: float):
        from tczoo.llm.cache import ExchangeCache

        self.cache = ExchangeCache(Path(cache_path)) if cache_path else None
        self.spent = spent
        self.halted: tuple[str, str] | None = None

    def get(self, key: str) -> dict | None:
        return self.cache.get(key) if self.cache is not None else None

    def put(self, key: str, model: str, identity: dict, request: dict, text: str, usage: dict,
            cost: float) -> None:
        if self.cache is not None:
            self.cache.put(key, model, identity, request, text, usage, cost)

    def spend(self, usd: float) -> tuple[float, tuple[str, str] | None]:
        self.spent += usd
        return self.status()

    def halt(self, message: str, reason: str) -> tuple[float, tuple[str, str] | None]:
        if self.halted is None:
            self.halted = (message, reason)
        return self.status()

    def status(self) -> tuple[float, tuple[str, str] | None]:
        return self.spent, self.halted


class RemoteCache:
    """The driver's exchange cache as a client sees it: ``get``/``put`` return
    awaitables (Ray object refs), so a lookup never blocks the node's event loop."""

    def __init__(self, service):
        self.service = service

    def get(self, key: str):
        return self.service.get.remote(key)

    def put(self, *args):
        return self.service.put.remote(*args)


class RemoteLedger(Ledger):
    """The run's ledger on the driver, as a client sees it. What it adds is sent at
    once. ``spent`` (read only under a cost limit, once per provider call) asks the
    service, so a node sees what the others spent the moment it decides to call, as
    one process would: the limit is overshot only by the calls already in flight, as
    on one machine. ``halted`` (read on every call) is the last known halt, refreshed
    in the background at most every ``REFRESH_S`` seconds, so reading it never waits."""

    REFRESH_S = 0.5
    ASK_TIMEOUT_S = 5.0

    def __init__(self, service, spent: float = 0.0, run: str = ""):
        super().__init__(spent)
        self.service = service
        self.run = run  # the run this ledger is for (NodeWorker keys a run's client by it)
        self._asked = 0.0

    @property
    def spent(self) -> float:
        import ray

        try:
            self._update(ray.get(self.service.status.remote(), timeout=self.ASK_TIMEOUT_S))
        except Exception:  # noqa: BLE001 - the service is restarting: what we last knew
            pass
        return self._spent

    @property
    def halted(self) -> ProviderError | None:
        self._refresh()
        return self._halted

    def add(self, usd: float) -> None:
        if usd:
            with self._lock:
                self._spent += usd
            self._watch(self.service.spend.remote(usd))

    def halt(self, error: ProviderError) -> None:
        with self._lock:
            if self._halted is not None:
                return
            self._halted = error
        self._watch(self.service.halt.remote(str(error), error.reason))

    def sync(self) -> None:
        import ray

        self._update(ray.get(self.service.status.remote()))

    def _refresh(self) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._asked < self.REFRESH_S:
                return
            self._asked = now
        self._watch(self.service.status.remote())

    def _watch(self, ref) -> None:
        def landed(future) -> None:
            try:
                self._update(future.result())
            except Exception:  # noqa: BLE001 - the service is restarting: the next read asks again
                pass

        ref.future().add_done_callback(landed)

    def _update(self, status: tuple[float, tuple[str, str] | None]) -> None:
        spent, halted = status
        with self._lock:
            self._spent = max(self._spent, spent)
            if halted is not None and self._halted is None:
                self._halted = ProviderError(halted[0], reason=halted[1])
