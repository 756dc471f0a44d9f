"""Code-correctness rewards: a completion's program judged on a problem's tests in
tczoo's sandbox — the task verl's own local code reward (``prime_code``, for its
``codecontests``/``apps``/``taco`` data) and SandboxFusion do, held the way tczoo holds
every program.

    from tczoo.rl.code import CodeScorer
    with CodeScorer() as s:
        [r] = s.score_many([completion], [{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}])
        r.score   # 1.0 every test passed, 0.0 one failed (or the fraction: continuous=True); None: no reward

The tests are verl's ``ground_truth`` of such data: a JSON object (or its text) with
``inputs`` and ``outputs`` (stdin and expected stdout, one per test). The program is the
completion's last fenced block (```` ```python ````, ```` ```cpp ````, ```` ```java ````, ```` ```c ````; an
unlabelled fence is Python), else the whole completion, as verl's ``prime_code`` takes it.

Each test runs the program in its own sandboxed process under CPU-time, memory and
output limits (``time_limit_ms``, default 5 s: ``prime_code``'s per-test limit;
``memory_mb``, default 1024: SandboxFusion's default), and outputs are compared by
tokens (``comparator``, tczoo's output comparison). A program stops at its first failing
test unless ``continuous`` (then it runs every test and the score is the share passed).
Completions of the same tests judged together run as one ``SuiteJudge`` (rounds of tests
across the programs, so that every slot stays busy); identical programs are judged once.

**Batching across calls.** ``submit``/``ascore_many`` may be called from any thread or
event loop; what arrives within ``window_s`` (5 ms) is judged as one batch, so a trainer
that asks per completion (verl's reward managers do) still gets its completions of one
problem judged together.

**No reward** (``score`` None) is kept for what the program did not cause: the sandbox
failed a run after its retries (``infrastructure``), or there are no tests
(``undefined``). A compile error, a crash, a timeout, a wrong output: 0.
Call-based tests (``fn_name``) are refused with one line (not supported here).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from tczoo.rewards import RewardConfigError

DEFAULT_TIME_LIMIT_MS = 5000  # prime_code's per-test timeout (5 s) in its all-tests pass
DEFAULT_MEMORY_MB = 1024  # SandboxFusion's and verl's default memory_limit_mb
DEFAULT_WINDOW_S = 0.005  # how long a batch waits for more calls
DEFAULT_MAX_BATCH = 512

_FENCE = re.compile(r"```([A-Za-z0-9_+#-]*)[ \t]*\n(.*?)```", re.S)
_FENCE_LANGUAGES = {"": "python", "python": "python", "python3": "python", "py": "python", "cpp": "cpp",
                    "c++": "cpp", "cc": "cpp", "c": "c", "java": "java"}


def extract_program(completion: str) -> tuple[str, str]:
    """(language, code): the last fenced block whose label tczoo can run (an unlabelled
    one is Python), else the whole completion as Python."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(completion)]
    runnable = [(_FENCE_LANGUAGES[tag], code) for tag, code in blocks if tag in _FENCE_LANGUAGES]
    if runnable:
        return runnable[-1]
    return "python", completion


class CodeTests(BaseModel):
    """A problem's tests as verl's code data carries them."""

    model_config = ConfigDict(extra="ignore")

    inputs: list[str]
    outputs: list[str]
    fn_name: str | None = None

    @classmethod
    def parse(cls, value: Any) -> "CodeTests":
        if isinstance(value, CodeTests):
            return value
        if isinstance(value, (bytes, bytearray)):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise RewardConfigError(f"code tests are not JSON ({exc}): {value[:80]!r}") from None
        if not isinstance(value, dict):
            raise RewardConfigError(f"code tests must be a JSON object with inputs and outputs, not "
                                    f"{type(value).__name__}")
        try:
            tests = cls.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "tests"
            raise RewardConfigError(f"bad code tests: {where}: {first.get('msg', 'invalid')}") from None
        if tests.fn_name:
            raise RewardConfigError(f"call-based tests (fn_name {tests.fn_name!r}) are not supported by tczoo's code "
                                    "reward: stdin/stdout tests only")
        if len(tests.inputs) != len(tests.outputs):
            raise RewardConfigError(f"code tests: {len(tests.inputs)} inputs for {len(tests.outputs)} outputs")
        return tests

    def digest(self) -> str:
        h = hashlib.sha256()
        for text in (*self.inputs, "\0\0", *self.outputs):
            h.update(text.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()


@dataclass
class CodeResult:
    """``score`` None is no reward (``reason`` says why); ``verdicts``: one per test
    (``AC``, ``WA``, ``TLE``, ``RE``, ``MLE``, ``OLE``, ``SE``; ``""`` not run: it had stopped)."""

    score: float | None
    passed: bool | None = None
    verdicts: list[str] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "passed": self.passed, "verdicts": self.verdicts, "reason": self.reason,
                "seconds": round(self.seconds, 3)}


