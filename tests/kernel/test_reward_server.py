"""``tczoo serve rewards`` (``tczoo.rl.serve``) on a real uvicorn server on loopback, in
this process, over the session's sandbox.

- Every endpoint needs the token (a header, or ``?token=`` for clients that send none);
  the server binds to loopback unless told ``--public``; a token file is made owner-only
  and one readable by others, or a link, is refused.
- ``/v1/rewards`` gives the scorer's rewards, in order, with the caller's ids; bad
  references, bad JSON, an oversized body are one-line 4xx answers, never a reward.
- ``/run_code`` answers SandboxFusion's schema from tczoo's sandbox: output, a crash, a
  timeout, a compile error; what tczoo will not run (another language, fetch_files) is a 400.
- Past its capacity the server answers 429 with Retry-After at once; a request larger
  than the capacity, 413; the client waits a 429 out and gets its answer.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

from harness_fixtures import BUGGY, SAMPLE, SEPARATING
from tczoo.errors import UserError
from tczoo.rewards import RewardScorer
from tczoo.rl.client import RewardClient, RewardServerError
from tczoo.rl.export import collect
from tczoo.rl.serve import RewardService, ServeOptions, build_app, check_host

pytest.importorskip("uvicorn")
TOKEN = "t" * 24


@contextmanager
def running(sandbox, **options):
    """A uvicorn server of the app on 127.0.0.1 (a free port) in a thread: its base URL."""
    import uvicorn

    opts = ServeOptions(token=TOKEN, **options)
    service = RewardService(opts, sandbox=sandbox)
    server = uvicorn.Server(uvicorn.Config(build_app(opts, service=service), host="127.0.0.1", port=0,
                                           access_log=False, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", service
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        service.close()


def call(url: str, path: str, body=None, *, token: str | None = TOKEN, raw: bytes | None = None,
         query: str = "") -> tuple[int, dict, dict]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url + path + query, data=data, method="GET" if data is None else "POST",
                                     headers={"Content-Type": "application/json"})
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}"), dict(exc.headers)


def _declared_only(url: str, path: str, length: int) -> tuple[int, dict]:
    """POST headers declaring a body of ``length`` bytes and no body: the server answers
    from the declaration alone (sending the body too races its early answer and close,
    a broken pipe on the client's side)."""
    import http.client
    import urllib.parse

    where = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        conn.putrequest("POST", path)
        for name, value in (("Content-Type", "application/json"), ("Authorization", f"Bearer {TOKEN}"),
                            ("Content-Length", str(length))):
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def server(sandbox):
    with running(sandbox, max_body_mb=1) as (url, service):
        yield url, service


@pytest.fixture(scope="module")
def io_ref(sandbox):
    [item] = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox,
                     params={"runner:bugfind": {"wrong": [BUGGY]}}).items
    return item.reference.dumps()


def _io(inp: str, out: str) -> str:
    return "```json\n" + json.dumps([{"input_str": inp, "expected_output": out}]) + "\n```"


# --------------------------------------------------------------------------- who may ask


def test_every_endpoint_needs_the_token(server):
    url, _ = server
    for path, body in (("/v1/health", None), ("/v1/rewards", {"items": []}), ("/run_code", {"code": "print(1)"})):
        for token in (None, "wrong" * 5):
            status, answer, _ = call(url, path, body, token=token)
            assert status == 401 and "token" in answer["error"], (path, token)
    assert call(url, "/v1/health")[0] == 200
    assert call(url, "/v1/health", token=None, query=f"?token={TOKEN}")[0] == 200  # verl's client sends no header


def test_the_server_binds_to_loopback_unless_told_and_tokens_are_private(tmp_path):
    check_host("127.0.0.1", False)
    with pytest.raises(UserError, match="not a loopback address.*--public"):
        check_host("0.0.0.0", False)
    check_host("0.0.0.0", True)
    with pytest.raises(UserError, match="at least 16 characters"):
        ServeOptions(token="short")
    from tczoo.cli.options import CLIError
    from tczoo.cli.serve import read_or_make_token

    path = tmp_path / "token"
    token, source = read_or_make_token(path)
    assert len(token) >= 32 and "new token" in source and (path.stat().st_mode & 0o777) == 0o600
    assert read_or_make_token(path)[0] == token  # read back, not replaced
    os.chmod(path, 0o644)
    with pytest.raises(CLIError, match="readable by others"):
        read_or_make_token(path)
    (tmp_path / "link").symlink_to(path)
    with pytest.raises(CLIError, match="cannot read it"):
        read_or_make_token(tmp_path / "link")


# --------------------------------------------------------------------------- rewards


def test_rewards_are_the_scorers_in_order_with_the_callers_ids(server, io_ref, sandbox):
    url, service = server
    texts = [_io(SEPARATING, "5"), _io(SAMPLE, "70"), "no tests here", _io(SEPARATING, "5")]
    ids = ["a", 7, {"row": 3}, None]
    status, answer, _ = call(url, "/v1/rewards", {"items": [{"id": i, "reference": io_ref, "completion": t}
                                                            for i, t in zip(ids, texts)]})
    assert status == 200, answer
    with RewardScorer(sandbox=sandbox) as direct:
        expected = direct.score_many([io_ref] * len(texts), texts)
    assert [r["id"] for r in answer["rewards"]] == ids
    assert [r["score"] for r in answer["rewards"]] == [e.score for e in expected] == [1.0, 0.0, 0.0, 1.0]
    assert answer["rewards"][0]["parts"]["outcome"] == "true_bug"
    health = call(url, "/v1/health")[1]
    assert health["rewards"]["scored"] >= 2 and health["admitted"] == 0


