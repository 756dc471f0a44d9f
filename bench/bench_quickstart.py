"""The README's main job, timed and taken apart (issue 46). A script, not a test.

    flock /tmp/tczoo-model.lock python bench/bench_quickstart.py [--variant NAME=ENV=VAL,ENV=VAL ...]
        [--busy] [--quick] [--problems zm01,zm03,zm04] [--only VARIANT]

For each variant (environment settings for the ``tczoo run`` process, and ``MODEL=M`` for
its ``--model``; ``default`` is tczoo's defaults), runs ``tczoo run --method crux --problems zm01,zm03,zm04`` from an empty
LLM cache (``TCZOO_CACHE`` a fresh folder whose ``models/`` links the assembled GGUFs:
the one-time assembly is not timed) and prints, measured in that run:

- wall time, LLM calls, prompt and answer tokens, peak RSS of the process;
- time by phase: start-up (interpreter, CLI, benchmark load: until the model loads),
  model load, until the first request, then the span of LLM calls split into prefill
  (prompt evaluation), decoding (``llama_decode`` of the answers' steps), sampling and
  grammar, and the engine's idle time (waiting between calls: the methods' own work,
  parsing, scheduling), and the tail after the last answer (scoring in the sandbox,
  the report). The engine writes its counters at exit (``TCZOO_LOCAL_STATS``);
- the engine's speeds in this run: prefill tokens/s, decoding tokens/s (answer tokens
  per second of ``llama_decode`` time, all sequences together), and the run's
  **efficiency** = (prompt tokens evaluated / prefill speed + answer tokens / decoding
  speed) / wall time, the share of the wall time the model's work explains (target >= 0.8);
- speculation: guessed tokens fed, how many held, answer tokens per decoding step per
  sequence.

``--busy`` runs each variant again beside two busy loops (one per core of a 2-core
machine, as a test suite or a compile would be) and prints the ratio (target <= 2.5x).
``--quick`` also times the quick look (``--problems zm01``; target <= 90 s).
The load average is printed before and after each run: a figure taken under load says so.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_model_contention import Busy  # the same two busy loops (this script's folder is on sys.path)

from tczoo.llm.local.gguf import EMBEDDED_MODELS, embedded_model_path

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"wall_s": 240.0, "busy_ratio": 2.5, "rss_gb": 3.0, "quick_s": 90.0, "efficiency": 0.8}


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def fresh_cache(root: Path) -> Path:
    """A cache folder with nothing but the assembled models linked in."""
    models = root / "cache" / "models"
    models.mkdir(parents=True)
    for name in EMBEDDED_MODELS:
        try:
            gguf = embedded_model_path(name)
        except Exception:  # noqa: BLE001 - a model whose parts are not installed is left out
            continue
        (models / gguf.name).symlink_to(gguf)
        stamp = gguf.with_suffix(".verified")
        shutil.copy(stamp, models / stamp.name)
    return root / "cache"


def run_job(env_extra: dict[str, str], problems: str, extra_args: list[str] = ()) -> dict:
    """One ``tczoo run`` from an empty cache: its figures (see the module docstring)."""
    root = Path(tempfile.mkdtemp(prefix="tczoo-bench-quickstart-"))
    try:
        stats_file = root / "engine.jsonl"
        env = dict(os.environ, TCZOO_CACHE=str(fresh_cache(root)), TCZOO_LOCAL_STATS=str(stats_file),
                   TCZOO_PROGRESS="plain", **env_extra)
        out = root / "runs" / "quickstart"
        tczoo = Path(sys.executable).with_name("tczoo")
        load_before = load()
        started = time.time()
        proc = subprocess.Popen([str(tczoo), "run", "--method", "crux", "--problems", problems, "--out", str(out),
                                 *extra_args],
                                env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = proc.communicate()
        ended = time.time()
        if proc.returncode != 0:
            print(stdout[-2000:], stderr[-3000:])
            raise SystemExit(f"tczoo run failed (exit {proc.returncode})")
        calls = [json.loads(line) for line in (out / "exchanges.jsonl").open() if line.strip()]
        engines = [json.loads(line) for line in stats_file.open()] if stats_file.exists() else []
        report = subprocess.run([str(tczoo), "report", str(out), "--format", "md"], env=env, cwd=REPO,
                                capture_output=True, text=True)
        table = [line for line in report.stdout.splitlines() if line.startswith("|")]
        progress = [line for line in stderr.splitlines() if line.startswith("tczoo: [")]
        return {"wall_s": ended - started, "started": started, "ended": ended, "calls": calls, "engines": engines,
                "table": table, "progress": progress, "load_before": load_before,
                "load_after": load()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def phases(r: dict) -> dict:
    """Seconds by phase and the engine's speeds, from the run's records and the engine's counters."""
    calls = [c for c in r["calls"] if c.get("ok") and not c.get("cached")]
    prompt = sum(c["usage"]["prompt_tokens"] for c in calls)
    answer = sum(c["usage"]["completion_tokens"] for c in calls)
    out = {"calls": len(calls), "prompt_tokens": prompt, "answer_tokens": answer, "wall_s": r["wall_s"]}
    if not r["engines"]:
        return out
    [e] = r["engines"][:1]
    out["rss_gb"] = e.get("maxrss_kb", 0) / 1024 / 1024  # the tczoo process's peak, when its engine closed
    st, t = e["stats"], e["times"]
    out.update(
        startup_s=t["created"] - r["started"],
        load_s=t["loaded"] - t["created"],
        until_first_s=t.get("first_request", t["loaded"]) - t["loaded"],
        prefill_s=st["prefill_s"], decode_s=st["decode_s"], sample_s=st["sample_s"],
        span_s=t.get("last_answer", t["loaded"]) - t.get("first_request", t["loaded"]),
        tail_s=r["ended"] - t.get("last_answer", r["ended"]),
        prompt_evaluated=st["prompt_evaluated"], prompt_reused=st["prompt_reused"],
        decoded=st["decoded"], steps=st["steps"], rows=st["rows"], drafted=st["drafted"], accepted=st["accepted"],
        config=e["config"],
    )
    out["idle_s"] = out["span_s"] - out["prefill_s"] - out["decode_s"] - out["sample_s"]
    out["prefill_tok_s"] = st["prompt_evaluated"] / st["prefill_s"] if st["prefill_s"] else None
    out["decode_tok_s"] = st["decoded"] / st["decode_s"] if st["decode_s"] else None
    if out["prefill_tok_s"] and out["decode_tok_s"]:
        model_s = st["prompt_evaluated"] / out["prefill_tok_s"] + answer / out["decode_tok_s"]
        out["efficiency"] = model_s / r["wall_s"]
    return out