class CodeJudge:
    """Judges programs on tests in ``sandbox`` (synchronous; see ``CodeScorer``)."""

    def __init__(self, sandbox: Any, *, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
                 memory_mb: int = DEFAULT_MEMORY_MB, continuous: bool = False, comparator: str | None = None):
        from tczoo.sandbox.types import Limits

        try:
            self.limits = Limits(time_ms=time_limit_ms, memory_mb=memory_mb)
        except ValidationError as exc:
            raise RewardConfigError(f"bad code reward limits: {exc.errors()[0].get('msg')}") from None
        self.sandbox = sandbox
        self.continuous = bool(continuous)
        self.comparator = comparator

    def judge_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        if len(completions) != len(tests):
            raise RewardConfigError(f"{len(completions)} completions for {len(tests)} sets of tests")
        started = time.monotonic()
        parsed = [CodeTests.parse(t) for t in tests]
        groups: dict[str, list[int]] = {}
        for i, t in enumerate(parsed):
            groups.setdefault(t.digest(), []).append(i)
        out: list[CodeResult | None] = [None] * len(completions)

        def one_group(indices: list[int]) -> None:
            results = self._judge_group(parsed[indices[0]], [completions[i] for i in indices])
            for i, r in zip(indices, results):
                out[i] = r

        workers = max(1, min(len(groups), int(getattr(self.sandbox, "workers", 1))))
        if workers == 1:
            for indices in groups.values():
                one_group(indices)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tczoo-code") as pool:
                for f in [pool.submit(one_group, idx) for idx in groups.values()]:
                    f.result()
        took = time.monotonic() - started
        for r in out:
            assert r is not None
            r.seconds = took
        return out  # type: ignore[return-value]

    def _judge_group(self, tests: CodeTests, completions: list[str]) -> list[CodeResult]:
        from tczoo.execution.judge import SuiteJudge
        from tczoo.schema import Language, Oracle, OracleKind, Problem, Program, TestCase

        if not tests.inputs:
            return [CodeResult(None, reason="undefined: no tests") for _ in completions]
        problem = Problem(id=f"code-{tests.digest()[:16]}", statement="", time_limit_ms=self.limits.time_ms,
                          memory_limit_mb=self.limits.memory_mb, checker=self.comparator)
        cases = [TestCase(input=i, output=o) for i, o in zip(tests.inputs, tests.outputs)]
        judge = SuiteJudge(self.sandbox, problem, cases, Oracle(kind=OracleKind.EXPECTED_OUTPUT), limits=self.limits)
        programs: dict[tuple[str, str], int] = {}  # identical programs are judged once
        order = []
        for text in completions:
            language, code = extract_program(text)
            order.append(programs.setdefault((language, code), len(programs)))
        judged = judge.judge([Program(code=code, language=Language(language), name="completion")
                              for language, code in programs], stop_on=() if self.continuous else None)
        results = [self._result(j, len(cases)) for j in judged]
        return [CodeResult(results[k].score, results[k].passed, list(results[k].verdicts), results[k].reason)
                for k in order]

    def _result(self, judgement: Any, n: int) -> CodeResult:
        verdicts = list(judgement.verdicts)
        if judgement.cannot_run:
            return CodeResult(0.0, False, verdicts, f"cannot_run: {judgement.cannot_run[:300]}")
        status = judgement.status
        if status == "undetermined":
            return CodeResult(None, None, verdicts, "infrastructure: the sandbox failed a run: "
                              + "; ".join(str(v) for v in judgement.notes.values())[:300])
        passed = status == "accept"
        if self.continuous:
            if "SE" in verdicts:
                return CodeResult(None, None, verdicts, "infrastructure: the sandbox failed a run")
            return CodeResult(sum(v == "AC" for v in verdicts) / n, passed, verdicts)
        return CodeResult(1.0 if passed else 0.0, passed, verdicts)


