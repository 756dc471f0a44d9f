"""The data every part of tczoo passes around, as pydantic v2 models.

One schema serves every benchmark, method and runner:

    Problem ──> Task (what a method may see) ──> Method ──> TestSuite ──> Runner ──> records

All models round-trip through JSON (``model_dump_json`` / ``model_validate_json``).
"""

from __future__ import annotations

import hashlib
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

MAX_TIME_MS = 24 * 3600 * 1000  # a day: the sandbox's bound (tczoo.sandbox.types.DAY_MS)
MAX_MEMORY_MB = 1 << 20  # a TiB: the sandbox's bound (tczoo.sandbox.types.TB_MB)


class Model(BaseModel):
    """Base for every tczoo model: unknown fields are an error, not silently dropped, and
    a number is finite: NaN and Infinity (or a string such as ``"NaN"`` or ``"1e999"``,
    which pydantic would turn into one) are refused, in a record read back as in one made
    (docs/security.md)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


# --------------------------------------------------------------------------- programs


class Language(str, Enum):
    CPP = "cpp"
    C = "c"
    PYTHON = "python"
    JAVA = "java"
    # Contest languages beside them (issue 48): each needs its compiler or interpreter on
    # this machine (scripts/install.sh, ``tczoo doctor``); where it is missing, a program in
    # it cannot run, which every report counts and shows.
    KOTLIN = "kotlin"
    HASKELL = "haskell"
    RUST = "rust"
    GO = "go"
    PYPY = "pypy"  # Python 3 code run by PyPy (the Kattis format's Python 3)
    PYTHON2 = "python2"  # Python 2 code (PyPy's Python 2, else CPython 2, where installed)

    @classmethod
    def parse(cls, text: str) -> "Language":
        """Accept the spellings benchmarks use (``C++``, ``cpp17``, ``Python3``, ``py`` ...)."""
        key = text.strip().lower().replace(" ", "")
        aliases = {
            "c++": "cpp", "cpp": "cpp", "cpp11": "cpp", "cpp14": "cpp", "cpp17": "cpp",
            "cpp20": "cpp", "c++11": "cpp", "c++14": "cpp", "c++17": "cpp", "c++20": "cpp",
            "gnuc++": "cpp", "cc": "cpp", "cxx": "cpp",
            "c": "c", "gnuc": "c", "c11": "c", "c99": "c",
            "python": "python", "python3": "python", "py": "python", "py3": "python",
            "pypy": "pypy", "pypy3": "pypy",
            "python2": "python2", "py2": "python2", "pypy2": "python2",
            "java": "java", "java8": "java", "java11": "java", "java17": "java",
            "kotlin": "kotlin", "kt": "kotlin",
            "haskell": "haskell", "hs": "haskell", "ghc": "haskell",
            "rust": "rust", "rs": "rust",
            "go": "go", "golang": "go",
        }
        if key not in aliases:
            raise ValueError(f"unknown language {text!r} (known: {', '.join(m.value for m in cls)})")
        return cls(aliases[key])

    @property
    def suffix(self) -> str:
        return {"cpp": ".cpp", "c": ".c", "python": ".py", "java": ".java", "kotlin": ".kt", "haskell": ".hs",
                "rust": ".rs", "go": ".go", "pypy": ".py", "python2": ".py"}[self.value]

    @property
    def python(self) -> bool:
        """Python source (run by an interpreter from its source: CPython 3, PyPy, Python 2)."""
        return self in (Language.PYTHON, Language.PYPY, Language.PYTHON2)


class Program(Model):
    """Source code plus the language it is written in."""

    code: str
    language: Language
    name: str = ""  # e.g. "accepted/fast.cpp", "generator-2"; for humans and records
    flags: list[str] | None = None  # compiler flags; None = the sandbox's defaults
    meta: dict[str, Any] = Field(default_factory=dict)  # bug description, runtime rank...
    # The file name the program is compiled and run under, as a judge would (a Kattis
    # submission's own name: ``paul.py`` runs as ``paul.py``, ``Paul.java`` holds class
    # Paul, ``solve.kt`` runs as ``SolveKt``); None: the sandbox's own (``main.py`` ...).
    file: str | None = None
    # The other files of a program of several files (a folder under ``submissions/``),
    # by path relative to ``file``'s folder: compiled with it, or beside it in the run
    # directory for an interpreter.
    files: dict[str, str] | None = None

    @model_serializer(mode="wrap")
    def _without_unset_files(self, handler: Any) -> Any:
        # A program without file names dumps as it did before they existed (records and
        # replays stay byte for byte what they were).
        data = handler(self)
        if isinstance(data, dict):
            for key in ("file", "files"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        for part in (self.language.value, " ".join(self.flags or []), self.code):
            h.update(part.encode())
            h.update(b"\0")
        if self.file is not None or self.files:
            h.update((self.file or "").encode() + b"\0")
            for path, text in sorted((self.files or {}).items()):
                h.update(path.encode() + b"\0" + text.encode() + b"\0")
        return h.hexdigest()


# --------------------------------------------------------------------------- problems


class Sample(Model):
    input: str
    output: str


class FailureSignature(Model):
    """How a wrong program fares on a problem's golden tests (computed by our judge)."""

    verdicts: list[str]  # one verdict per golden test, in test order ("AC", "WA", ...)

    @property
    def bits(self) -> list[int]:
        return [0 if v == "AC" else 1 for v in self.verdicts]


