"""A recording replayed under settings it was not recorded with names what differs (the
setting and the flag that sets it, the sample, or the prompt's first differing line),
instead of "not recorded" on every unit; and a reproduction where nothing was scored
writes no file in results/."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tczoo.llm import LLMClient, LLMSettings

PROMPT = [{"role": "system", "content": "You write tests.\nBe brief."},
          {"role": "user", "content": "Problem A\nn up to 10"}]


def _recorded(tmp_path):
    rules = tmp_path / "model.jsonl"
    rules.write_text(json.dumps({"match": "Problem", "responses": ["one", "two"]}) + "\n")
    log: list[dict] = []
    settings = LLMSettings(cache_path=tmp_path / "cache.sqlite", max_tokens=1024, temperature=0.2)
    LLMClient(f"scripted:{rules}", settings, on_exchange=log.append).complete_sync(PROMPT, n=2)
    run = tmp_path / "run"
    run.mkdir()
    (run / "exchanges.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    return run


def _replay(run, tmp_path, messages=PROMPT, n=1, **settings):
    base = {"max_tokens": 1024, "temperature": 0.2, **settings}
    client = LLMClient(f"replay:{run}", LLMSettings(cache_path=tmp_path / "c2.sqlite", **base))
    return client.complete_sync(messages, n=n)


def test_the_recorded_settings_replay(tmp_path):
    run = _recorded(tmp_path)
    assert [c.text for c in _replay(run, tmp_path, n=2)] == ["one", "two"]


def test_another_token_cap_names_the_setting_and_its_flag(tmp_path):
    [c] = _replay(_recorded(tmp_path), tmp_path, max_tokens=512)
    assert not c.ok and c.reason == "not_recorded"
    assert c.error == ("replay: this exchange was not recorded: max_tokens: recorded 1024, this run asks 512 "
                       "(--max-tokens, or the method's max_tokens in --params)")


def test_another_temperature_and_another_sample_are_named(tmp_path):
    run = _recorded(tmp_path)
    [c] = _replay(run, tmp_path, temperature=0.7)
    assert "temperature: recorded 0.2, this run asks 0.7 (--temperature" in c.error
    third = _replay(run, tmp_path, n=3)[2]
    assert "sample 2 of this prompt was not recorded (recorded: 0, 1): --samples or --repeats" in third.error


def test_a_changed_prompt_says_from_which_line(tmp_path):
    changed = [PROMPT[0], {"role": "user", "content": "Problem A\nn up to 20"}]
    [c] = _replay(_recorded(tmp_path), tmp_path, messages=changed)
    assert "no recorded exchange has this prompt: it differs from the closest recorded one at line 4" in c.error
    assert "recorded 'n up to 10', now 'n up to 20'" in c.error


@pytest.mark.e2e
def test_a_reproduction_that_scored_nothing_writes_no_result_file(tmp_path):
    rules = tmp_path / "down.jsonl"
    rules.write_text(json.dumps({"match": "this phrase is in no prompt", "response": "x"}) + "\n")
    results = tmp_path / "results"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "reproduce", "tcbench-table1", "--model",
                           f"scripted:{rules}", "-p", "zm04", "--out", str(tmp_path / "cmp"), "--results",
                           str(results), "--max-consecutive-errors", "0"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "nothing was scored, so nothing was written in" in proc.stderr
    assert not results.exists() or not any(results.rglob("*"))
    assert "failed" in proc.stdout  # the failures are printed instead
