"""The agent loop: write programs, run them in the sandbox, observe, revise — within a
round budget, every round recorded on the suite (``TestSuite.rounds``).

One ``AgentLoop`` makes one suite for one task. Its stages, each taken when the
agent's ``AgentSteps`` name a template for it:

1. **validator** — rounds of writing (or revising) ``validate_input``; every round samples
   ``validator_candidates`` validators and keeps the one that judges the probes best.
   The probes are the task's samples (valid by definition) plus, with a ``probes``
   step, the model's own valid and near-valid illegal inputs (AutoCode). A validator
   must accept every sample to be used; the loop stops revising when it judges every
   probe as labelled.
2. **generator** — rounds of writing (or revising) a generator program ``generate(args)``
   and the commands (argument lines) that run it; each round runs every command in the
   sandbox (``tczoo.execution.run_commands``: seeded by the line, CPU-limited), drops
   repeated inputs and runs the validator on the rest. Failed commands and rejected
   inputs (with the validator's comment) are what the next revision is shown; the loop
   stops when a round has neither (CodeContests+'s generator–validator feedback).
3. **outputs** — the task's correct programs run on every valid input (their majority
   output is the expected one); an input they fail on, or disagree on without a
   checker, is left out.
4. **checker** — when the problem admits several answers (``checker: auto``: the
   statement says so, or the correct programs disagreed) or always: rounds of writing
   ``check_output(input, output, expected)``; a checker must accept every correct
   program's output and reject an empty one (and, with a ``scenarios`` step, it is
   selected by its accuracy on labelled scenarios, AutoCode). The suite's oracle is then
   the checker.
5. **feedback** — (spec+correct+wrong tasks) the suite is run on the shown correct and
   wrong submissions (``tczoo.execution.SuiteJudge``); correct submissions it rejects and
   wrong ones it accepts drive a revision of the generator and its commands, for
   ``feedback_rounds`` judged generations (CodeContests-O).

Failures are data: an answer without a usable program, a command that crashes, an input
the validator rejects, a correct program that fails — each is in its round's
``observed`` and, for the final generation, among the suite's failures. A stage that
cannot go on (no generator ever written, no usable validator) ends the loop with what
it has and says why.
"""

from __future__ import annotations

import ast
import asyncio
import difflib
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tczoo.agent.answers import (
    apply_edits,
    commands_in,
    edits_in,
    has_program,
    probes_in,
    program_in,
    removals_in,
    scenarios_in,
    split_command,
)
from tczoo.agent.config import AgentParams, AgentSteps
from tczoo.execution import (
    CommandRun,
    Limits,
    SuiteJudge,
    check_with_checker,
    input_key,
    interleave,
    no_sandbox_errors,
    run_commands,
    same_output,
    validate_inputs,
)
from tczoo.errors import InfrastructureFailure
from tczoo.parsing import ParseError, note_truncation
from tczoo.schema import (
    AgentRound,
    Artifact,
    Language,
    Oracle,
    OracleKind,
    Problem,
    Program,
    RoundProgram,
    Task,
    TestCase,
    TestSuite,
)

if TYPE_CHECKING:
    from tczoo.method import Context

GENERATE, VALIDATE, CHECK = "generate", "validate_input", "check_output"
EXAMPLES = 5  # examples of each kind kept in a round's record

# Statements that accept several answers say so in a few set phrases.
SEVERAL_ANSWERS = re.compile(
    r"(print|output|find|give|return)\s+any\s+(of\s+them|one|such|valid|correct|possible|solution|answer)"
    r"|any\s+(valid|correct)\s+(answer|solution|output)"
    r"|(multiple|several|many)\s+(possible\s+|valid\s+|correct\s+|optimal\s+)*(answers|solutions)"
    r"|if\s+there\s+are\s+(several|multiple|many)", re.I)


@dataclass
class Case:
    """One input a generation made, and what became of it."""

    command: str
    bucket: str
    input: str
    valid: bool | None = None  # the validator's verdict (None: no validator, or it never ran)
    why: str = ""  # the validator's comment on a rejection
    output: str | None = None  # the expected output, once the correct programs answered
    lost: str = ""  # why it has no output: correct_code_RE, correct_codes_disagree ...
    detail: str = ""
    disagree: bool = False


@dataclass
class Generation:
    """What running the current generator and its commands gave."""

    runs: list[CommandRun] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    duplicates: int = 0
    round: int = 0  # the round that made it

    @property
    def valid(self) -> list[Case]:
        return [c for c in self.cases if c.valid is not False]

    @property
    def failed(self) -> list[CommandRun]:
        return [r for r in self.runs if not r.ok and not r.inputs]

    @property
    def rejected(self) -> list[Case]:
        return [c for c in self.cases if c.valid is False]