class WrongProgram(Program):
    signature: FailureSignature | None = None


class Validator(Model):
    """A problem's own validator program, run under the Kattis/ICPC validator protocols.

    Output validator: ``program input answer feedback_dir/ [args...] < team_output``;
    input validator: ``program [args...] < input``. Exit code 42 accepts, 43 rejects;
    any other outcome of an *output* validator (another exit code, a crash, a timeout)
    is the validator's failure, a judge error (SE), never the judged program's WA.
    """

    program: Program
    args: list[str] = Field(default_factory=list)  # e.g. the package's validator_flags
    time_limit_ms: int = Field(60_000, gt=0, le=MAX_TIME_MS)  # the format's validation_time default (60 s)
    memory_limit_mb: int = Field(1024, gt=0, le=MAX_MEMORY_MB)  # problemtools' validation_memory default
    # An interactive problem's output validator is the program's interactor: it judges by
    # talking to the program (``Sandbox.interact``), never an output after the fact, which
    # the sandbox refuses (a runner that compares outputs cannot score such a problem).
    interactive: bool = False

    @model_serializer(mode="wrap")
    def _without_default_interactive(self, handler: Any) -> Any:
        data = handler(self)  # (a validator of a non-interactive problem dumps as it always did)
        if isinstance(data, dict) and not data.get("interactive"):
            data.pop("interactive", None)
        return data


def _check_validator_checker(model: "Problem | Task") -> None:
    """An output validator and the comparator must agree: with a validator the checker
    is ``"program"`` (so no string comparison silently stands in for it), and
    ``"program"`` needs a validator."""
    if model.output_validator is not None and model.checker in (None, ""):
        model.checker = "program"
    if model.output_validator is not None and model.checker != "program":
        raise ValueError(f"a problem with an output validator has checker 'program', not {model.checker!r}")
    if model.checker == "program" and model.output_validator is None:
        raise ValueError("checker 'program' needs the problem's output_validator")


class GoldenTest(Model):
    input: str
    output: str
    name: str = ""


