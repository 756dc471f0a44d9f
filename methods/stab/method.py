"""STAB generator synthesis and its variants (STAB, arXiv:2605.27981, sections 3.3 and 5.3).

Pipeline for one problem (see docs/stab.md):

1. **M1, constraint saturator**: parse the statement's constraints and resolve the
   boundary (largest valid sizes; with a sum over test cases, the data-first boundary
   and the tests-first option);
2. **M2, scenario injector**: retrieve catalog scenarios (keyword hits, KNN only when
   none: the authors' rule) and their implementations' construction principles;
3. **synthesis**: the structured generation specification (problem, resolved boundary,
   principles) is rendered from ``prompts/stab/``. As the authors run it, one call
   (``generation="batch"``) asks for ``generators`` (5) functions
   ``def generate() -> str``, each aimed at a different retrieved implementation;
   ``"per_test"`` makes one call per generator instead;
4. **execution**: each generator runs in the sandbox (``call_python``, CPU/memory/
   output caps, ``random`` seeded); a crash, timeout, empty or oversized input fails
   it, and a failed generator is asked for again (``retry="resample"``, the authors'
   code: the same prompt, up to ``retries`` more calls) or repaired with the error in
   the prompt (``retry="repair"``);
5. **validity**: every input is read back with the layout of the Input section and
   checked against the parsed constraints (:mod:`tczoo.methods.stab.inputs`). With
   ``validity="record"`` (default) violations are recorded on the test
   (``meta["violations"]``) and on the suite, and the input is kept, as the authors
   do (their generation only runs the generator; compliance is measured afterwards).
   With ``validity="reject"`` a violating input fails its generator — in the variants
   with M1 only: Base and −M1 never see a parsed constraint, by prompt, rejection or
   repair message (format errors may still reject them: the layout is not a bound).

Variants are subclasses that switch the modules off (Table 3): ``stab-base`` (spec
only), ``stab-no-m1`` (no boundary), ``stab-no-m2`` (no scenarios).

Two generators that return the same input give two tests (``duplicates="keep"``): the
authors' generator keeps every generated test and the paper's N_gen = Σ|T_gen(p)|
counts them all; the repeat is recorded (``generator/duplicate_input_kept``, and
``meta["duplicate_of"]`` on the test). ``duplicates="drop"`` (our option) keeps the
first and records the rest as ``generator/duplicate_input``.

Every test and generator artifact says which scenarios M2 retrieved for the problem
and by which route (``meta["scenarios"]``: ``via`` keyword / knn, ``ids``), so a report
can say whether keywords or KNN chose them.

STAB produces inputs only (``TestCase.output`` is None): the efficiency runner
measures runtime and needs no expected outputs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field

from tczoo.execution import Limits, py_call, read_call
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import ParseError, as_stdin, code_blocks, function_from, parse_json, python_defines
from tczoo.schema import Artifact, Language, OracleKind, Program, Setting, Task, TestCase, TestSuite

from .constraints import parse_constraints
from .inputs import InputChecker, checker_for
from .saturator import saturate
from .scenarios import ScenarioHit, ScenarioRetriever, load_catalog

PAPER = "STAB (Lim et al., 2026, arXiv:2605.27981) §3"

# The call wrapper appended to a generator: seeds ``random`` so a run is reproducible,
# then calls the model's function. Appended (not prepended) to keep its line numbers.
_ENTRY = "_tczoo_stab_entry"
_WRAPPER = f"""

def {_ENTRY}(seed):
    import random as _random
    _random.seed(seed)
    return generate()
