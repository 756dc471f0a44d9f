import asyncio
import json

import pytest

from tczoo.llm import LLMClient, LLMSettings, ModelSpecError, Session
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
                           _settings(tmp_path, api_base=server.base, api_key="sk", concurrency=2, cache=False))
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
                                        ("TCZOO_LOCAL_PREFIXES", "300")])
def test_bad_local_model_settings_are_a_clear_error(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ModelSpecError, match="TCZOO_LOCAL_"):
        LLMClient("local/qwen2.5-coder-1.5b")