class Problem(Model):
    id: str
    title: str = ""
    statement: str
    # A benchmark file states these: refused out of range when it is loaded (the
    # sandbox's own bounds), never a verdict on every program later
    time_limit_ms: int = Field(2000, gt=0, le=MAX_TIME_MS)
    memory_limit_mb: int = Field(256, gt=0, le=MAX_MEMORY_MB)
    # False: the data state no limits, and the two above are the loader's stand-ins
    # (never shown to a model as the problem's limits; runners report them)
    limits_given: bool = True
    samples: list[Sample] = Field(default_factory=list)
    solutions: list[Program] = Field(default_factory=list)  # accepted
    wrong_solutions: list[WrongProgram] = Field(default_factory=list)
    golden_tests: list[GoldenTest] = Field(default_factory=list)
    rank: int | None = None  # TC-Bench: rank of the code-test matrix (test budget unit)
    entry_point: str | None = None  # functional (call-based) problems: the function name
    checker: str | None = None  # output comparison: None/"tokens", "exact", "float:1e-6", "kattis:..."
    # The problem's output validator ("checker: program"): every judgement of an output
    # goes through it (Sandbox.judge / Sandbox.validate_output) instead of a comparator.
    output_validator: Validator | None = None
    # Jury input validators (checktestdata converted to Python, or programs): all must
    # accept an input for it to be valid (tczoo.sandbox.validators.input_valid).
    input_validators: list[Validator] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    source: str = ""  # benchmark name
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _validator_is_the_checker(self) -> "Problem":
        _check_validator_checker(self)
        return self

    @property
    def interactive(self) -> bool:
        """Whether the problem is interactive, as its tags say (Codeforces' and so
        CodeContests' ``interactive`` tag; a Kattis package's ``interactive`` keyword)."""
        return any(str(t).strip().lower() == "interactive" for t in self.tags)


# --------------------------------------------------------------------------- tasks


class Setting(str, Enum):
    """What a method is allowed to see (the papers' settings)."""

    SPEC = "spec"  # statement only (CRUX, PSEUDO, ALGO, STAB, TRAILS ...)
    SPEC_CORRECT = "spec+correct"  # + accepted solution(s) (LCB, HT, EvalPerf, HardTestGen)
    SPEC_TARGET = "spec+target"  # + the program under test (HarnessLLM)
    # + accepted solutions + part of the wrong submissions, each with a corrected version
    # (SAGA's differential analysis); the other part is held out for scoring
    SPEC_CORRECT_WRONG = "spec+correct+wrong"


# Of a problem's wrong submissions, the share a spec+correct+wrong method is shown
# (rounded down, so at least as many stay held out for scoring as are shown).
SHOWN_WRONG_SHARE = 0.5


class WrongPair(Model):
    """A wrong submission and a corrected version of it, as a method may see them."""

    wrong: Program
    fixed: Program | None = None  # None: the problem has no accepted solution to pair it with


def shown_wrong(problem: "Problem", share: float = SHOWN_WRONG_SHARE) -> list["WrongProgram"]:
    """The wrong submissions of ``problem`` a spec+correct+wrong method is shown: the
    first ``floor(share * n)`` in an order fixed by each program's hash (so the split
    does not depend on the order a loader lists them in, and every runner and every run
    draws the same ones). The rest are the held-out submissions a runner scores on."""
    if not 0 <= share <= 1:
        raise ValueError(f"share {share} is not in [0, 1]")
    order = sorted(problem.wrong_solutions,
                   key=lambda w: hashlib.sha256(f"{problem.id}\0{w.digest}".encode()).hexdigest())
    return order[: int(share * len(order))]


def fix_for(wrong: "Program", solutions: list["Program"]) -> "Program | None":
    """The accepted solution that stands for ``wrong``'s corrected version: the one its
    ``meta["fixed"]`` names, else the most similar one by lines (same language first).
    Benchmarks rarely keep the submitter's own next accepted submission (the pair SAGA
    analyses), so the closest accepted program stands in for it."""
    if not solutions:
        return None
    named = wrong.meta.get("fixed")
    if named:
        for s in solutions:
            if s.name == named or s.name.rsplit("/", 1)[-1] == named:
                return s
    import difflib

    lines = wrong.code.splitlines()

    def closeness(s: "Program") -> tuple[bool, float, str]:
        return (s.language == wrong.language,
                difflib.SequenceMatcher(None, lines, s.code.splitlines(), autojunk=False).ratio(), s.digest)

    return max(solutions, key=closeness)