"""


class StabParams(MethodParams):
    # Appendix A: temperature 1.0, top-p 0.95, at most 4,096 generated tokens.
    temperature: float | None = Field(1.0, ge=0, description="sampling temperature (Appendix A: 1.0)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (Appendix A: 0.95)")
    max_tokens: int | None = Field(4096, ge=1, description="most tokens per answer (Appendix A: 4,096)")
    generators: int = Field(5, ge=1, description="generators (= efficiency tests) per problem (Appendix A: 5)")
    generation: Literal["batch", "per_test"] = Field(
        "batch", description="batch: one call returns every generator (the authors' code); per_test: one call each")
    retry: Literal["resample", "repair"] = Field(
        "resample", description="a failed generator: the same prompt again (the authors' code) or a repair prompt")
    retries: int = Field(9, ge=0, description="further calls for failed generators (the authors' code: 10 in all)")
    validity: Literal["record", "reject"] = Field(
        "record", description="inputs violating the parsed constraints: record and keep (authors), or reject")
    retrieval: Literal["keyword_first", "union", "keyword", "knn"] = Field(
        "keyword_first", description="scenario retrieval (authors' code: keyword hits, KNN only without any)")
    top_k: int = Field(2, ge=1, description="scenarios KNN keeps")
    embedding_model: str | None = Field(None, description="KNN embedding model (default all-MiniLM-L6-v2, offline)")
    objective: Literal["leximin", "weighted"] = Field(
        "weighted", description="CP-SAT objective: the authors' weighted sum (cpsat_solver.py; the paper says only "
                                "'large') or leximin (ours: every variable as large as the others allow)",
        json_schema_extra={"paper": "weighted (the authors' code; the paper says only 'large')"})
    duplicates: Literal["keep", "drop"] = Field(
        "keep", description="an input an earlier generator already returned: kept as a test of its own and recorded "
                            "(the authors' generator; N_gen counts it), or dropped",
        json_schema_extra={"paper": "keep (the authors' generator)"})
    saturator_time_s: float = Field(2.0, gt=0, description="CP-SAT time per dependent group")
    gen_time_ms: int = Field(10_000, ge=100, description="CPU time a generator may take")
    gen_memory_mb: int = Field(1024, ge=64, description="memory a generator may use (MB)",
                               json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_input_kb: int = Field(32 * 1024, ge=1, description="largest input kept")


# Retrievers are costly to build (KNN loads an embedding model): one per setting per process.
_RETRIEVERS: dict[tuple, ScenarioRetriever] = {}


def retriever(mode: str, top_k: int, model: str | None) -> ScenarioRetriever:
    key = (mode, top_k, model)
    if key not in _RETRIEVERS:
        _RETRIEVERS[key] = ScenarioRetriever(load_catalog(), model=model, mode=mode, top_k=top_k)
    return _RETRIEVERS[key]


@dataclass
class Spec:
    """The structured generation specification (template variables)."""

    task: Task
    boundary: dict[str, int] | None = None
    options: list[dict[str, Any]] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    scenarios: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)

    retrieved: bool = False  # M2 ran (the variant retrieves scenarios), whatever it found

    def retrieval(self) -> dict[str, Any] | None:
        """Which scenarios M2 retrieved and by which route (keyword, knn); None when the
        variant retrieves none (Base, −M2)."""
        if not self.retrieved:
            return None
        via = sorted({v for s in self.scenarios for v in s.get("via", [])})
        return {"via": via, "ids": [s["id"] for s in self.scenarios]}

    def target(self, k: int) -> dict[str, Any] | None:
        return self.targets[k % len(self.targets)] if self.targets else None

    def variables(self, k: int, total: int) -> dict[str, Any]:
        """Variables of generator ``k``'s prompt (per_test) or of the batch prompt,
        whose ``targets`` are the first ``total`` (the distinct ones first)."""
        return {"task": self.task, "boundary": self.boundary, "options": self.options,
                "constraints": self.constraints, "scenarios": self.scenarios, "target": self.target(k),
                "targets": [self.target(j) for j in range(total)] if self.targets else [],
                "index": k + 1, "total": total}


@dataclass
class _Outcome:
    ok: bool
    text: str = ""
    reason: str = ""
    detail: str = ""
    violations: list[str] = field(default_factory=list)  # kept (validity="record")


@dataclass
class _Slot:
    """One generator's history: its latest code and why it failed (if it did)."""

    k: int
    code: str | None = None
    test: TestCase | None = None
    error: str = ""
    calls: int = 0


class _Gate:
    """What makes a generated input acceptable, per variant.

    Always: the generator ran and returned a non-empty input within the size cap.
    Read back with the layout: a format error rejects only with ``validity="reject"``;
    a constraint violation rejects only with ``validity="reject"`` *and* M1 on, so the
    parsed constraints never reach Base or −M1. Otherwise violations are recorded.
    """

    def __init__(self, checker: InputChecker | None, validity: str, uses_constraints: bool):
        self.checker = checker
        self.reject_format = validity == "reject"
        self.reject_violations = validity == "reject" and uses_constraints

    def screen(self, text: str) -> _Outcome:
        if self.checker is None or not self.checker.active:
            return _Outcome(True, text=text)
        problems = self.checker.check(text)
        if not problems:
            return _Outcome(True, text=text)
        if problems[0].startswith("format:"):
            if self.reject_format:
                return _Outcome(False, reason="format_error", detail="; ".join(problems[:5]))
        elif self.reject_violations:
            return _Outcome(False, reason="constraint_violation", detail="; ".join(problems[:5]))
        return _Outcome(True, text=text, violations=problems[:20])


