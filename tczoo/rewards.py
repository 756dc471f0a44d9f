"""tczoo's scoring as a reward for RL trainers: one completion in, the evaluation's number out.

    from tczoo.rewards import reward
    r = reward(reference, completion)      # r.score: float, or None = no reward; r.parts

A **reference** (``RewardReference``, small JSON that travels with each prompt in a
trainer's dataset: ``tczoo rl export`` writes them) names a benchmark problem, a method,
the runner that scores it, the runner's task, the params and the reward *kind*. The
reward of a completion is computed the way ``tczoo run`` computes a score, with the
same code:

1. the problem is loaded from the benchmark (``benchmark`` + ``problem``; its content
   hash must match the exported one) and the runner's tasks are built from it, exactly
   as ``tczoo run`` builds them (``Runner.tasks``); the reference's ``task`` picks one;
2. the method's own ``generate`` runs on that task (``tczoo.run.generate_unit``), with
   an LLM backend that answers the method's one model call with the completion
   (``tczoo.llm.backends.OneAnswerBackend``): the method parses the answer, runs its
   generators in the sandbox and builds its ``TestSuite`` as it always does. The call
   must ask the very prompt the completion answered (``prompt_sha``), and a second
   call is refused: the method must run single-turn (``Method.single_turn``);
3. the runner found through the registry scores the suite (``tczoo.run.score_unit``),
   and the kind turns its ``ScoreRecord`` into one number, listed with its parts.

**At training scale** (docs/rl.md, "At scale"): a scorer opens its process's share of
the machine (``tczoo.machine``: the ranks on the node, the cores, the cgroup's quota), so
that every rank of a trainer can hold one; ``areward``/``arewards`` and
``RewardScorer.ascore_many`` are awaited from a trainer's own event loop (verl's reward
loop, TRL's async reward functions), every caller's samples sharing one admission gate and
pool, identical samples in flight scored once; ``tczoo serve rewards`` (``tczoo.rl.serve``)
puts a scorer behind HTTP.

Kinds (``KINDS``; each is defined from its runner's metrics, see docs/rl.md):

| kind | runner | reward |
|---|---|---|
| ``eq1`` | ``bugfind`` | HarnessLLM's Eq. 1 of the response's outcome (1 true bug, 0.1 good input, 0) |
| ``quality`` | ``hackrate`` | validity × HackRate − ``invalid_penalty`` × (1 − validity) |
| ``slowdown`` | ``efficiency`` | STAB's ASR averaged over the references and languages, in [0, 1] |
| ``verdict`` | ``verdict`` | 1 when the verdict matches the code's label, else 0 |
| ``prediction`` | ``outputpred`` | 1 when the predicted output is the queried test's, else 0 |

**No reward.** ``score`` is None — never a number — when the sandbox failed a run after
its retries (an infrastructure failure), when scoring crashed, when the sample ran past
its time budget, or when the kind is undefined for the task (no wrong code to hack, a
problem STAB's filter excludes). ``reason`` says which. A completion the method cannot
use (no test, a crashing generator, a method crash on it) is not "no reward": it gets
the kind's floor (``Kind.floor``), the lowest reward, so a crash is never rewarded.

**Bounds.** Each sample has a wall-clock budget (``time_budget_s``, default 120 s, counted
once its task is ready) checked before every sandbox run and between a batch's results
(a sample overruns it by at most the runs in flight, each under its own limits) and a
cap on the tests scored (``max_tests``, default 100; methods already honour their
runner's budget, so the cap only cuts an answer that ignores it, and ``parts["capped"]``
says so). Programs run in the sandbox under their usual limits; hostile completions are
contained like any program. Batches (``score_many``) run ``concurrency`` samples at once
over one shared sandbox pool, or a Ray cluster (``execution``, ``tczoo.distributed``).

A configuration error is raised, never turned into a reward: a reference that does not
parse, a benchmark the worker cannot load, a problem that changed since export, a
prompt the method no longer renders, a method that asks the model twice
(``RewardConfigError``, a ``UserError``).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tczoo.errors import UserError
from tczoo.schema import Problem, ScoreRecord, TestSuite

log = logging.getLogger("tczoo.rewards")

REFERENCE_VERSION = 1
DEFAULT_TIME_BUDGET_S = 120.0
DEFAULT_MAX_TESTS = 100
BUDGET_GRACE_S = 0.5  # past the deadline, for the runs cut to it to come back
COMPLETION_MODEL = "completion"  # the model name a reward's generation records


class RewardConfigError(UserError, ValueError):
    """A reward that cannot be computed as configured (one line, never a reward)."""


class NotSingleTurn(RewardConfigError):
    """The method asked the model more than once for one task."""


class TimeBudgetExceeded(Exception):
    """A sample ran past its time budget (raised inside the sandbox calls it makes)."""


def _swallow(future: "asyncio.Future[Any]") -> None:
    """Collect what an abandoned sample's work ended with (it ran past its budget)."""
    if not future.cancelled():
        future.exception()