class Task(Model):
    """What a method is given: the problem's public face plus what its setting allows."""

    problem_id: str
    title: str = ""
    statement: str
    time_limit_ms: int
    memory_limit_mb: int
    limits_given: bool = True  # see Problem.limits_given
    samples: list[Sample] = Field(default_factory=list)
    entry_point: str | None = None
    checker: str | None = None  # how outputs compare (the problem's comparator)
    output_validator: Validator | None = None  # the problem's output validator, when it has one
    setting: Setting
    correct_programs: list[Program] = Field(default_factory=list)
    target: Program | None = None
    wrong_pairs: list[WrongPair] = Field(default_factory=list)  # spec+correct+wrong only
    # the problem is interactive (a Codeforces/Kattis "interactive" tag): a judge needs an
    # interactor the zoo does not have, so a method that writes stdin tests says so and stops
    interactive: bool = False
    # a function-level problem's input contract, when its benchmark states one (HumanEval+'s
    # ``contract``: assert lines that reject arguments outside the problem's domain, placed
    # between the prompt and the solution's body): part of the specification
    contract: str | None = None
    budget: int = 10  # how many tests the runner wants
    seed: int = 0
    # Test inputs whose outputs the method is asked to predict (test-output prediction,
    # LiveCodeBench): chosen by the runner from the problem's tests; their outputs are
    # never given. A query the method cannot put to the model (not a call's arguments)
    # comes back as a test with no output and meta[UNPOSED]: left out, counted apart
    queries: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _setting_limits_what_is_given(self) -> "Task":
        _check_validator_checker(self)
        if self.setting is Setting.SPEC and (self.correct_programs or self.target):
            raise ValueError("a spec-only task must not carry programs")
        if self.setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG) and self.target is not None:
            raise ValueError(f"a {self.setting.value} task must not carry a program under test")
        if self.setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG) and not self.correct_programs:
            raise ValueError(f"a {self.setting.value} task needs at least one correct program")
        if self.setting is Setting.SPEC_TARGET and self.target is None:
            raise ValueError("a spec+target task needs the program under test")
        if self.wrong_pairs and self.setting is not Setting.SPEC_CORRECT_WRONG:
            raise ValueError(f"a {self.setting.value} task must not carry wrong submissions")
        return self

    def shown_programs(self) -> set[str]:
        """Digests (``Program.digest``) of the programs this task shows its method as
        material — correct programs, wrong submissions and their corrected versions: a
        runner that scores a suite against labelled submissions leaves these out, so that
        a method is never scored on the very programs it studied. The program under test
        of a spec+target task is not among them: a suite written against it is meant to
        be scored on it (bug finding, Fault Exposure)."""
        shown = list(self.correct_programs)
        for pair in self.wrong_pairs:
            shown += [pair.wrong, *([pair.fixed] if pair.fixed else [])]
        return {p.digest for p in shown}

    @classmethod
    def from_problem(
        cls,
        problem: Problem,
        setting: Setting,
        *,
        budget: int = 10,
        seed: int = 0,
        correct: list[Program] | None = None,
        target: Program | None = None,
        fixes: bool = True,
    ) -> "Task":
        """Build the task for ``setting``; never hands over more than the setting allows.
        A spec+correct+wrong task shows the wrong submissions ``shown_wrong`` picks, each
        paired with its stand-in correction (``fix_for``; ``fixes=False``: the wrong
        submissions alone, for a method that never reads a correction — CodeContests-O —
        so that no accepted program is shown, and held out of scoring, for nothing), all
        neutralised."""
        correct_programs = (correct if correct is not None else problem.solutions) \
            if setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG) else []
        pairs = []
        if setting is Setting.SPEC_CORRECT_WRONG:
            for w in shown_wrong(problem):
                fixed = fix_for(w, problem.solutions) if fixes else None
                pairs.append(WrongPair(wrong=neutral(w, "wrong"), fixed=neutral(fixed, "fixed") if fixed else None))
        return cls(
            problem_id=problem.id,
            title=problem.title,
            statement=problem.statement,
            time_limit_ms=problem.time_limit_ms,
            memory_limit_mb=problem.memory_limit_mb,
            limits_given=problem.limits_given,
            samples=problem.samples,
            entry_point=problem.entry_point,
            checker=problem.checker,
            output_validator=problem.output_validator,
            setting=setting,
            correct_programs=correct_programs,
            target=neutral(target) if setting is Setting.SPEC_TARGET and target is not None else None,
            wrong_pairs=pairs,
            interactive=problem.interactive,
            contract=problem.meta.get("contract") if isinstance(problem.meta.get("contract"), str) else None,
            budget=budget,
            seed=seed,
        )