class AgentLoop:
    def __init__(self, method: str, steps: AgentSteps, params: AgentParams, task: Task, ctx: "Context"):
        self.method, self.steps, self.p, self.task, self.ctx = method, steps, params, task, ctx
        self.suite: TestSuite = ctx.new_suite(task)
        self.validator: str | None = None
        self.generator: str | None = None
        self.commands: list[str] = []
        self.checker: str | None = None
        self.gen = Generation()
        self.asked: Counter = Counter()
        self.problem = Problem(id=task.problem_id, title=task.title, statement=task.statement,
                               time_limit_ms=task.time_limit_ms, memory_limit_mb=task.memory_limit_mb,
                               entry_point=task.entry_point, checker=task.checker,
                               output_validator=task.output_validator)

    # ------------------------------------------------------------------ the loop

    async def run(self) -> TestSuite:
        if self.task.interactive:
            self.suite.fail("agent", "interactive_problem",
                            "an interactive problem needs an interactor, which the zoo cannot run: skipped")
            return self.suite
        if self.task.entry_point:
            self.suite.fail("agent", "functional_problem",
                            "these agents write stdin tests with generator commands; a call-based problem is skipped")
            return self.suite
        if self.steps.validator:
            await self.validator_stage()
            if self.validator is None and self.p.require_validator:
                self.suite.fail("validator", "no_usable_validator",
                                "giving up: every input must pass a validator that accepts the samples")
                return self.suite
        await self.generator_stage()
        if self.generator is None:
            self.suite.fail("generator", "no_generator", "no round gave a generator program with commands")
            return self.suite
        await self.answer(self.gen)
        if self.wants_checker(self.gen):
            await self.checker_stage()
        if self.steps.feedback and self.p.feedback_rounds:
            await self.feedback_stage()
        self.finish()
        return self.suite

    # ------------------------------------------------------------------ asking

    async def ask(self, template: str, item: str, n: int = 1, **variables: Any) -> tuple[list[Any], list[int]]:
        before = len(self.ctx.llm.keys)
        first = self.asked[template]
        self.asked[template] += n
        answers = await self.ctx.ask(self.suite, template, n=n, first_sample=first, item=item, task=self.task,
                                     p=self.p, buckets=[b for b in self.steps.buckets if b], **variables)
        for a in answers:
            note_truncation(self.suite, a.text, item)
        return answers, list(range(before, len(self.ctx.llm.keys)))

    def record(self, step: str, action: str, *, wrote: list[RoundProgram] | None = None,
               observed: dict[str, Any] | None = None, changed: list[str] | None = None, outcome: str = "",
               exchanges: list[int] | None = None) -> AgentRound:
        r = AgentRound(round=len(self.suite.rounds) + 1, step=step, action=action, wrote=wrote or [],
                       observed=observed or {}, changed=changed or [], outcome=outcome, exchanges=exchanges or [])
        self.suite.rounds.append(r)
        return r

    def clip(self, text: str | None, limit: int | None = None) -> str:
        if text is None:
            return ""
        limit = limit or self.p.shown_chars
        return text if len(text) <= limit else f"{text[:limit]}... [{len(text)} characters in all]"

    # ------------------------------------------------------------------ program rounds

    async def program_rounds(self, role: str, write: str | None, revise_with: str | None, *, rounds: int,
                             candidates: int, parse: str, sound: str,
                             score: Callable[[str], Awaitable[dict[str, Any]]], observed: dict[str, Any],
                             shown: Callable[[dict[str, Any]], dict[str, Any]],
                             clean: str) -> tuple[float, str, dict[str, Any]] | None:
        """The validator's and the checker's cycle: write ``candidates`` programs, score
        each (``score`` gives its accuracy, whether it is ``sound`` — the validator accepts
        every sample, the checker every correct output — and what it ``misjudged``), keep
        the best (sound first, then accuracy), and while it is not perfect and rounds are
        left, ask for a revision shown its misjudged cases. Each round is recorded with its
        outcome (clean / revise / budget spent / no answer / no usable program). Returns the
        best (accuracy, code, scored), or None when no answer held a usable program."""
        best: tuple[float, str, dict[str, Any]] | None = None
        for r in range(rounds):
            revise = best is not None and revise_with is not None
            if best is not None and not revise:
                break
            variables = {role: best[1], "misjudged": best[2]["misjudged"][:self.p.feedback_shown]} \
                if revise and best is not None else {}
            template = revise_with if revise else write
            if template is None:
                break
            answers, pos = await self.ask(template, f"{role}-{r + 1}", n=candidates, **variables)
            scored_all: list[tuple[float, str, dict[str, Any], str]] = []
            for k, a in enumerate(answers):
                name = f"{role}@r{len(self.suite.rounds) + 1}" + (f"-c{k + 1}" if candidates > 1 else "")
                try:
                    code = program_in(a.text, parse)
                except ParseError as exc:
                    self.suite.fail("parse", exc.reason, exc.detail, name)
                    continue
                scored = await score(code)
                scored_all.append((scored["accuracy"], code, scored, name))
            previous, chosen = best, None
            for k, (acc, code, scored, _) in enumerate(scored_all):
                if best is None or (scored[sound], acc) > (best[2][sound], best[0]):
                    best, chosen = (acc, code, scored), k
            unjudged = bool(scored_all) and all(scored.get("judged") == 0 for _, _, scored, _ in scored_all)
            wrote = [RoundProgram(role=role, name=name, code=code, score=None if unjudged else round(acc, 4),
                                  selected=k == chosen) for k, (acc, code, _, name) in enumerate(scored_all)]
            seen: dict[str, Any] = {"candidates": len(answers), "usable": len(scored_all), **observed}
            if best is not None and not unjudged:
                seen.update({"accuracy": round(best[0], 4), **shown(best[2]), "misjudged": len(best[2]["misjudged"]),
                             "examples": best[2]["misjudged"][:EXAMPLES]})
            changed = []
            if best is not None and (previous is None or previous[1] != best[1]):
                changed.append(_program_change(role, previous[1] if previous else None, best[1]))
            elif scored_all:
                changed.append(f"{role} kept: no candidate judged the cases better")
            if not answers:
                outcome = "no answer"
            elif not scored_all:
                outcome = f"no usable {role} in the answer"
            elif unjudged:
                outcome = f"unjudged: no case to judge the {role} on, the first usable one is kept"
            elif best is not None and best[2][sound] and best[0] == 1.0:
                outcome = clean
            elif r + 1 == rounds or revise_with is None:
                outcome = "budget spent"
            else:
                outcome = "revise"
            self.record(role, "revise" if revise else ("select" if candidates > 1 else "write"), wrote=wrote,
                        observed=seen, changed=changed, outcome=outcome, exchanges=pos)
            if outcome == clean or unjudged:
                break
        return best

    # ------------------------------------------------------------------ validator

    async def validator_stage(self) -> None:
        samples = [s.input for s in self.task.samples]
        probes: list[tuple[str, bool, str]] = [(s, True, "sample") for s in samples]
        if self.steps.probes:
            answers, pos = await self.ask(self.steps.probes, "probes", n_valid=self.p.probe_valid,
                                          n_invalid=self.p.probe_invalid)
            observed: dict[str, Any] = {}
            outcome = "probes written"
            if answers:
                try:
                    valid, invalid = probes_in(answers[0].text)
                    probes += [(v, True, "probe") for v in valid] + [(i, False, "probe") for i in invalid]
                    observed = {"valid": len(valid), "invalid": len(invalid),
                                "examples": [{"valid": self.clip(v, 200)} for v in valid[:2]]
                                + [{"invalid": self.clip(i, 200)} for i in invalid[:EXAMPLES]]}
                except ParseError as exc:
                    self.suite.fail("parse", exc.reason, exc.detail, "probes")
                    outcome, observed = "no usable probes: the samples alone judge the validators", {"error": exc.reason}
            else:
                outcome = "no answer: the samples alone judge the validators"
            self.record("validator", "write", observed={"probes": observed}, outcome=outcome, exchanges=pos)
        best = await self.program_rounds(
            "validator", self.steps.validator, self.steps.validator_revise, rounds=self.p.validator_rounds,
            candidates=self.p.validator_candidates, parse=VALIDATE, sound="samples_ok",
            score=lambda code: self.score_validator(code, probes), observed={"probes": len(probes)},
            shown=lambda scored: {"samples_rejected": scored["samples_rejected"]},
            clean="clean: every probe judged as labelled")
        if best is not None and best[2]["samples_ok"]:
            self.validator = best[1]
        elif best is not None:
            self.suite.fail("validator", "validator_rejects_samples",
                            f"the best validator rejects {best[2]['samples_rejected']} sample(s)", "validator")

    async def score_validator(self, code: str, probes: list[tuple[str, bool, str]]) -> dict[str, Any]:
        checks = await asyncio.to_thread(validate_inputs, self.ctx.sandbox, code, [t for t, _, _ in probes],
                                         time_ms=self.p.validator_time_ms)
        no_sandbox_errors(checks, "the validator")
        right = judged = rejected_samples = 0
        misjudged = []
        for (text, label, source), check in zip(probes, checks):
            judged += 1
            said = check.ok
            if said == label:
                right += 1
                continue
            if source == "sample":
                rejected_samples += 1
            misjudged.append({"input": self.clip(text), "label": "valid" if label else "invalid", "source": source,
                              "said": "valid" if said else "invalid",
                              "why": "" if said else self.clip(_why(check), 300)})
        # no sample and no probe: nothing judges it (it rejects no sample; its accuracy is unknown)
        return {"accuracy": right / judged if judged else 0.0, "misjudged": misjudged, "judged": judged,
                "samples_rejected": rejected_samples, "samples_ok": rejected_samples == 0}

    # ------------------------------------------------------------------ generator

    async def generator_stage(self) -> None:
        for r in range(self.p.generator_rounds):
            revise = self.generator is not None
            if revise and not self.steps.generator_revise:
                break
            if revise:
                answers, pos = await self.ask(self.steps.generator_revise, f"generator-{r + 1}",
                                              **self.revision_view(self.gen))
            else:
                answers, pos = await self.ask(self.steps.generator, f"generator-{r + 1}",
                                              n_commands=self.n_commands(), validator=self.validator or "")
            before_code, before_commands = self.generator, list(self.commands)
            changed = await self.take_generator_answer(answers, revise, f"generator-{r + 1}")
            if self.generator is None:
                self.record("generator", "write", outcome="no answer" if not answers else
                            "no usable generator in the answer", exchanges=pos, changed=changed)
                continue
            if revise and self.generator == before_code and self.commands == before_commands:
                self.record("generator", "revise", wrote=[self.written()], changed=changed or ["nothing changed"],
                            observed=self.observe(self.gen), outcome="no change: stopping", exchanges=pos)
                break
            self.gen = await self.produce(len(self.suite.rounds) + 1)
            clean = not self.gen.failed and not self.gen.rejected and bool(self.gen.valid)
            if clean:
                outcome = "clean: every command ran and every input passed the validator"
            elif r + 1 == self.p.generator_rounds or not self.steps.generator_revise:
                outcome = "budget spent"
            else:
                outcome = "revise"
            self.record("generator", "revise" if revise else "write", wrote=[self.written()],
                        observed=self.observe(self.gen), changed=changed, outcome=outcome, exchanges=pos)
            if clean:
                break

    def n_commands(self) -> int | None:
        """Commands to ask for: ``commands``, or the runner's budget with
        ``use_task_budget``; None: as many as the agent sees fit (the papers')."""
        return self.p.commands or (self.task.budget if self.p.use_task_budget else None)

    def test_limit(self) -> int | None:
        """Tests kept at the end: ``max_tests``, or the runner's budget with
        ``use_task_budget``; None: every valid one."""
        return self.p.max_tests or (self.task.budget if self.p.use_task_budget else None)

    def written(self) -> RoundProgram:
        return RoundProgram(role="generator", name=f"generator@r{len(self.suite.rounds) + 1}",
                            code=self.generator or "", commands=list(self.commands))

    async def take_generator_answer(self, answers: list[Any], revise: bool, item: str) -> list[str]:
        """Apply a (first) answer to the generator and its commands; the changes, one line each."""
        if not answers:
            return []
        text = answers[0].text
        buckets = self.steps.buckets
        changed: list[str] = []
        old = self.generator
        code = None
        try:
            code = program_in(text, GENERATE)
        except ParseError as exc:
            edits = edits_in(text) if revise else []
            if edits and old is not None:
                new, unmatched = apply_edits(old, edits)
                changed.append(f"{len(edits) - len(unmatched)} of {len(edits)} search/replace edit(s) applied")
                for u in unmatched:
                    self.suite.fail("parse", "unmatched_edit", f"search text not in the generator: {u[:300]!r}", item)
                if new != old:
                    code = new
            elif not revise or not has_program(text, GENERATE):
                if not revise:
                    self.suite.fail("parse", exc.reason, exc.detail, item)
        if code is not None and code != old:
            if GENERATE not in _defines(code):
                self.suite.fail("parse", "missing_definition", f"the revised generator defines no {GENERATE}", item)
            else:
                changed.append(_program_change("generator", old, code))
                self.generator = code
        added = commands_in(text, buckets).texts()
        if revise:
            removed = [c for c in removals_in(text, buckets).texts() if _norm(c) in {_norm(x) for x in self.commands}]
            gone = {_norm(c) for c in removed}
            kept = [c for c in self.commands if _norm(c) not in gone]
            fresh = [c for c in dict.fromkeys(added) if _norm(c) not in {_norm(x) for x in kept}]
            if removed:
                changed.append(f"commands removed ({len(removed)}): " + "; ".join(removed[:8]))
            if fresh:
                changed.append(f"commands added ({len(fresh)}): " + "; ".join(fresh[:8]))
            self.commands = kept + fresh
        elif self.generator is not None:
            self.commands = list(dict.fromkeys(added))
            if not self.commands:
                self.suite.fail("parse", "no_commands", "the answer gives the generator but no command to run it",
                                item)
                self.generator = None
            else:
                changed.append(f"{len(self.commands)} commands written")
        if len(self.commands) > self.p.max_commands:
            self.suite.fail("parse", "too_many_commands", f"{len(self.commands)} commands; the first "
                                                          f"{self.p.max_commands} are run (max_commands)", item)
            changed.append(f"commands cut to the first {self.p.max_commands} of {len(self.commands)}")
            self.commands = self.commands[:self.p.max_commands]
        return changed

    async def produce(self, round_no: int) -> Generation:
        """Every command run; inputs deduplicated and validated."""
        gen = Generation(round=round_no)
        if not self.generator or not self.commands:
            return gen
        lines = [split_command(c, self.steps.buckets) for c in self.commands]
        runs = await asyncio.to_thread(run_commands, self.ctx.sandbox, self.generator, [line for _, line in lines],
                                       seed=self.task.seed, per_command=self.p.per_command,
                                       time_ms=self.p.generator_time_ms, max_input_kb=self.p.max_input_kb)
        lost = [r for r in runs if r.reason == "sandbox_error"]
        if lost:
            raise InfrastructureFailure(f"{len(lost)} generator command(s) met a sandbox error after retries: "
                                        + " ".join(lost[0].detail.split())[:300])
        seen: set[str] = set()
        for command, (bucket, _), run in zip(self.commands, lines, runs):
            run.command = command
            for text in run.inputs:
                key = input_key(text)
                if key in seen:
                    gen.duplicates += 1
                    continue
                seen.add(key)
                gen.cases.append(Case(command=command, bucket=bucket, input=text))
        gen.runs = runs
        if self.validator is not None and gen.cases:
            checks = await asyncio.to_thread(validate_inputs, self.ctx.sandbox, self.validator,
                                             [c.input for c in gen.cases], time_ms=self.p.validator_time_ms)
            no_sandbox_errors(checks, "the validator")
            for case, check in zip(gen.cases, checks):
                case.valid, case.why = check.ok, "" if check.ok else _why(check)
        return gen

    def observe(self, gen: Generation) -> dict[str, Any]:
        reasons = Counter(r.reason for r in gen.failed)
        out: dict[str, Any] = {
            "commands": len(gen.runs), "failed_commands": len(gen.failed), "inputs": len(gen.cases) + gen.duplicates,
            "duplicates": gen.duplicates, "rejected": len(gen.rejected), "valid": len(gen.valid),
        }
        if reasons:
            out["failures"] = dict(reasons)
        if len(self.steps.buckets) > 1:
            out["valid_by_bucket"] = dict(Counter(c.bucket or "other" for c in gen.valid))
        examples = [{"command": r.command, "failed": r.reason, "detail": _tail(r.detail, 300)}
                    for r in gen.failed[:EXAMPLES]]
        examples += [{"command": c.command, "rejected": self.clip(c.input, 200), "why": self.clip(c.why, 300)}
                     for c in gen.rejected[:EXAMPLES]]
        if examples:
            out["examples"] = examples
        return out

    def revision_view(self, gen: Generation) -> dict[str, Any]:
        """What a generator revision is shown: the program, its commands with their
        inputs, the failed commands and the rejected inputs."""
        by_command: dict[str, list[str]] = {}
        for c in gen.cases:
            by_command.setdefault(c.command, []).append(self.clip(c.input))
        shown = self.p.feedback_shown
        return {
            "generator": self.generator or "", "commands": list(self.commands),
            "inputs": [{"command": c, "inputs": by_command.get(c, [])} for c in self.commands],
            "failed": [{"command": r.command, "reason": r.reason, "detail": _tail(r.detail, 600)}
                       for r in gen.failed[:shown]],
            "rejected": [{"command": c.command, "input": self.clip(c.input), "why": self.clip(c.why, 400)}
                         for c in gen.rejected[:shown]],
            "validator": self.validator or "", "n_commands": self.n_commands(),
        }

    # ------------------------------------------------------------------ outputs

    def limits(self) -> Limits:
        return Limits(time_ms=max(1, int(self.task.time_limit_ms * self.p.time_factor)),
                      memory_mb=self.task.memory_limit_mb)

    async def answer(self, gen: Generation) -> None:
        """Expected outputs from the correct programs (their majority; with an output
        validator any clean output is an answer the validator judges against)."""
        cases = gen.valid
        programs = self.task.correct_programs
        if not cases or not programs:
            return
        results = await self.ctx.run_all(programs, [c.input for c in cases], self.limits())
        validator_judged = self.task.output_validator is not None
        for case, runs in zip(cases, results):
            case.output, case.lost, case.detail, case.disagree = None, "", "", False
            bad = [(p, r) for p, r in zip(programs, runs) if not r.ok]
            if bad:
                prog, run = bad[0]
                case.lost = f"correct_code_{run.verdict.value.lower()}"
                case.detail = f"{prog.name or 'correct'}: {' '.join(run.detail.split())[-300:]}"
                continue
            outs = [r.output for r in runs]
            if validator_judged or len(outs) == 1:
                case.output = outs[0]
                continue
            groups: list[list[str]] = []
            for o in outs:
                for g in groups:
                    if same_output(o, g[0], comparator=self.task.checker):
                        g.append(o)
                        break
                else:
                    groups.append([o])
            top = max(groups, key=len)
            case.disagree = len(groups) > 1
            if 2 * len(top) > len(outs):
                case.output = top[0]
            else:
                case.output, case.lost = outs[0], "correct_codes_disagree"  # kept only if a checker judges

    # ------------------------------------------------------------------ checker

    def wants_checker(self, gen: Generation) -> bool:
        if not self.steps.checker or self.p.checker == "never":
            return False
        if self.p.checker == "always":
            return True
        if self.task.output_validator is not None or (self.task.checker or "tokens") not in ("tokens", "exact"):
            return False  # the problem's own judge (an output validator, a float comparator) decides
        return bool(SEVERAL_ANSWERS.search(self.task.statement)) or any(c.disagree for c in gen.valid)

    async def checker_stage(self) -> None:
        answered = [c for c in self.gen.valid if c.output is not None]  # the checker's positive cases
        scenarios: list[tuple[str, str, str | None, bool]] = []  # (input, output, expected, should accept)
        if self.steps.scenarios:
            answers, pos = await self.ask(self.steps.scenarios, "scenarios", n_scenarios=self.p.scenarios)
            observed: dict[str, Any] = {}
            if answers:
                try:
                    listed = scenarios_in(answers[0].text)
                    expected = await self.ctx.run(self.task.correct_programs[0], [s.input for s in listed],
                                                  self.limits())
                    no_sandbox_errors(expected, "the correct program")
                    for s, run in zip(listed, expected):
                        if run.ok:
                            scenarios.append((s.input, s.output, run.output, s.correct))
                    observed = {"scenarios": len(listed), "usable": len(scenarios)}
                except ParseError as exc:
                    self.suite.fail("parse", exc.reason, exc.detail, "scenarios")
                    observed = {"error": exc.reason}
            self.record("checker", "write", observed={"scenarios": observed}, exchanges=pos,
                        outcome="scenarios written" if scenarios else "no usable scenarios")
        best = await self.program_rounds(
            "checker", self.steps.checker, self.steps.checker_revise, rounds=self.p.checker_rounds,
            candidates=self.p.checker_candidates, parse=CHECK, sound="sound",
            score=lambda code: self.score_checker(code, answered, scenarios), observed={},
            shown=lambda scored: {"correct_outputs_rejected": scored["rejected"],
                                  "accepts_empty": scored["accepts_empty"]},
            clean="clean: the checker judged every case as labelled")
        if best is not None and best[2]["sound"]:
            self.checker = best[1]
            self.suite.oracle = Oracle(kind=OracleKind.CHECKER_PROGRAM,
                                       program=Program(code=best[1], language=Language.PYTHON, name="checker"))
            for c in self.gen.valid:
                if c.lost == "correct_codes_disagree":
                    c.lost = ""  # the checker judges; the first correct output is the reference
        elif best is not None:
            self.suite.fail("checker", "checker_unusable", "no checker accepted every correct output and rejected "
                                                           "an empty one: outputs are compared instead", "checker")

    async def score_checker(self, code: str, answered: list[Case],
                            scenarios: list[tuple[str, str, str | None, bool]]) -> dict[str, Any]:
        """Accuracy on: every correct program's output on every test (accept), an empty
        output on each test (reject), and the labelled scenarios."""
        cases: list[tuple[str, str, str | None, bool, str]] = []
        outs = await self.ctx.run_all(self.task.correct_programs, [c.input for c in answered], self.limits()) \
            if answered else []
        for c, runs in zip(answered, outs):
            for r in runs:
                if r.ok:
                    cases.append((c.input, r.output, c.output, True, "correct output"))
            cases.append((c.input, "", c.output, False, "empty output"))
        cases += [(i, o, e, ok, "scenario") for i, o, e, ok in scenarios]
        if not cases:
            return {"accuracy": 0.0, "misjudged": [], "rejected": 0, "accepts_empty": 0, "sound": False}
        checks = await asyncio.to_thread(check_with_checker, self.ctx.sandbox, code, [(i, o) for i, o, _, _, _ in cases],
                                         functional=False, time_ms=self.p.checker_time_ms,
                                         expected=[e for _, _, e, _, _ in cases])
        no_sandbox_errors(checks, "the checker")
        right = judged = rejected = accepts_empty = 0
        misjudged = []
        for (i, o, e, label, source), check in zip(cases, checks):
            judged += 1
            if check.ok == label:
                right += 1
                continue
            rejected += source == "correct output"
            accepts_empty += source == "empty output"
            misjudged.append({"input": self.clip(i, 300), "output": self.clip(o, 300), "expected": self.clip(e, 300),
                              "label": "accept" if label else "reject", "source": source,
                              "said": "accept" if check.ok else "reject",
                              "why": self.clip(_message(check.detail) if check.kind == "assertion"
                                               else f"{check.kind}: {check.detail}", 300)})
        return {"accuracy": right / judged if judged else 0.0, "misjudged": misjudged, "rejected": rejected,
                "accepts_empty": accepts_empty, "sound": judged > 0 and rejected == 0 and accepts_empty == 0}

    # ------------------------------------------------------------------ feedback on shown submissions

    async def feedback_stage(self) -> None:
        correct = list(self.task.correct_programs)
        wrong = [pair.wrong for pair in self.task.wrong_pairs]
        if not wrong:
            self.suite.fail("feedback", "no_shown_submissions",
                            "the task shows no wrong submission: no feedback round", "feedback")
            return
        rng = random.Random(f"{self.task.seed}:{self.task.problem_id}:feedback")
        for r in range(self.p.feedback_rounds):
            judged = await self.judge(correct, wrong)
            last = self.suite.rounds[-1] if self.suite.rounds else None
            clean = not judged["rejected_correct"] and not judged["accepted_wrong"] and judged["tests"] > 0
            if last is not None:
                last.observed["judge"] = {k: v for k, v in judged.items() if k not in ("fn", "fp")}
                last.observed["judge"]["examples"] = [
                    {"submission": x["name"], "label": "correct", "verdict": x["verdict"], "test": x["test"]}
                    for x in judged["fn"][:EXAMPLES]] + [
                    {"submission": x["name"], "label": "wrong", "verdict": "accepted"} for x in judged["fp"][:EXAMPLES]]
            if clean:
                if last is not None:
                    last.outcome = "clean: every shown correct submission passes, every shown wrong one fails"
                break
            if r + 1 == self.p.feedback_rounds:
                if last is not None:
                    last.outcome = "budget spent"
                break
            if last is not None:
                last.outcome = "revise from the judged submissions"
            fn = rng.sample(judged["fn"], min(self.p.feedback_shown, len(judged["fn"])))
            fp = rng.sample(judged["fp"], min(self.p.feedback_shown, len(judged["fp"])))
            view = self.revision_view(self.gen)
            view.update({"fn": fn, "fp": fp, "correct_errors": self.correct_errors(self.gen),
                         "judge": {k: v for k, v in judged.items() if k not in ("fn", "fp")}})
            answers, pos = await self.ask(self.steps.feedback, f"feedback-{r + 1}", **view)
            before_code, before_commands = self.generator, list(self.commands)
            changed = await self.take_generator_answer(answers, True, f"feedback-{r + 1}")
            if self.generator == before_code and self.commands == before_commands:
                self.record("feedback", "revise", wrote=[self.written()], changed=changed or ["nothing changed"],
                            outcome="no answer" if not answers else "no change: stopping", exchanges=pos)
                break
            self.gen = await self.produce(len(self.suite.rounds) + 1)
            await self.answer(self.gen)
            if self.checker is not None:
                for c in self.gen.valid:
                    if c.lost == "correct_codes_disagree":
                        c.lost = ""
            self.record("feedback", "revise", wrote=[self.written()], observed=self.observe(self.gen),
                        changed=changed, outcome="judging", exchanges=pos)

    def correct_errors(self, gen: Generation) -> list[dict[str, str]]:
        return [{"command": c.command, "input": self.clip(c.input), "error": c.lost, "detail": self.clip(c.detail, 400)}
                for c in gen.valid if c.lost and c.lost != "correct_codes_disagree"][:self.p.feedback_shown]

    def current_tests(self) -> list[TestCase]:
        return [TestCase(input=c.input, output=c.output, origin=f"{self.method}:{c.bucket or 'generator'}",
                         meta={"command": c.command, "round": self.gen.round})
                for c in self.gen.valid if c.output is not None and not c.lost]

    async def judge(self, correct: list[Program], wrong: list[Program]) -> dict[str, Any]:
        tests = self.current_tests()
        out: dict[str, Any] = {"tests": len(tests), "correct": len(correct), "wrong": len(wrong),
                               "rejected_correct": 0, "accepted_wrong": 0, "undetermined": 0, "cannot_run": 0,
                               "fn": [], "fp": []}
        if not tests:
            return out
        judge = SuiteJudge(self.ctx.sandbox, self.problem, tests, self.suite.oracle, checker_time_ms=self.p.checker_time_ms)

        def run() -> tuple[list[Any], list[Any]]:
            return judge.judge(correct, stop_on=()), judge.judge(wrong)

        good, bad = await asyncio.to_thread(run)
        for k, (prog, j) in enumerate(zip(correct, good), 1):
            if j.status == "reject":
                pos = j.first_failure()
                t = tests[judge.usable[pos]]
                out["fn"].append({"name": f"correct-{k}", "language": prog.language.value,
                                  "code": self.clip(prog.code, self.p.code_chars), "test": judge.usable[pos],
                                  "command": t.meta.get("command", ""), "input": self.clip(t.input),
                                  "expected": self.clip(t.output), "verdict": j.verdicts[pos],
                                  "note": self.clip(j.notes.get(pos, ""), 300)})
            out["undetermined"] += j.status == "undetermined"
            out["cannot_run"] += j.status == "cannot_run"
        for k, (prog, j) in enumerate(zip(wrong, bad), 1):
            if j.status == "accept":
                out["fp"].append({"name": f"wrong-{k}", "language": prog.language.value,
                                  "code": self.clip(prog.code, self.p.code_chars)})
            out["undetermined"] += j.status == "undetermined"
            out["cannot_run"] += j.status == "cannot_run"
        out["rejected_correct"], out["accepted_wrong"] = len(out["fn"]), len(out["fp"])
        return out

    # ------------------------------------------------------------------ the suite

    def finish(self) -> None:
        gen = self.gen
        for run in gen.failed:
            self.suite.fail("generator", run.reason, f"{run.command}: {run.detail}", run.command)
        for c in gen.rejected:
            self.suite.fail("validator", "invalid_input", f"{c.why}; input {c.input[:80]!r}", c.command)
        for c in gen.valid:
            if c.lost:
                self.suite.fail("oracle", c.lost, f"{c.detail} input {c.input[:80]!r}".strip(), c.command)
        tests = self.current_tests()
        limit = self.test_limit()
        if len(self.steps.buckets) > 1:
            groups: dict[str, list[TestCase]] = {}
            for t in tests:
                groups.setdefault(t.origin, []).append(t)
            tests = interleave(list(groups.values()), len(tests) if limit is None else limit)  # bucket-balanced
        elif limit is not None:
            tests = tests[:limit]
        self.suite.tests = tests
        if self.validator is not None:
            self.suite.artifacts.append(Artifact(role="validator", program=Program(
                code=self.validator, language=Language.PYTHON, name="validator"), note=self.note("validator")))
        if self.generator is not None:
            self.suite.artifacts.append(Artifact(
                role="generator", program=Program(code=self.generator, language=Language.PYTHON, name="generator",
                                                  meta={"function": GENERATE, "commands": list(self.commands)}),
                ok=bool(gen.valid),
                note=f"{len(self.commands)} commands, {len(gen.failed)} failed; {len(gen.cases)} distinct inputs, "
                     f"{len(gen.rejected)} rejected by the validator; {len(tests)} tests kept"))
        if self.checker is not None:
            self.suite.artifacts.append(Artifact(role="checker", program=Program(
                code=self.checker, language=Language.PYTHON, name="checker"), note=self.note("checker")))

    def note(self, step: str) -> str:
        mine = [r for r in self.suite.rounds if r.step == step and r.wrote]
        return f"kept after {len(mine)} round(s)" if mine else ""


