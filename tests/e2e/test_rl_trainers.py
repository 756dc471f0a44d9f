"""tczoo's reward in the trainers' own call paths, with the real libraries (the ``rl`` extra).

- TRL: ``GRPOTrainer`` trains a tiny model (random weights, built here from a config,
  with a tokenizer built here; nothing is downloaded) for two steps on CPU with
  ``tczoo_reward`` on a data set ``tczoo rl export --layout trl`` wrote; the rewards TRL
  logged are the ones tczoo computes for the same completions.
- verl: the data set ``tczoo rl export --layout verl`` wrote goes through verl's own
  reward loading (``load_reward_manager`` with ``custom_reward_function.path/name``) and
  its ``naive`` reward manager's ``run_single`` on a ``DataProto`` built as verl's
  rollout builds one; ``compute_score_async`` is awaited by the same manager, every
  response at once, as verl's reward loop does.
- TRL through ``tczoo serve rewards``: two GRPO steps whose async reward function asks
  the server (a process of its own, on loopback) for each batch.
- "No reward" (a task without one: HackRate on a package without wrong codes) raises,
  is NaN or a number in verl as asked, and None in TRL.

The tiny model's vocabulary is a few whole answers (one token each), so a sampled
completion is one of them: a true bug (reward 1), a good input (0.1), no usable test
(0). Both tests are skipped when the extra is not installed.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("WANDB_DISABLED", "true")

import math  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from harness_fixtures import BUGGY, SAMPLE, SEPARATING, harness  # noqa: E402
from tczoo.rewards import reward  # noqa: E402
from tczoo.rl.export import export  # noqa: E402

ANSWERS = {
    "true_bug": harness(SEPARATING),  # g passes, f fails on the separating input: 1
    "good_input": harness(SEPARATING, checker="weak"),  # separates f and g, the oracle misses it: 0.1
    "no_separation": harness(SAMPLE),  # f = g there: 0
    "no_code": "I would test it carefully.",  # no usable test: 0
}
EXPECTED = {"true_bug": 1.0, "good_input": 0.1, "no_separation": 0.0, "no_code": 0.0}
PARAMS = {"runner:bugfind": {"wrong": [BUGGY]}}


def _export(tmp_path: Path, layout: str, sandbox) -> Path:
    out = tmp_path / layout
    summary = export("zoo-mini", "harness", fmt=layout, out=out, problems=["zm01"], params=PARAMS, sandbox=sandbox)
    assert summary["rows"] == 1 and summary["kind"] == "eq1"
    return out / "train.parquet"


def _tiny_tokenizer():
    """A word-level tokenizer whose words are whole answers: any other text (a prompt)
    is one unknown token."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<unk>": 1, "<eos>": 2}
    for text in ANSWERS.values():
        vocab[text] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split("\x00", behavior="isolated")  # never splits: one word per text
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>",
                                   clean_up_tokenization_spaces=False)
    fast.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    return fast


def _tiny_model(tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id, bos_token_id=None)
    return LlamaForCausalLM(config)


def test_trl_grpo_trains_two_steps_on_tczoos_reward(tmp_path, sandbox):
    pytest.importorskip("trl")
    from datasets import load_dataset
    from trl import GRPOConfig, GRPOTrainer

    from tczoo.rl.trl import reward_function

    data = load_dataset("parquet", data_files=str(_export(tmp_path, "trl", sandbox)), split="train")
    assert data.column_names == ["prompt", "tczoo", "problem", "task"]
    tokenizer = _tiny_tokenizer()
    model = _tiny_model(tokenizer)
    tczoo_reward = reward_function(workers=2)
    seen: list[tuple[list, list]] = []  # what TRL handed the reward function, call by call

    def recorded(prompts, completions, **kwargs):
        seen.append((list(completions), list(kwargs["tczoo"])))
        return tczoo_reward(prompts=prompts, completions=completions, **kwargs)

    recorded.__name__ = "tczoo_reward"
    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=1, max_steps=2, learning_rate=1e-2, logging_steps=1, report_to="none",
                      use_cpu=True, save_strategy="no", seed=0, temperature=1.0, dataloader_num_workers=0)
    trainer = GRPOTrainer(model=model, reward_funcs=[recorded], args=args, train_dataset=data,
                          processing_class=tokenizer)
    trainer.train()

    assert len(seen) == 2  # one batch of 4 completions per step
    logged = [h for h in trainer.state.log_history if "rewards/tczoo_reward/mean" in h]
    assert len(logged) == 2
    every = []
    for (completions, refs), entry in zip(seen, logged):
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        ours = [reward(ref, text).score for ref, text in zip(refs, texts)]
        for text, score in zip(texts, ours):  # each completion is one of the answers, or empty
            kind = next((k for k, a in ANSWERS.items() if a == text), "no_code")
            assert score == EXPECTED[kind]
        assert entry["rewards/tczoo_reward/mean"] == pytest.approx(sum(ours) / len(ours))
        every += ours
    assert max(every) == 1.0 and min(every) == 0.0  # (seeded) the model sampled a true bug and a miss
    # the last batch, completion by completion, as TRL logged it
    last_texts = [c[-1]["content"] if isinstance(c, list) else c for c in trainer._logs["completion"]]
    last_refs = seen[-1][1]
    assert list(trainer._logs["rewards"]["tczoo_reward"]) == pytest.approx(
        [reward(r, t).score for r, t in zip(last_refs, last_texts)])
    assert any(k.endswith("tczoo/no_reward") for h in trainer.state.log_history for k in h)


