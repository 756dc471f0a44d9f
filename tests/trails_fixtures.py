"""Helpers for the TRAILS / CoT / HoarePrompt tests: scripted answers keyed to the
templates' own words, the zm01 codes, one-call generation.

zm01 facts the tests rely on (hand-checked): ``accepted/fast.py`` raises on a
non-numeric first token ("abc": ValueError) and on an empty input (IndexError); all
its valid inputs run the same lines except where an offer replaces a kept one
(``heappushpop``): "2\\n1 5\\n1 7\\n" and "1\\n1 5\\n" execute different line sets,
"1\\n1 5\\n" and "1\\n2 7\\n" the same. ``wrong/greedy_by_deadline.cpp`` prints 4 on
"3\\n1 1\\n2 3\\n2 2\\n" where the answer is 5.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness_fixtures import generate, script, zm01  # noqa: F401  (re-exported)
from tczoo.runner import TaskSpec
from tczoo.schema import Program, Setting, Task

B = "```"

# words only one template says (the scripted model matches rules in order)
SCENARIOS = "category-partition"
PROPERTIES = "describe what is needed to run"
INPUTS = "belong to this scenario"
REPAIR = "Inputs that failed"
JUDGE = "Output produced"
COT = "## The program\n"
HOARE_VERDICT = "## The program, annotated"
PRECONDITION = "Write the precondition"
BRANCH = "State after the branch taken when the condition holds"
LOOP = "\nLoop:\n"
STATEMENT = "\nCode:\n"


def inputs(*texts: str, lang: str = "input") -> str:
    return "Here are the inputs.\n\n" + "".join(f"{B}{lang}\n{t.rstrip(chr(10))}\n{B}\n\n" for t in texts)


def scenarios(*names: str) -> str:
    return "```json\n" + json.dumps([{"name": n, "preconditions": f"{n} inputs", "behaviour": "as specified"}
                                     for n in names]) + "\n```"


def code(name: str) -> Program:
    p = zm01()
    return next(s for s in p.solutions + p.wrong_solutions if s.name == name)


def spec_for(program: Program, problem=None, sample: int = 0) -> TaskSpec:
    task = Task.from_problem(problem or zm01(), Setting.SPEC_TARGET, target=program)
    return TaskSpec(key="t", task=task, sample=sample)


def run(method_cls, program: Program, rules: list, tmp_path: Path, sandbox, problem=None, **params):
    model = script(tmp_path / f"{method_cls.name}-{abs(hash(json.dumps(rules)))}.jsonl", rules)
    return generate(method_cls, problem or zm01(), spec_for(program, problem), model, sandbox, **params)

