"""PSEUDO: the model writes test inputs and, separately, candidate solutions; the
expected output of an input is the majority output of the candidates.

TC-Bench §3.1.1 (after Jiao et al., 2024: outputs are "pseudo" labels obtained by
majority vote over self-generated solutions). Setting: specification only.

Choices where the papers are silent:

- Inputs: one call asks for ``budget`` inputs as a JSON array (CRUX's prompt minus the
  outputs); up to ``max_rounds`` further calls top up a short answer. An answer whose
  JSON holds Python expressions (``"1 " * 5``) is evaluated in the sandbox, not here.
- Candidates: ``candidates`` (10) samples of one "solve the problem" prompt at
  ``temperature`` 0.8, each an independent program (Python or C++). An answer without
  a usable program is recorded and left out of the vote.
- Vote: every candidate runs on every input under the problem's limits (times
  ``time_factor``); only candidates that ran cleanly vote; outputs are compared up to
  whitespace. The most frequent output wins — the plain majority vote the paper
  describes; a tie for first place goes to the output of the lowest-numbered candidate
  among the tied. An input on which no candidate ran cleanly has no output and is
  dropped (``no_clean_run``). ``min_agree`` (default 1, i.e. off) is our option to
  demand that many agreeing candidates (``too_few_agree``).
"""

from __future__ import annotations

import asyncio
from collections import Counter

from pydantic import Field

from tczoo.execution import Limits, evaluate_literal
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import (
    ParseError,
    code_in_json,
    extract_program,
    json_cut_off,
    looks_like_solution,
    note_truncation,
    parse_json,
    solution_not_tests,
    tests_from_value,
)
from tczoo.schema import Artifact, OracleKind, Setting, Task, TestCase, TestSuite, dedupe

# A literal written with Python expressions is evaluated in the sandbox under these.
LITERAL_LIMITS = Limits(time_ms=2000, memory_mb=256)


class PseudoParams(MethodParams):
    candidates: int = Field(10, ge=1, description="candidate solutions sampled")
    min_agree: int = Field(1, ge=1, description="candidates that must give the winning output (1: plain majority)")
    candidate_temperature: float = Field(0.8, gt=0, description="sampling temperature of the candidates")
    time_factor: float = Field(2.0, gt=0, description="candidate time limit = problem limit x this")
    max_rounds: int = Field(2, ge=1, description="calls that top up an answer with fewer inputs than the budget",
                            json_schema_extra={"paper": "— (not stated; ours)"})


class Pseudo(Method):
    name = "pseudo"
    paper = "TC-Bench §3.1.1 (Jiao et al., 2024)"
    summary = "LLM writes inputs; outputs are the majority vote of 10 sampled LLM solutions"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "hackrate"
    Params = PseudoParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        inputs = await self._inputs(task, ctx, suite)
        candidates = await self._candidates(task, ctx, suite)
        if not inputs:
            return suite
        if not candidates:
            suite.fail("oracle", "no_candidates", "no candidate solution could be used; no outputs")
            return suite
        limits = Limits(time_ms=int(task.time_limit_ms * self.params.time_factor), memory_mb=task.memory_limit_mb)
        results = await ctx.run_all(candidates, [t.input for t in inputs], limits)
        for k, program in enumerate(candidates):
            runs = [row[k] for row in results]
            if not any(r.ok for r in runs):
                worst = runs[0]
                suite.fail("candidate", f"candidate_{worst.verdict.value.lower()}",
                           "failed on every input: " + worst.detail[-300:], program.name)
        for i, (test, runs) in enumerate(zip(inputs, results)):
            output, reason, detail = self._vote([r.output for r in runs if r.ok])
            if output is None:
                suite.fail("oracle", reason, detail, f"input#{i}")
                continue
            suite.tests.append(test.model_copy(update={"output": output}))
        return suite

    # ------------------------------------------------------------------ steps

    async def _inputs(self, task: Task, ctx: Context, suite: TestSuite) -> list[TestCase]:
        tests: list[TestCase] = []
        for round_ in range(self.params.max_rounds):
            missing = task.budget - len(tests)
            if missing <= 0:
                break
            item = f"inputs/round{round_}"
            answers = await ctx.ask(suite, "pseudo/inputs", task=task, n_tests=missing, item=item,
                                    first_sample=round_)
            if not answers:
                break
            text = answers[0].text
            if solution_not_tests(text):
                suite.fail("parse", "solution_instead_of_tests", text[:300], item)
                break
            data = None
            if code_in_json(text) and not json_cut_off(text) and not looks_like_solution(text):
                # Values built by expressions: parse_json would keep only the items before
                # the first one; evaluate the whole literal in the sandbox instead.
                data = await asyncio.to_thread(evaluate_literal, ctx.sandbox, text, LITERAL_LIMITS)
                if data is not None:
                    suite.fail("parse", "code_in_json", "inputs written as Python expressions; "
                               "evaluated in the sandbox", item)
            try:
                if data is None:
                    data = parse_json(text)
            except ParseError as exc:
                if looks_like_solution(text):
                    suite.fail("parse", "solution_instead_of_tests", text[:300], item)
                    break
                data = await asyncio.to_thread(evaluate_literal, ctx.sandbox, text, LITERAL_LIMITS)
                if data is None:
                    suite.fail("parse", exc.reason, exc.detail or text[:300], item)
                    break
                suite.fail("parse", "code_in_json", "inputs written as Python expressions; "
                           "evaluated in the sandbox", item)
            else:
                note_truncation(suite, text, item)
            new = tests_from_value(suite, data, with_outputs=False, origin="pseudo", item=item)
            tests = dedupe(tests + new)
            if not new:
                break
        return tests[: task.budget]

    async def _candidates(self, task: Task, ctx: Context, suite: TestSuite):
        answers = await ctx.ask(suite, "pseudo/solve", n=self.params.candidates,
                                    temperature=self.params.candidate_temperature, task=task,
                                    item="solve")
        programs = []
        for c in answers:
            name = f"candidate-{c.sample}"
            try:
                program = extract_program(c.text)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, name)
                continue
            note_truncation(suite, c.text, name)
            program = program.model_copy(update={"name": name})
            programs.append(program)
            suite.artifacts.append(Artifact(role="candidate_solution", program=program))
        return programs

    def _vote(self, outputs: list[str]) -> tuple[str | None, str, str]:
        """The most frequent output (a tie goes to the earliest candidate's)."""
        if not outputs:
            return None, "no_clean_run", "no candidate ran cleanly on this input"
        first: dict[str, int] = {}
        votes: Counter[str] = Counter()
        for k, out in enumerate(outputs):
            key = " ".join(out.split())
            first.setdefault(key, k)
            votes[key] += 1
        top = max(votes.values())
        winner = min((key for key, n in votes.items() if n == top), key=first.__getitem__)
        if top < self.params.min_agree:
            tally = f"votes {sorted(votes.values(), reverse=True)} from {len(outputs)} clean candidates"
            return None, "too_few_agree", f"{tally}; min_agree={self.params.min_agree}"
        return outputs[first[winner]], "", ""