def neutral(program: Program, name: str = "target") -> Program:
    """A program as a method may see it: code, language and flags, nothing that names or
    describes it (a wrong solution's name and meta tell its bug; so may its file name, which
    it runs without: its other files stay, as the program needs them)."""
    return Program(code=program.code, language=program.language, name=name, flags=program.flags,
                   files=program.files)


# --------------------------------------------------------------------------- test suites


class OracleKind(str, Enum):
    """What decides whether a program's output on a test is right."""

    EXPECTED_OUTPUT = "expected_output"  # each TestCase carries its expected output
    REFERENCE_PROGRAM = "reference_program"  # outputs come from running a program
    CHECKER_PROGRAM = "checker_program"  # a program judges (input, output) pairs
    LLM_JUDGE = "llm_judge"  # an LLM judges (TRAILS)
    INPUTS_ONLY = "inputs_only"  # no oracle: the inputs are the product (STAB, EvalPerf)

    @property
    def judges_programs(self) -> bool:
        """Whether a program's output can be checked by running code (no LLM)."""
        return self in (OracleKind.EXPECTED_OUTPUT, OracleKind.REFERENCE_PROGRAM, OracleKind.CHECKER_PROGRAM)


class TestCase(Model):
    __test__ = False  # not a pytest class

    input: str
    output: str | None = None  # expected output, when the oracle provides one
    origin: str = ""  # which generator / prompt / strategy produced it
    meta: dict[str, Any] = Field(default_factory=dict)


# TestCase.meta key of a method that augments a suite of its own (CodeHacker's hacks added to
# its stress tests): True on the tests it started from, which come first in the suite, False
# on the ones it added; the agreement runner then reports the base tests' TPR/TNR beside the
# whole suite's (how much the additions raise the TNR).
BASE_TEST = "base"


def input_key(text: str, functional: bool = False) -> str:
    """When two test inputs are the same test: JSON arguments (functional problems)
    exactly, stdin text up to whitespace runs."""
    return text if functional else " ".join(text.split())


def dedupe(tests: list[TestCase], functional: bool = False) -> list[TestCase]:
    """Drop repeated inputs (``input_key``), keeping the first occurrence."""
    seen: set[str] = set()
    kept = []
    for t in tests:
        key = input_key(t.input, functional)
        if key not in seen:
            seen.add(key)
            kept.append(t)
    return kept


def interleave(groups: list[list[TestCase]], limit: int) -> list[TestCase]:
    """Round-robin over the groups until ``limit`` tests are taken (keeps every source
    represented when the budget cuts the list)."""
    out: list[TestCase] = []
    i = 0
    while len(out) < limit and any(i < len(g) for g in groups):
        for g in groups:
            if i < len(g) and len(out) < limit:
                out.append(g[i])
        i += 1
    return out


class Oracle(Model):
    kind: OracleKind
    program: Program | None = None  # reference or checker program
    judge_prompt: str | None = None  # LLM judge: the template name it uses

    @model_validator(mode="after")
    def _program_when_needed(self) -> "Oracle":
        needs = {OracleKind.REFERENCE_PROGRAM, OracleKind.CHECKER_PROGRAM}
        if self.kind in needs and self.program is None:
            raise ValueError(f"oracle {self.kind.value} needs a program")
        return self


class Usage(Model):
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    failures: int = 0

    def add(self, other: "Usage") -> "Usage":
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            failures=self.failures + other.failures,
        )


class Failure(Model):
    """Something that went wrong and cost part of the result; never silently dropped."""

    stage: str  # "llm", "parse", "generator", "validator", "oracle", ...
    reason: str  # short machine-friendly reason ("no_code_block", "timeout", ...)
    detail: str = ""  # human detail, truncated
    item: str = ""  # which generator / sample / call


