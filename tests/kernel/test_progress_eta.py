"""Progress that tells the truth (issue 46, item 4): tokens count as they are decoded, not
when a call ends; the ETA comes from the work left and never grows by more than the time
elapsed. A streaming stand-in model (a real ``Backend``: it reports its tokens as it
"decodes" them, at a speed that changes during the run) answers CRUX through the real run
loop, client, parser, sandbox and runner."""

import asyncio
import json
import time

import pytest

from tczoo.cli.progress import RunReporter
from tczoo.llm import LLMSettings
from tczoo.llm.interface import Answer, Backend
from tczoo.run import RunOptions, RunPace, RunProgress, run
from tczoo.schema import RunConfig

# One valid zm01 test per answer: CRUX asks for far more, so every unit tops up once (two calls).
ANSWER = json.dumps([{"input": "1\n1 5\n", "output": "5\n"}])


class _Streaming(Backend):
    """Answers every call with ANSWER after "decoding" ``tokens`` tokens one at a time,
    telling ``on_tokens`` each; a token takes ``slow_s`` once ``slow_after`` calls have
    finished, ``fast_s`` before (the machine got busy mid-run)."""

    cacheable = False
    reports_tokens = True

    def __init__(self, tokens: int, fast_s: float, slow_s: float, slow_after: int):
        self.tokens, self.fast_s, self.slow_s, self.slow_after = tokens, fast_s, slow_s, slow_after
        self.finished = 0

    async def answer(self, messages, params, sample):
        on_tokens = params["on_tokens"]
        for _ in range(self.tokens):
            await asyncio.sleep(self.slow_s if self.finished >= self.slow_after else self.fast_s)
            on_tokens(1)
        self.finished += 1
        return Answer(text=ANSWER, prompt_tokens=100, completion_tokens=self.tokens)


@pytest.fixture
def fast_ticks(monkeypatch):
    import tczoo.run

    monkeypatch.setattr(tczoo.run, "TICK_S", 0.05)


def test_tokens_move_during_the_first_call_and_the_eta_never_grows_faster_than_the_clock(tmp_path, fast_ticks):
    from tczoo.distributed import LocalCluster
    from tczoo.sandbox import Sandbox

    backend = _Streaming(tokens=60, fast_s=0.01, slow_s=0.03, slow_after=3)
    seen: list[tuple[float, RunProgress, int]] = []

    def progress(p: RunProgress) -> None:
        if p.stage == "run":
            seen.append((time.monotonic(), p, backend.finished))

    config = RunConfig(methods=["crux"], model="stand-in/streaming", benchmark="zoo-mini",
                       problems=["zm01", "zm03", "zm04"])
    settings = LLMSettings(cache=False, retries=0, max_tokens=60)
    with Sandbox() as sandbox:
        store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=settings),
                                cluster=LocalCluster(sandbox), progress=progress, backend=backend))
    assert store.session.generated == 3 and backend.finished == 6  # every unit topped up once

    # the token count moves while the first calls are still decoding
    during_first = [p.tokens for _, p, finished in seen if finished == 0]
    assert max(during_first) > 0, "no token counted before the first call ended"
    assert [p.tokens for _, p, _ in seen] == sorted(p.tokens for _, p, _ in seen)  # never backwards
    assert seen[-1][1].tokens == 6 * (100 + 60)  # prompts and answers of the six calls, in the end
    assert all(p.tok_s and p.tok_s > 0 for _, p, _ in seen if p.tokens)

    # the ETA: from the work left, never growing faster than the time elapsed, shrinking overall
    etas = [(t, p.eta_s) for t, p, _ in seen if p.eta_s is not None]
    assert len(etas) > 10
    for (t1, e1), (t2, e2) in zip(etas, etas[1:]):
        assert e2 - e1 <= (t2 - t1) + 0.02, (e1, e2, t2 - t1)
    assert etas[-1][1] < etas[0][1]
    # the second calls were not foreseen and the machine slowed: the raw estimate rose; the
    # shown one did not jump (above) and still ends near zero
    assert min(e for _, e in etas[-3:]) < 1.0

    # the run directory says the same (progress.json, rewritten while the run goes), and the
    # run browser shows it with the run's provenance
    from tczoo.view.data import RunData

    note = json.loads((tmp_path / "run" / "progress.json").read_text())
    assert note["running"] is False and note["units_done"] == note["units"] == 3
    assert note["tokens"] == 6 * 160 and note["answer_tokens_per_s"] > 0 and note["eta_s"] is None
    assert RunData(tmp_path / "run").provenance()["progress"]["units_done"] == 3


def test_the_pace_counts_unfinished_work_of_running_and_waiting_units():
    pace = RunPace(default_asked=1000)
    live = {"decoded": 100, "seconds": 10.0, "scopes": {"a": {"spent": 100, "open": 400}}}
    # 10 tok/s; unit a may decode 400 more; one unit not started costs what a was asked (500)
    assert pace.eta(live, ["a"], 1, now=0.0) == pytest.approx(90.0)
    pace.unit_done(300)  # a finished unit took 300 tokens: b, with 100 spent and 50 open, may take 200 more
    live = {"decoded": 400, "seconds": 20.0, "scopes": {"b": {"spent": 100, "open": 50}}}
    assert pace.eta(live, ["b"], 0, now=5.0) == pytest.approx(10.0)
    # more work appears (b asks again): the ETA may rise only as far as the clock moved
    live = {"decoded": 400, "seconds": 20.0, "scopes": {"b": {"spent": 100, "open": 2000}}}
    assert pace.eta(live, ["b"], 0, now=6.0) == pytest.approx(11.0)
    assert RunPace(1000).eta({"decoded": 0, "seconds": 3.0, "scopes": {}}, [], 2, now=0.0) is None  # no pace yet


def test_the_run_line_shows_tokens_per_second_and_the_runs_own_eta(monkeypatch):
    monkeypatch.setenv("TCZOO_PROGRESS", "plain")
    with RunReporter(interval=3600) as reporter:
        reporter(RunProgress("run", done=1, total=3, tokens=1234, tok_s=20.5, eta_s=65.0))
        assert reporter.text() == "tczoo run: 1/3 units done, 0 failed, 1,234 tokens (20.5 answer tok/s), ETA 01:05"
