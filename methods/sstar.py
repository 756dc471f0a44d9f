"""S*: selection by adaptive input synthesis, with iterative self-debugging of the samples.

Li et al., *S\\*: Test Time Scaling for Code Generation* (2025, arXiv:2502.14382; the
authors' code: NovaSky-AI/SkyThought, ``skythought/test-time-scaling``). docs/sstar.md.

Setting: the problem only. The method samples its own candidates and picks one
(``Method.samples_candidates``), so the ``bestofn`` runner scores its pick beside CodeT's
dual agreement, most-tests-passed and CodeRM's voting on the same candidates.

1. **Generation** (parallel + sequential scaling): ``solutions`` samples (16 at
   temperature 0.7, the authors' scripts); each is run on the problem's public tests
   (its samples: HumanEval's docstring examples) and, while it fails one, shown the
   failure and revised, for at most ``rounds`` generations in all (the authors'
   ``--num_round 3``; a sample that passes every public test stops);
2. **Filtering**: the samples that pass every public test go on (none: the one with the
   most public tests passed is the pick, ties to the first; no public tests: all go on);
3. **Adaptive input synthesis**: the model writes test inputs (no outputs); the samples
   run on them and are grouped by what they return or print on all of them; for every
   pair of groups the model is shown a representative of each (the first sample) and
   writes inputs on which those two may differ; both run on them (in the sandbox), and
   the inputs where they differ are shown to the model with each one's actual result,
   and it says which is right — twice, the order swapped, a side winning only when both
   answers agree (``swap``, the authors' comparisons); the group with the most wins is
   chosen (ties: the larger group, then the earlier), and its first sample is the pick.

The pick is the candidate artifact whose ``Program.meta`` has ``SELECTED``. The suite's
tests are what S* decided by: the public tests that filtered the samples, then the judged
cases — each input the model compared, with the output of the side it chose as the
expected output — so the runner's other selectors also rank the same candidates by S*'s
own verdicts. The paper's wording ("generate inputs that differentiate
between paired samples, then leverage actual execution results to determine the optimal
choice") is followed on groups; the released code compares every pair of samples of two
groups, for every synthesized input that splits them (docs/sstar.md).
"""

from __future__ import annotations

import ast
import json
import re
from itertools import combinations
from typing import Any

from pydantic import Field

from tczoo.execution import Limits, same_output, signature_of
from tczoo.method import Context, Method, MethodParams
from tczoo.methods.codet import solution_program
from tczoo.parsing import ParseError, extract_program, parse_json
from tczoo.schema import (CANDIDATE_ROLE, SELECTED, Artifact, Language, OracleKind, Program, Setting, Task, TestCase,
                          TestSuite)

SHOWN_CHARS = 2000  # an input or result shown to the judge is cut here (a flood of output is still a result)


class SStarParams(MethodParams):
    temperature: float | None = Field(0.7, ge=0, description="sampling temperature (the authors' scripts: 0.7)")
    solutions: int = Field(16, ge=1, le=256, description="parallel samples (the authors' --n 16)")
    rounds: int = Field(3, ge=1, le=10, description="generations per sample, the first included: revisions on a "
                                                    "failed public test (the authors' --num_round 3)")
    max_inputs: int = Field(20, ge=1, le=200, description="synthesized inputs kept per request (ours: a bound)")
    judge_cases: int = Field(10, ge=1, le=100, description="separating inputs shown per comparison (ours: a bound)")
    swap: bool = Field(True, description="ask each comparison in both orders; a side wins only when both agree (the "
                                         "authors' pairwise judging)")


