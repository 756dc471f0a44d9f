"""Helpers for the HarnessLLM tests: scripted answers, the zm01 triplets, a small
functional problem, and one-call ways to generate and score a response.

zm01 (commission deadlines: maximise the total fee of offers done by their deadlines,
one offer per day). Hand-checked facts the tests rely on:

- ``SEPARATING`` = 3 offers (1,1) (2,3) (2,2): the right answer is 5 (fees 3 and 2);
  ``wrong/greedy_by_deadline.cpp`` (earliest deadline first, never replacing) prints 4;
- ``SAMPLE`` (the first sample, answer 70): greedy_by_deadline prints 70 too;
- ``EMPTY`` ("\\n"): ``accepted/fast.py`` raises IndexError, a ground-truth runtime error.
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from pathlib import Path

from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.templates import Prompts
from tczoo.runner import TaskSpec
from tczoo.schema import Language, Problem, Program, Sample, WrongProgram

SEPARATING = "3\n1 1\n2 3\n2 2\n"
SAMPLE = "4\n2 20\n1 30\n1 50\n2 10\n"
EMPTY = "\n"
BUGGY = "greedy_by_deadline"

# A reference solution the harness checkers below embed (right for any valid input).
REFERENCE = '''
import heapq

def _best(text):
    data = text.split()
    n = int(data[0])
    offers = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
    kept = []
    for d, p in offers:
        if len(kept) < d:
            heapq.heappush(kept, p)
        elif kept[0] < p:
            heapq.heapreplace(kept, p)
    return sum(kept)
'''


def fenced(code: str, lang: str = "python") -> str:
    return f"Here is my answer.\n\n```{lang}\n{code.strip()}\n```\n"


def harness(*inputs: str, checker: str = "reference", extra: str = "") -> str:
    """A harness answer whose generate_input_1 returns ``inputs``; ``checker`` is
    reference (brute force), wrong (asserts a constant), crash (raises KeyError),
    weak (only checks that the output is an integer)."""
    body = {
        "reference": "    assert int(captured_output.strip()) == _best(generated_input)",
        "wrong": "    assert captured_output.strip() == '-1', 'always -1?'",
        "crash": "    raise KeyError('oops')\n    assert True",
        "weak": "    assert captured_output.strip().lstrip('-').isdigit()",
    }[checker]
    code = (REFERENCE + "\n\ndef generate_input_1():\n    return " + repr(list(inputs)) + "\n" + extra +
            "\n\ndef check_output(generated_input, captured_output):\n" + body + "\n")
    return fenced(code)


def io_answer(*pairs: tuple[str, str]) -> str:
    return "```json\n" + json.dumps([{"input_str": i, "expected_output": o} for i, o in pairs]) + "\n```"


def script(path: Path, rules: list[tuple[str, str | list[str]]]) -> str:
    """A scripted model file; ``responses`` lists are picked by sample index (cycling).
    The run gives response i the sample index 1000·i, so use list lengths coprime
    with 1000 (3, 7 ...) for distinct answers per response."""
    with path.open("w") as fh:
        for match, answer in rules:
            key = "responses" if isinstance(answer, list) else "response"
            fh.write(json.dumps({"match": match, key: answer}) + "\n")
    return f"scripted:{path}"


@lru_cache(maxsize=None)
def zm01() -> Problem:
    from tczoo.benchmarks import load_benchmark

    return load_benchmark("zoo-mini", ["zm01"])[0]


def second_largest() -> Problem:
    """A functional (call-based) problem with a real ground truth and a real bug:
    ``second_largest(nums)`` = the second largest *distinct* value, None if none. The
    buggy version forgets "distinct": [5, 5, 3] gives 5 instead of 3."""
    good = ("def second_largest(nums):\n    values = sorted(set(nums))\n"
            "    return values[-2] if len(values) >= 2 else None\n")
    bad = ("class Solution:\n    def second_largest(self, nums):\n        values = sorted(nums)\n"
           "        return values[-2] if len(values) >= 2 else None\n")
    return Problem(
        id="fn-second-largest", title="Second largest", source="functional-fixture",
        statement="Write a function second_largest(nums) returning the second largest distinct value "
                  "of the list of integers nums (1 <= len(nums) <= 100), or None if it has fewer than "
                  "two distinct values.",
        samples=[Sample(input='{"nums": [1, 2, 3]}', output="2")],
        solutions=[Program(code=good, language=Language.PYTHON, name="good")],
        wrong_solutions=[WrongProgram(code=bad, language=Language.PYTHON, name="not_distinct")],
        entry_point="second_largest", time_limit_ms=2000,
    )


def generate(method_cls, problem: Problem, spec: TaskSpec, model: str, sandbox, **params):
    """One method generation for ``spec``, as the run loop makes it."""
    method = method_cls(**params)
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method=method_cls.name,
                  seed=spec.task.seed, params=method.params.model_dump(), sample_base=spec.sample)
    return ctx.finish(asyncio.run(method.generate(spec.task, ctx)))


def score_answers(method_cls, problem: Problem, answers: list[str], tmp_path: Path, sandbox, *,
                  wrong: str = BUGGY, method_params: dict | None = None, **runner_params):
    """Generate one response per answer for the triplet (problem, ``wrong``, g) with a
    scripted model and score each with the bugfind runner: [(suite, record)]."""
    from tczoo.runners.bugfind import BugfindRunner

    runner = BugfindRunner(sandbox, wrong=[wrong], responses=len(answers), **runner_params)
    out = []
    for spec in runner.tasks(problem, method_cls, samples=1, seed=0):
        # one scripted file per response, so no reliance on sample-index cycling
        one = script(tmp_path / f"{method_cls.name}-{spec.sample}-{abs(hash(answers[spec.sample]))}.jsonl",
                     [(".", answers[spec.sample])])
        suite = generate(method_cls, problem, spec, one, sandbox, **(method_params or {}))
        record = runner.score(problem, spec, suite)
        record.model, record.task = "scripted", spec.key  # as the run loop stamps them; one model for all
        out.append((suite, record))
    return out
