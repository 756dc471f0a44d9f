import asyncio
import json

import pytest

from tczoo.llm import LLMClient, LLMSettings, ModelSpecError, Session
from tczoo.llm.interface import Answer, Backend
from tests.fake_openai import FakeOpenAI

MSG = [{"role": "user", "content": "Write tests for problem A"}]


def _scripted(tmp_path, rules):
    path = tmp_path / "model.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rules) + "\n")
    return f"scripted:{path}"


def _settings(tmp_path, **kw):
    return LLMSettings(cache_path=tmp_path / "cache.sqlite", backoff_s=0.01, **kw)


# --------------------------------------------------------------------------- scripted


def test_scripted_first_matching_rule_answers(tmp_path):
    model = _scripted(tmp_path, [
        {"match": "problem B", "response": "b"},
        {"match": r"problem [A-Z]$", "response": "regex"},
        {"match": "", "response": "fallback"},
    ])
    client = LLMClient(model, _settings(tmp_path))
    assert client.complete_sync(MSG)[0].text == "regex"
    assert client.complete_sync([{"role": "user", "content": "other"}])[0].text == "fallback"


def test_scripted_responses_follow_sample_index(tmp_path):
    model = _scripted(tmp_path, [{"match": "problem", "responses": ["s0", "s1", "s2"]}])
    out = LLMClient(model, _settings(tmp_path)).complete_sync(MSG, n=4)
    assert [c.text for c in out] == ["s0", "s1", "s2", "s0"]
    assert [c.sample for c in out] == [0, 1, 2, 3]


def test_scripted_without_matching_rule_is_a_recorded_failure(tmp_path):
    client = LLMClient(_scripted(tmp_path, [{"match": "zzz", "response": "x"}]), _settings(tmp_path))
    [c] = client.complete_sync(MSG)
    assert not c.ok and c.reason == "no_rule"
    assert client.usage.failures == 1


def test_scripted_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"match": "(", "response": "x"}\n')
    with pytest.raises(ModelSpecError, match="bad.jsonl:1"):
        LLMClient(f"scripted:{bad}")
    with pytest.raises(ModelSpecError, match="not found"):
        LLMClient(f"scripted:{tmp_path / 'missing.jsonl'}")


def test_unknown_model_shape_is_a_clear_error():
    with pytest.raises(ModelSpecError, match="provider/model"):
        LLMClient("gpt4")
    with pytest.raises(ModelSpecError, match="unknown local model"):
        LLMClient("local/some-name")


# --------------------------------------------------------------------------- provider path (real HTTP via LiteLLM)


@pytest.mark.e2e
def test_provider_call_is_cached_and_rerun_makes_zero_calls(tmp_path):
    with FakeOpenAI() as server:
        settings = _settings(tmp_path, api_base=server.base, api_key="sk-test")
        first = LLMClient("openai/fake-model", settings)
        out = first.complete_sync(MSG, n=3, temperature=0.7)
        assert all(c.ok and not c.cached for c in out)
        assert len(server.requests) == 3
        assert first.usage.calls == 3 and first.usage.prompt_tokens == 33 and first.usage.completion_tokens == 21
        assert first.usage.cost_usd == 0.0  # unpriced model: free, not a crash
        again = LLMClient("openai/fake-model", settings)
        out2 = again.complete_sync(MSG, n=3, temperature=0.7)
        assert [c.text for c in out2] == [c.text for c in out]
        assert len(server.requests) == 3  # zero new provider calls
        assert again.usage.calls == 0 and again.usage.cached_calls == 3
        # A larger n pays only for the new sample.
        again.complete_sync(MSG, n=4, temperature=0.7)
        assert len(server.requests) == 4


def test_rate_limits_and_server_errors_are_retried(tmp_path):
    with FakeOpenAI(script=[(429, "slow down"), (503, "busy")]) as server:
        client = LLMClient("openai/fake-model", _settings(tmp_path, api_base=server.base, api_key="sk-test"))
        [c] = client.complete_sync(MSG)
        assert c.ok and c.text.startswith("echo:")
        assert len(server.requests) >= 3


def test_auth_error_is_a_recorded_failure_not_a_crash(tmp_path):
    with FakeOpenAI(script=[(401, "bad key")] * 10) as server:
        client = LLMClient("openai/fake-model", _settings(tmp_path, api_base=server.base, api_key="sk-bad"))
        [c] = client.complete_sync(MSG)
        assert not c.ok and c.reason == "auth"
        assert client.usage.failures == 1


