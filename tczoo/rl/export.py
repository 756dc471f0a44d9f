"""``tczoo rl export``: a benchmark's tasks as an RL dataset, prompts and reward references.

For every problem, the runner builds its tasks as ``tczoo run`` does; the method's own
``generate`` renders each task's prompt (it runs with an LLM backend that records the
prompt and answers nothing, ``PromptCapture``), so a prompt is byte for byte what the
method would send a model. Tasks with the same prompt (a runner's repeated samples of
one task) are exported once: the trainer samples its own completions per prompt.

Each row carries a ``RewardReference`` (JSON) from which a reward worker rebuilds the
problem and the task (``tczoo.rewards``). Rows whose reward is undefined whatever the
answer (no wrong code to hack, a problem STAB's filter excludes ...) are left out and
listed in the manifest, with why.

Layouts (``train.parquet``):

- ``verl``: ``data_source`` (``tczoo/KIND``), ``prompt`` (chat messages), ``ability``,
  ``reward_model`` {``style``: rule, ``ground_truth``: the reference}, ``extra_info``
  {``index``, ``tczoo``: the reference, ``problem``, ``task``, ``method``};
- ``trl``: ``prompt`` (chat messages: TRL's conversational format) and ``tczoo`` (the
  reference), plus ``problem`` and ``task``; ``datasets.load_dataset("parquet", ...)``
  loads it and GRPO hands the ``tczoo`` column to the reward function.

``manifest.json`` beside it says what was exported from what, and what was left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from tczoo.errors import UserError
from tczoo.rewards import (
    KINDS,
    RewardConfigError,
    RewardReference,
    build_entry,
    get_kind,
    kind_for_runner,
    problem_digest,
    undefined_reason,
)

FORMATS = ("verl", "trl")
ABILITY = "test-generation"


@dataclass
class ExportItem:
    reference: RewardReference
    messages: list[dict]


@dataclass
class Export:
    items: list[ExportItem] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    tasks: int = 0  # runner tasks seen (before prompts were deduplicated)


def resolve_params(method: str, runner: str, kind: str, params: dict[str, Any] | None) -> tuple[dict, dict, dict]:
    """(method params, runner params, kind params): the method's single-turn params and
    the kind's RL defaults under the user's ``params`` (keys: the method, ``runner:NAME``,
    ``reward``)."""
    from tczoo.registry import get_method

    params = dict(params or {})
    allowed = {method, f"runner:{runner}", "reward"}
    for key, value in params.items():
        if key not in allowed:
            raise RewardConfigError(f"--params names {key!r}; an export takes {', '.join(sorted(allowed))}")
        if not isinstance(value, dict):
            raise RewardConfigError(f"--params: the value for {key!r} must be an object of parameters")
    method_cls = get_method(method)
    if method_cls.single_turn is None:
        single = sorted(n for n in _method_names() if _single_turn(n) is not None)
        raise RewardConfigError(f"method {method} asks the model more than once per task; an RL reward scores one "
                                f"completion (single-turn methods: {', '.join(single)})")
    method_params = {**method_cls.single_turn, **params.get(method, {})}
    runner_params = {**get_kind(kind).runner_params, **params.get(f"runner:{runner}", {})}
    return method_params, runner_params, dict(params.get("reward", {}))


def _method_names() -> list[str]:
    from tczoo.registry import method_names

    return method_names()


def _single_turn(name: str) -> dict | None:
    from tczoo.registry import get_method

    try:
        return get_method(name).single_turn
    except Exception:  # a broken plugin is not single-turn
        return None


async def render_prompt(method_name: str, method: Any, spec: Any, problem_id: str, sandbox: Any,
                        prompts: Any) -> tuple[list[dict] | None, str]:
    """The prompt the method asks for this task (None and why, when it asks none)."""
    from tczoo.llm import LLMClient, LLMSettings
    from tczoo.llm.backends import PromptCapture
    from tczoo.generation import generate_unit

    capture = PromptCapture()
    client = LLMClient("prompt-capture", LLMSettings(retries=0, cache=False, max_consecutive_errors=0),
                       backend=capture)
    record = await generate_unit(method, spec.task, name=method_name, problem_id=problem_id, task_key=spec.key,
                                 sample=spec.sample, attempt=0, client=client, sandbox=sandbox, prompts=prompts)
    if capture.prompts:
        return capture.prompts[0], ""
    why = record.error or "; ".join(f"{f.stage}:{f.reason}" for f in record.suite.provenance.failures)
    return None, f"the method asked the model nothing ({why or 'no reason recorded'})"[:300]


def collect(benchmark: str, method: str, *, runner: str | None = None, kind: str | None = None,
            params: dict[str, Any] | None = None, problems: list[str] | None = None, seed: int = 0,
            samples: int = 1, check: bool = True, sandbox: Any = None,
            progress: Callable[[int, int], None] | None = None) -> Export:
    """Every task's prompt and reference (see the module docstring); ``sandbox``: the
    caller's (else one is opened for the call)."""
    if sandbox is None:
        from tczoo.sandbox import Sandbox

        with Sandbox() as own:
            return collect(benchmark, method, runner=runner, kind=kind, params=params, problems=problems, seed=seed,
                           samples=samples, check=check, sandbox=own, progress=progress)
    import asyncio

    from tczoo.benchmarks import load_benchmark
    from tczoo.llm.backends import prompt_digest
    from tczoo.registry import get_method, get_runner
    from tczoo.templates import Prompts

    method_cls = get_method(method)
    runner = runner or method_cls.runner
    runner_cls = get_runner(runner)
    kind = kind or kind_for_runner(runner)
    if get_kind(kind).runner != runner:
        raise RewardConfigError(f"reward kind {kind} scores with runner {get_kind(kind).runner}, not {runner}")
    method_params, runner_params, kind_params = resolve_params(method, runner, kind, params)
    try:
        method_obj = method_cls(**method_params)
        runner_obj = runner_cls(sandbox, **runner_params)
        get_kind(kind).Params(**kind_params)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise RewardConfigError(f"--params: {'.'.join(map(str, first.get('loc', ())))}: {first.get('msg')}") from None
    loaded = load_benchmark(benchmark, problems, sandbox=sandbox)
    if not loaded:
        raise UserError(f"benchmark {benchmark!r} has no problems")
    prompts = Prompts()
    out = Export()

    async def walk() -> None:
        seen: set[tuple[str, str]] = set()
        for n, problem in enumerate(loaded):
            try:
                specs = runner_obj.tasks(problem, method_cls, samples=samples, seed=seed)
            except ValidationError:
                raise
            except ValueError as exc:  # a runner that cannot serve this method
                raise UserError(f"method {method} with runner {runner}: {exc}") from None
            sha = problem_digest(problem)
            for spec in specs:
                out.tasks += 1
                messages, why = await render_prompt(method, method_obj, spec, problem.id, sandbox, prompts)
                if messages is None:
                    out.skipped.append({"problem": problem.id, "task": spec.key, "reason": why})
                    continue
                digest = prompt_digest(messages)
                if (problem.id, digest) in seen:
                    continue  # another sample of a task already exported
                seen.add((problem.id, digest))
                ref = RewardReference(benchmark=benchmark, problem=problem.id, problem_sha=sha, method=method,
                                      runner=runner, task=spec.key, samples=samples, seed=seed,
                                      params={method: method_params, f"runner:{runner}": runner_params}, kind=kind,
                                      kind_params=kind_params, prompt_sha=digest)
                if check:
                    entry = build_entry(ref, problem, sandbox)
                    reason = await asyncio.to_thread(undefined_reason, entry, sandbox)
                    if reason is not None:
                        out.skipped.append({"problem": problem.id, "task": spec.key, "reason": f"no reward: {reason}"})
                        continue
                out.items.append(ExportItem(ref, [{"role": m.get("role", "user"), "content": m.get("content", "")}
                                                  for m in messages]))
            if progress is not None:
                progress(n + 1, len(loaded))

    asyncio.run(walk())
    return out


