"""What a runner is: it turns problems into tasks for a method, and scores the suites.

A runner declares ``name``, ``paper`` and ``summary``; ``tasks`` says what each method is
given (respecting the method's setting: a spec-only method never receives code),
``score`` scores one TestSuite, ``summarize`` aggregates score records into the rows of
its paper's table, ``matrices`` shows one record test by test (for the run browser).
Register one with an entry point in the ``tczoo.runners`` group.

A runner that decides which tests are valid reports how many in ``ScoreRecord.n_valid``;
the report counts problems with zero valid tests from it (from the suite's test count
when a runner does not say). A runner is built without a sandbox to read records
(``summarize``, ``label``, ``matrices`` use the records alone).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from tczoo.errors import UserError
from tczoo.schema import Problem, ScoreRecord, Setting, Task, TestSuite

if TYPE_CHECKING:
    from tczoo.method import Method
    from tczoo.sandbox import Sandbox


class RunnerParams(BaseModel):
    """A runner's knobs (``--params '{"runner:NAME": {...}}'``): a runner's own ``Params``
    subclasses it with the paper's defaults. Unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class TaskSpec:
    key: str  # unique within (method, problem); "" for the one task of a problem
    task: Task
    sample: int = 0  # which independent generation of the same task (see Context.sample_base)
    context: dict[str, Any] = field(default_factory=dict)  # runner-private (e.g. which wrong code)


@dataclass
class Matrix:
    """What programs did on a suite's tests, for the run browser (``tczoo view`` and
    ``tczoo show``): one row per program (or per check, such as validity), one cell per
    test. Column j shows ``suite.tests[tests[j]]``. A cell is ``[code, note]``: the code
    is a judge verdict (AC, WA, TLE, RE, MLE, OLE, CE, SE) or one of ``valid``,
    ``invalid``, ``slow``, ``tle``, ``crash``, ``no``, ``-`` (not run), ``?`` (not
    recorded) -- the browser colours these -- and the note says why, in words."""

    title: str
    tests: list[int]
    rows: list[tuple[str, list[list[str]]]]  # (row label, one [code, note] cell per column)
    notes: list[str] = field(default_factory=list)


@dataclass
class Table:
    """A result table: ``columns`` name the keys of each row, in display order."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    decimals: int = 1  # how floats are shown (TC-Bench's tables print two)


class Runner(ABC):
    """A scorer (see the module docstring). Subclasses set the class attributes and
    implement ``score`` and ``summarize``; the registry refuses an entry point that is
    not a subclass, and ``tczoo.testing.check_runner`` checks the rest."""

    name: ClassVar[str]
    paper: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    headline: ClassVar[str] = ""  # the metric the run browser shows per (method, problem), if any
    Params: ClassVar[type[RunnerParams]] = RunnerParams
    # Whether a suite without tests is a result to score (HarnessLLM counts a response
    # without a usable test as a format error) or a failed generation (the default).
    scores_empty_suites: ClassVar[bool] = False
    # Whether the suite's inputs are run as tests, so that the kernel screens them with
    # the problem's input check before ``score`` sees them (``score_suite``). A runner
    # that never runs a suite's inputs (a verdict runner; test-output prediction, whose
    # inputs come from the benchmark) says False.
    screens_inputs: ClassVar[bool] = True

    def __init__(self, sandbox: "Sandbox | None" = None, **params: Any):
        """``sandbox``: where ``score`` runs programs. A runner built without one reads
        records only (``summarize``, ``label``, ``matrices``: what ``tczoo report``,
        ``compare`` and ``view`` use), and says so if asked to score."""
        self._sandbox = sandbox
        self.params = self.Params(**params)

    @property
    def sandbox(self) -> "Sandbox":
        if self._sandbox is None:
            raise RuntimeError(f"runner {self.name} was built to read records (no sandbox): it cannot run programs")
        return self._sandbox

    def tasks(self, problem: Problem, method_cls: "type[Method]", *, samples: int, seed: int) -> list[TaskSpec]:
        """Default: ``samples`` independent tasks of the problem in the method's setting."""
        setting = method_cls.setting
        if setting is Setting.SPEC_TARGET:
            raise UserError(
                f"runner {self.name} has no program under test to give method {method_cls.name}"
            )
        if setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG) and not problem.solutions:
            return []
        budget = self.budget(problem)
        return [
            TaskSpec(
                key="" if samples == 1 else f"s{i}",
                task=Task.from_problem(problem, setting, budget=budget, seed=seed + i,
                                       fixes=getattr(method_cls, "shown_fixes", True)),
                sample=i,
            )
            for i in range(samples)
        ]

    def budget(self, problem: Problem) -> int:
        return 10

    @abstractmethod
    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        """One suite scored on one task: a record of this runner's metrics (a problem
        the runner cannot score raises ``UserError``; a sandbox that failed,
        ``InfrastructureFailure``)."""

    @abstractmethod
    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        """The paper's tables over the scored generations. Failed generations never
        reach it: the report adds their counts (and rows for cells where nothing
        succeeded) to every table with ``model`` and ``method`` columns, matching rows by
        ``label(method)``."""

    def cannot_score(self, suite: TestSuite) -> str | None:
        """Why this runner cannot score ``suite``, a suite another runner's method made
        (cross-scoring, ``tczoo compare --runners``), or None when it can. The default
        asks for tests; a runner that scores something else (a verdict) says so here."""
        return None if suite.tests else "the suite has no tests"

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """The per-test view of one score record, read from the record alone (no
        sandbox): which program did what on which test. None by default."""
        return []

    def label(self, method: str) -> str:
        """How a method is named in this runner's tables."""
        return method.upper()

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """(setting, what these records used) for a report's header, where the paper
        fixes a protocol that a run may follow only in part: reruns per code, responses
        per triplet, validators per problem, a choice made per problem. Read from the
        records alone (no sandbox); none by default."""
        return []

