"""SFT export: (prompt, response) pairs of the responses that exposed a bug.

The paper's rejection sampling keeps a response when the ground truth passes every one
of its tests and the buggy program fails one (``true_bug``) — judged on *all* the
response's tests (the ``all`` evaluation the ``bugfind`` runner records), not only the
first k the benchmark metric counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator


def sft_records(run_dir: Path, outcomes: tuple[str, ...] = ("true_bug",)) -> Iterator[dict]:
    """(prompt, response) pairs of a bugfind run whose response had one of ``outcomes``
    (the paper's rejection sampling keeps true_bug: g passes, f fails), as chat
    ``messages`` ending with the model's answer, plus where each came from."""
    from tczoo.store import RunStore

    store = RunStore.open(run_dir)
    exchanges = {e.get("key"): e for e in store.exchanges() if e.get("ok")}
    generations = {(g.method, g.problem_id, g.task): g for g in store.generations()}
    for s in store.scores():
        if s.runner != "bugfind":
            continue
        judged = s.detail.get("outcomes", {}).get("all") or {"outcome": s.detail.get("outcome")}
        if judged.get("outcome") not in outcomes:
            continue
        gen = generations.get((s.method, s.problem_id, s.task))
        if gen is None:
            continue
        answer = next((exchanges[k] for k in gen.suite.provenance.exchanges if k in exchanges), None)
        if answer is None:
            continue
        yield {
            "messages": [*answer["messages"], {"role": "assistant", "content": answer["text"]}],
            "method": s.method, "model": s.model, "problem_id": s.problem_id, "task": s.task,
            "outcome": judged.get("outcome"), "target": s.detail.get("target"),
        }
