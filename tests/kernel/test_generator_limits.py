"""A generator that hits a limit is retired with a failure that names the limit
(docs/plugins.md, "Generators"): CPU time, memory, input size, output size."""

from __future__ import annotations

from tczoo.execution import Generator, run_generators

CODES = {
    "mem": "def generate():\n    x = bytearray(800 * 1024 * 1024)\n    return 'a' * len(x)\n",
    "big": "def generate():\n    return 'a' * (5 * 1024 * 1024)\n",
    "slow": "def generate():\n    while True:\n        pass\n",
    "out": "def generate():\n    import sys\n    sys.stdout.write('x' * (50 * 1024 * 1024))\n    return '1'\n",
    "fine": "def generate():\n    return '1 1\\n1\\n'\n",
}


def test_each_limit_is_named_in_the_failure(sandbox):
    gens = [Generator(name=k, code=v, function="generate") for k, v in CODES.items()]
    run_generators(sandbox, gens, seed=0, per_generator=1, rounds=1, time_ms=1000, memory_mb=256, max_input_kb=4096)
    got = {g.name: [(f.reason, f.detail) for f in g.failures] for g in gens}
    assert got["mem"] == [("memory", "over 256 MB of memory (MLE)")]
    assert got["big"] == [("input_too_large", "input over 4096 KB (5120 KB)")]
    assert got["slow"] == [("timeout", "over 1.0 s of CPU time")]
    assert got["out"] == [("output_too_large", "output over 8256 KB (OLE)")]  # 2 x 4096 KB per call + 64 KB
    assert got["fine"] == [] and [t.input for t in gens[-1].tests] == ["1 1\n1\n"]
    assert {g.name: g.retired for g in gens} == {"mem": "memory", "big": "input_too_large", "slow": "timeout",
                                                 "out": "output_too_large", "fine": ""}