def test_concurrency_limit_is_honoured(tmp_path):
    with FakeOpenAI(delay=0.2) as server:
        client = LLMClient("openai/fake-model",
                           _settings(tmp_path, api_base=server.base, api_key="sk", max_connections=2, cache=False))
        out = client.complete_sync(MSG, n=6)
        assert all(c.ok for c in out)
        assert server.max_active == 2


def test_session_accounts_its_own_usage(tmp_path):
    model = _scripted(tmp_path, [{"match": "", "response": "x"}])
    client = LLMClient(model, _settings(tmp_path))
    a, b = Session(client), Session(client)
    asyncio.run(a.complete(MSG, n=2))
    asyncio.run(b.complete(MSG))
    assert a.usage.calls == 2 and b.usage.calls == 1 and client.usage.calls == 3
    assert len(a.keys) == 2


# --------------------------------------------------------------------------- replay


def test_replay_answers_from_a_recorded_run(tmp_path):
    log = []
    model = _scripted(tmp_path, [{"match": "A", "responses": ["one", "two"]}])
    LLMClient(model, _settings(tmp_path), on_exchange=log.append).complete_sync(MSG, n=2)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "exchanges.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log) + '{"torn')
    replay = LLMClient(f"replay:{run_dir}", _settings(tmp_path))
    assert [c.text for c in replay.complete_sync(MSG, n=2)] == ["one", "two"]
    [missing] = replay.complete_sync([{"role": "user", "content": "never asked"}])
    assert not missing.ok and missing.reason == "not_recorded"


def test_scripted_generations_of_a_task_get_different_answers(tmp_path):
    from tczoo.llm.backends import SAMPLE_STRIDE

    model = _scripted(tmp_path, [{"match": "problem", "responses": ["a", "b"]}])
    client = LLMClient(model, _settings(tmp_path))
    first = client.complete_sync(MSG, first_sample=0)[0].text
    second = client.complete_sync(MSG, first_sample=SAMPLE_STRIDE)[0].text
    assert (first, second) == ("a", "b")


# --------------------------------------------------------------------------- failing providers (issue 11)


def _client(tmp_path, base, model="openai/fake-model", **kw):
    kw.setdefault("backoff_s", 0.01)
    return LLMClient(model, LLMSettings(api_base=base, api_key="sk-test", cache_path=tmp_path / "c.sqlite", **kw))


def test_retry_after_is_honoured(tmp_path):
    import time

    with FakeOpenAI(script=[{"status": 429, "text": "slow down", "headers": {"Retry-After": "1"}}]) as server:
        started = time.monotonic()
        [c] = _client(tmp_path, server.base).complete_sync(MSG)
        assert c.ok
        assert len(server.requests) == 2
        # the second request waited what the server asked, not the 10 ms backoff
        assert server.times[1] - server.times[0] >= 0.95
        assert time.monotonic() - started < 10


@pytest.mark.parametrize("entry,reason", [
    ({"raw": b"<html>502 Bad Gateway</html>"}, "server_error"),  # not JSON at all
    ({"raw": json.dumps({"choices": []})}, "bad_response"),       # JSON, but no completion
    ({"close": True}, "server_error"),                             # connection dropped
    ((500, "boom"), "server_error"),
])
def test_garbage_and_errors_are_retried_then_recorded(tmp_path, entry, reason):
    with FakeOpenAI(script=[entry] * 20) as server:
        client = _client(tmp_path, server.base, retries=2)
        [c] = client.complete_sync(MSG)
        assert not c.ok and c.reason == reason
        assert len(server.requests) == 3  # the call and its two retries


def test_connection_refused_halts_the_client_after_n_in_a_row(tmp_path):
    from tests.fake_openai import closed_port

    client = _client(tmp_path, f"http://127.0.0.1:{closed_port()}/v1", retries=1, max_consecutive_errors=3)
    out = client.complete_sync(MSG, n=3)
    assert all(not c.ok for c in out)
    assert client.halted is not None and client.halted.reason == "stopped"
    assert "3 calls in a row failed" in str(client.halted)
    [later] = client.complete_sync([{"role": "user", "content": "another prompt"}])
    assert not later.ok and later.reason == "stopped"  # no call made


