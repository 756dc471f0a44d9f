"""Where work runs: ``ExecutionOptions`` (what the user asked: ``--executor``,
``--address``, ``--workers``) and ``Cluster``, the typed object the run loop is given
(``LocalCluster`` here; ``tczoo.distributed.ray_cluster.RayCluster`` on Ray)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tczoo.errors import UserError

if TYPE_CHECKING:
    from tczoo.generation import GenerationRequest, GenerationResult
    from tczoo.llm import LLMSettings
    from tczoo.llm.client import Ledger
    from tczoo.sandbox import Sandbox

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


class Cluster(ABC):
    """Where a command's work runs: the one object the run loop is given for it.

    - ``sandbox``: the driver's ``Sandbox``; its batches (``run_many``, ``call_many`` and
      so every ``tczoo.execution`` batch) run wherever the cluster runs them. The cluster
      owns it: closing the cluster closes it.
    - ``remote``: whether units generate elsewhere (``generate``) rather than in the run
      loop's process.
    - ``check_methods``: every place that generates can build these methods.
    - ``ledger``: the run's shared ledger (None: the client keeps its own).
    - ``generate``: one unit's generation where the cluster runs it (remote clusters).
    - ``describe``: what the run's provenance records about where it ran.
    - ``warnings``: said once per run (nodes on another commit ...).
    """

    remote: ClassVar[bool] = False
    sandbox: "Sandbox"
    warnings: list[str]

    def check_methods(self, names: list[str]) -> None:
        """Every node can build these methods (locally: the registry already said so)."""

    def ledger(self, settings: "LLMSettings") -> "Ledger | None":
        """The run's ledger (None: the client keeps its own)."""
        return None

    async def generate(self, request: "GenerationRequest", ledger: "Ledger | None") -> "GenerationResult":
        raise RuntimeError(f"{type(self).__name__} generates in the run loop, not on remote nodes")

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Where the work ran, for the run's provenance."""

    @abstractmethod
    def close(self) -> None:
        """Release everything the cluster holds (its own sandbox included)."""

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalCluster(Cluster):
    """This machine as a cluster of one: its sandbox runs everything, units generate in
    the run loop's process. ``sandbox``: a caller's own (left open by ``close``), else
    one of ``workers`` slots is made here and closed with the cluster."""

    remote = False

    def __init__(self, sandbox: "Sandbox | None" = None, workers: int | None = None):
        from tczoo.sandbox import Sandbox

        self._own = sandbox is None
        self.sandbox = sandbox if sandbox is not None else Sandbox(workers=workers)
        self.warnings = []

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "workers": self.sandbox.workers}

    def close(self) -> None:
        if self._own:
            self.sandbox.close()
