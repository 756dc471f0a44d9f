"""``tczoo serve rewards``: tczoo's rewards, and SandboxFusion's ``run_code``, over HTTP.

Trainers on GPU nodes reach a reward service on CPU nodes (verl's ``sandbox_fusion``
reward calls a SandboxFusion server; a TRL reward function can call any URL). The app
is an ASGI app (Starlette) run by uvicorn, or by Ray Serve as replicas
(``RayServe``: each replica builds its own app, sandbox pool and scorer).

Endpoints (every one needs the token: ``Authorization: Bearer TOKEN``, or ``?token=TOKEN``
in the URL for clients that send no headers of their own, verl's among them):

- ``POST /v1/rewards`` ``{"items": [{"id": ANY, "reference": REF, "completion": TEXT}, ...]}``
  -> ``{"rewards": [{"id", "score", "reason", "seconds", "parts"}, ...]}``, in order: the
  kernel's ``RewardScorer`` (``score`` None: no reward, ``reason`` says why);
- ``POST /run_code``: SandboxFusion's (``tczoo.rl.sandbox_fusion``), so that verl's
  ``reward.sandbox_fusion.url`` can name ``http://HOST:PORT/run_code?token=TOKEN``;
- ``GET /v1/health``: workers, capacity, what is in flight, rewards by outcome.

**Back-pressure, never a time-out.** Each reward item and each ``run_code`` request is a
unit of work; at most ``capacity`` units are admitted at once (in flight or waiting their
turn: ``concurrency`` run at a time, the rest queue). A request that would pass it is
answered at once with 429 and ``Retry-After`` (seconds: the queue ahead of it at the
recent pace), never left to time out; a request larger than the capacity itself, 413.
Every admitted request is answered: a reward within its time budget once its turn comes.

**What the server trusts** (docs/security.md): whoever holds the token, and nothing
else. Bodies are capped (``max_body_mb``); references are parsed as untrusted JSON;
completions and ``run_code`` programs are untrusted code and run only in tczoo's sandbox,
under its limits. It binds to 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from tczoo.errors import UserError
from tczoo.rewards import DEFAULT_MAX_TESTS, DEFAULT_TIME_BUDGET_S, RewardConfigError, RewardReference

log = logging.getLogger("tczoo.rl.serve")

DEFAULT_PORT = 8765
DEFAULT_MAX_BODY_MB = 64
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass
class ServeOptions:
    """What one server (or one Ray Serve replica) runs with."""

    token: str
    workers: int | None = None  # sandbox slots (default: this process's share, tczoo.machine)
    ranks: int | None = None  # processes sharing the node (Ray Serve: the replicas on it)
    time_budget_s: float = DEFAULT_TIME_BUDGET_S
    max_tests: int = DEFAULT_MAX_TESTS
    concurrency: int | None = None  # units running at once (default 2 x workers)
    capacity: int | None = None  # units admitted at once, running or queued (default 16 x concurrency)
    max_body_mb: int = DEFAULT_MAX_BODY_MB
    benchmarks: dict[str, str] = field(default_factory=dict)
    max_memory_mb: int = 4096  # run_code's bound on memory_limit_MB

    def __post_init__(self) -> None:
        if not self.token or len(self.token) < 16:
            raise UserError("the server's token must have at least 16 characters")
        for name in ("workers", "ranks", "concurrency", "capacity"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise UserError(f"{name} must be at least 1, not {value}")


def new_token() -> str:
    return secrets.token_urlsafe(32)


class Admission:
    """At most ``capacity`` units admitted at once; the pace of recent units (seconds a
    unit held its place) says how long a refused request should wait."""

    def __init__(self, capacity: int, concurrency: int):
        self.capacity = capacity
        self.concurrency = concurrency
        self.admitted = 0
        self.refused = 0
        self._recent: deque[float] = deque(maxlen=256)

    def try_admit(self, units: int) -> bool:
        if self.admitted + units > self.capacity:
            self.refused += 1
            return False
        self.admitted += units
        return True

    def release(self, units: int, seconds: float) -> None:
        self.admitted -= units
        if units:
            self._recent.append(seconds / units * min(units, self.concurrency))

    def retry_after(self, units: int) -> int:
        pace = sorted(self._recent)[len(self._recent) // 2] if self._recent else 1.0
        ahead = self.admitted + units - self.capacity
        return max(1, min(600, math.ceil(pace * max(1, ahead) / max(1, self.concurrency))))


class RewardService:
    """The work behind the endpoints: a sandbox pool (this process's share), a
    ``RewardScorer`` on it, and batched ``run_code`` runs on the same pool."""

    def __init__(self, options: ServeOptions, *, sandbox: Any = None):
        from tczoo.machine import machine_share
        from tczoo.rewards import RewardScorer
        from tczoo.rl.code import Batcher
        from tczoo.sandbox import Sandbox

        self.options = options
        self.share = None
        self._own = sandbox is None
        if sandbox is None:
            workers = options.workers
            if workers is None:
                self.share = machine_share(options.ranks)
                workers = self.share.workers
            sandbox = Sandbox(workers=workers)
        self.sandbox = sandbox
        self.workers = int(getattr(sandbox, "workers", 1))
        self.concurrency = options.concurrency or 2 * self.workers
        self.capacity = options.capacity or 16 * self.concurrency
        self.scorer = RewardScorer(sandbox=sandbox, time_budget_s=options.time_budget_s, max_tests=options.max_tests,
                                   concurrency=self.concurrency, benchmarks=options.benchmarks)
        self.runs = Batcher(self._run_jobs, threads=2 + self.workers, name="tczoo-run-code")
        self.admission = Admission(self.capacity, self.concurrency)
        self.started = time.time()
        self.served = 0

    def _run_jobs(self, jobs: list[Any]) -> list[Any]:
        return list(self.sandbox.run_many(jobs))

    def health(self) -> dict[str, Any]:
        from tczoo.rl.sandbox_fusion import executor_name

        return {"status": "ok", "executor": executor_name(), "workers": self.workers, "concurrency": self.concurrency, "capacity": self.capacity,
                "admitted": self.admission.admitted, "refused": self.admission.refused, "served": self.served,
                "rewards": dict(self.scorer.counts), "coalesced": self.scorer.coalesced,
                "share": self.share.as_dict() if self.share is not None else None,
                "uptime_s": round(time.time() - self.started, 1)}

    def close(self) -> None:
        self.runs.close()
        self.scorer.close()
        if self._own:
            self.sandbox.close()


class _Refused(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def build_app(options: ServeOptions, *, service: RewardService | None = None) -> Any:
    """The ASGI app; its service (pool, scorer) opens at start-up and closes at shutdown."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    holder: dict[str, RewardService] = {}
    token = options.token.encode()
    max_body = options.max_body_mb << 20

    def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    def authorised(request: Request) -> bool:
        given = ""
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            given = header[7:].strip()
        elif "token" in request.query_params:
            given = request.query_params["token"]
        return bool(given) and hmac.compare_digest(given.encode(), token)

    async def body_json(request: Request) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body:
            raise _Refused(413, f"the body is over {options.max_body_mb} MiB")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                raise _Refused(413, f"the body is over {options.max_body_mb} MiB")
            chunks.append(chunk)
        try:
            return json.loads(b"".join(chunks).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _Refused(400, f"the body is not JSON: {exc}") from None

    async def admitted(svc: RewardService, units: int, work):
        if units > svc.capacity:
            raise _Refused(413, f"{units} items: more than the server admits at once ({svc.capacity}); split it")
        if not svc.admission.try_admit(units):
            wait = svc.admission.retry_after(units)
            raise _Refused(429, f"busy: {svc.admission.admitted} of {svc.capacity} places taken; retry in {wait} s",
                           {"Retry-After": str(wait)})
        started = time.monotonic()
        try:
            return await work()
        finally:
            svc.admission.release(units, time.monotonic() - started)
            svc.served += units

    def endpoint(fn):
        async def handler(request: Request) -> JSONResponse:
            if not authorised(request):
                return error(401, "a valid token is required (Authorization: Bearer TOKEN, or ?token=TOKEN)")
            try:
                return await fn(request, holder["service"])
            except _Refused as exc:
                return error(exc.status, str(exc), exc.headers)
            except (RewardConfigError, UserError) as exc:
                return error(400, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return handler

    async def rewards(request: Request, svc: RewardService) -> JSONResponse:
        body = await body_json(request)
        items = body.get("items") if isinstance(body, dict) else None
        if not isinstance(items, list) or not items:
            raise _Refused(400, 'expected {"items": [{"id": ..., "reference": ..., "completion": "..."}, ...]}')
        refs, texts, ids = [], [], []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("completion"), str) or "reference" not in item:
                raise _Refused(400, f"items[{i}]: needs a reference and a completion (text)")
            try:
                refs.append(RewardReference.parse(item["reference"]))
            except RewardConfigError as exc:
                raise _Refused(400, f"items[{i}]: {exc}") from None
            texts.append(item["completion"])
            ids.append(item.get("id"))

        async def work():
            return await svc.scorer.ascore_many(refs, texts)

        results = await admitted(svc, len(items), work)
        return JSONResponse({"rewards": [{"id": i, **r.as_dict()} for i, r in zip(ids, results)]})

    async def run_code(request: Request, svc: RewardService) -> JSONResponse:
        from tczoo.rl.sandbox_fusion import RunCodeRequest, response_of, to_job

        body = await body_json(request)
        try:
            req = RunCodeRequest.model_validate(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "body"
            raise _Refused(400, f"bad run_code request: {where}: {first.get('msg', 'invalid')}") from None
        job = to_job(req, max_memory_mb=options.max_memory_mb)

        async def work():
            [result] = await svc.runs.asubmit([job])
            return result

        return JSONResponse(response_of(await admitted(svc, 1, work)))

    async def health(request: Request, svc: RewardService) -> JSONResponse:
        return JSONResponse(svc.health())

    @asynccontextmanager
    async def lifespan(app):
        holder["service"] = service or await asyncio.to_thread(RewardService, options)
        try:
            yield
        finally:
            if service is None:
                await asyncio.to_thread(holder["service"].close)

    routes = [Route("/v1/rewards", endpoint(rewards), methods=["POST"]),
              Route("/run_code", endpoint(run_code), methods=["POST"]),
              Route("/v1/health", endpoint(health), methods=["GET"])]
    return Starlette(routes=routes, lifespan=lifespan)


def check_host(host: str, public: bool) -> None:
    if host not in LOOPBACK and not public:
        raise UserError(f"--host {host}: not a loopback address; serving rewards to the network runs everyone's code "
                        "who holds the token: say --public to mean it (docs/security.md)")


def serve(options: ServeOptions, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT, public: bool = False,
          ready: Any = None) -> None:
    """Run the app under uvicorn until interrupted. ``ready(url)`` is called once it listens."""
    import uvicorn

    check_host(host, public)
    config = uvicorn.Config(build_app(options), host=host, port=port, access_log=False, log_level="warning",
                            lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    if ready is not None:
        original = server.startup

        async def startup(sockets=None):
            await original(sockets=sockets)
            bound = [s.getsockname() for srv in (server.servers or []) for s in (srv.sockets or [])]
            ready(f"http://{host}:{bound[0][1] if bound else port}")

        server.startup = startup  # type: ignore[method-assign]
    server.run()


# --------------------------------------------------------------------------- Ray Serve


class RayServe:
    """The app as ``replicas`` Ray Serve replicas behind Ray's HTTP proxy at
    ``host:port`` (``start`` returns the URL; ``close`` removes the application, Ray Serve
    and a Ray instance it started). Each replica builds its own app: its own sandbox pool
    (sized as one of the replicas on its node: ``ranks`` defaults to the replicas per
    node), scorer and admission. Without ``address`` (or ``RAY_ADDRESS``) a private Ray
    instance is started on this machine as ``--executor ray`` starts one: loopback only,
    its own temporary folder, an owner-only token (``tczoo.distributed``)."""

    def __init__(self, options: ServeOptions, *, replicas: int = 2, host: str = "127.0.0.1",
                 port: int = DEFAULT_PORT, address: str | None = None, public: bool = False,
                 name: str = "tczoo-rewards"):
        check_host(host, public)
        if replicas < 1:
            raise UserError(f"replicas must be at least 1, not {replicas}")
        self.options, self.replicas, self.host, self.port = options, replicas, host, port
        self.address, self.name = address, name
        self._own_ray = False
        self._temp_dir: str | None = None
        self.url = f"http://{host}:{port}"

    def start(self) -> str:
        import os

        import ray
        from ray import serve as ray_serve

        if not ray.is_initialized():
            self._connect(ray, self.address or os.environ.get("RAY_ADDRESS"))
        ray_serve.start(http_options={"host": self.host, "port": self.port})
        nodes = max(1, len([n for n in ray.nodes() if n.get("Alive")]))
        replica_options = ServeOptions(**{**self.options.__dict__,
                                          "ranks": self.options.ranks or math.ceil(self.replicas / nodes)})

        def builder():
            return build_app(replica_options)

        # max_ongoing_requests above the app's own capacity: the app answers 429 itself
        deployment = ray_serve.deployment(ray_serve.ingress(builder)(), name="rewards", num_replicas=self.replicas,
                                          max_ongoing_requests=100_000, ray_actor_options={"num_cpus": 0})
        ray_serve.run(deployment.bind(), name=self.name, route_prefix="/", blocking=False)
        return self.url

    def _connect(self, ray, address: str | None) -> None:
        from tczoo.distributed.ray_cluster import LOOPBACK, _loopback_only, _private_temp_dir, _private_token

        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "logging_level": logging.WARNING}
        if address:
            ray.init(address=address, **kwargs)
            return
        kwargs["_node_ip_address"] = LOOPBACK
        kwargs["_temp_dir"] = self._temp_dir = _private_temp_dir()
        _private_token()
        with _loopback_only():
            ray.init(**kwargs)
        self._own_ray = True

    def close(self) -> None:
        import os
        import shutil

        import ray
        from ray import serve as ray_serve

        try:
            if ray.is_initialized():
                try:
                    ray_serve.delete(self.name)
                finally:
                    ray_serve.shutdown()
        finally:
            if self._own_ray:
                ray.shutdown()
                self._own_ray = False
            if self._temp_dir is not None:
                shutil.rmtree(os.path.dirname(self._temp_dir), ignore_errors=True)
                self._temp_dir = None

    def __enter__(self) -> "RayServe":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["Admission", "RayServe", "RewardService", "ServeOptions", "build_app", "new_token", "serve"]