def rows(export: Export, fmt: str) -> list[dict[str, Any]]:
    if fmt not in FORMATS:
        raise UserError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    out = []
    for i, item in enumerate(export.items):
        ref = item.reference
        text = ref.dumps()
        if fmt == "verl":
            out.append({"data_source": f"tczoo/{ref.kind}", "prompt": item.messages, "ability": ABILITY,
                        "reward_model": {"style": "rule", "ground_truth": text},
                        "extra_info": {"index": i, "tczoo": text, "problem": ref.problem, "task": ref.task,
                                       "method": ref.method}})
        else:
            out.append({"prompt": item.messages, "tczoo": text, "problem": ref.problem, "task": ref.task})
    return out


def _check_out(out_dir: Path) -> None:
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise UserError(f"--out {out_dir}: exists and is not an empty folder")


def write(export: Export, fmt: str, out_dir: Path, *, manifest: dict[str, Any]) -> dict[str, Any]:
    """Write ``train.parquet`` and ``manifest.json`` into ``out_dir`` (made fresh:
    an existing non-empty folder is refused)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UserError("tczoo rl export writes parquet: pip install 'tczoo[rl]' (or pyarrow)") from None
    table_rows = rows(export, fmt)
    if not table_rows:
        raise UserError("nothing to export: every task was left out ("
                        + "; ".join(f"{s['problem']}: {s['reason']}" for s in export.skipped[:3]) + ")")
    out_dir = Path(out_dir)
    _check_out(out_dir)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(table_rows), tmp / "train.parquet")
    summary = {**manifest, "format": fmt, "rows": len(table_rows), "tasks": export.tasks,
               "skipped": export.skipped, "files": ["train.parquet"]}
    (tmp / "manifest.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    if out_dir.exists():
        out_dir.rmdir()
    tmp.rename(out_dir)
    return summary


def export(benchmark: str, method: str, *, fmt: str, out: Path, runner: str | None = None, kind: str | None = None,
           params: dict[str, Any] | None = None, problems: list[str] | None = None, seed: int = 0,
           samples: int = 1, check: bool = True, sandbox: Any = None,
           progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """``collect`` then ``write``; returns the manifest."""
    from tczoo import __version__
    from tczoo.registry import get_method

    if fmt not in FORMATS:
        raise UserError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    _check_out(Path(out))  # before the work, not after it
    data = collect(benchmark, method, runner=runner, kind=kind, params=params, problems=problems, seed=seed,
                   samples=samples, check=check, sandbox=sandbox, progress=progress)
    first = data.items[0].reference if data.items else None
    runner = runner or get_method(method).runner
    manifest = {"tczoo_version": __version__, "benchmark": benchmark, "method": method, "runner": runner,
                "kind": first.kind if first else (kind or kind_for_runner(runner)),
                "kind_summary": KINDS[first.kind].summary if first else "",
                "params": first.params if first else {}, "kind_params": first.kind_params if first else {},
                "problems": problems, "seed": seed, "samples": samples}
    return write(data, fmt, out, manifest=manifest)