# --------------------------------------------------------------------------- helpers


def _message(detail: str) -> str:
    """The assertion's message out of a checker run's detail ("AssertionError: MSG"
    then the traceback); a validator's ``(False, "reason")`` becomes the reason."""
    first = str(detail).split("\n", 1)[0]
    message = first[len("AssertionError:"):].strip() if first.startswith("AssertionError:") else first.strip()
    m = re.fullmatch(r"returned \((?:False|0|None),\s*(.*)\)", message, re.S)
    if m:
        try:
            value = ast.literal_eval(m.group(1))
            return str(value) if not isinstance(value, tuple) else " ".join(map(str, value))
        except (ValueError, SyntaxError):
            return m.group(1)
    return message


def _why(check: Any) -> str:
    if check.kind == "assertion":
        return _message(check.detail) or "rejected"
    detail = " ".join(str(check.detail).split())
    return f"validator {check.kind}: {detail[-300:]}"


def _tail(text: str, limit: int) -> str:
    """The end of a traceback (where the error is), at most ``limit`` characters."""
    text = str(text).strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def _defines(code: str) -> set[str]:
    from tczoo.parsing import python_defines

    return python_defines(code)


def _norm(command: str) -> str:
    return " ".join(command.split())


def _program_change(role: str, old: str | None, new: str) -> str:
    if old is None:
        return f"{role} written ({len(new.splitlines())} lines)"
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0))
    added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    return f"{role} revised: {added} line(s) added, {removed} removed"

