"""``tczoo candidates``: model-written solutions labelled by the golden tests (``tczoo.candidates``).

    tczoo candidates --model M --benchmark B [-p IDS] -n 8 --out cands.jsonl
    tczoo run -m crux --runner agreement --params '{"runner:agreement": {"candidates": "cands.jsonl"}}'
    tczoo run -m harness,io --runner bestofn --params '{"runner:bestofn": {"candidates": "cands.jsonl"}}'
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.kit import CLIError, check_benchmark, check_model, echo, emit_json, format_option, split


def write_candidates(model: str, benchmark: str, problems: Optional[str], n: int, out: Path, sampling, *,
                     api_base: Optional[str] = None, fmt: str = "table", concurrency: int = 4) -> None:
    """The command's body, shared with ``tczoo harness candidates`` (which passes
    HarnessLLM's template and sampling): check, sample, label, append, report."""
    import asyncio

    from tczoo.benchmarks import load_benchmark
    from tczoo.candidates import existing, generate
    from tczoo.errors import RunFailed
    from tczoo.llm import LLMSettings
    from tczoo.sandbox import Sandbox

    check_benchmark(benchmark)
    if out.exists() and not out.is_file():
        raise CLIError(f"--out {out} exists and is not a file")
    existing(out, model)  # a file of another model's candidates, or not a candidates file: refused now
    check_model(model, api_base)

    def progress(done: int, total: int, result) -> None:
        echo(f"tczoo candidates: [{done}/{total}] {result.line()}", err=True)

    with Sandbox() as sandbox:
        loaded = load_benchmark(benchmark, split(problems), sandbox=sandbox)
        if not loaded:
            raise CLIError(f"benchmark {benchmark!r} has no problems")
        summary = asyncio.run(generate(model, loaded, n, out, sandbox=sandbox, sampling=sampling,
                                       settings=LLMSettings(api_base=api_base), concurrency=concurrency,
                                       progress=progress))
    totals = summary.as_dict()
    if fmt == "json":
        emit_json(totals)
    parts = [f"{totals['accepted']} accepted", f"{totals['wrong']} wrong"]
    if totals["unlabelled"]:
        parts.append(f"{totals['unlabelled']} unlabelled")
    line = (f"{totals['written']} candidate record(s) for {len(loaded)} problem(s) appended to {out} "
            f"({', '.join(parts)})")
    if totals["unusable"]:
        line += f"; {totals['unusable']} answer(s) had no usable code (kept as error records)"
    echo(line, err=True)
    if summary.halted:
        raise RunFailed(f"stopped: {summary.halted}; {totals['not_answered']} answer(s) missing: run the same "
                        f"command again to resume")
    if totals["not_answered"]:
        echo(f"{totals['not_answered']} answer(s) were not given by the provider: run the same command again "
             f"to ask for them", err=True)


def candidates(
    model: str = typer.Option(..., "--model", help="LiteLLM model string, local/..., scripted:PATH, replay:DIR"),
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p", help="ids or id prefixes, comma-separated"),
    n: int = typer.Option(8, "-n", min=1, help="candidates per problem"),
    out: Path = typer.Option(..., "--out", "-o", help="candidates JSONL (appended to; resumed)"),
    language: str = typer.Option("python", "--language", help="language asked for on stdin problems: python or cpp"),
    temperature: float = typer.Option(0.8, "--temperature", min=0, help="CodeT's 0.8 by default"),
    top_p: float = typer.Option(0.95, "--top-p", min=0, max=1, help="CodeT's 0.95 by default"),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1, help="most tokens per answer "
                                                                                 "(default 2048)"),
    template: str = typer.Option("candidates/solve", "--template", help="prompt template (prompts/<dir>/<name>)"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="for hosted_vllm/ and openai-compatible servers"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="problems sampled at once"),
    fmt: str = format_option("table", "json"),
) -> None:
    """Sample N solutions per problem from a model and label each by the problem's golden
    tests (accepted: passes every one), for the agreement and bestofn runners."""
    from tczoo.candidates import Sampling
    from tczoo.schema import Language
    from tczoo.templates import Prompts

    try:
        lang = Language.parse(language)
    except ValueError as exc:
        raise CLIError(f"--language: {exc}") from None
    if lang not in (Language.PYTHON, Language.CPP):
        raise CLIError("--language must be python or cpp")
    try:
        Prompts().env.get_template(template + ".j2")
    except Exception as exc:  # jinja's TemplateNotFound / syntax errors
        raise CLIError(f"--template {template}: {type(exc).__name__}: {exc}") from None
    sampling = Sampling(template=template, language=lang, temperature=temperature, top_p=top_p,
                        max_tokens=max_tokens)
    write_candidates(model, benchmark, problems, n, out, sampling, api_base=api_base, fmt=fmt,
                     concurrency=concurrency)


def register(app: typer.Typer) -> None:
    app.command("candidates")(candidates)