def test_verl_reward_manager_scores_with_tczoos_compute_score(tmp_path, sandbox):
    pytest.importorskip("verl")
    import numpy as np
    import pyarrow.parquet as pq
    import torch
    from omegaconf import OmegaConf

    from verl import DataProto
    from verl.trainer.ppo.reward import load_reward_manager

    import tczoo.rl.verl as adapter

    rows = pq.read_table(_export(tmp_path, "verl", sandbox)).to_pylist()
    assert set(rows[0]) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert rows[0]["reward_model"]["style"] == "rule" and rows[0]["data_source"] == "tczoo/eq1"
    config = OmegaConf.create({"reward": {
        "custom_reward_function": {"path": adapter.__file__, "name": "compute_score",
                                   "reward_kwargs": {"workers": 2}},
        "reward_manager": {"source": "register", "name": "naive"}}})
    tokenizer = _tiny_tokenizer()
    manager = load_reward_manager(config, tokenizer)

    names = list(ANSWERS)
    prompt_len = 2
    prompts = torch.full((len(names), prompt_len), tokenizer.unk_token_id)
    responses = torch.tensor([[tokenizer.convert_tokens_to_ids(ANSWERS[n]), tokenizer.pad_token_id] for n in names])
    attention = torch.cat([torch.ones(len(names), prompt_len, dtype=torch.long),
                           torch.tensor([[1, 0]] * len(names))], dim=1)
    row = rows[0]
    batch = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": attention},
        non_tensors={"data_source": np.array([row["data_source"]] * len(names), dtype=object),
                     "reward_model": np.array([row["reward_model"]] * len(names), dtype=object),
                     "extra_info": np.array([dict(row["extra_info"]) for _ in names], dtype=object)})
    results = [manager.loop.run_until_complete(manager.run_single(batch[i:i + 1])) for i in range(len(names))]
    for name, result in zip(names, results):
        assert result["reward_score"] == EXPECTED[name], name
        assert result["reward_extra_info"]["tczoo_ok"] == 1.0
    rm_scores = manager.assemble_rm_scores(batch, [r["reward_score"] for r in results])
    assert rm_scores[:, 0].tolist() == pytest.approx([EXPECTED[n] for n in names])


def _undefined_row(tmp_path: Path, layout: str, sandbox) -> dict:
    """A row whose task has no reward whatever the answer: crux (HackRate) on a Kattis
    package without wrong codes, exported without the check that would leave it out."""
    import pyarrow.parquet as pq

    from kattis_fixtures import ADD_PY, make_package

    make_package(tmp_path / f"contest-{layout}", submissions={"accepted/add.py": ADD_PY})
    out = tmp_path / f"undefined-{layout}"
    export(f"kattis:{tmp_path / f'contest-{layout}'}", "crux", fmt=layout, out=out, check=False, sandbox=sandbox)
    [row] = pq.read_table(out / "train.parquet").to_pylist()
    return row


CRUX_ANSWER = '[{"input": "1 2\\n", "output": "3\\n"}]'


def test_verl_no_reward_raises_by_default_and_is_nan_when_asked(tmp_path, sandbox):
    import tczoo.rl.verl as adapter

    row = _undefined_row(tmp_path, "verl", sandbox)
    args = (row["data_source"], CRUX_ANSWER, row["reward_model"]["ground_truth"], row["extra_info"])
    with pytest.raises(adapter.NoReward, match="undefined: no wrong code"):
        adapter.compute_score(*args)
    out = adapter.compute_score(*args, no_reward="nan")
    assert math.isnan(out["score"]) and out["tczoo_ok"] == 0.0
    assert adapter.compute_score(*args, no_reward=-0.5)["score"] == -0.5


def test_trl_gets_none_where_tczoo_has_no_reward(tmp_path, sandbox):
    from tczoo.rl.trl import reward_function

    row = _undefined_row(tmp_path, "trl", sandbox)
    logged: dict = {}
    fn = reward_function()
    got = fn(prompts=[row["prompt"]] * 2, completions=[[{"role": "assistant", "content": CRUX_ANSWER}]] * 2,
             tczoo=[row["tczoo"]] * 2, log_metric=lambda k, v: logged.setdefault(k, v),
             log_extra=lambda k, v: logged.setdefault(k, v))
    assert got == [None, None]
    assert logged["tczoo/no_reward"] == 1.0 and all(r.startswith("undefined") for r in logged["tczoo_reason"])