class SStar(Method):
    name = "sstar"
    paper = "S* (Li et al., 2025, arXiv:2502.14382)"
    summary = "16 self-debugged samples; groups by synthesized inputs; pairwise distinguishing inputs, executed, judged"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "bestofn"
    functional = True
    samples_candidates = True
    Params = SStarParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        p = self.params
        limits = Limits.of(task)
        answers = await ctx.ask(suite, "sstar/solution", n=p.solutions, task=task, item="solutions")
        programs = [self._program(suite, task, a.text, f"solution-{a.sample}") for a in answers]
        public = [(s.input, s.output) for s in task.samples]
        # sequential scaling: revise on a failed public test
        results = await self._public(ctx, task, programs, public, limits)
        for r in range(1, p.rounds):
            failing = [i for i, res in enumerate(results) if public and not all(ok for ok, _ in res)]
            if not failing:
                break
            for i in failing:
                j = next(k for k, (ok, _) in enumerate(results[i]) if not ok)
                fixed = await ctx.ask(suite, "sstar/debug", first_sample=r * 1000 + answers[i].sample, task=task,
                                      code=programs[i].code, input=public[j][0], expected=public[j][1],
                                      got=results[i][j][1], item=f"solution-{answers[i].sample}/round-{r + 1}")
                if fixed:
                    revised = self._program(suite, task, fixed[0].text, programs[i].name)
                    if revised.code.strip():
                        programs[i] = revised
            results = await self._public(ctx, task, programs, public, limits)
        for prog in programs:
            suite.artifacts.append(Artifact(role=CANDIDATE_ROLE, ok=bool(prog.code.strip()), program=prog))
        # the public tests filtered the samples: they are S*'s tests too (the judged cases follow)
        suite.tests += [TestCase(input=x, output=y, origin="public") for x, y in public]
        if not programs:
            return ctx.finish(suite)
        passed = [sum(ok for ok, _ in res) for res in results]
        eligible = [i for i, n in enumerate(passed) if n == len(public)]
        if not eligible:
            pick = max(range(len(programs)), key=lambda i: (passed[i], -i))
            self._pick(suite, pick, "no sample passes every public test: the one passing the most")
            return ctx.finish(suite)
        pick = await self._select(ctx, suite, task, programs, eligible, limits)
        self._pick(suite, pick, "")
        return ctx.finish(suite)

    # ------------------------------------------------------------------ selection

    async def _select(self, ctx: Context, suite: TestSuite, task: Task, programs: list[Program],
                      eligible: list[int], limits: Limits) -> int:
        if len(eligible) == 1:
            return eligible[0]
        functional = task.entry_point is not None
        signature = signature_of(programs[eligible[0]].code, task.entry_point) if functional else None
        asked = await ctx.ask(suite, "sstar/inputs", task=task, item="inputs")
        inputs = self._inputs(suite, asked[0].text if asked else None, functional, signature, "inputs")
        groups: dict[tuple, list[int]] = {}
        if inputs:
            runs = await ctx.run_all([programs[i] for i in eligible], inputs, limits, entry_point=task.entry_point)
            for c, i in enumerate(eligible):
                groups.setdefault(tuple(_shown(row[c]) for row in runs), []).append(i)
        else:
            groups[()] = list(eligible)
        clusters = list(groups.values())
        if len(clusters) == 1:
            return clusters[0][0]
        wins = [0.0] * len(clusters)
        for a, b in combinations(range(len(clusters)), 2):
            winner = await self._compare(ctx, suite, task, programs, clusters[a][0], clusters[b][0], inputs,
                                         signature, limits, f"compare-{a}-{b}")
            if winner == 0:
                wins[a] += 1
            elif winner == 1:
                wins[b] += 1
        best = max(range(len(clusters)), key=lambda k: (wins[k], len(clusters[k]), -k))
        return clusters[best][0]

    async def _compare(self, ctx: Context, suite: TestSuite, task: Task, programs: list[Program], a: int, b: int,
                       synthesized: list[str], signature, limits: Limits, item: str) -> int | None:
        """0 when sample ``a`` wins, 1 when ``b`` does, None for a tie or no verdict."""
        functional = task.entry_point is not None
        asked = await ctx.ask(suite, "sstar/distinguish", task=task, code_a=programs[a].code,
                              code_b=programs[b].code, item=f"{item}/inputs")
        inputs = self._inputs(suite, asked[0].text if asked else None, functional, signature, f"{item}/inputs")
        inputs = list(dict.fromkeys(inputs + synthesized))  # the synthesized inputs split these two groups too
        if not inputs:
            return None
        runs = await ctx.run_all([programs[a], programs[b]], inputs, limits, entry_point=task.entry_point)
        cases = [(x, _shown(row[0]), _shown(row[1]), row) for x, row in zip(inputs, runs)
                 if not _same(row[0], row[1], functional)][: self.params.judge_cases]
        if not cases:
            return None
        shown = [{"input": x[:SHOWN_CHARS], "first": sa[:SHOWN_CHARS], "second": sb[:SHOWN_CHARS]}
                 for x, sa, sb, _ in cases]
        orders = [("A", "B", programs[a].code, programs[b].code, shown)]
        if self.params.swap:
            swapped = [{"input": c["input"], "first": c["second"], "second": c["first"]} for c in shown]
            orders.append(("A", "B", programs[b].code, programs[a].code, swapped))
        verdicts = []
        for k, (first, second, code_first, code_second, case_list) in enumerate(orders):
            said = await ctx.ask(suite, "sstar/judge", first_sample=k, task=task, first=first, second=second,
                                 code_first=code_first, code_second=code_second, cases=case_list,
                                 item=f"{item}/judge-{k}")
            choice = read_choice(said[0].text) if said else None
            if choice is None:
                suite.fail("parse", "no_choice", said[0].text[-300:] if said else "no answer", f"{item}/judge-{k}")
            # in the swapped order, "A" is sample b
            verdicts.append(None if choice in (None, "TIE") else ((choice == "B") if k == 1 else (choice == "A")))
        if any(v is None for v in verdicts) or len(set(verdicts)) != 1:
            return None
        a_wins = verdicts[0]
        for x, _, _, row in cases:
            run = row[0] if a_wins else row[1]
            if run.ok:
                suite.tests.append(TestCase(input=x, output=run.output, origin=f"{item}/judged"))
        return 0 if a_wins else 1

    # ------------------------------------------------------------------ helpers

    @staticmethod
    async def _public(ctx: Context, task: Task, programs: list[Program], public: list[tuple[str, str]],
                      limits: Limits) -> list[list[tuple[bool, str]]]:
        """(passes, what it returned or printed) of every program on every public test."""
        if not public or not programs:
            return [[] for _ in programs]
        runs = await ctx.run_all(programs, [x for x, _ in public], limits, entry_point=task.entry_point)
        functional = task.entry_point is not None
        out: list[list[tuple[bool, str]]] = [[] for _ in programs]
        for (_, expected), row in zip(public, runs):
            for c, run in enumerate(row):
                ok = run.ok and same_output(run.output, expected, comparator=task.checker, functional=functional)
                out[c].append((ok, _shown(run)[:SHOWN_CHARS]))
        return out

    @staticmethod
    def _program(suite: TestSuite, task: Task, text: str, name: str) -> Program:
        """A sample's program; one without usable code stays a candidate that fails everything."""
        if task.entry_point:
            code, why = solution_program(task.statement, text, task.entry_point) if _parses(task.statement) \
                else (_code_of(text), "")
            if why:
                suite.fail("parse", why, text[-300:], name)
            return Program(code=code, language=Language.PYTHON, name=name)
        try:
            prog = extract_program(text)
            return Program(code=prog.code, language=prog.language, name=name)
        except ParseError as exc:
            suite.fail("parse", exc.reason, exc.detail or text[-300:], name)
            return Program(code="", language=Language.PYTHON, name=name)

    def _inputs(self, suite: TestSuite, text: str | None, functional: bool, signature, item: str) -> list[str]:
        """Test inputs of an answer (a JSON array): argument lists (objects of named
        arguments too) fitted to the signature, or stdin strings; the rest recorded."""
        if text is None:
            return []
        try:
            data = parse_json(text)
        except ParseError as exc:
            suite.fail("parse", exc.reason, exc.detail or text[-300:], item)
            return []
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), [])
        if not isinstance(data, list):
            suite.fail("parse", "not_a_list", repr(data)[:300], item)
            return []
        out, dropped = [], 0
        for entry in data[: self.params.max_inputs]:
            try:
                if functional:
                    if isinstance(entry, dict) and set(entry) == {"input"}:
                        entry = entry["input"]
                    args = signature.fit(entry) if signature is not None else entry
                    if not isinstance(args, (list, dict)):
                        raise ValueError("not a list of arguments")
                    out.append(json.dumps(args))
                elif isinstance(entry, str):
                    out.append(entry if entry.endswith("\n") else entry + "\n")
                else:
                    raise ValueError("a stdin input is a string")
            except (ValueError, TypeError):
                dropped += 1
        if dropped:
            suite.fail("parse", "bad_input", f"{dropped} input(s) of the answer could not be used", item)
        return list(dict.fromkeys(out))

    @staticmethod
    def _pick(suite: TestSuite, index: int, why: str) -> None:
        art = [a for a in suite.artifacts if a.role == CANDIDATE_ROLE][index]
        art.program.meta[SELECTED] = True
        if why:
            art.note = why


def _shown(run: Any) -> str:
    """A run's result as the model sees it and as samples are grouped: the value or output,
    else the verdict and the end of its error."""
    if run.ok:
        return run.output
    detail = " ".join(run.detail.split())[-200:]
    return f"{run.verdict.value}: {detail}" if detail else run.verdict.value


def _same(x: Any, y: Any, functional: bool) -> bool:
    if x.ok and y.ok:
        return same_output(x.output, y.output, functional=functional)
    return not x.ok and not y.ok and x.verdict == y.verdict


_CHOICE = re.compile(r"answer\s*[:\-]?\s*\**\s*(A|B|TIE)\b", re.I)


def read_choice(text: str) -> str | None:
    """The last "Answer: A|B|TIE" of a judge's answer (upper case), or None."""
    found = _CHOICE.findall(text[-20_000:])
    return found[-1].upper() if found else None


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _code_of(text: str) -> str:
    try:
        return extract_program(text).code
    except ParseError:
        return ""
