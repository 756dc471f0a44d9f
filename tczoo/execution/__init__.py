"""The execution interface methods and runners share, on top of the sandbox.

One way to run a program on inputs (``run_program``/``run_programs`` → ``Execution``),
one output comparison (``same_output``), one driver for model-written input generators
(``run_generators``), one oracle check by ``OracleKind`` (``check_outputs``), and one
judgement of a suite on a (problem, buggy program, ground truth) triplet
(``gather_evidence`` + ``classify``), a suite used as a judge of whole programs
(``SuiteJudge``), one way to run a model-written input validator on many inputs
(``validate_inputs``, ``filter_inputs``), the screen every suite's inputs pass
before a runner scores them (``screen_inputs``, ``score_suite``), and line coverage of a program on inputs (``line_coverage``).
Everything runs in the ``Sandbox``; nothing a model wrote runs in this process.
"""

from tczoo.execution.calls import (
    CALL_FAILURE_REASONS,
    PRELUDE,
    evaluate_literal,
    py_call,
    read_call,
    required_args,
    with_prelude,
)
from tczoo.execution.coverage import Coverage, CoverageUnavailable, line_coverage
from tczoo.execution.generators import (
    CommandRun,
    Generator,
    call_seed,
    command_seed,
    parse_command,
    record,
    rerun,
    run_commands,
    run_generators,
)
from tczoo.execution.judge import ProgramJudgement, SuiteJudge, TestUse
from tczoo.execution.oracle import Check, OracleUnavailable, can_check, check_outputs, check_with_checker
from tczoo.execution.outputs import outputs_match, same_output
from tczoo.execution.programs import Execution, Signature, no_sandbox_errors, run_program, run_programs, signature_of
from tczoo.execution.validate import Rejection, filter_inputs, validate_inputs
from tczoo.execution.screen import (
    INVALID_INPUT,
    REJECTED_NOTE,
    Screened,
    as_generated,
    position,
    rejected_columns,
    rejected_detail,
    score_suite,
    scored_view,
    screen_inputs,
    total_tests,
)
from tczoo.execution.triplets import Evidence, Outcome, classify, gather_evidence, ground_truth_index
from tczoo.sandbox import Limits, Sandbox, Verdict
from tczoo.schema import dedupe, input_key, interleave

__all__ = [
    "CALL_FAILURE_REASONS", "PRELUDE", "Check", "CommandRun", "Coverage", "CoverageUnavailable", "Evidence", "Execution", "Generator", "Limits", "OracleUnavailable",
    "Outcome", "ProgramJudgement", "Sandbox", "Signature", "SuiteJudge", "TestUse", "Verdict", "call_seed", "can_check", "command_seed", "check_outputs", "check_with_checker",
    "classify", "dedupe", "ground_truth_index", "evaluate_literal", "gather_evidence", "input_key", "interleave", "line_coverage", "no_sandbox_errors", "py_call", "read_call",
    "outputs_match", "parse_command", "record", "required_args", "rerun", "run_commands", "run_generators", "run_program", "run_programs", "same_output",
    "signature_of", "validate_inputs", "filter_inputs", "Rejection", "with_prelude",
    "INVALID_INPUT", "REJECTED_NOTE", "Screened", "as_generated", "position", "rejected_columns", "rejected_detail",
    "score_suite", "scored_view", "screen_inputs", "total_tests",
]
