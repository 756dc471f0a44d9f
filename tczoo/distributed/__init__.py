"""Where a command's work runs: this machine (the default) or a Ray cluster.

    from tczoo.distributed import ExecutionOptions, open_cluster
    with open_cluster(ExecutionOptions(executor="ray", address="auto")) as cluster:
        await run(config, out, options, cluster=cluster)   # tczoo.run
        ... cluster.sandbox ...  # a Sandbox whose batches run on the cluster's nodes

``ExecutionOptions`` is the one place the ``--executor``/``--address`` flags of
``run``, ``score`` (and every command that runs a benchmark) land. A command hands its
``RunOptions`` (which carry them) to ``tczoo.run.run``/``rescore``, which open a
cluster and close it at the end; or it opens one ``Cluster`` with ``open_cluster`` and
passes it to several runs (``run(..., cluster=c)``: a Ray instance starts in seconds,
not for free), closing it itself.

A ``Cluster`` (``tczoo.distributed.cluster``) is the typed seam between the run loop
and the machines:

- ``sandbox``: the driver's ``Sandbox``. Locally (``LocalCluster``) it is this
  machine's worker pool. On Ray (``RayCluster``), its batches (``run_many``,
  ``call_many`` and so every ``tczoo.execution`` batch: scoring, oracle checks,
  generators) fan out over one actor per node, each holding the node's own ``Sandbox``
  and compile cache; results come back in the same order as locally. Single runs stay
  on the driver.
- ``ledger``/``generate``: on Ray, a unit's generation runs on a node
  (``node.NodeWorker``, through ``tczoo.generation.generate_unit``, the function a
  local run calls) with its own LLM client, sharing the run's ledger and the driver's
  LLM cache; the driver writes the unit's exchanges and record to the run store when
  it is done (``tczoo.run``), so the store stays exactly-once whatever node is lost.
- ``describe``: what the run's provenance records about where it ran.

Ray is imported only when ``executor="ray"``: the local default needs nothing more.
See docs/distributed.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tczoo.distributed.cluster import (
    Cluster,
    ExecutionError,
    ExecutionOptions,
    LocalCluster,
    check_address,
    execution_options,
)

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox


def open_cluster(options: ExecutionOptions | None = None, *, sandbox: "Sandbox | None" = None) -> Cluster:
    """The cluster ``options`` ask for, connected and checked (every node answered and
    runs this tczoo version). ``sandbox``: the local cluster's sandbox (a caller's own,
    not closed with the cluster); a Ray cluster makes its own driver sandbox."""
    options = options or ExecutionOptions()
    if options.executor == "local":
        return LocalCluster(sandbox, options.workers)
    from tczoo.distributed.ray_cluster import RayCluster

    return RayCluster(options)


__all__ = ["Cluster", "ExecutionError", "ExecutionOptions", "LocalCluster", "check_address", "execution_options",
           "open_cluster"]
