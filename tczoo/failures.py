"""When a generation failed, and whether trying again may help.

A unit's generation **failed** — it is not scored, its cell is shown as failed, and it
is counted apart in every report — when

- the method crashed (``record.error``); or
- the model did not answer one of the method's calls (a failure of stage ``llm``: the
  provider was down, refused, timed out ...): whatever the method made of the rest is
  not the method's result; or
- it produced no test at all, unless its runner scores empty suites (HarnessLLM's
  bug finding counts a response without a usable test as a format error, in the
  denominator, as its paper does: ``Runner.scores_empty_suites``), or unless it returned
  candidate solutions it sampled itself (``CANDIDATE_ROLE``: CodeT's solutions without
  a usable generated test are still ranked, by CodeT's fallback, a random sample; the
  runner's report says on how many problems).

A failed generation is **retried** by the next ``tczoo run`` on the directory when its
failure is transient (the provider did not answer: connection, 5xx, timeout, rate
limit, a malformed body, the circuit breaker, the cost limit), and by
``tczoo run --retry-failed`` whatever its failure.
"""

from __future__ import annotations

from tczoo.llm.client import TRANSIENT
from tczoo.schema import CANDIDATE_ROLE, Failure, GenerationRecord


def generation_failure(record: GenerationRecord, *, scores_empty: bool = False) -> Failure | None:
    """Why ``record``'s generation failed, or None when it did not."""
    if record.error:
        sandbox = [f for f in record.suite.provenance.failures if f.stage == "sandbox"]
        if sandbox:  # the sandbox failed under the method (InfrastructureFailure)
            return sandbox[-1]
        first = record.error.strip().splitlines()[0] if record.error.strip() else "crash"
        return Failure(stage="method", reason="crash", detail=first[:500])
    failures = record.suite.provenance.failures
    llm = [f for f in failures if f.stage == "llm"]
    if llm:
        return llm[-1]
    sampled = any(a.role == CANDIDATE_ROLE and a.program is not None for a in record.suite.artifacts)
    if not record.suite.tests and not scores_empty and not sampled:
        # The last recorded failure is usually the one that ended the attempt
        # ("no oracle passed the samples", "no usable validator" ...).
        return failures[-1] if failures else Failure(stage="method", reason="no_tests",
                                                     detail="the method returned no test and said why not")
    return None


def transient(failure: Failure) -> bool:
    """Whether the same unit, generated again, may well succeed."""
    return (failure.stage == "llm" and failure.reason in TRANSIENT) or failure.stage == "sandbox"