def test_a_bad_prompt_does_not_trip_the_breaker(tmp_path):
    with FakeOpenAI(script=[(400, "bad request")] * 5) as server:
        client = _client(tmp_path, server.base, max_consecutive_errors=2)
        client.complete_sync(MSG, n=5)
        assert client.halted is None  # the provider answered: it is the prompt


def test_two_servers_behind_one_model_name_are_two_models(tmp_path):
    """The cache key holds the api_base: the second server is asked, not answered from
    the first one's cache."""
    with FakeOpenAI(name="checkpoint-a") as a, FakeOpenAI(name="checkpoint-b") as b:
        [from_a] = _client(tmp_path, a.base, model="hosted_vllm/same-name").complete_sync(MSG)
        [from_b] = _client(tmp_path, b.base, model="hosted_vllm/same-name").complete_sync(MSG)
        assert from_a.text.startswith("checkpoint-a") and from_b.text.startswith("checkpoint-b")
        assert len(a.requests) == 1 and len(b.requests) == 1
        [again] = _client(tmp_path, b.base, model="hosted_vllm/same-name").complete_sync(MSG)
        assert again.cached and again.text == from_b.text and len(b.requests) == 1


def test_every_sampling_parameter_and_the_sample_index_are_in_the_key(tmp_path):
    with FakeOpenAI() as server:
        client = _client(tmp_path, server.base)
        client.complete_sync(MSG)
        for kwargs in ({"temperature": 0.9}, {"max_tokens": 17}, {"top_p": 0.5}, {"presence_penalty": 0.1},
                       {"stop": ["x"]}, {"seed": 3}, {"first_sample": 1}):
            before = len(server.requests)
            [c] = client.complete_sync(MSG, **kwargs)
            assert not c.cached and len(server.requests) == before + 1, kwargs
        [c] = client.complete_sync(MSG)
        assert c.cached


def test_max_connections_is_per_provider_and_shared_by_clients(tmp_path):
    with FakeOpenAI(delay=0.3) as server:
        clients = [_client(tmp_path, server.base, cache=False, max_connections=2) for _ in range(2)]

        async def both():
            await asyncio.gather(*(c.complete(MSG, n=3) for c in clients))

        asyncio.run(both())
        assert len(server.requests) == 6 and server.max_active == 2


def test_cost_limit_stops_calls_once_reached(tmp_path):
    """gpt-4o-mini is priced in LiteLLM's table: 11 + 7 tokens cost a little; a limit
    just above one call's cost lets two calls through and refuses the rest."""
    with FakeOpenAI() as server:
        probe = _client(tmp_path, server.base, model="openai/gpt-4o-mini", cache=False)
        [one] = probe.complete_sync(MSG)
        assert one.ok and one.cost_usd > 0
        client = _client(tmp_path, server.base, model="openai/gpt-4o-mini", cache=False,
                         max_cost=one.cost_usd * 1.5, max_connections=1)
        out = client.complete_sync(MSG, n=5)
        assert [c.ok for c in out] == [True, True, False, False, False]
        assert {c.reason for c in out[2:]} == {"cost_limit"}
        assert client.halted.reason == "cost_limit"
        earlier = _client(tmp_path, server.base, model="openai/gpt-4o-mini", cache=False,
                          max_cost=one.cost_usd * 1.5, spent_before=one.cost_usd * 2)
        [refused] = earlier.complete_sync(MSG)
        assert not refused.ok and refused.reason == "cost_limit"  # earlier sessions count


def test_answers_with_lone_surrogates_and_nul_are_cached_exactly(tmp_path):
    text = "ok \udcff \x00 \x1b]0;title\x07 done"
    with FakeOpenAI(script=[(200, text)]) as server:
        [first] = _client(tmp_path, server.base).complete_sync(MSG)
        [again] = _client(tmp_path, server.base).complete_sync(MSG)
        assert again.cached and again.text == first.text
        assert first.text == text

# --------------------------------------------------------------------------- fitting parameters to the model


