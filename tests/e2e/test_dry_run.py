"""--dry-run: what a run would send, before it runs — counted from the very prompts a run
renders, priced from LiteLLM's table, nothing called and nothing written; and one way of
saying "not priced" everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.report import NOT_PRICED, cost_shown

pytestmark = pytest.mark.e2e


def _tczoo(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env=env, cwd=cwd)


def _rules(path: Path) -> str:
    answer = json.dumps([{"input": "1\n1 5\n", "output": "5\n"}])
    path.write_text(json.dumps({"match": "", "response": answer}) + "\n")
    return f"scripted:{path}"


def test_a_dry_run_counts_the_prompts_a_run_sends_and_writes_nothing(tmp_path):
    model = _rules(tmp_path / "rules.jsonl")
    out = tmp_path / "run"
    dry = _tczoo("run", "-m", "crux", "--model", model, "-p", "zm01,zm04", "--samples", "2", "--out", out,
                 "--dry-run", "-f", "json", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert not out.exists() and not (tmp_path / "runs").exists()  # nothing written
    [table] = json.loads(dry.stdout)
    rows = {r["method"]: r for r in table["rows"]}
    assert rows["crux"]["units"] == 4 and rows["crux"]["LLM calls"] == 4  # 2 problems x 2 samples, one call each
    assert rows["(all)"]["USD (worst case)"] == NOT_PRICED and rows["crux"]["USD (prompts)"] == NOT_PRICED

    # the same job run for real: its prompts, counted the same way, are the dry run's tokens
    done = _tczoo("run", "-m", "crux", "--model", model, "-p", "zm01,zm04", "--samples", "2", "--out", out)
    assert done.returncode == 0, done.stderr[-3000:]
    from tczoo.estimate import count_tokens

    exchanges = {x["key"]: x for x in map(json.loads, (out / "exchanges.jsonl").read_text().splitlines())}
    gens = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    # each unit's first call is what the dry run counted (CRUX asks again when the answer held
    # fewer tests than asked: later rounds are beyond a dry run, and it says so)
    first = [exchanges[g["suite"]["provenance"]["exchanges"][0]] for g in gens]
    assert len(first) == 4 and len(exchanges) > 4 and rows["crux"]["units cut at an unsent call"] == 4
    assert rows["crux"]["prompt tokens"] == sum(count_tokens(model, x["messages"]) for x in first)
    assert rows["crux"]["completion tokens (worst case)"] == sum(x["params"]["max_tokens"] for x in first)
    assert any("a lower bound for one that asks again" in n for n in table["notes"])


def test_a_provider_model_is_priced_from_litellms_table_without_its_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    dry = _tczoo("run", "-m", "crux", "--model", "openai/gpt-4o-mini", "-p", "zm01", "--dry-run", "-f", "json",
                 env=env, cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "missing API key" in dry.stderr and "a dry run sends nothing" in dry.stderr
    total = next(r for r in json.loads(dry.stdout)[0]["rows"] if r["method"] == "(all)")
    from tczoo.llm.backends import _litellm

    prompt, completion = _litellm().cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=total["prompt tokens"],
                                                   completion_tokens=total["completion tokens (worst case)"])
    assert total["USD (prompts)"] == pytest.approx(prompt, abs=1e-6)
    assert total["USD (worst case)"] == pytest.approx(prompt + completion, abs=1e-6) and total["USD (worst case)"] > 0


def test_compare_and_reproduce_dry_runs_estimate_every_cell(tmp_path):
    model = _rules(tmp_path / "rules.jsonl")
    dry = _tczoo("compare", "-m", "crux,lcb", "--models", f"{model},openai/gpt-4o-mini", "-p", "zm01",
                 "--dry-run", "-f", "json", cwd=tmp_path, env={**os.environ, "OPENAI_API_KEY": "sk-unused"})
    assert dry.returncode == 0, dry.stderr[-3000:]
    rows = json.loads(dry.stdout)[0]["rows"]
    assert [(r["model"], r["method"]) for r in rows] == [(model, "crux"), (model, "lcb"), (model, "(all)"),
                                                         ("openai/gpt-4o-mini", "crux"), ("openai/gpt-4o-mini", "lcb"),
                                                         ("openai/gpt-4o-mini", "(all)")]
    assert not (tmp_path / "runs").exists()
    repro = _tczoo("reproduce", "tcbench-table1", "--model", model, "-p", "zm04", "--dry-run", cwd=tmp_path)
    assert repro.returncode == 0, repro.stderr[-3000:]
    assert "dry run: what this run would send" in repro.stdout and not (tmp_path / "runs").exists()
    assert not (tmp_path / "results").exists()


def test_not_priced_is_said_one_way():
    assert cost_shown("local/qwen2.5-coder-1.5b", 0.0, 120) == NOT_PRICED
    assert cost_shown("scripted:x.jsonl", 0.0, 0) == NOT_PRICED
    assert cost_shown("hosted_vllm/m", 0.0, 50) == NOT_PRICED  # answered, priced at nothing
    assert cost_shown("openai/gpt-4o", 0.0, 0) == 0.0  # nothing asked
    assert cost_shown("openai/gpt-4o", 0.0123456789, 10) == 0.012346