class Stab(Method):
    name = "stab"
    paper = PAPER
    summary = "efficiency tests from a spec with a resolved boundary (M1) and adversarial principles (M2)"
    setting = Setting.SPEC
    produces = OracleKind.INPUTS_ONLY  # outputs are not needed for ASR
    runner = "efficiency"
    Params = StabParams
    single_turn: ClassVar[dict] = {"generation": "batch", "retries": 0}  # one call returns every generator

    use_boundary: ClassVar[bool] = True  # M1
    use_scenarios: ClassVar[bool] = True  # M2

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        checker = make_checker(task)
        if not checker.active:
            suite.fail("validator", "no_input_layout", checker.note + "; inputs are not checked against constraints")
        if checker.dropped:
            suite.fail("validator", "constraint_contradicted_by_sample",
                       "left out of the boundary and the check: " + "; ".join(checker.dropped))
        spec, notes = build_spec(self, task, checker.constraints)
        for stage, reason, detail in notes:
            suite.fail(stage, reason, detail)
        gate = _Gate(checker, self.params.validity, uses_constraints=self.use_boundary)
        slots = [_Slot(k) for k in range(self.params.generators)]
        if self.params.generation == "batch":
            await self._batch(slots, spec, gate, ctx, suite)
        else:
            await asyncio.gather(*(self._per_test(slot, spec, gate, ctx, suite) for slot in slots))
        seen: dict[str, int] = {}
        for slot in slots:
            self._artifact(suite, slot, spec)
            test = slot.test
            if test is None:
                continue
            key = " ".join(test.input.split())
            if key in seen:
                if self.params.duplicates == "drop":
                    suite.fail("generator", "duplicate_input", f"same input as g{seen[key]}; dropped", f"g{slot.k}")
                    continue
                test.meta["duplicate_of"] = f"g{seen[key]}"
                suite.fail("generator", "duplicate_input_kept",
                           f"same input as g{seen[key]}; kept, as the authors' generator keeps it", f"g{slot.k}")
            else:
                seen[key] = slot.k
            if test.meta["violations"]:
                suite.fail("validator", "invalid_input_kept", "; ".join(test.meta["violations"][:5]), f"g{slot.k}")
            suite.tests.append(test)
        return suite

    # ------------------------------------------------------------------ M1 and M2

    def _add_boundary(self, spec: Spec, constraints, suite: "_Notes") -> None:
        spec.constraints = [r.render() for r in constraints]
        if not constraints:
            suite.fail("saturator", "no_constraints", "no constraint was parsed; the spec has no boundary")
            return
        result = saturate(constraints, time_limit_s=self.params.saturator_time_s, objective=self.params.objective)
        spec.boundary = result.boundary or None
        spec.options = [o.model_dump(mode="json") for o in result.options]
        if result.violations:
            suite.fail("saturator", "boundary_violation", "; ".join(result.violations))
        if result.unbounded:
            suite.fail("saturator", "unbounded", "no upper bound for " + ", ".join(result.unbounded))

    def _add_scenarios(self, spec: Spec, task: Task, suite: "_Notes") -> None:
        spec.retrieved = True
        hits = self._retrieve(task.statement, suite)
        if not hits:
            suite.fail("scenarios", "no_scenario", "no catalog scenario matched; no principles in the spec")
            return
        spec.scenarios = [
            {"id": h.scenario.id, "name": h.scenario.name, "cls": h.scenario.cls, "principle": h.scenario.principle,
             "via": sorted(h.via), "keywords": h.keywords,
             "implementations": [i.model_dump() for i in h.scenario.implementations]}
            for h in hits
        ]
        # Targets round-robin over scenarios, so five generators cover several families
        # before a second implementation of the first family is taken.
        columns = [[dict(impl, scenario=s["name"]) for impl in s["implementations"]] for s in spec.scenarios]
        depth = max(len(c) for c in columns)
        spec.targets = [c[i] for i in range(depth) for c in columns if i < len(c)]

    def _retrieve(self, statement: str, suite: "_Notes") -> list[ScenarioHit]:
        mode = self.params.retrieval
        try:
            return retriever(mode, self.params.top_k, self.params.embedding_model).retrieve(statement)
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            if mode == "keyword":
                raise
            suite.fail("scenarios", "knn_unavailable", f"{type(exc).__name__}: {exc}; keyword retrieval only")
            return retriever("keyword", self.params.top_k, None).retrieve(statement)

    # ------------------------------------------------------------------ generation

    async def _batch(self, slots: list[_Slot], spec: Spec, gate: _Gate, ctx: Context, suite: TestSuite) -> None:
        """One call for every generator; failed ones: the batch again, or repairs."""
        total = len(slots)
        for attempt in range(1 + self.params.retries):
            failed = [s for s in slots if s.test is None]
            if not failed:
                return
            if attempt and self.params.retry == "repair":
                await asyncio.gather(*(self._repair(s, spec, gate, ctx, suite, attempt) for s in failed))
                continue
            where = "batch" if not attempt else f"batch/retry{attempt}"
            answers = await ctx.ask(suite, "stab/generate_batch", first_sample=attempt, item=where,
                                    **spec.variables(0, total))
            codes = generators_from(answers[0].text, total) if answers else []
            if answers and not any(codes):
                suite.fail("parse", "missing_definition", f"no def generate() in the answer ({where})", where)
            await asyncio.gather(*(self._run(s, codes[s.k] if s.k < len(codes) else None, gate, ctx, suite, where)
                                   for s in failed))

    async def _per_test(self, slot: _Slot, spec: Spec, gate: _Gate, ctx: Context, suite: TestSuite) -> None:
        total = self.params.generators
        for attempt in range(1 + self.params.retries):
            if slot.test is not None:
                return
            if attempt and self.params.retry == "repair":
                await self._repair(slot, spec, gate, ctx, suite, attempt)
                continue
            item = f"g{slot.k}" if not attempt else f"g{slot.k}/retry{attempt}"
            answers = await ctx.ask(suite, "stab/generate", first_sample=attempt * total + slot.k, item=item,
                                    **spec.variables(slot.k, total))
            code = function_from(suite, answers, ("generate",), item)
            await self._run(slot, code, gate, ctx, suite, item)

    async def _repair(self, slot: _Slot, spec: Spec, gate: _Gate, ctx: Context, suite: TestSuite,
                      attempt: int) -> None:
        where = f"g{slot.k}/repair{attempt}"
        error = slot.error or "the answer held no usable generate() function"
        answers = await ctx.ask(suite, "stab/repair", first_sample=slot.k, item=where, previous=slot.code or "",
                                error=error[:3000], **spec.variables(slot.k, self.params.generators))
        code = function_from(suite, answers, ("generate",), where)
        await self._run(slot, code, gate, ctx, suite, where)

    async def _run(self, slot: _Slot, code: str | None, gate: _Gate, ctx: Context, suite: TestSuite,
                   where: str) -> None:
        slot.calls += 1
        item = f"g{slot.k}"
        if not code:
            slot.error = slot.error or "the answer held no usable generate() function"
            if where.startswith("batch"):
                suite.fail("generator", "missing_generator", f"no generator {slot.k + 1} in the answer ({where})", item)
            return
        slot.code = code
        outcome = await self._execute(code, gate, ctx, seed=slot.k)
        if not outcome.ok:
            slot.error = f"{outcome.reason}: {outcome.detail}"
            suite.fail("generator", outcome.reason, outcome.detail, item)
            return
        slot.test = TestCase(input=outcome.text, origin=f"{self.name}/{item}", meta={
            "generator": item, "target": None, "calls": slot.calls,
            "checked": bool(gate.checker and gate.checker.active), "violations": outcome.violations})

    async def _execute(self, code: str, gate: _Gate, ctx: Context, seed: int) -> _Outcome:
        p = self.params
        limits = Limits(time_ms=p.gen_time_ms, memory_mb=p.gen_memory_mb, output_kb=2 * p.max_input_kb + 1024)
        [call] = await ctx.call([py_call(code + _WRAPPER, _ENTRY, seed=seed, args=[seed], limits=limits)])
        ok, value, reason, detail = read_call(call)
        if not ok:
            return _Outcome(False, reason=reason, detail=(detail or call.run.message)[-1500:])
        try:  # a str as it is; a list/dict becomes lines (tczoo.parsing.as_stdin)
            text = as_stdin(value)
        except ParseError as exc:
            return _Outcome(False, reason="bad_return", detail=exc.detail)
        if not text.strip():
            return _Outcome(False, reason="empty_input", detail="generate() returned an empty input")
        size_kb = len(text.encode()) // 1024
        if size_kb > p.max_input_kb:
            return _Outcome(False, reason="input_too_large", detail=f"{size_kb} KB > {p.max_input_kb} KB")
        return gate.screen(text)

    def _artifact(self, suite: TestSuite, slot: _Slot, spec: Spec) -> None:
        if slot.code is None:
            return
        target = spec.target(slot.k)
        retrieved = spec.retrieval()
        if slot.test is not None:
            slot.test.meta["target"] = target["id"] if target else None
            if retrieved is not None:
                slot.test.meta["scenarios"] = retrieved
        note = f"target: {target['name']} ({target['scenario']})" if target else "no target"
        note += f"; calls: {slot.calls}" + ("" if slot.test else f"; failed: {slot.error[:200]}")
        suite.artifacts.append(Artifact(
            role="generator", ok=slot.test is not None, note=note,
            program=Program(code=slot.code, language=Language.PYTHON, name=f"g{slot.k}",
                            meta={"function": "generate", "target": target["id"] if target else None,
                                  **({"scenarios": retrieved} if retrieved is not None else {})}),
        ))


