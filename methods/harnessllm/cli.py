"""``tczoo harness ...``: HarnessLLM's commands — candidates for best-of-N, the SFT export.

    tczoo harness candidates --model M --benchmark B [-p IDS] [-n 8] --out cands.jsonl   (tczoo candidates,
                                                     HarnessLLM's template and sampling)
    tczoo run -m harness,io --runner bestofn --params '{"runner:bestofn": {"candidates": "cands.jsonl"}}'
    tczoo harness sft RUN_DIR --out sft.jsonl [--outcome true_bug]
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, require_runs, split, writable
from tczoo.cli.output import echo
from tczoo.safeio.text import dumps


# --------------------------------------------------------------------------- candidates


def harness_sampling():
    """How the authors sample code for Table 3 (their generation script): template
    harness/solve, temperature 0.6, top-p 0.95, presence penalty 1.5, up to 32,000
    tokens. ``tczoo candidates`` does the sampling, labelling and writing."""
    from tczoo.candidates import Sampling

    return Sampling(template="harness/solve", functional_template="harness/solve", temperature=0.6, top_p=0.95,
                    presence_penalty=1.5, max_tokens=32_000)


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
        out: Path = typer.Option(..., "--out", "-o", help="JSONL to write (appended to; resumed)"),
    ) -> None:
        """Sample N candidate programs per problem from a model (input for --runner bestofn),
        labelled by the golden tests: ``tczoo candidates`` with HarnessLLM's template and sampling."""
        from tczoo.cli.kit import write_candidates

        sampling = harness_sampling()
        sampling.temperature, sampling.top_p = temperature, top_p
        sampling.presence_penalty, sampling.max_tokens = presence_penalty, max_tokens
        write_candidates(model, benchmark, problems, n, out, sampling)

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