def test_bad_requests_are_one_line_and_never_a_reward(server, io_ref):
    url, _ = server
    status, answer, _ = call(url, "/v1/rewards", {"items": [{"reference": io_ref, "completion": "x"},
                                                            {"reference": "{nope", "completion": "x"}]})
    assert status == 400 and answer["error"].startswith("items[1]: reward reference is not JSON")
    assert call(url, "/v1/rewards", raw=b"{not json")[0] == 400
    assert call(url, "/v1/rewards", {"items": []})[0] == 400
    assert call(url, "/v1/rewards", {"items": [{"reference": io_ref, "completion": 3}]})[0] == 400
    status, answer = _declared_only(url, "/v1/rewards", 2 << 20)
    assert status == 413 and "over 1 MiB" in answer["error"]
    moved = json.loads(io_ref)
    moved["problem_sha"] = "0" * 64
    status, answer, _ = call(url, "/v1/rewards", {"items": [{"reference": moved, "completion": "x"}]})
    assert status == 400 and "differs from the one exported" in answer["error"]


# --------------------------------------------------------------------------- run_code (SandboxFusion)


def _run(url: str, **request) -> tuple[int, dict]:
    status, answer, _ = call(url, "/run_code", {"run_timeout": 2, "memory_limit_MB": 256, **request})
    return status, answer


def test_run_code_answers_sandbox_fusions_schema_from_the_sandbox(server):
    url, _ = server
    status, ok = _run(url, code="import sys\nprint(sys.stdin.read().upper(), end='')", stdin="abc\n")
    assert status == 200 and ok["status"] == "Success" and ok["compile_result"] is None
    assert ok["run_result"]["status"] == "Finished" and ok["run_result"]["return_code"] == 0
    assert ok["run_result"]["stdout"] == "ABC\n" and ok["executor_pod_name"]
    crash = _run(url, code="raise SystemExit(3)")[1]
    assert crash["status"] == "Failed" and crash["run_result"]["status"] == "Finished"
    assert crash["run_result"]["return_code"] == 3
    slow = _run(url, code="while True:\n    pass\n", run_timeout=0.5)[1]
    assert slow["status"] == "Failed" and slow["run_result"]["status"] == "TimeLimitExceeded"
    bad = _run(url, code="int main( {", language="cpp")[1]
    assert bad["status"] == "Failed" and bad["run_result"] is None
    assert bad["compile_result"]["return_code"] == 1 and "error" in bad["compile_result"]["stderr"]
    text = base64.b64encode(b"from a file\n").decode()
    read = _run(url, code="print(open('data.txt').read(), end='')", files={"data.txt": text})[1]
    assert read["run_result"]["stdout"] == "from a file\n"
    # the jail: no network, nothing of the host's secrets
    net = _run(url, code="import socket\nsocket.create_connection(('127.0.0.1', 1), timeout=1)")[1]
    assert net["status"] == "Failed"
    for request, why in (({"language": "rust"}, "not run by tczoo"), ({"fetch_files": ["out"]}, "fetch_files"),
                         ({"run_timeout": 0}, "run_timeout"), ({"files": {"../x": text}}, "plain file name")):
        status, answer = _run(url, code="print(1)", **request)
        assert status == 400 and why in answer["error"], (request, answer)


# --------------------------------------------------------------------------- back-pressure


def test_past_its_capacity_the_server_answers_429_at_once_and_the_client_waits_it_out(sandbox, io_ref):
    busy = "import time\nt = time.time()\nwhile time.time() - t < 2: pass\nprint('done')"
    with running(sandbox, concurrency=1, capacity=1) as (url, service):
        first: dict = {}
        holder = threading.Thread(target=lambda: first.update(answer=_run(url, code=busy, run_timeout=5)[1]))
        holder.start()
        deadline = time.monotonic() + 30
        while service.admission.admitted == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        started = time.monotonic()
        status, answer, headers = call(url, "/run_code", {"code": "print(2)"})
        assert status == 429 and int(headers["retry-after"]) >= 1 and "busy" in answer["error"]
        assert time.monotonic() - started < 2  # refused at once, not held until a time-out
        status, answer, _ = call(url, "/v1/rewards", {"items": [{"reference": io_ref, "completion": ""}] * 2})
        assert status == 413 and "more than the server admits at once (1)" in answer["error"]
        client = RewardClient(url, TOKEN, max_wait_s=60)
        later = client.run_code({"code": "print(2)"})  # waits the 429 out, then runs
        holder.join()
        assert first["answer"]["run_result"]["stdout"] == "done\n" and later["run_result"]["stdout"] == "2\n"
        assert client.refusals >= 1 and service.admission.refused >= 2
        with pytest.raises(RewardServerError, match="HTTP 401"):
            RewardClient(url, "x" * 20).health()