def show(name: str, r: dict, p: dict) -> None:
    print(f"\n== {name}: {p['wall_s']:.0f} s ({p['wall_s'] // 60:.0f} min {p['wall_s'] % 60:.0f} s)  "
          f"[load before {r['load_before']}, after {r['load_after']}]")
    print(f"   {p['calls']} LLM calls, {p['prompt_tokens']:,} prompt + {p['answer_tokens']:,} answer tokens; "
          f"peak RSS {p['rss_gb']:.2f} GB" if p.get("rss_gb") is not None else "")
    if "decode_s" in p:
        cfg = p["config"]
        print(f"   engine: decode={cfg['decode']}, speculate={cfg['speculate']}, threads={cfg['n_threads']}, "
              f"slots={cfg['n_parallel']}, prefixes={cfg['n_prefixes']}")
        rows = [("start-up (CLI, benchmark load)", p["startup_s"]), ("model load", p["load_s"]),
                ("until the first request", p["until_first_s"]), ("prefill", p["prefill_s"]),
                ("decoding (llama_decode)", p["decode_s"]), ("sampling and grammar", p["sample_s"]),
                ("engine idle between steps and calls", p["idle_s"]),
                ("after the last answer (scoring, report)", p["tail_s"])]
        for label, seconds in rows:
            print(f"   {label:42s} {seconds:8.1f} s  {100 * seconds / p['wall_s']:5.1f}%")
        print(f"   prefill: {p['prompt_evaluated']:,} tokens evaluated ({p['prompt_reused']:,} reused), "
              f"{p['prefill_tok_s']:.1f} tok/s; decoding: {p['decoded']:,} tokens in {p['steps']:,} steps, "
              f"{p['decode_tok_s']:.1f} tok/s (all sequences)")
        if p["drafted"]:
            per_seq_step = p["decoded"] / max(1, p["rows"] - p["drafted"])
            print(f"   speculation: {p['drafted']:,} guessed tokens fed, {p['accepted']:,} held "
                  f"({100 * p['accepted'] / p['drafted']:.0f}%), {per_seq_step:.2f} answer tokens per sequence-step")
        if p.get("efficiency") is not None:
            print(f"   efficiency (prompt/prefill speed + answer/decode speed) / wall = {p['efficiency']:.2f} "
                  f"(target >= {TARGETS['efficiency']})")
    for line in r["table"]:
        print("   " + line)


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    name, _, settings = text.partition("=")
    env = {}
    for item in filter(None, settings.split(",")):
        key, _, value = item.partition("=")
        env[key.strip()] = value.strip()
    return name, env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", action="append", default=[], help="NAME=ENV=VAL,ENV=VAL (default: tczoo's defaults)")
    ap.add_argument("--problems", default="zm01,zm03,zm04")
    ap.add_argument("--busy", action="store_true", help="each variant again beside two busy loops")
    ap.add_argument("--quick", action="store_true", help="also the quick look, --problems zm01")
    ap.add_argument("--max-tokens", type=int, help="passed to tczoo run (a smoke test of this script; not the "
                                                   "README's job, whose answers run to 2,048)")
    opts = ap.parse_args()
    variants = [parse_variant(v) for v in opts.variant] or [("default", {})]
    extra = ["--max-tokens", str(opts.max_tokens)] if opts.max_tokens else []
    if extra:
        print(f"NOTE: --max-tokens {opts.max_tokens}: not the README's job (a smoke test of the script)")
    print(f"cores: {os.cpu_count()}; load average before: {load()}; {time.strftime('%Y-%m-%d %H:%M')}")
    results = {}
    for name, env in variants:
        env = dict(env)
        model = ["--model", env.pop("MODEL")] if "MODEL" in env else []
        r = run_job(env, opts.problems, extra + model)
        results[name] = p = phases(r)
        show(name, r, p)
        if opts.busy:
            with Busy():
                rb = run_job(env, opts.problems, extra + model)
            pb = phases(rb)
            show(f"{name}, beside two busy loops", rb, pb)
            p["busy_ratio"] = pb["wall_s"] / p["wall_s"]
        if opts.quick:
            rq = run_job(env, "zm01", extra + model)
            pq = phases(rq)
            show(f"{name}, --problems zm01", rq, pq)
            p["quick_s"] = pq["wall_s"]
    print("\n| variant | wall (target <= 240 s) | beside 2 busy loops (<= 2.5x) | peak RSS (<= 3 GB) | "
          "zm01 alone (<= 90 s) | efficiency (>= 0.8) | answer tokens |")
    print("|---|---|---|---|---|---|---|")
    for name, p in results.items():
        busy = f"{p['busy_ratio']:.2f}x" if "busy_ratio" in p else "-"
        quick = f"{p['quick_s']:.0f} s" if "quick_s" in p else "-"
        eff = f"{p['efficiency']:.2f}" if p.get("efficiency") is not None else "-"
        rss = f"{p['rss_gb']:.2f} GB" if p.get("rss_gb") is not None else "-"
        print(f"| {name} | {p['wall_s']:.0f} s | {busy} | {rss} | {quick} | {eff} | {p['answer_tokens']:,} |")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
