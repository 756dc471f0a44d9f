"""Benchmarks by name: bundled (``zoo-mini``), hub (``tcbench`` ...) or ``SCHEMA:PATH``.

Every benchmark loads into the same ``Problem`` schema.
"""

from __future__ import annotations

from tczoo.schema import Problem

BUNDLED = {"zoo-mini": "the bundled benchmark: 12 original problems with golden tests, "
                       "accepted solutions of different speeds and wrong solutions with signatures"}


def benchmark_names() -> dict[str, str]:
    """Known benchmark names with a one-line description."""
    from tczoo.benchmarks.loaders import HUB_BENCHMARKS

    names = dict(BUNDLED)
    names["kattis:PATH"] = ("ICPC/Kattis problem packages: one package or a folder of them "
                            "(check them with tczoo benchmarks --check kattis:PATH)")
    for name, info in HUB_BENCHMARKS.items():
        names[name] = info if isinstance(info, str) else _describe_hub(info)
    return names


def _describe_hub(source) -> str:
    """One line for a hub source: where it comes from and what to know about it."""
    text = f"Hugging Face hub: {source.repo} (split {source.split}; needs the hf extra)"
    return f"{text}; {source.note}" if getattr(source, "note", "") else text


def load_benchmark(spec: str, problems: list[str] | None = None, *, sandbox=None) -> list[Problem]:
    """Load ``spec``; ``problems`` keeps only those ids (or id prefixes), in benchmark order."""
    if spec in BUNDLED:
        from tczoo.benchmarks import zoo_mini

        return zoo_mini.load(problems, sandbox=sandbox)
    from tczoo.benchmarks.loaders import load_benchmark_spec

    options = {"sandbox": sandbox, "only": problems} if spec.strip().lower().startswith("kattis:") else {}
    loaded = load_benchmark_spec(spec, **options)
    if problems:
        unknown = [q for q in problems if not any(p.id == q or p.id.startswith(q) for p in loaded)]
        if unknown:
            from tczoo.benchmarks.loaders import BenchmarkLoadError

            known = ", ".join(p.id for p in loaded[:8]) + (", ..." if len(loaded) > 8 else "")
            raise BenchmarkLoadError(f"benchmark {spec!r} has no problem {unknown[0]!r} (known: {known})")
        loaded = [p for p in loaded if any(p.id == q or p.id.startswith(q) for q in problems)]
    return loaded
