"""A problem's own validators, run in the sandbox under the Kattis/ICPC protocols.

Output validator (``problem.output_validator``)::

    validator input answer feedback/ [args...] < team_output

exit 42 = accepted, 43 = wrong answer. Anything else -- exit 0 or 1, a crash, a
timeout, a compile error -- means the validator did not work: the format calls it a
judging error, so it is ``SE`` (our side), never the judged program's ``WA``.

Interactor (an interactive problem's output validator): the same command line, its stdin
the program's stdout and its stdout the program's stdin (``Sandbox.interact``); its exit
code is the judgement, as above.

Input validators (``problem.input_validators``): ``validator [args...] < input``;
exit 42 = valid, anything else = "could not be confirmed as valid". Every validator
must accept an input for it to be valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from tczoo.schema import Validator
from tczoo.sandbox.types import DAY_MS, Job, Limits, RunResult, Verdict

if TYPE_CHECKING:
    from tczoo.sandbox.sandbox import Sandbox

ACCEPT, REJECT = 42, 43
FEEDBACK_DIR = "feedback/"
MESSAGE_TAIL = 1500  # characters of a validator's stderr kept in a verdict message


def validator_limits(validator: Validator) -> Limits:
    return Limits(time_ms=validator.time_limit_ms, memory_mb=validator.memory_limit_mb)


class InteractorRequired(ValueError):
    """An interactive problem's validator (its interactor) was asked about an output after
    the fact: only a run that talks to it can be judged (``Sandbox.interact``)."""


def output_validator_job(validator: Validator, input: str, answer: str, output: str) -> Job:
    """The sandbox job that asks ``validator`` about ``output``."""
    if validator.interactive:
        raise InteractorRequired(
            f"{validator.program.name or 'the validator'} is an interactive problem's interactor: it judges a "
            "program by talking to it (Sandbox.interact), not an output after the fact; this problem is "
            "interactive, and only judges that talk to the interactor score it (the agreement runner, "
            "benchmarks --check)")
    return Job(
        program=validator.program,
        stdin=output,
        limits=validator_limits(validator),
        # The format promises the feedback directory exists; a file inside creates it.
        files={"input": input, "answer": answer, f"{FEEDBACK_DIR}.keep": ""},
        args=["input", "answer", FEEDBACK_DIR, *validator.args],
    )


INTERACTOR_SLACK_MS = 5000  # the interactor's wall guard past the program's: it reads EOF, then judges


def interactor_job(validator: Validator, input: str, answer: str, program_limits: Limits) -> Job:
    """The interactor's side of an interactive run: the validator's command line, its own
    CPU and memory limits, and a wall guard past the program's (it must outlive the
    program to judge what the program did, or did not, say)."""
    limits = validator_limits(validator)
    wall = max(limits.wall_guard_ms, program_limits.wall_guard_ms + INTERACTOR_SLACK_MS)
    return Job(
        program=validator.program,
        limits=limits.model_copy(update={"wall_ms": min(wall, DAY_MS)}),
        files={"input": input, "answer": answer, f"{FEEDBACK_DIR}.keep": ""},
        args=["input", "answer", FEEDBACK_DIR, *validator.args],
    )


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MESSAGE_TAIL else "..." + text[-MESSAGE_TAIL:]


def output_judgement(run: RunResult, name: str = "", who: str = "output validator") -> RunResult:
    """Turn the validator's own run into the judgement: AC, WA or SE (validator failure)."""
    who = f"{who} {name}".rstrip()
    said = _tail(run.stderr) or _tail(run.stdout)
    if run.verdict is Verdict.RE and run.exit_code == ACCEPT:
        verdict, message = Verdict.AC, ""
    elif run.verdict is Verdict.RE and run.exit_code == REJECT:
        verdict, message = Verdict.WA, f"{who}: {said}" if said else f"{who}: wrong answer"
    elif run.verdict is Verdict.CE:
        verdict, message = Verdict.SE, f"{who} does not compile: {_tail(run.message)}"
    elif run.verdict is Verdict.AC:
        verdict, message = Verdict.SE, f"{who} exited 0 (not a judgement: 42 accepts, 43 rejects)"
    else:
        why = run.message or run.verdict.value
        verdict, message = Verdict.SE, f"{who} failed ({why}){': ' + said if said else ''}"
    return run.model_copy(update={"verdict": verdict, "message": message})


def input_judgement(run: RunResult, name: str = "") -> tuple[bool, str]:
    who = f"input validator {name}".rstrip()
    if run.verdict is Verdict.RE and run.exit_code == ACCEPT:
        return True, ""
    said = _tail(run.stderr) or _tail(run.stdout)
    if run.verdict is Verdict.RE and run.exit_code == REJECT:
        return False, f"{who} rejected it: {said}" if said else f"{who} rejected it"
    if run.verdict is Verdict.CE:
        return False, f"{who} does not compile: {_tail(run.message)}"
    why = f"exit code {run.exit_code}" if run.verdict in (Verdict.AC, Verdict.RE) else (run.message or run.verdict.value)
    return False, f"{who} could not confirm it ({why}){': ' + said if said else ''}"


def input_validator_job(validator: Validator, input: str) -> Job:
    return Job(program=validator.program, stdin=input, limits=validator_limits(validator),
               args=list(validator.args))


def inputs_valid(problem, inputs: Iterable[str], sandbox: "Sandbox") -> list[tuple[bool, str]]:
    """:func:`input_valid` for many inputs at once (spread over the sandbox's workers)."""
    inputs = list(inputs)
    validators = list(problem.input_validators)
    if not validators:
        return [(True, "not checked: the problem has no input validator")] * len(inputs)
    jobs = [input_validator_job(v, text) for text in inputs for v in validators]
    runs = list(sandbox.run_many(jobs))
    verdicts = []
    for i in range(len(inputs)):
        answer: tuple[bool, str] = (True, f"accepted by {len(validators)} input validator(s)")
        for v, run in zip(validators, runs[i * len(validators):(i + 1) * len(validators)]):
            ok, reason = input_judgement(run, v.program.name)
            if not ok:
                answer = (False, reason)
                break
        verdicts.append(answer)
    return verdicts


def input_valid(problem, input: str, sandbox: "Sandbox") -> tuple[bool, str]:
    """Whether the problem's own input validators accept ``input``, and why not, run in
    ``sandbox`` (check many inputs at once with :func:`inputs_valid`).

    ``(True, "not checked: ...")`` when the problem has no input validator: callers
    that need a real check test ``problem.input_validators`` first.
    """
    return inputs_valid(problem, [input], sandbox)[0]
