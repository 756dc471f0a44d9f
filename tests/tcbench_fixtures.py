"""Helpers for the TC-Bench method tests: scripted models written in the test, one
method run end to end on a zoo-mini problem, and its HackRate score.

A test states the model's answers as ``(regex, answer)`` rules (or ``(regex, [answers])``
for sampled calls); the regex is searched in the rendered prompt, first match answers.
"""

from __future__ import annotations

import asyncio
import json
import os
from functools import lru_cache
from pathlib import Path

from tczoo.runners.hackrate import HackRateRunner
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.templates import Prompts
from tczoo.runner import TaskSpec
from tczoo.schema import Problem, Task, TestSuite


def script(path: Path, rules: list[tuple[str, str | list[str]]]) -> str:
    """Write a scripted model file; return its model string."""
    with path.open("w") as fh:
        for match, answer in rules:
            key = "responses" if isinstance(answer, list) else "response"
            fh.write(json.dumps({"match": match, key: answer}) + "\n")
    return f"scripted:{path}"


def fenced(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code.strip()}\n```"


@lru_cache(maxsize=None)
def _problems(sandbox) -> dict[str, Problem]:
    from tczoo.benchmarks import load_benchmark

    return {p.id.split("-")[0]: p for p in load_benchmark("zoo-mini", ["zm01", "zm05", "zm09"], sandbox=sandbox)}


def zoo_problem(sandbox, short_id: str) -> Problem:
    """A zoo-mini problem by its short id (``"zm01"``), loaded once per session."""
    return _problems(sandbox)[short_id]


def run_method(method_cls, problem: Problem, model: str, sandbox, *, budget: int | None = None,
               seed: int = 0, **params) -> tuple[TestSuite, Task]:
    """Generate one suite with ``method_cls`` for ``problem`` as the HackRate runner would
    (the task it builds: for LCB/HT one correct code, chosen outside the validators)."""
    [spec] = HackRateRunner(sandbox).tasks(problem, method_cls, samples=1, seed=seed)
    task = spec.task if budget is None else spec.task.model_copy(update={"budget": budget})
    method = method_cls(**params)
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method=method_cls.name,
                  seed=seed, params=method.params.model_dump())
    suite = asyncio.run(method.generate(task, ctx))
    return ctx.finish(suite), task


def hackrate(problem: Problem, task: Task, suite: TestSuite, sandbox) -> dict:
    """The HackRate runner's metrics (and count of valid tests) plus the first failure of
    every wrong code."""
    record = HackRateRunner(sandbox).score(problem, TaskSpec(key="", task=task), suite)
    out = {**{k: round(v, 2) for k, v in record.metrics.items()}, "n_valid": record.n_valid,
           "wrong": record.detail["wrong"]}
    if os.environ.get("TCZOO_TEST_DUMP"):  # print what a test sees, to write its expectations
        print("\nSUITE", io(suite), "\nFAILURES", failures(suite), "\nSCORE", out)
    return out


def io(suite: TestSuite) -> list[tuple[str, str | None]]:
    return [(t.input, t.output) for t in suite.tests]


def failures(suite: TestSuite) -> list[tuple[str, str, str]]:
    return [(f.stage, f.reason, f.item) for f in suite.provenance.failures]


# zm01-commission-deadlines' input format as a model-written validator (HT, HardTestGen,
# SAGA and the recorded experiments answer with it)
ZM01_VALIDATOR = """
def validate_input(input_str):
    lines = input_str.strip().split("\\n")
    n = int(lines[0])
    if not 1 <= n <= 200000 or len(lines) != n + 1:
        return False
    for line in lines[1:]:
        d, p = map(int, line.split())
        if not (1 <= d <= 10**9 and 1 <= p <= 10**9):
            return False
    return True
"""
