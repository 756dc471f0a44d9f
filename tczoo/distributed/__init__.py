"""Where a command's work runs: this machine (the default) or a Ray cluster.

    from tczoo.distributed import ExecutionOptions, open_cluster
    cluster = open_cluster(ExecutionOptions(executor="ray", address="auto"))
    ... cluster.sandbox ...  # a Sandbox whose batches run on the cluster's nodes
    cluster.close()

``ExecutionOptions`` is the one place the ``--executor``/``--address`` flags of
``run``, ``score`` (and every command that runs a benchmark) land; a command hands it
to ``tczoo.run.run``/``rescore``, or opens a cluster once with ``open_cluster`` and
hands that to several runs (``run(..., cluster=c)``: a Ray instance starts in
seconds, not for free).

A ``Cluster`` gives a command three things:

- ``sandbox``: a ``Sandbox`` for the driver (closing it closes the cluster, so code
  that only knows sandboxes can hold a cluster: ``cluster_of(sandbox)`` finds it).
  Locally it is this machine's worker pool.
  On Ray, its batches (``run_many``, ``call_many`` and so every ``tczoo.execution``
  batch: scoring, oracle checks, generators) fan out over one actor per node, each
  holding the node's own ``Sandbox`` and compile cache; results come back in the same
  order as locally. Single runs stay on the driver.
- ``ledger``/``generate``: on Ray, a unit's generation runs on a node
  (``node.NodeWorker``) with its own LLM client, sharing the run's ledger and the
  driver's LLM cache; the driver writes the unit's exchanges and record to the run
  store when it is done (``tczoo.run``), so the store stays exactly-once whatever
  node is lost.
- ``describe``: what the run's provenance records about where it ran.

Ray is imported only when ``executor="ray"``: the local default needs nothing more.
See docs/distributed.md.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tczoo.errors import UserError

_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


class ExecutionError(UserError, ValueError):
    """An executor that cannot be used as asked (Ray missing, an address nothing
    answers on, nodes that run another tczoo version ...): one line, exit code 2."""


class ExecutionOptions(BaseModel):
    """Where work runs. ``executor="local"``: this machine's sandbox slots.
    ``executor="ray"``: a Ray cluster at ``address`` — ``auto`` (the cluster this
    machine belongs to, as ``ray start`` left it), ``HOST:PORT`` (its head node's
    GCS address), or None: ``RAY_ADDRESS`` if set, else a private Ray instance on this
    machine that lives as long as the command. ``workers``: sandbox slots per node
    (default: the CPUs Ray gives the node)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    executor: Literal["local", "ray"] = "local"
    address: str | None = None
    workers: int | None = Field(None, ge=1, le=4096)

    @model_validator(mode="after")
    def _address_is_for_ray(self) -> "ExecutionOptions":
        if self.address is not None:
            if self.executor != "ray":
                raise ValueError("--address is for --executor ray")
            check_address(self.address)
        return self

    def describe(self) -> str:
        if self.executor == "local":
            return "local worker pool"
        return f"Ray cluster at {self.address}" if self.address else "Ray cluster (private, on this machine)"


def check_address(address: str) -> None:
    """``auto`` or ``HOST:PORT``; Ray Client addresses (``ray://``) are refused: the
    driver must run on a node of the cluster (its run store and LLM cache are there)."""
    if address == "auto":
        return
    if address.startswith("ray://"):
        raise ValueError(f"--address {address}: Ray Client (ray://) is not supported; run tczoo on a node of "
                         "the cluster with --address auto or the head's HOST:PORT")
    m = _HOST_PORT.match(address)
    if not m or not 0 < int(m.group(2)) < 65536:
        raise ValueError(f"--address {address!r}: expected auto or HOST:PORT (e.g. 10.0.0.5:6379)")


def execution_options(executor: str = "local", address: str | None = None, workers: int | None = None
                      ) -> ExecutionOptions:
    """``ExecutionOptions`` from command-line values; a bad value is an ``ExecutionError``
    naming the flag."""
    from pydantic import ValidationError

    try:
        return ExecutionOptions(executor=executor, address=address, workers=workers)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = first.get("loc", ())
        msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        if where == ("executor",):
            msg = f"--executor {executor!r}: expected local or ray"
        elif where == ("workers",):
            msg = f"--workers {workers!r}: {msg.lower()}"
        raise ExecutionError(msg) from None


class Cluster:
    """This machine as a cluster of one: its own sandbox runs everything, units
    generate in this process. See the module docstring for the interface."""

    remote = False

    def __init__(self, sandbox=None, workers: int | None = None):
        from tczoo.sandbox import Sandbox

        self._own = sandbox is None
        self.sandbox = sandbox if sandbox is not None else Sandbox(workers=workers)
        self.warnings: list[str] = []

    def check_methods(self, names: list[str]) -> None:
        """Every node can build these methods (locally: the registry already said so)."""

    def ledger(self, settings):
        """The run's ledger (None: the client keeps its own)."""
        return None

    async def generate(self, request, ledger):
        raise RuntimeError("a local cluster generates in the run loop")

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "workers": self.sandbox.workers}

    def close(self) -> None:
        if self._own:
            self.sandbox.close()

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def cluster_of(sandbox) -> Cluster | None:
    """The cluster whose sandbox this is (None for a plain one). A command that shares
    one sandbox between several runs (a grid of runs) shares their cluster
    too: ``run(sandbox=cluster.sandbox)`` generates on the cluster's nodes."""
    return getattr(getattr(sandbox, "executor", None), "cluster", None)


def open_cluster(options: ExecutionOptions | None = None, *, sandbox=None) -> Cluster:
    """The cluster ``options`` ask for, connected and checked (every node answered and
    runs this tczoo version). ``sandbox``: the local cluster's sandbox (a caller's own,
    not closed here); a Ray cluster makes its own driver sandbox."""
    options = options or ExecutionOptions()
    if options.executor == "local":
        return Cluster(sandbox, options.workers)
    from tczoo.distributed.ray_cluster import RayCluster

    return RayCluster(options)


__all__ = ["Cluster", "ExecutionError", "ExecutionOptions", "check_address", "cluster_of", "execution_options",
           "open_cluster"]