class Provenance(Model):
    method: str
    model: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    usage: Usage = Field(default_factory=Usage)
    failures: list[Failure] = Field(default_factory=list)
    exchanges: list[str] = Field(default_factory=list)  # cache keys of the LLM calls made


class GeneratorSpec(Model):
    """How a generator program is called, so that a runner can call it again with new
    seeds (HarnessLLM's re-seeded scaling) exactly as the method did.

    Call ``i`` of ``function`` seeds ``random`` with ``tczoo.execution.call_seed(seed,
    names[function], i)`` (the generator's name; the function's own name when absent);
    the method made calls ``0 .. calls[function] - 1``."""

    functions: list[str]
    names: dict[str, str] = Field(default_factory=dict)
    returns: Literal["one", "list"] = "one"  # one input per call, or a list of inputs per call
    seed: int = 0
    calls: dict[str, int] = Field(default_factory=dict)
    per_call: int | None = None  # inputs kept from one call's list (the first ones)
    strings_only: bool = False  # stdin inputs must be strings (no structured values)
    keep_blank: bool = False  # a blank input is a test (else dropped as empty_input)
    time_ms: int = 5000  # CPU time per call
    memory_mb: int = 1024


UNPOSED = "unposed"  # a TestCase meta key: the method could not ask this query (Task.queries), and why
CANDIDATE_ROLE = "candidate"  # an Artifact role: a candidate solution the method sampled (CodeT)
# Program.meta key of a CANDIDATE_ROLE artifact: True on the candidate the method selected itself
# (S*: its own pairwise comparisons pick one); a selection runner reports that pick beside its own
SELECTED = "selected"
# an Artifact role: the program under test as the method repaired it, one artifact per debugging
# round in order (UTDebug); Program.meta["round"] says which, and a runner judges each on the golden tests
REPAIRED_ROLE = "repaired"


class Artifact(Model):
    """A program a method wrote along the way (generator, validator, oracle, harness);
    role ``CANDIDATE_ROLE``: a candidate solution of the problem it sampled, for a
    selection runner to rank (``Method.samples_candidates``)."""

    role: str
    program: Program
    ok: bool = True
    note: str = ""
    generator: GeneratorSpec | None = None  # set when the program makes inputs


class CodeVerdict(Model):
    """A method's judgement of whether the program under test is correct (TRAILS, its
    CoT and HoarePrompt baselines, any plugin verifier). A suite that carries one is
    scored by the ``verdict`` runner (MCC, P4, stability), whatever method made it.

    ``correct`` is the method's own decision; None means it reached none (``reason``
    says why) and the runner counts it as undecided, never as a label. ``score`` is the
    graded confidence in [0, 1] a thresholding method decides from (TRAILS: the share of
    (input, output) pairs judged CORRECT); the runner re-decides it at each threshold it
    reports. A binary verdict has no score."""

    correct: bool | None = None
    score: float | None = Field(None, ge=0.0, le=1.0)
    threshold: float | None = Field(None, ge=0.0, le=1.0)  # the cut behind ``correct`` (score > threshold)
    reason: str = ""  # how it was reached: "judged", "early_stop", "unparsed", ...
    judgements: int = 0  # how many model judgements it rests on
    detail: dict[str, Any] = Field(default_factory=dict)  # the method's own evidence (scenarios, annotations ...)

    def label(self, threshold: float | None = None) -> bool | None:
        """The decision at ``threshold``: a graded verdict says correct when its score is
        above it (TRAILS Figure 2: |CORRECT| share > threshold); a binary one, or no
        threshold, gives the method's own decision."""
        if threshold is None or self.score is None:
            return self.correct
        return self.score > threshold


class RoundProgram(Model):
    """A program an agent wrote (or kept) in one round, as that round's record holds it."""

    role: str  # generator, validator, checker
    name: str  # generator@r2, validator-c1 ...
    code: str
    commands: list[str] = Field(default_factory=list)  # a generator's commands ("bucket: args"), in order
    selected: bool = True  # among candidates: the one the round kept
    score: float | None = None  # among candidates: what selected it (accuracy on the probes ...)