# --------------------------------------------------------------------------- the reference


class RewardReference(BaseModel):
    """Everything a reward worker needs to rebuild a prompt's problem and task."""

    model_config = ConfigDict(extra="forbid")

    v: int = REFERENCE_VERSION
    benchmark: str  # the benchmark spec (zoo-mini, kattis:PATH, SCHEMA:PATH, a hub name)
    problem: str  # the problem id
    problem_sha: str | None = None  # content hash of the problem at export (None: not checked)
    method: str
    runner: str
    task: str = ""  # TaskSpec.key of the runner's task
    samples: int = Field(1, ge=1)
    seed: int = 0
    params: dict[str, dict[str, Any]] = Field(default_factory=dict)  # method name / "runner:NAME" -> params
    kind: str
    kind_params: dict[str, Any] = Field(default_factory=dict)
    prompt_sha: str | None = None  # prompt_digest of the prompt the completion answers
    strict_inputs: bool = False  # RunConfig.strict_inputs, the input screen's named option

    @classmethod
    def parse(cls, value: Any) -> "RewardReference":
        if isinstance(value, RewardReference):
            return value
        if isinstance(value, (bytes, bytearray)):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise RewardConfigError(f"reward reference is not JSON ({exc}): {value[:80]!r}") from None
        if not isinstance(value, dict):
            raise RewardConfigError(f"reward reference must be a JSON object, not {type(value).__name__}")
        try:
            ref = cls.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "reference"
            raise RewardConfigError(f"bad reward reference: {where}: {first.get('msg', 'invalid')}") from None
        if ref.v != REFERENCE_VERSION:
            raise RewardConfigError(f"reward reference version {ref.v}; this tczoo reads version {REFERENCE_VERSION}")
        return ref

    def dumps(self) -> str:
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def task_key(self) -> str:
        """What identifies the task and its reward (everything but the prompt)."""
        return json.dumps([self.benchmark, self.problem, self.problem_sha, self.method, self.runner, self.task,
                           self.samples, self.seed, self.params, self.kind, self.kind_params], sort_keys=True)


def problem_digest(problem: Problem) -> str:
    """What a reward depends on of a problem: everything but ``meta``, where loaders note
    things like the folder a package was loaded from (a worker may hold it elsewhere)."""
    body = problem.model_dump_json(exclude={"meta"})
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


# --------------------------------------------------------------------------- kinds


class NoKindParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Eq1Params(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_penalty: float = Field(0.0, description="reward of an answer without a usable test (the paper's 0)")


class QualityParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    invalid_penalty: float = Field(1.0, ge=0, description="weight of the share of tests a correct code fails")


@dataclass(frozen=True)
class Kind:
    name: str
    runner: str
    summary: str
    Params: type[BaseModel]
    value: Callable[[ScoreRecord, Any], tuple[float | None, dict[str, Any]]]
    floor: Callable[[Any], float]  # the reward of an answer the method could not use
    runner_params: dict[str, Any] = field(default_factory=dict)  # the RL setting's defaults
    # the task's probe scores the problem's own samples (else an empty answer): what the
    # kind is undefined on there, it is undefined on for every answer
    probe_samples: bool = False


def _eq1(record: ScoreRecord, p: Eq1Params) -> tuple[float | None, dict[str, Any]]:
    from tczoo.execution import Outcome

    outcome = Outcome(record.detail["outcome"])
    return outcome.reward(p.format_penalty), {"outcome": outcome.value, "why": record.detail.get("reason"),
                                              "tests": record.metrics.get("n_inputs")}


def _quality(record: ScoreRecord, p: QualityParams) -> tuple[float | None, dict[str, Any]]:
    m = record.metrics
    if m.get("no_validator"):
        # the task's probe (undefined_reason) showed the correct codes run on the problem's
        # own samples: here the completion's tests made every one of them fail
        return None, {"undefined": "no correct code ran cleanly on any of the completion's tests",
                      "completion_caused": True}
    if m.get("undecided"):
        return None, {"undefined": "every test met a sandbox error"}
    if "hack_rate" not in m:
        return None, {"undefined": "no wrong code of the problem could be judged (none, or sandbox errors)"}
    decided = m["n_tests"] - m.get("n_test_sandbox_errors", 0.0)
    valid = float(record.n_valid or 0)
    validity = valid / decided if decided > 0 else 0.0
    hack = m["hack_rate"] / 100.0
    parts = {"validity": validity, "hack_rate": hack, "tests": m["n_tests"], "valid": valid}
    parts.update({k: m[k] / 100.0 for k in ("ac", "wa", "re", "tle") if k in m})
    return validity * hack - p.invalid_penalty * (1.0 - validity), parts


def _slowdown(record: ScoreRecord, p: NoKindParams) -> tuple[float | None, dict[str, Any]]:
    m = record.metrics
    if m.get("excluded"):
        return None, {"undefined": f"the problem is excluded: {record.detail.get('excluded', '')}"}
    rates = {k[4:]: v / 100.0 for k, v in m.items() if k.startswith("asr:") and not k.startswith("asr:ref:")}
    if not rates:
        return None, {"undefined": "no accepted solution in the runner's languages to slow down"}
    parts: dict[str, Any] = {"asr": rates, "tests": m.get("n_generated")}
    return sum(rates.values()) / len(rates), parts


def _verdict(record: ScoreRecord, p: NoKindParams) -> tuple[float | None, dict[str, Any]]:
    m = record.metrics
    label = bool(m["label"])
    if not m.get("decided"):
        return 0.0, {"label": label, "verdict": None, "why": record.detail.get("reason")}
    pred = bool(m["pred"])
    return float(pred == label), {"label": label, "verdict": pred}


def _prediction(record: ScoreRecord, p: NoKindParams) -> tuple[float | None, dict[str, Any]]:
    m = record.metrics
    return m["pass@1"] / 100.0, {"right": m.get("right"), "queries": m.get("n_queries")}


KINDS: dict[str, Kind] = {
    "eq1": Kind("eq1", "bugfind", "HarnessLLM Eq. 1: 1 true bug, 0.1 good input, 0 otherwise", Eq1Params, _eq1,
                lambda p: p.format_penalty, {"first_k": 20}),
    "quality": Kind("quality", "hackrate", "validity x HackRate - invalid_penalty x (1 - validity)", QualityParams,
                    _quality, lambda p: -p.invalid_penalty, probe_samples=True),
    "slowdown": Kind("slowdown", "efficiency", "STAB ASR averaged over references and languages", NoKindParams,
                     _slowdown, lambda p: 0.0),
    "verdict": Kind("verdict", "verdict", "1 when the verdict matches the code's label", NoKindParams, _verdict,
                    lambda p: 0.0),
    # one queried test per task, so that a predictor asks once (LiveCodeBench asks per test)
    "prediction": Kind("prediction", "outputpred", "1 when the predicted output is the test's (LiveCodeBench's "
                       "equality rule), else 0", NoKindParams, _prediction, lambda p: 0.0, {"max_queries": 1}),
}


def kind_for_runner(runner: str) -> str:
    for name, kind in KINDS.items():
        if kind.runner == runner:
            return name
    raise RewardConfigError(f"no reward kind is defined for runner {runner!r} "
                            f"(kinds: {', '.join(f'{k} ({v.runner})' for k, v in KINDS.items())})")


def get_kind(name: str) -> Kind:
    if name not in KINDS:
        raise RewardConfigError(f"unknown reward kind {name!r} (known: {', '.join(KINDS)})")
    return KINDS[name]


# --------------------------------------------------------------------------- results


@dataclass
class Reward:
    """``score`` None is "no reward" (``reason`` says why); else the kind's number, with
    ``parts`` (the kind's, plus ``metrics``: the runner's metrics for the suite)."""

    score: float | None
    parts: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.score is not None

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "reason": self.reason, "seconds": round(self.seconds, 3), "parts": self.parts}


# --------------------------------------------------------------------------- the sandbox, budgeted


class _Budgeted:
    """A view of a shared sandbox for one sample: every run, batch and call is bounded by
    the sample's deadline (the sandbox's own ``deadline=``: a run still going then is
    stopped by its worker, none starts after it, ``DeadlineExceeded`` comes instead of the
    results not known), and anything asked after it raises ``TimeBudgetExceeded``.
    Everything else is the shared sandbox's."""

    def __init__(self, sandbox: Any, deadline: float):
        self._inner = sandbox
        self._deadline = deadline
        self.expired = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _check(self) -> None:
        if self.expired or time.monotonic() > self._deadline:
            self.expired = True
            raise TimeBudgetExceeded("the sample's time budget is spent")

    def run_many(self, jobs: Iterable[Any], *, progress: Any = None) -> Iterator[Any]:
        from tczoo.sandbox import DeadlineExceeded

        self._check()
        inner = self._inner.run_many(jobs, progress=progress, deadline=self._deadline)

        def results() -> Iterator[Any]:
            try:
                yield from inner
            except DeadlineExceeded:
                self.expired = True
                raise TimeBudgetExceeded("the sample's time budget is spent") from None
            finally:
                close = getattr(inner, "close", None)
                if close is not None:
                    close()

        return results()

    def run(self, program: Any, stdin: str = "", limits: Any = None, **kwargs: Any) -> Any:
        from tczoo.sandbox import DeadlineExceeded, Limits

        self._check()
        try:
            return self._inner.run(program, stdin, limits if limits is not None else Limits(), deadline=self._deadline,
                                   **kwargs)
        except DeadlineExceeded:
            self.expired = True
            raise TimeBudgetExceeded("the sample's time budget is spent") from None

    # The sandbox's own compositions of runs, so that their runs go through the checks above.
    def call_many(self, calls: Iterable[Any]) -> list[Any]:
        from tczoo.sandbox import Sandbox

        return Sandbox.call_many(self, calls)  # type: ignore[arg-type]

    def call_python(self, *args: Any, **kwargs: Any) -> Any:
        from tczoo.sandbox import Sandbox

        return Sandbox.call_python(self, *args, **kwargs)  # type: ignore[arg-type]

    def judge(self, *args: Any, **kwargs: Any) -> Any:
        from tczoo.sandbox import Sandbox

        return Sandbox.judge(self, *args, **kwargs)  # type: ignore[arg-type]

    def validate_output(self, *args: Any, **kwargs: Any) -> Any:
        from tczoo.sandbox import Sandbox

        return Sandbox.validate_output(self, *args, **kwargs)  # type: ignore[arg-type]

    async def acall_many(self, calls: Iterable[Any]) -> list[Any]:
        calls = list(calls)
        return await asyncio.to_thread(self.call_many, calls)

    def cancel(self) -> None:  # the pool is shared: one sample never stops the others
        pass

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- the scorer