def test_sampling_parameters_a_provider_lacks_are_dropped_with_a_note(tmp_path, caplog):
    """o3-mini takes neither top_p nor presence_penalty (LiteLLM's table): the call goes out
    without them, over real HTTP, and the exchange record says what was dropped."""
    log = []
    with FakeOpenAI() as server, caplog.at_level("WARNING", logger="tczoo.llm"):
        client = LLMClient("openai/o3-mini", _settings(tmp_path, api_base=server.base, api_key="sk", cache=False),
                           on_exchange=log.append)
        out = client.complete_sync(MSG, n=2, temperature=1.0, top_p=0.95, presence_penalty=1.5, max_tokens=100)
        assert all(c.ok for c in out)
        assert all("top_p" not in r and "presence_penalty" not in r for r in server.requests)
    assert log[0]["params"]["presence_penalty"] == 1.5  # as asked: what replay matches
    assert "presence_penalty" not in log[0]["sent"] and "top_p" not in log[0]["sent"]
    assert sorted(n.split("=")[0] for n in log[0]["notes"]) == ["presence_penalty", "top_p"]
    assert sum("dropped" in r.message for r in caplog.records) == 2  # logged once per note, not per call
    # a model that takes them all is sent them all, with no note
    from tczoo.llm.backends import LiteLLMBackend
    from tczoo.llm.client import fit_params

    params = {"temperature": 0.6, "top_p": 0.95, "presence_penalty": 1.5, "max_tokens": 32000}
    assert fit_params(LiteLLMBackend("openai/gpt-4o"), "openai/gpt-4o", params) == (params, [])
    sent, notes = fit_params(LiteLLMBackend("anthropic/claude-3-5-sonnet-20240620"), "anthropic/claude", params)
    assert "presence_penalty" not in sent and sent["top_p"] == 0.95 and len(notes) == 1


def test_the_local_model_caps_max_tokens_at_its_context_window(tmp_path, monkeypatch):
    """The embedded backend (a GGUF path; nothing is loaded before a call) holds
    TCZOO_LOCAL_CTX tokens: 32,000 asked become 4,096 sent, noted on the exchange, and the
    cache key is the capped request's."""
    from tczoo.llm.cache import exchange_key

    monkeypatch.setenv("TCZOO_LOCAL_CTX", "4096")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"not a model")
    log = []
    client = LLMClient(f"local/{gguf}", _settings(tmp_path, cache=False), on_exchange=log.append)
    assert client.backend.context_window == 4096
    [c] = client.complete_sync(MSG, max_tokens=32000, temperature=0.6)
    assert not c.ok  # the file is no model: a recorded failure, still with its provenance
    assert log[0]["params"]["max_tokens"] == 32000 and log[0]["sent"]["max_tokens"] == 4096
    assert log[0]["notes"] == [f"max_tokens 32000 capped to 4096, the context window of local/{gguf}"]
    assert c.key == exchange_key(client.identity, MSG, {"temperature": 0.6, "max_tokens": 4096}, 0)
    assert client.identity["gguf_sha256"] == __import__("hashlib").sha256(b"not a model").hexdigest()
    [small] = client.complete_sync(MSG, max_tokens=512, temperature=0.6)
    assert "notes" not in log[1] and "sent" not in log[1]


# --------------------------------------------------------------------------- response_format


TESTS_FORMAT = {"type": "json_schema",
                "json_schema": {"name": "tests", "schema": {"type": "array", "items": {"type": "string"}}}}


def test_providers_get_no_response_format_and_the_same_cache_key(tmp_path):
    """Only a backend that enforces a response format (the embedded model) sees it: an
    API provider receives the request it received before, cached under the same key."""
    with FakeOpenAI() as server:
        settings = _settings(tmp_path, api_base=server.base, api_key="sk-test")
        [plain] = LLMClient("openai/fake-model", settings).complete_sync(MSG)
        [shaped] = LLMClient("openai/fake-model", settings).complete_sync(MSG, response_format=TESTS_FORMAT)
        assert shaped.cached and shaped.key == plain.key
        [other] = LLMClient("openai/fake-model", settings).complete_sync(
            [{"role": "user", "content": "another prompt"}], response_format=TESTS_FORMAT)
        assert other.ok and not other.cached
        assert len(server.requests) == 2
        assert all("response_format" not in body for body in server.requests)


def test_replay_matches_exchanges_recorded_with_a_response_format(tmp_path):
    """A run recorded on the embedded model logs the format in its params; replaying it
    (a backend that does not enforce formats) still finds those answers."""
    log = []
    model = _scripted(tmp_path, [{"match": "A", "response": '["1 2"]'}])
    LLMClient(model, _settings(tmp_path), on_exchange=log.append).complete_sync(MSG)
    log[0]["params"]["response_format"] = TESTS_FORMAT  # as the embedded model records it
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "exchanges.jsonl").write_text(json.dumps(log[0]) + "\n")
    [c] = LLMClient(f"replay:{run_dir}", _settings(tmp_path)).complete_sync(MSG, response_format=TESTS_FORMAT)
    assert c.ok and c.text == '["1 2"]'