class AgentRound(Model):
    """One round of an agent loop (``tczoo.agent``): what it wrote, what running it
    showed, what changed against the round before. Data on the suite, so that
    ``tczoo show`` and ``tczoo view`` can replay an agent's work round by round."""

    round: int  # 1, 2, ... over the whole loop
    step: str  # validator, generator, checker, feedback
    action: Literal["write", "revise", "select", "keep"]
    wrote: list[RoundProgram] = Field(default_factory=list)
    observed: dict[str, Any] = Field(default_factory=dict)  # counts, and a few examples under "examples"
    changed: list[str] = Field(default_factory=list)  # one line per change
    outcome: str = ""  # what the loop did next: "clean", "revise", "budget spent", "no answer" ...
    exchanges: list[int] = Field(default_factory=list)  # positions in provenance.exchanges asked this round


class InputCheck(Model):
    """How the kernel screened a suite's inputs before its runner scored it
    (``tczoo.execution.screen``): ``by`` what (``validator``: the problem's input
    validators; ``signature``: the entry point's parameters and types; ``reference``:
    the reference solution must run cleanly and print something, the ``strict_inputs``
    option; ``none``: nothing checks this problem's inputs), how many tests it saw and
    rejected, and a few of the reasons."""

    by: Literal["validator", "signature", "reference", "none"]
    tests: int = Field(0, ge=0)
    rejected: int = Field(0, ge=0)
    reasons: list[str] = Field(default_factory=list)
    kept: list[int] | None = None  # positions (as generated) of the tests the runner scored; None: all


class TestSuite(Model):
    __test__ = False

    problem_id: str
    tests: list[TestCase] = Field(default_factory=list)
    # Tests whose input the problem's input check rejected (``tczoo.runner.score_suite``):
    # never scored, counted and shown. Set by the kernel on the suite a runner scores;
    # a method's own suite leaves it empty.
    rejected: list[TestCase] = Field(default_factory=list)
    oracle: Oracle = Field(default_factory=lambda: Oracle(kind=OracleKind.EXPECTED_OUTPUT))
    artifacts: list[Artifact] = Field(default_factory=list)
    provenance: Provenance
    # the method's verdict on the program under test (LLM_JUDGE suites of verifiers)
    verdict: CodeVerdict | None = None
    # an agent's rounds (tczoo.agent): write, run, observe, revise — every round recorded
    rounds: list[AgentRound] = Field(default_factory=list)

    def fail(self, stage: str, reason: str, detail: str = "", item: str = "") -> None:
        self.provenance.failures.append(
            Failure(stage=stage, reason=reason, detail=detail[:2000], item=item)
        )


# --------------------------------------------------------------------------- run records


class GenerationRecord(Model):
    """One method's output for one problem in a run (a line of generations.jsonl)."""

    kind: Literal["generation"] = "generation"
    method: str
    model: str
    problem_id: str
    task: str = ""  # the runner's key of the task within the problem ("", "wrong-3/s2" ...)
    suite: TestSuite
    seconds: float = 0.0
    error: str | None = None  # the method itself crashed: recorded, run goes on
    attempt: int = 0  # 0 first; a retried unit appends a record with the next attempt


