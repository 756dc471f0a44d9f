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


def match_ids(wanted: list[str], known: list[str], *, missing: str, unique: bool = False) -> dict[str, list[str]]:
    """What each of ``wanted`` names among ``known``: the id itself, else every id it
    is a prefix of (``zm04`` -> ``zm04-ribbon-pieces``). One that names nothing is an
    error (``missing`` begins its message) with the closest ids; with ``unique``, so is
    a prefix that names several. ``--problems`` and the problem ids of ``score --tests``
    are matched alike, through here."""
    import difflib

    from tczoo.benchmarks.loaders import BenchmarkLoadError

    found: dict[str, list[str]] = {}
    lost: list[str] = []
    for w in dict.fromkeys(wanted):
        hits = [w] if w in known else [k for k in known if k.startswith(w)]
        if not hits:
            lost.append(w)
        elif unique and len(hits) > 1:
            raise BenchmarkLoadError(f"{w!r} names {len(hits)} problems ({', '.join(hits[:4])}"
                                     f"{', ...' if len(hits) > 4 else ''}); give more of the id")
        found[w] = hits
    if lost:
        close = [k for w in lost for k in known if w.split("-")[0] and k.startswith(w.split("-")[0])]
        close += [c for w in lost for c in difflib.get_close_matches(w, known, n=2, cutoff=0.6)]
        hint = f"did you mean {' or '.join(dict.fromkeys(close[:3]))}? " if close else ""
        listed = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        raise BenchmarkLoadError(f"{missing} {', '.join(map(repr, lost)) if len(lost) > 1 else repr(lost[0])} "
                                 f"({hint}known: {listed})")
    return found


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
    from tczoo.benchmarks.loaders import load_benchmark_spec

    options = {"sandbox": sandbox, "only": problems} if spec.strip().lower().startswith("kattis:") else {}
    loaded = load_benchmark_spec(spec, **options)
    if problems:
        chosen = {k for hits in match_ids(problems, [p.id for p in loaded],
                                          missing=f"benchmark {spec!r} has no problem").values() for k in hits}
        loaded = [p for p in loaded if p.id in chosen]
    return loaded[:limit] if limit is not None else loaded