def test_local_sampler_seeds_never_collide_across_seed_and_sample():
    from tczoo.llm.backends import SAMPLE_STRIDE
    from tczoo.llm.local.sampling import sample_seed

    pairs = [(seed, g * SAMPLE_STRIDE + i) for seed in range(4) for g in range(3) for i in range(12)]
    seeds = [sample_seed(s, k) for s, k in pairs]
    assert len(set(seeds)) == len(pairs)  # seed*1000 + sample would collide here
    assert all(0 <= s < 2**32 for s in seeds) and sample_seed(3, 5) == sample_seed(3, 5)


@pytest.mark.parametrize("name,value", [("TCZOO_LOCAL_PARALLEL", "eight"), ("TCZOO_LOCAL_CTX", "0"),
                                        ("TCZOO_LOCAL_PREFIXES", "300"), ("TCZOO_LOCAL_DECODE", "fast")])
def test_bad_local_model_settings_are_a_clear_error(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ModelSpecError, match="TCZOO_LOCAL_"):
        LLMClient("local/qwen2.5-coder-1.5b")


def test_local_loop_guard_ends_a_short_cycle_and_nothing_else():
    """The embedded model's loop guard (TCZOO_LOCAL_LOOP_GUARD) ends an answer that has
    repeated one short cycle of tokens for the guard's length, and only then."""
    import random

    from tczoo.llm.local.engine import LOOP_PERIOD, _Slot

    def first_stuck(tokens, guard):
        slot = _Slot(stream=0, request=None, sampler=None, n_prompt=0, next_token=0, pos=0)
        return next((i for i, t in enumerate(tokens) if slot.stuck(t, guard)), None)

    rng = random.Random(1)
    prose = [rng.randrange(50_000) for _ in range(3000)]
    assert first_stuck(prose, 256) is None
    cycle = [11, 22, 33, 44, 55]  # "10 10 10 ..." in tokens: a cycle of period 5 here
    stuck_at = first_stuck(prose[:100] + cycle * 200, 256)
    assert stuck_at == 100 + len(cycle) + 256 - 1  # one cycle, then 256 tokens that repeat it
    assert first_stuck(prose[:100] + [7] * 300, 256) == 100 + 256  # period 1
    assert first_stuck(prose[:100] + cycle * 200, 0) is None  # 0: off
    too_long = [rng.randrange(50_000) for _ in range(LOOP_PERIOD + 1)]
    assert first_stuck(too_long * 40, 256) is None  # cycles longer than LOOP_PERIOD are content


def test_an_api_provider_gets_one_plain_request_per_sample_as_before(tmp_path):
    """Batching is the embedded model's business: n samples for an API provider are n
    concurrent requests, each exactly the body sent before batching existed (no ``n``,
    no ``response_format``, no grammar), whatever shape the caller asked for."""
    with FakeOpenAI(delay=0.2) as server:
        client = LLMClient("openai/fake-model", _settings(tmp_path, api_base=server.base, api_key="sk-test"))
        out = client.complete_sync(MSG, n=3, seed=5, temperature=0.7, max_tokens=100, stop=["```"],
                                   response_format=TESTS_FORMAT)
        assert [c.sample for c in out] == [0, 1, 2] and all(c.ok for c in out)
        assert server.requests == [{"model": "fake-model", "messages": MSG, "max_tokens": 100,
                                    "seed": 5, "stop": ["```"], "temperature": 0.7}] * 3
        assert server.max_active == 3  # the client's fan-out, not the embedded engine's slots
        assert client.backend.max_concurrency is None


def test_the_local_decoding_mode_is_part_of_the_cache_key(tmp_path, monkeypatch):
    """Wide and narrow decoding round differently (matrix vs matrix-vector kernels), so
    an answer decoded one way is never served for the other."""
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"not a model")
    keys = {}
    for mode in ("wide", "narrow"):
        monkeypatch.setenv("TCZOO_LOCAL_DECODE", mode)
        client = LLMClient(f"local/{gguf}", _settings(tmp_path))
        assert client.identity["decode"] == mode
        [c] = client.complete_sync(MSG)
        keys[mode] = c.key
    monkeypatch.delenv("TCZOO_LOCAL_DECODE")
    assert LLMClient(f"local/{gguf}", _settings(tmp_path)).identity["decode"] == "narrow"  # the default
    assert keys["wide"] != keys["narrow"]