class ScoreRecord(Model):
    """One runner's score of one generation (a line of scores.jsonl).

    ``metrics`` and ``detail`` are the runner's own (its tables read them); what the
    kernel reads of every record is typed here:

    - ``error``: scoring crashed, and why (the unit is counted as not scored, never as
      a score); ``infrastructure``: it crashed because the sandbox failed (an ``SE``
      after retries, ``tczoo.errors.InfrastructureFailure``), not the programs —
      ``tczoo score`` tries again;
    - ``n_valid``: how many of the suite's tests the runner counted valid (None: the
      runner does not judge validity; the report then counts the suite's tests), from
      which every report counts problems without a single valid test.

    Records written before these fields existed carried them as ``detail["error"]``,
    ``detail["infrastructure"]`` and ``metrics["n_valid"]``; they are read into the
    fields (``_from_older_records``), so old run directories load unchanged. Metrics
    renamed since (``RENAMED_METRICS``: HackRate's ``n_test_se`` is now
    ``n_test_sandbox_errors``) are read under their new names.
    """

    kind: Literal["score"] = "score"
    runner: str
    method: str
    model: str
    problem_id: str
    task: str = ""
    metrics: dict[str, float] = Field(default_factory=dict)
    detail: dict[str, Any] = Field(default_factory=dict)
    attempt: int = 0  # which attempt of the generation this scores
    error: str | None = None
    infrastructure: bool = False
    n_valid: int | None = Field(None, ge=0)
    # how the suite's inputs were screened before scoring (None: records made before the
    # screen existed, or a runner that does not run inputs)
    input_check: InputCheck | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_older_records(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        detail, metrics = data.get("detail"), data.get("metrics")
        moved: dict[str, Any] = {}
        if isinstance(detail, dict) and ("error" in detail or "infrastructure" in detail):
            detail = dict(detail)
            if "error" in detail and data.get("error") is None:
                moved["error"] = None if detail["error"] is None else str(detail["error"])
            if "infrastructure" in detail and not data.get("infrastructure"):
                moved["infrastructure"] = bool(detail["infrastructure"])
            detail.pop("error", None)
            detail.pop("infrastructure", None)
            moved["detail"] = detail
        if isinstance(metrics, dict) and "n_valid" in metrics:
            metrics = dict(metrics)
            n_valid = metrics.pop("n_valid")
            if data.get("n_valid") is None:
                whole = isinstance(n_valid, (int, float)) and float(n_valid).is_integer()
                moved["n_valid"] = int(n_valid) if whole else n_valid  # anything else: refused below
            moved["metrics"] = metrics
        metrics = moved.get("metrics", metrics)
        if isinstance(metrics, dict) and any(old in metrics for old in RENAMED_METRICS):
            # HackRate's sandbox-error counts were named *_se, which read as standard errors
            metrics = {RENAMED_METRICS.get(k, k): v for k, v in metrics.items()}
            moved["metrics"] = metrics
        return {**data, **moved} if moved else data


# metric names records written before a rename carry, and what they are called now
RENAMED_METRICS = {"n_test_se": "n_test_sandbox_errors", "n_wrong_se": "n_wrong_sandbox_errors"}


REPEAT_MARK = "@rep"  # a task key's suffix for the r-th repeat of a unit (r >= 1): "s1@rep2"
REPEAT_STRIDE = 10_000  # how far a repeat shifts a unit's sample index and its task's seed


def repeat_key(key: str, repeat: int) -> str:
    """The task key of ``repeat`` of a unit (repeat 0 keeps the key: a run without
    --repeats is the same run)."""
    return key if repeat == 0 else f"{key}{REPEAT_MARK}{repeat}"


def repeat_of(key: str) -> int:
    """Which repeat a task key belongs to (0 without the mark)."""
    _, mark, tail = key.rpartition(REPEAT_MARK)
    return int(tail) if mark and tail.isdigit() else 0


# The format of a run directory (config.json's ``format``): a run of this format or an
# older one is read (a config.json without the field is format 1); one a newer tczoo
# wrote is refused with one line (tczoo.store). Raise it when a run's files change so
# that an older tczoo would misread them.
RUN_FORMAT = 1


class RunConfig(Model):
    format: int = Field(RUN_FORMAT, ge=1)
    methods: list[str]
    model: str
    benchmark: str
    problems: list[str] | None = None
    limit: int | None = None  # the first N problems (of those --problems chose)
    samples: int = 1
    seed: int = 0
    runner: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    llm: dict[str, Any] = Field(default_factory=dict)
    # a named option (not a paper's): where a problem has no input validator, its reference
    # solution must exit normally and print something on an input for it to count
    strict_inputs: bool = False
    # --repeats R: every unit R times, each repeat with its own sample indices and task
    # seeds (``repeat_key``); reports summarise repeat 0 and the spread over all R
    repeats: int = Field(1, ge=1)
    # the source digest of every method and runner an outside package provides
    # (tczoo.registry.plugin_sources): a changed plugin is another experiment
    plugins: dict[str, str] = Field(default_factory=dict)
    tczoo_version: str = ""
