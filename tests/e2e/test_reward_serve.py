"""``tczoo serve rewards`` as users run it: the command on loopback, verl's own
``sandbox_fusion`` client pointed at it unchanged, and a bounded load test.

- verl's ``sandbox_fusion.compute_score`` (its client: ``requests.post`` to the URL, no
  headers of ours) and ``default_compute_score`` with ``sandbox_fusion_url`` (what verl
  calls for codecontests/apps data when ``reward.sandbox_fusion.url`` is set) score
  programs through the server as they would through SandboxFusion.
- 256 concurrent requests (run_code and rewards, each distinguishable) against a server
  admitting 128 at once: every one is answered exactly once with its own result; the
  refused ones got 429 and were asked again, none timed out.
- Ctrl-C stops the server cleanly.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness_fixtures import BUGGY, SAMPLE, SEPARATING
from serve_fixtures import start_server, stop_server
from tczoo.rl.client import RewardClient
from tczoo.rl.export import collect

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    proc, url, token = start_server(tmp_path_factory.mktemp("serve"), "--workers", "2", "--capacity", "128")
    try:
        yield url, token
    finally:
        stop_server(proc)


def test_verls_own_sandbox_fusion_client_scores_through_tczoo(served):
    pytest.importorskip("verl")
    from verl.utils.reward_score import default_compute_score, sandbox_fusion

    url, token = served
    endpoint = f"{url}/run_code?token={token}"  # verl's reward.sandbox_fusion.url, as docs/rl.md gives it
    tests = {"inputs": ["1 2\n", "5 7\n", "10 -3\n"], "outputs": ["3\n", "12\n", "7\n"]}
    right = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    wrong = "```python\na, b = map(int, input().split())\nprint(a * b)\n```"
    score, meta = sandbox_fusion.compute_score(endpoint, None, 1024, right, json.dumps(tests))
    assert score == 1.0 and [m["status"] for m in meta] == ["success"] * 3
    score, meta = sandbox_fusion.compute_score(endpoint, None, 1024, wrong, json.dumps(tests))
    assert score == 0.0 and [m["status"] for m in meta] == ["wrong_answer"] * 3
    score, meta = sandbox_fusion.compute_score(endpoint, None, 1024, "```python\nwhile True: pass\n```",
                                               json.dumps(tests), timeout=1)
    assert score == 0.0 and {m["status"] for m in meta} == {"timeout"}
    # what verl itself calls for codecontests data when reward.sandbox_fusion.url is set
    from multiprocessing import Manager

    with Manager() as manager:
        semaphore = manager.Semaphore(8)
        got = default_compute_score("codecontests", right, json.dumps(tests), sandbox_fusion_url=endpoint,
                                    concurrent_semaphore=semaphore, memory_limit_mb=1024)
    assert got == 1.0
    # without the token, verl's client sees an API error: never a score of ours
    score, meta = sandbox_fusion.compute_score(f"{url}/run_code", None, 1024, right, json.dumps(tests))
    assert score == 0.0 and {m["status"] for m in meta} == {"api_error"}


def test_256_concurrent_requests_each_answered_once_with_its_own_result(served, sandbox):
    url, token = served
    [item] = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox,
                     params={"runner:bugfind": {"wrong": [BUGGY]}}).items
    ref = item.reference.dumps()
    answers = {1.0: "```json\n" + json.dumps([{"input_str": SEPARATING, "expected_output": "5"}]) + "\n```",
               0.0: "```json\n" + json.dumps([{"input_str": SAMPLE, "expected_output": "70"}]) + "\n```"}
    client = RewardClient(url, token, max_wait_s=600)
    client.rewards([ref], [answers[1.0]])  # the task's set-up, once

    def request(i: int):
        if i % 4 == 0:  # a reward, its id its number
            want = 1.0 if i % 8 == 0 else 0.0
            [got] = client.rewards([ref], [answers[want]], ids=[f"r{i}"])
            return i, ("reward", got["id"], got["score"], want)
        got = client.run_code({"code": f"print({i} * 3)", "language": "python", "run_timeout": 5})
        return i, ("run", got["status"], got["run_result"]["stdout"], f"{i * 3}\n")

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=256) as pool:
        results = list(pool.map(request, range(256)))
    took = time.monotonic() - started
    assert sorted(i for i, _ in results) == list(range(256))  # nothing lost, nothing twice
    for i, (what, a, b, want) in results:
        if what == "reward":
            assert (a, b) == (f"r{i}", want), (i, a, b)
        else:
            assert (a, b) == ("Success", want), (i, a, b)
    health = client.health()
    assert health["admitted"] == 0 and health["capacity"] == 128
    assert health["refused"] == client.refusals  # every refusal was a 429 the client waited out
    print(f"256 concurrent requests in {took:.1f} s; {client.refusals} refused (429) and asked again")
