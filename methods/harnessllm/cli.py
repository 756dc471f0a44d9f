"""``tczoo harness ...``: HarnessLLM's commands — candidates for best-of-N, the SFT export.

    tczoo harness candidates --model M --benchmark B [-p IDS] [-n 8] --out cands.jsonl
    tczoo run -m harness,io --runner bestofn --params '{"runner:bestofn": {"candidates": "cands.jsonl"}}'
    tczoo harness sft RUN_DIR --out sft.jsonl [--outcome true_bug]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, check_model, require_runs, split, writable
from tczoo.cli.output import echo
from tczoo.safetext import dumps


# --------------------------------------------------------------------------- candidates


async def sample_candidates(model: str, problems, n: int, *, temperature: float = 0.6, top_p: float | None = 0.95,
                            presence_penalty: float | None = 1.5, max_tokens: int | None = 32_000,
                            cache: bool = True) -> list[dict]:
    """``n`` sampled solutions per problem (template harness/solve) as candidate records
    ``{"problem_id", "name", "language", "code", "generator"}``; unusable answers are
    reported as records with ``"error"`` instead of ``"code"``. Sampled as the authors
    sample code for Table 3 (their generation script: temperature 0.6, top-p 0.95,
    presence penalty 1.5, up to 32,000 tokens)."""
    import asyncio

    from tczoo.llm import LLMClient, LLMSettings
    from tczoo.parsing import ParseError, extract_program
    from tczoo.templates import Prompts
    from tczoo.schema import Setting, Task

    settings = LLMSettings(temperature=temperature, cache=cache)
    if max_tokens:
        settings.max_tokens = max_tokens
    client = LLMClient(model, settings)
    prompts = Prompts()

    async def one(problem) -> list[dict]:
        task = Task.from_problem(problem, Setting.SPEC)
        messages = prompts.render("harness/solve", task=task, language_name="Python 3")
        out = []
        for c in await client.complete(messages, n=n, top_p=top_p, presence_penalty=presence_penalty):
            rec = {"problem_id": problem.id, "name": f"sample-{c.sample}", "generator": model}
            if not c.ok:
                out.append({**rec, "error": f"{c.reason}: {c.error}"[:300]})
                continue
            try:
                prog = extract_program(c.text)
            except ParseError as exc:
                out.append({**rec, "error": exc.reason})
                continue
            out.append({**rec, "language": prog.language.value, "code": prog.code})
        return out

    batches = await asyncio.gather(*(one(p) for p in problems))
    return [r for batch in batches for r in batch]


# --------------------------------------------------------------------------- commands


def register(app: typer.Typer) -> None:
    harness = typer.Typer(help="HarnessLLM: best-of-N candidates, SFT export.", no_args_is_help=True)
    app.add_typer(harness, name="harness")

    @harness.command("candidates")
    def bestofn_candidates(
        model: str = typer.Option(..., "--model", "--models", help="LiteLLM model string, local/..., scripted:PATH"),
        benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b"),
        problems: Optional[str] = typer.Option(None, "--problems", "-p", help="ids or id prefixes, comma-separated"),
        n: int = typer.Option(8, "--samples", "-n", min=1, help="candidates per problem (samples of the model)"),
        temperature: float = typer.Option(0.6, "--temperature", min=0),
        top_p: float = typer.Option(0.95, "--top-p", min=0, max=1),
        presence_penalty: float = typer.Option(1.5, "--presence-penalty"),
        max_tokens: int = typer.Option(32_000, "--max-tokens", min=1),
        out: Path = typer.Option(..., "--out", "-o", help="JSONL to write"),
    ) -> None:
        """Sample N candidate programs per problem from a model (input for --runner bestofn)."""
        import asyncio

        from tczoo.benchmarks import load_benchmark

        check_model(model)
        if out.exists() and not out.is_file():
            raise CLIError(f"--out {out} exists and is not a file")
        loaded = load_benchmark(benchmark, split(problems))
        records = asyncio.run(sample_candidates(model, loaded, n, temperature=temperature, top_p=top_p,
                                                presence_penalty=presence_penalty, max_tokens=max_tokens))
        writable(out, "file", "--out")
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w") as fh:
            for rec in records:
                if "code" in rec:
                    fh.write(json.dumps(rec) + "\n")
        bad = [r for r in records if "code" not in r]
        echo(f"{len(records) - len(bad)} candidates for {len(loaded)} problems written to {out}"
             + (f"; {len(bad)} answers unusable" if bad else ""), err=True)

    @harness.command("sft")
    def harness_sft(
        run_dir: Path = typer.Argument(..., help="a bugfind run directory, or a comparison directory (every run in it)"),
        out: Path = typer.Option(..., "--out", "-o", help="JSONL to write"),
        outcome: str = typer.Option("true_bug", "--outcome", help="outcomes to keep, comma-separated"),
    ) -> None:
        """Export (prompt, response) pairs of responses that exposed the bug, for SFT."""
        from tczoo.execution import Outcome
        from tczoo.methods.harnessllm.sft import sft_records

        dirs = require_runs(run_dir)
        keep = tuple(split(outcome) or ())
        known = {o.value for o in Outcome}
        unknown = [o for o in keep if o not in known]
        if unknown or not keep:
            raise CLIError(f"--outcome: {', '.join(unknown) or 'nothing'} is not an outcome "
                           f"(known: {', '.join(sorted(known))})")
        if out.exists() and not out.is_file():
            raise CLIError(f"--out {out} exists and is not a file")
        n = 0
        writable(out, "file", "--out")
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w") as fh:
            for rec in (r for d in dirs for r in sft_records(d, keep)):
                fh.write(dumps(rec) + "\n")
                n += 1
        echo(f"{n} SFT examples written to {out}", err=True)