@dataclass
class _Entry:
    """A task, rebuilt once per process: its problem, method, runner and spec, and
    whether the kind is defined for it (an empty answer scored without a budget)."""

    ref: RewardReference
    problem: Problem
    method: Any
    runner_cls: type
    runner_params: dict[str, Any]
    spec: Any
    undefined: str | None = None


class RewardScorer:
    """Computes rewards; see the module docstring. Thread-safe: any thread may call
    ``score``/``score_many`` (a trainer's reward workers do); the work runs on one event
    loop thread of its own, programs in one sandbox pool (``workers`` slots) or on the
    Ray cluster ``execution`` names. ``benchmarks`` maps a reference's benchmark spec to
    the one to load on this machine (a package stored under another path here)."""

    def __init__(self, *, sandbox: Any = None, execution: Any = None, workers: int | None = None,
                 time_budget_s: float = DEFAULT_TIME_BUDGET_S, max_tests: int = DEFAULT_MAX_TESTS,
                 concurrency: int | None = None, benchmarks: dict[str, str] | None = None,
                 ranks: int | None = None, coalesce: bool = True):
        from tczoo.distributed import ExecutionOptions, LocalCluster, open_cluster
        from tczoo.machine import machine_share

        if time_budget_s <= 0:
            raise RewardConfigError(f"time_budget_s must be positive, not {time_budget_s}")
        if max_tests < 1:
            raise RewardConfigError(f"max_tests must be at least 1, not {max_tests}")
        if concurrency is not None and concurrency < 1:
            raise RewardConfigError(f"concurrency must be at least 1, not {concurrency}")
        # A local pool opens this process's share of the machine (tczoo.machine): the
        # ranks on the node, the cores and the cgroup's quota; ``workers`` overrides it.
        self.share = None
        local = sandbox is None and (execution is None or execution.executor == "local")
        if local and workers is None and (execution is None or execution.workers is None):
            try:
                self.share = machine_share(ranks)
            except ValueError as exc:
                raise RewardConfigError(str(exc)) from None
            workers = self.share.workers
            log.info("rewards: %s", self.share.describe())
        if execution is not None and execution.workers is None and workers is not None:
            execution = execution.model_copy(update={"workers": workers})
        # a caller's sandbox is used (and left open); else the cluster the options name
        self._cluster = LocalCluster(sandbox) if sandbox is not None else \
            open_cluster(execution or ExecutionOptions(workers=workers))
        self.sandbox = self._cluster.sandbox
        self.time_budget_s = float(time_budget_s)
        self.max_tests = int(max_tests)
        self.concurrency = concurrency or 2 * max(1, int(getattr(self.sandbox, "workers", 1)))
        self.benchmarks = dict(benchmarks or {})
        self._problems: dict[tuple[str, str | None], dict[str, Problem]] = {}
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._guard = threading.Lock()
        self.counts: Counter[str] = Counter()  # rewards by outcome: scored, floor:WHY, none:WHY
        self.coalesce = bool(coalesce)
        self.coalesced = 0  # rewards handed on from an identical sample in flight
        self._inflight: dict[str, asyncio.Future[Reward]] = {}  # touched on the loop's thread only
        self._prompts = None
        self._loop = asyncio.new_event_loop()
        # sandbox batches and generation wait in threads: enough for every sample admitted
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=2 * self.concurrency + 4,
                                                           thread_name_prefix="tczoo-rewards"))
        self._gate = asyncio.Semaphore(self.concurrency)  # shared by every caller's batch
        self._thread = threading.Thread(target=self._loop.run_forever, name="tczoo-rewards", daemon=True)
        self._thread.start()
        self._closed = False

    # ------------------------------------------------------------------ public

    def score(self, reference: Any, completion: str) -> Reward:
        return self.score_many([reference], [completion])[0]

    def score_many(self, references: list[Any], completions: list[str]) -> list[Reward]:
        """Rewards of a batch, in order (``concurrency`` samples at a time)."""
        return self.submit(references, completions).result()

    def submit(self, references: list[Any], completions: list[str]) -> "Future[list[Reward]]":
        """A batch handed to the scorer's loop from any thread: a ``concurrent.futures``
        future of its rewards, in order."""
        if self._closed:
            raise RuntimeError("the reward scorer is closed")
        return asyncio.run_coroutine_threadsafe(self._score_many(list(references), list(completions)), self._loop)

    async def ascore(self, reference: Any, completion: str) -> Reward:
        return (await self.ascore_many([reference], [completion]))[0]

    async def ascore_many(self, references: list[Any], completions: list[str]) -> list[Reward]:
        """Rewards of a batch, awaited from any event loop (a trainer's own: verl's reward
        loop, TRL's async reward functions) without blocking it: the work runs on the
        scorer's loop, where every caller's samples share one admission gate
        (``concurrency``), one sandbox pool and the tasks' one-time set-up, and identical
        samples in flight are scored once (``coalesce``). Each sample keeps its own time
        budget, started when its turn comes."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            return await self._score_many(list(references), list(completions))
        return await asyncio.wrap_future(self.submit(references, completions))

    async def _score_many(self, references: list[Any], completions: list[str]) -> list[Reward]:
        if len(references) != len(completions):
            raise RewardConfigError(f"{len(references)} references for {len(completions)} completions")
        refs = [RewardReference.parse(r) for r in references]

        async def one(ref: RewardReference, text: str) -> Reward:
            async with self._gate:
                try:
                    return await self._one(ref, text)
                except (RewardConfigError, UserError):
                    raise  # the setup is wrong: no batch can be scored
                except Exception as exc:  # a tczoo bug costs this sample its reward, never a score
                    log.error("reward of %s/%s crashed:\n%s", ref.problem, ref.task, traceback.format_exc())
                    return self._counted(Reward(None, {"kind": ref.kind, "problem": ref.problem, "task": ref.task},
                                                f"internal_error: {type(exc).__name__}: {exc}"[:500]))

        async def shared(ref: RewardReference, text: str) -> Reward:
            """``one``, or the result of the identical sample already in flight: a task of
            its own (a caller that gives up does not cancel it for the others; its budget
            bounds it), each caller getting its own copy."""
            if not self.coalesce:
                return await one(ref, text)
            key = hashlib.sha256(f"{ref.dumps()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
            task = self._inflight.get(key)
            if task is None:
                task = asyncio.ensure_future(one(ref, text))
                self._inflight[key] = task
                task.add_done_callback(lambda _t, k=key: self._inflight.pop(k, None))
                task.add_done_callback(_swallow)
                return copy.deepcopy(await asyncio.shield(task))
            got = copy.deepcopy(await asyncio.shield(task))
            with self._guard:
                self.coalesced += 1
            return self._counted(got)

        if not refs:
            return []
        return list(await asyncio.gather(*(shared(r, c) for r, c in zip(refs, completions))))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()  # and its thread pool
        self._cluster.close()

    def __enter__(self) -> "RewardScorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ one sample

    async def _one(self, ref: RewardReference, completion: Any) -> Reward:
        started = time.monotonic()
        kind = get_kind(ref.kind)
        try:
            kind_params = kind.Params(**ref.kind_params)
        except ValidationError as exc:
            raise RewardConfigError(f"bad {ref.kind} params: {exc.errors()[0].get('msg')}") from None
        if not isinstance(completion, str):
            raise RewardConfigError(f"a completion must be text, not {type(completion).__name__}")
        entry = await asyncio.to_thread(self._entry, ref)
        # the budget starts now: a task's one-time set-up (another sample may be doing it) is not the sample's
        deadline = time.monotonic() + self.time_budget_s
        base = {"kind": kind.name, "problem": ref.problem, "task": ref.task, "method": ref.method}

        def done(score: float | None, reason: str = "", **parts: Any) -> Reward:
            return Reward(score, {**base, **parts}, reason, time.monotonic() - started)

        if entry.undefined:
            return self._counted(done(None, f"undefined: {entry.undefined}"))
        box = _Budgeted(self.sandbox, deadline)
        floor = kind.floor(kind_params)
        work = asyncio.ensure_future(self._generate_and_score(entry, ref, kind, kind_params, completion, box, done))
        try:
            # the whole call ends at the deadline: runs in flight were cut to it (_Budgeted),
            # and what is still going (a compile, a thread between runs) is left behind
            reward_ = await asyncio.wait_for(asyncio.shield(work), timeout=max(0.0, deadline - time.monotonic())
                                             + BUDGET_GRACE_S)
        except asyncio.TimeoutError:
            box.expired = True
            work.add_done_callback(_swallow)
            reward_ = done(floor, "time_budget: the completion's programs ran past the budget", budget_s=self.time_budget_s)
        except TimeBudgetExceeded:
            reward_ = done(floor, "time_budget: the completion's programs ran past the budget", budget_s=self.time_budget_s)
        return self._counted(reward_)

    async def _generate_and_score(self, entry: "_Entry", ref: RewardReference, kind: "Kind", kind_params: Any,
                                  completion: str, box: "_Budgeted", done: Callable[..., Reward]) -> Reward:
        """One sample's generation and scoring (``_one`` bounds it by the budget).

        A failure the completion's own programs cause -- no usable test, a crashing or
        sleeping generator or checker, tests every correct code fails, a scoring crash on
        its suite -- is the kind's floor, never "no reward": a policy must not escape a
        low reward by breaking something. "No reward" (None) is kept for causes outside
        the completion: the sandbox failing after retries (the host), a task for which the
        kind is undefined whatever the answer."""
        from tczoo.failures import generation_failure
        from tczoo.generation import generate_unit
        from tczoo.llm import LLMClient, LLMSettings
        from tczoo.llm.backends import OneAnswerBackend
        from tczoo.run import Unit, score_unit

        floor = kind.floor(kind_params)
        budget = "time_budget: the completion's programs ran past the budget"
        backend = OneAnswerBackend(completion, ref.prompt_sha)
        settings = LLMSettings(retries=0, cache=False, max_consecutive_errors=0, max_connections=1 << 16)
        client = LLMClient(COMPLETION_MODEL, settings, backend=backend)
        spec = entry.spec
        try:
            record = await generate_unit(entry.method, spec.task, name=ref.method, problem_id=entry.problem.id,
                                         task_key=spec.key, sample=spec.sample, attempt=0, client=client,
                                         sandbox=box, prompts=self.prompts)
        except TimeBudgetExceeded:
            return done(floor, budget, budget_s=self.time_budget_s)
        if backend.calls > 1:
            raise NotSingleTurn(f"method {ref.method} asked the model {backend.calls} times for one task; a reward "
                                "scores one completion: run it single-turn (Method.single_turn, docs/rl.md)")
        reasons = {f.reason for f in record.suite.provenance.failures if f.stage == "llm"}
        if "prompt_mismatch" in reasons:
            raise RewardConfigError(f"method {ref.method} now renders another prompt for {ref.problem} "
                                    f"task {ref.task!r} than the one exported (templates, params or tczoo changed): "
                                    "export the dataset again")
        if box.expired:
            return done(floor, budget, budget_s=self.time_budget_s)
        failure = generation_failure(record, scores_empty=entry.runner_cls.scores_empty_suites)
        if failure is not None:
            if failure.stage == "sandbox":  # the sandbox failed under the method after retries: the host's
                return done(None, f"infrastructure: {failure.reason}: {failure.detail[:300]}",
                            tests=len(record.suite.tests))
            return done(floor, f"generation_failed: {failure.stage}:{failure.reason}", tests=len(record.suite.tests))
        suite: TestSuite = record.suite
        extra = {}
        if len(suite.tests) > self.max_tests:
            extra["capped"] = len(suite.tests)
            suite.tests = suite.tests[: self.max_tests]
        runner = entry.runner_cls(box, **entry.runner_params)
        unit = Unit(ref.method, entry.method, runner, entry.problem, spec, strict_inputs=ref.strict_inputs)
        try:
            scored = await asyncio.to_thread(score_unit, unit, suite, COMPLETION_MODEL)
        except TimeBudgetExceeded:
            scored = None
        if scored is None or box.expired:
            return done(floor, budget, tests=len(suite.tests), budget_s=self.time_budget_s, **extra)
        if scored.error is not None:
            if scored.infrastructure:
                return done(None, f"infrastructure: {scored.error[:300]}", tests=len(suite.tests), **extra)
            log.error("scoring %s/%s crashed on a completion's suite (floor given): %s", ref.problem, ref.task,
                      scored.error[:300])
            return done(floor, f"scoring_error: {scored.error[:300]}", tests=len(suite.tests), **extra)
        screen = scored.input_check.model_dump() if scored.input_check is not None else None
        try:
            value, parts = kind.value(scored, kind_params)
        except (KeyError, ValueError, TypeError) as exc:
            log.error("the %s reward cannot read the %s record (floor given): %r", kind.name, ref.runner, exc)
            return done(floor, f"scoring_error: the {kind.name} reward cannot read the {ref.runner} record ({exc!r})")
        if value is None:
            reason = parts.pop("undefined", "")
            if parts.pop("completion_caused", False):  # the completion's tests broke what decides the value
                return done(floor, f"floor: {reason}", metrics=scored.metrics, inputs=screen, **parts, **extra)
            return done(None, f"undefined: {reason}", metrics=scored.metrics, inputs=screen, **parts, **extra)
        return done(value, "", metrics=scored.metrics, inputs=screen, **parts, **extra)

    def _counted(self, reward_: Reward) -> Reward:
        """Every reward counted by outcome (``counts``): scored, floor (and why), none (and why)."""
        if reward_.score is None:
            key = "none:" + (reward_.reason.split(":", 1)[0] or "unknown")
        elif reward_.reason:
            key = "floor:" + reward_.reason.split(":", 1)[0]
        else:
            key = "scored"
        with self._guard:
            self.counts[key] += 1
        return reward_

    # ------------------------------------------------------------------ tasks

    @property
    def prompts(self) -> Any:
        if self._prompts is None:
            from tczoo.templates import Prompts

            self._prompts = Prompts()
        return self._prompts

    def _lock(self, key: Any) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def problem(self, benchmark: str, problem_id: str) -> Problem:
        """One problem of a benchmark. Bundled problems and Kattis packages load one by
        one; any other benchmark is read whole once per process (its loader reads the
        whole file anyway) and kept, as ``tczoo run`` keeps it."""
        from tczoo.benchmarks import BUNDLED, load_benchmark

        spec = self.benchmarks.get(benchmark, benchmark)
        one_by_one = spec in BUNDLED or spec.strip().lower().startswith("kattis:")
        key = (spec, problem_id if one_by_one else None)
        with self._lock(("problem",) + key):
            if key not in self._problems:
                try:
                    loaded = load_benchmark(spec, [problem_id] if one_by_one else None, sandbox=self.sandbox)
                except (UserError, OSError) as exc:  # a missing package folder is a FileNotFoundError
                    raise RewardConfigError(f"cannot load problem {problem_id!r} of {spec!r} on this machine: {exc}"
                                            + ("" if spec != benchmark else
                                               " (a package must be at the same path on every reward worker, "
                                               "or mapped with benchmarks={spec: local spec})")) from None
                self._problems[key] = {p.id: p for p in loaded}
            found = self._problems[key].get(problem_id)
        if found is None:
            raise RewardConfigError(f"benchmark {spec!r} has no problem {problem_id!r}")
        return found

    def _entry(self, ref: RewardReference) -> _Entry:
        key = ref.task_key()
        with self._lock(("entry", key)):
            if key in self._entries:
                return self._entries[key]
            entry = build_entry(ref, self.problem(ref.benchmark, ref.problem), self.sandbox)
            entry.undefined = undefined_reason(entry, self.sandbox)
            self._entries[key] = entry
            return entry

def build_entry(ref: RewardReference, problem: Problem, sandbox: Any) -> _Entry:
    """The problem's task for ``ref``, built as ``tczoo run`` builds it."""
    from tczoo.registry import get_method, get_runner

    if ref.problem_sha is not None and problem_digest(problem) != ref.problem_sha:
        raise RewardConfigError(f"problem {ref.problem} of {ref.benchmark} differs from the one exported "
                                "(the benchmark changed): export the dataset again")
    kind = get_kind(ref.kind)
    if kind.runner != ref.runner:
        raise RewardConfigError(f"reward kind {ref.kind} scores with runner {kind.runner}, not {ref.runner}")
    method_cls = get_method(ref.method)
    runner_cls = get_runner(ref.runner)
    method_params = dict(ref.params.get(ref.method, {}))
    runner_params = dict(ref.params.get(f"runner:{ref.runner}", {}))
    try:
        method = method_cls(**method_params)
        runner = runner_cls(sandbox, **runner_params)
    except ValidationError as exc:
        raise RewardConfigError(f"bad params in the reward reference: {exc.errors()[0].get('msg')}") from None
    specs = runner.tasks(problem, method_cls, samples=ref.samples, seed=ref.seed)
    match = [s for s in specs if s.key == ref.task]
    if not match:
        known = ", ".join(repr(s.key) for s in specs[:6]) or "none"
        raise RewardConfigError(f"runner {ref.runner} has no task {ref.task!r} of method {ref.method} on "
                                f"{ref.problem} (it has {known})")
    return _Entry(ref, problem, method, runner_cls, runner_params, match[0])