def test_verls_reward_loop_awaits_compute_score_async(tmp_path, sandbox):
    """verl's naive reward manager sees a coroutine function (custom_reward_function.name:
    compute_score_async) and awaits it on its own loop, all responses at once, as its
    reward loop worker's compute_score_batch does."""
    pytest.importorskip("verl")
    import asyncio

    import numpy as np
    import pyarrow.parquet as pq
    import torch
    from omegaconf import OmegaConf

    from verl import DataProto
    from verl.trainer.ppo.reward import load_reward_manager

    import tczoo.rl.verl as adapter

    rows = pq.read_table(_export(tmp_path, "verl", sandbox)).to_pylist()
    config = OmegaConf.create({"reward": {
        "custom_reward_function": {"path": adapter.__file__, "name": "compute_score_async",
                                   "reward_kwargs": {"workers": 2}},
        "reward_manager": {"source": "register", "name": "naive"}}})
    tokenizer = _tiny_tokenizer()
    manager = load_reward_manager(config, tokenizer)
    assert manager.is_async_reward_score
    names = list(ANSWERS) * 2
    prompts = torch.full((len(names), 2), tokenizer.unk_token_id)
    responses = torch.tensor([[tokenizer.convert_tokens_to_ids(ANSWERS[n]), tokenizer.pad_token_id] for n in names])
    attention = torch.cat([torch.ones(len(names), 2, dtype=torch.long), torch.tensor([[1, 0]] * len(names))], dim=1)
    row = rows[0]
    batch = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": attention},
        non_tensors={"data_source": np.array([row["data_source"]] * len(names), dtype=object),
                     "reward_model": np.array([row["reward_model"]] * len(names), dtype=object),
                     "extra_info": np.array([dict(row["extra_info"]) for _ in names], dtype=object)})

    async def all_at_once():
        return await asyncio.gather(*(manager.run_single(batch[i:i + 1]) for i in range(len(names))))

    results = manager.loop.run_until_complete(all_at_once())
    assert [r["reward_score"] for r in results] == [EXPECTED[n] for n in names]
    assert all(r["reward_extra_info"]["tczoo_ok"] == 1.0 for r in results)


def _grpo(tmp_path: Path, data, reward_fn):
    from trl import GRPOConfig, GRPOTrainer

    tokenizer = _tiny_tokenizer()
    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=1, max_steps=2, learning_rate=1e-2, logging_steps=1, report_to="none",
                      use_cpu=True, save_strategy="no", seed=0, temperature=1.0, dataloader_num_workers=0)
    trainer = GRPOTrainer(model=_tiny_model(tokenizer), reward_funcs=[reward_fn], args=args, train_dataset=data,
                          processing_class=tokenizer)
    trainer.train()
    return trainer


def test_trl_grpo_trains_through_the_served_endpoint(tmp_path, sandbox):
    """Two GRPO steps whose rewards come from ``tczoo serve rewards`` (a process of its
    own on loopback), through TRL's async reward path: the rewards TRL logged are tczoo's
    for the completions it sampled."""
    pytest.importorskip("trl")
    import inspect

    from datasets import load_dataset

    from serve_fixtures import start_server, stop_server
    from tczoo.rl.trl import remote_reward_function

    data = load_dataset("parquet", data_files=str(_export(tmp_path, "trl", sandbox)), split="train")
    proc, url, token = start_server(tmp_path, "--workers", "2")
    try:
        remote = remote_reward_function(url, token)
        assert inspect.iscoroutinefunction(remote)
        seen: list[tuple[list, list]] = []

        async def served_reward(prompts, completions, **kwargs):
            seen.append((list(completions), list(kwargs["tczoo"])))
            return await remote(prompts=prompts, completions=completions, **kwargs)

        served_reward.__name__ = "tczoo_reward"
        trainer = _grpo(tmp_path, data, served_reward)
        health = remote.client.health()
    finally:
        stop_server(proc)
    assert len(seen) == 2 and health["served"] == 8  # two batches of 4 completions, each scored once
    logged = [h for h in trainer.state.log_history if "rewards/tczoo_reward/mean" in h]
    assert len(logged) == 2
    for (completions, refs), entry in zip(seen, logged):
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        ours = [reward(ref, text).score for ref, text in zip(refs, texts)]
        assert entry["rewards/tczoo_reward/mean"] == pytest.approx(sum(ours) / len(ours))
        for text, score in zip(texts, ours):
            assert score == EXPECTED[next((k for k, a in ANSWERS.items() if a == text), "no_code")]