@pytest.mark.parametrize("env,expect", [
    ({}, {"GOMP_SPINCOUNT": "2000"}),  # brief: a short spin, then sleep (docs/local-model.md)
    ({"TCZOO_LOCAL_WAIT": "passive"}, {"OMP_WAIT_POLICY": "PASSIVE"}),
    ({"TCZOO_LOCAL_WAIT": " Spin "}, {}),  # libgomp's own default
    ({"GOMP_SPINCOUNT": "5"}, {"GOMP_SPINCOUNT": "5"}),  # the user's own setting wins
    ({"OMP_WAIT_POLICY": "active", "TCZOO_LOCAL_WAIT": "passive"}, {"OMP_WAIT_POLICY": "active"}),
])
def test_llama_cpp_threads_wait_as_the_policy_says(monkeypatch, env, expect):
    from tczoo.llm.local import native

    for var in ("TCZOO_LOCAL_WAIT", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    native.prepare_openmp()
    import os

    assert {k: os.environ[k] for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if k in os.environ} == expect


def test_an_unknown_wait_policy_is_one_clear_error(monkeypatch):
    from tczoo.llm.interface import ModelSpecError
    from tczoo.llm.local import native

    monkeypatch.setenv("TCZOO_LOCAL_WAIT", "yield")
    with pytest.raises(ModelSpecError, match="TCZOO_LOCAL_WAIT='yield' must be one of brief, passive, spin"):
        native.wait_policy()


# --------------------------------------------------------------------------- timeouts


class _SlowBackend(Backend):
    """Answers after ``delay`` seconds; ``watches_timeout`` as asked (the embedded
    model's kind of backend, or a remote provider's)."""

    cacheable = False

    def __init__(self, delay: float, watches: bool):
        self.delay, self.watches_timeout = delay, watches

    async def answer(self, messages, params, sample):
        await asyncio.sleep(self.delay)
        return Answer(text=f"after {self.delay} s")


def test_a_backend_that_watches_its_own_timeout_is_not_cut_by_the_clients(tmp_path):
    """The client's timeout bounds a remote call's wall time (plus 5 s of grace for the
    provider's own); a backend that applies it itself (the embedded model: time without
    progress) is left to, however long its call takes."""
    settings = _settings(tmp_path, timeout_s=0.05, retries=0)

    async def both():
        return await asyncio.gather(
            LLMClient("x", settings, backend=_SlowBackend(5.3, watches=True)).complete(MSG),
            LLMClient("x", settings, backend=_SlowBackend(5.3, watches=False)).complete(MSG))

    [[watched], [cut]] = asyncio.run(both())
    assert watched.ok and watched.text == "after 5.3 s"
    assert not cut.ok and cut.reason == "timeout"


def test_the_local_models_timeout_is_time_without_progress():
    """A call that outlasts the timeout many times over is answered while the engine
    keeps taking steps; an engine that stops taking steps is a retryable timeout and the
    request is cancelled (the engine frees its slot); a caller that gives up cancels it."""
    import concurrent.futures
    import threading
    import time

    from tczoo.llm.interface import ProviderError
    from tczoo.llm.local.backend import await_progressing

    stamp = [time.monotonic()]
    running = concurrent.futures.Future()

    def engine():
        for _ in range(12):  # 0.6 s: six timeouts long, a step every 0.05 s
            time.sleep(0.05)
            stamp[0] = time.monotonic()
        running.set_running_or_notify_cancel()
        running.set_result(Answer(text="done"))

    threading.Thread(target=engine).start()
    answer = asyncio.run(await_progressing(running, lambda: stamp[0], timeout=0.1, poll_s=0.02))
    assert answer.text == "done"

    stuck = concurrent.futures.Future()
    start = time.monotonic()
    with pytest.raises(ProviderError) as err:
        asyncio.run(await_progressing(stuck, lambda: 0.0, timeout=0.1, poll_s=0.02))
    assert err.value.reason == "timeout" and err.value.retryable and "no progress" in str(err.value)
    assert stuck.cancelled() and time.monotonic() - start < 2

    async def give_up():
        request = concurrent.futures.Future()
        task = asyncio.ensure_future(await_progressing(request, time.monotonic, timeout=None))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return request

    assert asyncio.run(give_up()).cancelled()
