"""STAB generator synthesis and its variants (paper 002, sections 3.3 and 5.3).

Pipeline for one problem (see docs/stab.md):

1. **M1, constraint saturator**: parse the statement's constraints and resolve the
   boundary (largest valid sizes, sum-over-tests options);
2. **M2, scenario injector**: retrieve catalog scenarios (keyword ∪ KNN by default)
   and their implementations' construction principles;
3. **synthesis**: the structured generation specification (problem, resolved boundary,
   principles) is rendered from ``prompts/stab/generate.j2``; ``generators`` (5) calls,
   each aimed at a different retrieved implementation, ask for ``def generate() -> str``;
4. **execution**: each generator runs in the sandbox (``call_python``, CPU/memory/
   output caps, ``random`` seeded); its input is read back with the layout inferred
   from the Input section and checked against the parsed constraints
   (:mod:`methods.stab.inputs`); a crash, timeout, bad value or violation is recorded
   and gets ``repairs`` (1) repair calls with the error in the prompt.

Variants are subclasses that switch the modules off (Table 3): ``stab-base`` (spec
only), ``stab-no-m1`` (no boundary), ``stab-no-m2`` (no scenarios). The input check
runs in every variant: it is the validity gate of this zoo, not one of the modules.

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
from tczoo.parsing import ParseError, as_stdin, function_from
from tczoo.schema import Artifact, Language, OracleKind, Program, Setting, Task, TestCase, TestSuite

from .constraints import parse_constraints
from .inputs import InputChecker, checker_for
from .saturator import saturate
from .scenarios import ScenarioHit, ScenarioRetriever, load_catalog

PAPER = "STAB (paper 002), §3"

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
    generators: int = Field(5, ge=1, description="generators (= efficiency tests) per problem")
    repairs: int = Field(1, ge=0, description="repair calls per failed generator")
    retrieval: Literal["union", "keyword", "knn"] = Field("union", description="scenario retrieval mode (paper: union)")
    top_k: int = Field(2, ge=1, description="scenarios KNN keeps")
    max_scenarios: int | None = Field(4, description="cap on retrieved scenarios shown (None = all)")
    embedding_model: str | None = Field(None, description="KNN embedding model (default all-MiniLM-L6-v2, offline)")
    saturator_time_s: float = Field(2.0, gt=0, description="CP-SAT time per dependent group")
    gen_time_ms: int = Field(10_000, ge=100, description="CPU time a generator may take")
    gen_memory_mb: int = Field(1024, ge=64)
    max_input_kb: int = Field(32 * 1024, ge=1, description="largest input kept")
    check_inputs: bool = Field(True, description="reject inputs that violate the parsed constraints")


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

    def variables(self, k: int, total: int) -> dict[str, Any]:
        target = self.targets[k % len(self.targets)] if self.targets else None
        return {"task": self.task, "boundary": self.boundary, "options": self.options,
                "constraints": self.constraints, "scenarios": self.scenarios, "target": target,
                "index": k + 1, "total": total}


@dataclass
class _Attempt:
    ok: bool
    text: str = ""
    reason: str = ""
    detail: str = ""


class Stab(Method):
    name = "stab"
    paper = PAPER
    summary = "efficiency tests from a spec with a resolved boundary (M1) and adversarial principles (M2)"
    setting = Setting.SPEC
    produces = OracleKind.INPUTS_ONLY  # outputs are not needed for ASR
    runner = "efficiency"
    Params = StabParams

    use_boundary: ClassVar[bool] = True  # M1
    use_scenarios: ClassVar[bool] = True  # M2

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task, OracleKind.INPUTS_ONLY)
        checker = make_checker(task)
        if not checker.active:
            suite.fail("validator", "no_input_layout", checker.note + "; inputs are not checked against constraints")
        if checker.dropped:
            suite.fail("validator", "constraint_contradicted_by_sample",
                       "left out of the boundary and the check: " + "; ".join(checker.dropped))
        spec, notes = build_spec(self, task, checker.constraints)
        for stage, reason, detail in notes:
            suite.fail(stage, reason, detail)
        if not self.params.check_inputs:
            checker = None
        total = self.params.generators
        results = await asyncio.gather(*(self._one(k, total, spec, checker, ctx, suite) for k in range(total)))
        seen: set[str] = set()
        for test in results:
            if test is None:
                continue
            key = " ".join(test.input.split())
            if key in seen:
                suite.fail("generator", "duplicate_input", "same input as an earlier generator",
                           test.meta.get("generator", ""))
                continue
            seen.add(key)
            suite.tests.append(test)
        return suite

    # ------------------------------------------------------------------ M1 and M2

    def _add_boundary(self, spec: Spec, constraints, suite: "_Notes") -> None:
        spec.constraints = [r.render() for r in constraints]
        if not constraints:
            suite.fail("saturator", "no_constraints", "no constraint was parsed; the spec has no boundary")
            return
        result = saturate(constraints, time_limit_s=self.params.saturator_time_s)
        spec.boundary = result.boundary or None
        spec.options = [o.model_dump(mode="json") for o in result.options]
        if result.violations:
            suite.fail("saturator", "boundary_violation", "; ".join(result.violations))
        if result.unbounded:
            suite.fail("saturator", "unbounded", "no upper bound for " + ", ".join(result.unbounded))

    def _add_scenarios(self, spec: Spec, task: Task, suite: "_Notes") -> None:
        hits = self._retrieve(task.statement, suite)
        if self.params.max_scenarios is not None:
            hits = hits[: self.params.max_scenarios]
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

    # ------------------------------------------------------------------ one generator

    async def _one(self, k: int, total: int, spec: Spec, checker: InputChecker | None,
                   ctx: Context, suite: TestSuite) -> TestCase | None:
        item = f"g{k}"
        variables = spec.variables(k, total)
        target = variables["target"]
        answers = await ctx.ask(suite, "stab/generate", first_sample=k, item=item, **variables)
        code = function_from(suite, answers, ("generate",), item)
        last_code, repairs = code, 0
        while True:
            outcome = await self._execute(code, checker, ctx, seed=k) if code else None
            if outcome is not None and outcome.ok:
                self._artifact(suite, item, code, target, repairs, ok=True)
                return TestCase(input=outcome.text, origin=f"{self.name}/{item}",
                                meta={"generator": item, "target": target["id"] if target else None,
                                      "repairs": repairs, "checked": bool(checker and checker.active)})
            if outcome is not None:
                suite.fail("generator", outcome.reason, outcome.detail, item)
            if repairs >= self.params.repairs:
                if last_code:
                    self._artifact(suite, item, last_code, target, repairs, ok=False,
                                   reason=outcome.reason if outcome else "no code")
                return None
            repairs += 1
            error = f"{outcome.reason}: {outcome.detail}" if outcome else "the answer held no usable generate() function"
            where = f"{item}/repair{repairs}"
            answers = await ctx.ask(suite, "stab/repair", first_sample=k, item=where,
                                    previous=last_code or "", error=error[:3000], **variables)
            code = function_from(suite, answers, ("generate",), where)
            last_code = code or last_code


    async def _execute(self, code: str, checker: InputChecker | None, ctx: Context, seed: int) -> _Attempt:
        p = self.params
        limits = Limits(time_ms=p.gen_time_ms, memory_mb=p.gen_memory_mb, output_kb=2 * p.max_input_kb + 1024)
        [call] = await ctx.call([py_call(code + _WRAPPER, _ENTRY, seed=seed, args=[seed], limits=limits)])
        ok, value, reason, detail = read_call(call)
        if not ok:
            return _Attempt(False, reason=reason, detail=(detail or call.run.message)[-1500:])
        try:  # a str as it is; a list/dict becomes lines (tczoo.parsing.as_stdin)
            text = as_stdin(value)
        except ParseError as exc:
            return _Attempt(False, reason="bad_return", detail=exc.detail)
        if not text.strip():
            return _Attempt(False, reason="empty_input", detail="generate() returned an empty input")
        size_kb = len(text.encode()) // 1024
        if size_kb > p.max_input_kb:
            return _Attempt(False, reason="input_too_large", detail=f"{size_kb} KB > {p.max_input_kb} KB")
        if checker is not None:
            problems = checker.check(text)
            if problems:
                reason = "format_error" if problems[0].startswith("format:") else "constraint_violation"
                return _Attempt(False, reason=reason, detail="; ".join(problems[:5]))
        return _Attempt(True, text=text)

    def _artifact(self, suite: TestSuite, item: str, code: str, target: dict | None, repairs: int,
                  *, ok: bool, reason: str = "") -> None:
        note = f"target: {target['name']} ({target['scenario']})" if target else "no target"
        note += f"; repairs: {repairs}" + ("" if ok else f"; failed: {reason}")
        suite.artifacts.append(Artifact(
            role="generator", ok=ok, note=note,
            program=Program(code=code, language=Language.PYTHON, name=item,
                            meta={"function": "generate", "target": target["id"] if target else None}),
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
