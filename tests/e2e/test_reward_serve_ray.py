"""``tczoo serve rewards --replicas 2``: the app as two Ray Serve replicas on a private,
loopback-only Ray instance on this machine (``tczoo.rl.serve.RayServe``).

Each replica builds its own app, sandbox pool and scorer, sized as one of the two
replicas on this node (``tczoo.machine``: half the cores each); concurrent requests through
Ray's proxy are spread over both replicas (SandboxFusion's ``executor_pod_name`` says
which ran a program), each answered with its own result; rewards go through it too.
"""

from __future__ import annotations

import json
import os
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness_fixtures import BUGGY, SEPARATING
from tczoo.rl.client import RewardClient
from tczoo.rl.export import collect
from tczoo.rl.serve import RayServe, ServeOptions

pytest.importorskip("ray.serve")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_replicas_each_with_its_share_answer_through_rays_proxy(sandbox):
    [item] = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox,
                     params={"runner:bugfind": {"wrong": [BUGGY]}}).items
    token = "r" * 32
    cores = len(os.sched_getaffinity(0))
    with RayServe(ServeOptions(token=token, time_budget_s=60), replicas=2, port=_free_port()) as served:
        client = RewardClient(served.url, token, max_wait_s=300)
        health = client.health()
        assert health["share"]["ranks"] == 2 and health["workers"] == max(1, cores // 2)
        with ThreadPoolExecutor(max_workers=24) as pool:
            runs = list(pool.map(lambda i: client.run_code({"code": f"import time\ntime.sleep(0.5)\nprint({i} + 1)",
                                                            "run_timeout": 5}), range(24)))
        assert [r["run_result"]["stdout"] for r in runs] == [f"{i + 1}\n" for i in range(24)]
        assert len({r["executor_pod_name"] for r in runs}) == 2  # both replicas ran programs
        answer = "```json\n" + json.dumps([{"input_str": SEPARATING, "expected_output": "5"}]) + "\n```"
        [got] = client.rewards([item.reference.dumps()], [answer], ids=["x"])
        assert got["id"] == "x" and got["score"] == 1.0