class StabBase(Stab):
    name = "stab-base"
    summary = "standard prompting (Base): generators from the problem specification alone"
    use_boundary = False
    use_scenarios = False


class StabNoM1(Stab):
    name = "stab-no-m1"
    summary = "STAB without the constraint saturator (no resolved boundary in the spec)"
    use_boundary = False


class StabNoM2(Stab):
    name = "stab-no-m2"
    summary = "STAB without the scenario injector (no construction principles in the spec)"
    use_scenarios = False


VARIANTS: dict[str, type[Stab]] = {cls.name: cls for cls in (Stab, StabBase, StabNoM1, StabNoM2)}


def generators_from(text: str, count: int) -> list[str | None]:
    """The ``def generate()`` functions of a batch answer, in order: one per fenced
    Python block, or (the authors' format) the code strings of a JSON object such as
    ``{"tc_1": "def generate() ...", ...}``. At most ``count``; None where a block does
    not define ``generate``."""
    blocks = [b for b in code_blocks(text) if b.lang in ("python", "")]
    if blocks:
        return [b.code if "generate" in python_defines(b.code) else None for b in blocks[:count]]
    try:
        data = parse_json(text)
    except ParseError:
        return []
    values = list(data.values()) if isinstance(data, dict) else data if isinstance(data, list) else []
    return [v if isinstance(v, str) and "generate" in python_defines(v) else None for v in values[:count]]


class _Notes:
    """Collects what :func:`build_spec` would record on a suite (``fail`` signature)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str]] = []

    def fail(self, stage: str, reason: str, detail: str = "", item: str = "") -> None:
        self.items.append((stage, reason, detail))


def make_checker(task: Task) -> InputChecker:
    """The input checker of a task: the parsed constraints, minus those the samples
    violate (parser slips), and the layout when it reads every sample."""
    parsed = parse_constraints(task.statement)
    return checker_for(task.statement, parsed.constraints, [s.input for s in task.samples])


def build_spec(method: Stab, task: Task, constraints=None) -> tuple[Spec, list[tuple[str, str, str]]]:
    """The structured generation specification of ``method``'s variant for ``task``,
    and the notes (stage, reason, detail) about what it could not include.
    ``constraints``: the records to saturate (default: :func:`make_checker`'s)."""
    constraints = constraints if constraints is not None else make_checker(task).constraints
    spec, notes = Spec(task=task), _Notes()
    if method.use_boundary:
        method._add_boundary(spec, constraints, notes)
    if method.use_scenarios:
        method._add_scenarios(spec, task, notes)
    return spec, notes.items