def undefined_reason(entry: _Entry, sandbox: Any) -> str | None:
    """Why the kind has no reward for this task whatever the answer, or None: a probe
    scored without a budget -- the problem's own samples for a kind that says so (they
    are valid tests: a value undefined on them is undefined on anything), else an empty
    answer. It also does the task's one-time set-up (timing the accepted solutions,
    choosing validators: cached), so that it is not charged to the budget of the task's
    first sample."""
    from tczoo.run import Unit, score_unit
    from tczoo.schema import Provenance, TestCase

    ref = entry.ref
    kind = get_kind(ref.kind)
    produces = getattr(type(entry.method), "produces", None)
    suite = TestSuite(problem_id=entry.problem.id, provenance=Provenance(method=ref.method, model=COMPLETION_MODEL))
    what = "an empty answer"
    if kind.probe_samples and entry.problem.samples:
        suite.tests = [TestCase(input=s.input, output=s.output, origin="sample") for s in entry.problem.samples]
        what = "the problem's samples"
    elif produces is not None:
        suite.oracle.kind = produces
    runner = entry.runner_cls(sandbox, **entry.runner_params)
    record = score_unit(Unit(ref.method, entry.method, runner, entry.problem, entry.spec,
                             strict_inputs=ref.strict_inputs), suite, COMPLETION_MODEL)
    if record.error is not None:
        if record.infrastructure:
            return None  # the sandbox failed, not the task: its samples try again
        return f"scoring {what} failed: {record.error[:300]}"
    try:
        value, parts = kind.value(record, kind.Params(**ref.kind_params))
    except (KeyError, ValueError, TypeError) as exc:
        return f"the {kind.name} reward cannot read the {ref.runner} record ({exc!r})"
    return str(parts.get("undefined", "no value")) if value is None else None


