"""The embedded engine decoding the quickstart's shape, alone and beside busy work (issue 33,
item 5). A script, not a test.

    flock /tmp/tczoo-model.lock python bench/bench_engine_shape.py [--sequences 3] [--tokens 500] [--no-grammar]

``--sequences`` requests submitted at once (the quickstart's three problems), each asking
for up to ``--tokens`` tokens under CRUX's JSON-schema grammar (``--no-grammar``: plain
text), in a fresh engine per measurement: once alone, once beside two CPU-bound loops
(one per core of a 2-core machine). Prints tokens per second and the slowdown, so the
engine's own share of the quickstart's slowdown beside busy work can be told apart from
the rest of ``tczoo run``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from bench_model_contention import Busy  # the same two busy loops (this script's folder is on sys.path)

CHILD = """
import json, sys, time
from tczoo.llm.local.engine import EngineConfig, Request, engine_for
from tczoo.llm.local.gguf import embedded_model_path
from tczoo.llm.local.sampling import grammar_for
n, tokens, use_grammar = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
fmt = {"type": "json_schema", "json_schema": {"name": "crux_generate", "schema": {
    "type": "array", "minItems": 1, "maxItems": 50, "items": {"type": "object", "properties": {
        "input": {"type": "string"}, "output": {"type": "string"}}, "required": ["input", "output"],
        "additionalProperties": False}}}}
grammar = grammar_for(fmt) if use_grammar else None
engine = engine_for(embedded_model_path(), EngineConfig.from_env())

def ask(i):
    return [{"role": "user", "content": "Write 50 test cases (a JSON list of objects with input and output "
             f"strings) for: read two integers a and b, print a+b. Variant {i}, {time.time()}."}]

engine.submit(Request(messages=ask(-1), temperature=0.0, max_tokens=1, stop=[], seed=0, grammar=None)).result()
start = time.perf_counter()
futures = [engine.submit(Request(messages=ask(i), temperature=0.7, max_tokens=tokens, stop=[], seed=i,
                                 grammar=grammar)) for i in range(n)]
answers = [f.result() for f in futures]
seconds = time.perf_counter() - start
engine.close()
print(json.dumps({"tokens": sum(a.completion_tokens for a in answers), "seconds": seconds}))
"""


def measure(n: int, tokens: int, grammar: bool) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(n), str(tokens), "1" if grammar else "0"],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"engine process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sequences", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=500)
    ap.add_argument("--no-grammar", action="store_true")
    opts = ap.parse_args()
    grammar = not opts.no_grammar
    alone = measure(opts.sequences, opts.tokens, grammar)
    with Busy():
        busy = measure(opts.sequences, opts.tokens, grammar)
    rate = {k: r["tokens"] / r["seconds"] for k, r in (("alone", alone), ("busy", busy))}
    print(f"{opts.sequences} sequence(s), up to {opts.tokens} tokens each, grammar {'on' if grammar else 'off'}")
    print(f"  alone:               {alone['tokens']} tokens in {alone['seconds']:.1f} s = {rate['alone']:.1f} tok/s")
    print(f"  beside 2 busy loops: {busy['tokens']} tokens in {busy['seconds']:.1f} s = {rate['busy']:.1f} tok/s")
    print(f"  slowdown: {rate['alone'] / rate['busy']:.2f}x (the quickstart's target: <= 2.5x)")


if __name__ == "__main__":
    main()