class Batcher:
    """Items handed in from any thread or event loop, passed on in batches: what arrives
    within ``window_s`` of a batch's first item (or ``max_batch`` items) goes to
    ``fn(items) -> results`` (in order, run in a thread); each caller gets its own items'
    results. Several batches may be in flight at once (``threads``)."""

    def __init__(self, fn: Callable[[list[Any]], list[Any]], *, window_s: float = DEFAULT_WINDOW_S,
                 max_batch: int = DEFAULT_MAX_BATCH, threads: int = 4, name: str = "tczoo-batch"):
        self.fn = fn
        self.window_s = max(0.0, float(window_s))
        self.max_batch = max(1, int(max_batch))
        self.batches = 0  # batches passed on
        self.items = 0  # items in them
        self._pending: list[tuple[Any, asyncio.Future[Any]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.new_event_loop()
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix=name))
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self._closed = False

    def submit(self, items: list[Any]) -> "Future[list[Any]]":
        if self._closed:
            raise RuntimeError("closed")
        return asyncio.run_coroutine_threadsafe(self._enqueue(list(items)), self._loop)

    async def asubmit(self, items: list[Any]) -> list[Any]:
        return await asyncio.wrap_future(self.submit(items))

    async def _enqueue(self, items: list[Any]) -> list[Any]:
        futures = []
        for item in items:
            f: asyncio.Future[Any] = self._loop.create_future()
            self._pending.append((item, f))
            futures.append(f)
        if len(self._pending) >= self.max_batch:
            self._flush()
        elif self._timer is None and self._pending:
            self._timer = self._loop.call_later(self.window_s, self._flush)
        return list(await asyncio.gather(*futures))

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._pending:
            batch, self._pending = self._pending[:self.max_batch], self._pending[self.max_batch:]
            self.batches += 1
            self.items += len(batch)
            work = self._loop.run_in_executor(None, self.fn, [b[0] for b in batch])
            work.add_done_callback(lambda done, batch=batch: _settle(done, [b[1] for b in batch]))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()


def _settle(done: "asyncio.Future[list[Any]]", futures: list["asyncio.Future[Any]"]) -> None:
    exc = None if done.cancelled() else done.exception()
    results = done.result() if not done.cancelled() and exc is None else None
    if results is not None and len(results) != len(futures):
        exc = RuntimeError(f"a batch of {len(futures)} items gave {len(results)} results")
    for i, f in enumerate(futures):
        if f.done():
            continue
        if done.cancelled():
            f.cancel()
        elif exc is not None:
            f.set_exception(exc)
        else:
            f.set_result(results[i])  # type: ignore[index]


class CodeScorer:
    """``CodeJudge`` behind a ``Batcher``: any thread or event loop may ask; what arrives
    within ``window_s`` is judged as one batch. The pool is this process's share of the
    machine (``tczoo.machine``) unless ``workers`` or a ``sandbox`` is given."""

    def __init__(self, *, sandbox: Any = None, workers: int | None = None, ranks: int | None = None,
                 time_limit_ms: int = DEFAULT_TIME_LIMIT_MS, memory_mb: int = DEFAULT_MEMORY_MB,
                 continuous: bool = False, comparator: str | None = None, window_s: float = DEFAULT_WINDOW_S,
                 max_batch: int = DEFAULT_MAX_BATCH):
        from tczoo.machine import machine_share
        from tczoo.sandbox import Sandbox

        self.share = None
        self._own = sandbox is None
        if sandbox is None:
            if workers is None:
                try:
                    self.share = machine_share(ranks)
                except ValueError as exc:
                    raise RewardConfigError(str(exc)) from None
                workers = self.share.workers
            sandbox = Sandbox(workers=workers)
        self.sandbox = sandbox
        self.judge = CodeJudge(sandbox, time_limit_ms=time_limit_ms, memory_mb=memory_mb, continuous=continuous,
                               comparator=comparator)
        self._batcher = Batcher(lambda items: self.judge.judge_many([i[0] for i in items], [i[1] for i in items]),
                                window_s=window_s, max_batch=max_batch,
                                threads=2 + int(getattr(sandbox, "workers", 1)), name="tczoo-code")

    @property
    def batches(self) -> int:
        return self._batcher.batches

    def score_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        return self.submit(completions, tests).result()

    def submit(self, completions: list[str], tests: list[Any]) -> "Future[list[CodeResult]]":
        if len(completions) != len(tests):
            raise RewardConfigError(f"{len(completions)} completions for {len(tests)} sets of tests")
        parsed = [CodeTests.parse(t) for t in tests]  # a bad set is the caller's error, raised here
        return self._batcher.submit(list(zip(completions, parsed)))

    async def ascore_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        return await asyncio.wrap_future(self.submit(completions, tests))

    def close(self) -> None:
        self._batcher.close()
        if self._own:
            self.sandbox.close()

    def __enter__(self) -> "CodeScorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_SCORERS: dict[str, CodeScorer] = {}
_GUARD = threading.Lock()


def code_scorer(**options: Any) -> CodeScorer:
    """The process's ``CodeScorer`` for these options (made on first use)."""
    known = {"workers", "ranks", "time_limit_ms", "memory_mb", "continuous", "comparator", "window_s", "max_batch"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise RewardConfigError(f"unknown code reward option(s) {', '.join(unknown)} "
                                f"(known: {', '.join(sorted(known))})")
    key = json.dumps(options, sort_keys=True, default=str)
    with _GUARD:
        if key not in _SCORERS:
            _SCORERS[key] = CodeScorer(**options)
        return _SCORERS[key]


def close_code_scorers() -> None:
    with _GUARD:
        for s in _SCORERS.values():
            s.close()
        _SCORERS.clear()


__all__ = ["Batcher", "CodeJudge", "CodeResult", "CodeScorer", "CodeTests", "close_code_scorers", "code_scorer", "extract_program"]