# --------------------------------------------------------------------------- process-wide


_SCORERS: dict[str, RewardScorer] = {}
_SCORERS_GUARD = threading.Lock()


def scorer(**options: Any) -> RewardScorer:
    """The process's scorer for these options (made on first use, shared by every
    thread; the trainers' adapters use it). Options are ``RewardScorer``'s; absent ones
    come from the environment: ``TCZOO_RL_WORKERS``, ``TCZOO_RL_TIME_BUDGET_S``,
    ``TCZOO_RL_MAX_TESTS``, ``TCZOO_RL_CONCURRENCY``, ``TCZOO_RL_EXECUTOR`` (local|ray),
    ``TCZOO_RL_ADDRESS``, ``TCZOO_RL_BENCHMARKS`` (a JSON object), ``TCZOO_RL_RANKS`` (the
    reward processes on this node, when ``LOCAL_WORLD_SIZE`` does not say), ``TCZOO_RL_COALESCE``
    (0 turns off scoring identical samples in flight once)."""
    resolved = resolve_options(options)
    key = json.dumps(resolved, sort_keys=True, default=str)
    with _SCORERS_GUARD:
        if key not in _SCORERS:
            _SCORERS[key] = make_scorer(resolved)
        return _SCORERS[key]


def resolve_options(options: dict[str, Any]) -> dict[str, Any]:
    import os

    known = {"workers", "time_budget_s", "max_tests", "concurrency", "executor", "address", "benchmarks", "ranks",
             "coalesce"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise RewardConfigError(f"unknown reward option(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    out = dict(options)
    env = {"workers": int, "time_budget_s": float, "max_tests": int, "concurrency": int, "executor": str,
           "address": str, "benchmarks": json.loads, "ranks": int, "coalesce": _flag}
    for name, conv in env.items():
        raw = os.environ.get(f"TCZOO_RL_{name.upper()}")
        if out.get(name) is None and raw:
            try:
                out[name] = conv(raw)
            except ValueError as exc:
                raise RewardConfigError(f"TCZOO_RL_{name.upper()}={raw!r}: {exc}") from None
    return {k: v for k, v in out.items() if v is not None}


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected 1 or 0")


def make_scorer(options: dict[str, Any]) -> RewardScorer:
    from tczoo.distributed import execution_options

    opts = dict(options)
    execution = execution_options(opts.pop("executor", "local"), opts.pop("address", None), opts.get("workers"))
    return RewardScorer(execution=execution, **opts)


def reward(reference: Any, completion: str, **options: Any) -> Reward:
    """The reward of one completion (the process's scorer for ``options``)."""
    return scorer(**options).score(reference, completion)


def rewards(references: list[Any], completions: list[str], **options: Any) -> list[Reward]:
    """Rewards of a batch, in order."""
    return scorer(**options).score_many(references, completions)


async def areward(reference: Any, completion: str, **options: Any) -> Reward:
    """``reward`` awaited from any event loop (the scorer's own loop does the work)."""
    return (await arewards([reference], [completion], **options))[0]


async def arewards(references: list[Any], completions: list[str], **options: Any) -> list[Reward]:
    """``rewards`` awaited from any event loop: concurrent calls share the process's
    scorer, its admission gate and pool, and identical samples in flight are scored once."""
    found = await asyncio.to_thread(scorer, **options)  # the first call opens its pool: not on the caller's loop
    return await found.ascore_many(references, completions)


def close_scorers() -> None:
    with _SCORERS_GUARD:
        for s in _SCORERS.values():
            s.close()
        _SCORERS.clear()


__all__ = ["DEFAULT_MAX_TESTS", "DEFAULT_TIME_BUDGET_S", "KINDS", "Kind", "NotSingleTurn", "Reward",
           "RewardConfigError", "RewardReference", "RewardScorer", "areward", "arewards", "build_entry",
           "close_scorers", "get_kind", "kind_for_runner", "problem_digest", "reward", "rewards", "scorer"]
