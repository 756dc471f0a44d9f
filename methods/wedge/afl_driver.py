"""The AFL++ campaign of one problem, as one sandboxed job (tczoo WEDGE).

This file is not imported by tczoo: its text is the program the sandbox runs (``python3
-I``, inside the jail, under the job's limits). It builds the instrumented reference
with an AFL++ compiler, fuzzes it with the model's mutator for ``fuzz_s`` seconds,
validates what the fuzzer kept with the model's validator (in child processes under
their own limits), runs the valid ones once more to read their CPU time and the
conditions they satisfy, and prints the slowest ones, after a marker, as JSON.

Everything it starts (compiler, afl-fuzz, the target, validators) is its descendant in
the jail: the job's process, memory and wall-clock limits hold them all, and the jail's
end kills what is left.
"""

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

MARKER_RE = re.compile(r"@@wedge-condition (-?\d{1,9})@@")
LOG_CAP = 1 << 20


def emit(marker, payload):
    sys.stdout.flush()
    os.write(1, ("\n" + marker + json.dumps(payload) + "\n").encode())


def tail(data, n=1500):
    return data.decode("utf-8", "replace")[-n:] if isinstance(data, bytes) else str(data)[-n:]


def limited(cpu_s=None, memory=None):
    def apply():
        os.setsid()
        if cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def build(spec):
    """Compile the target with the first AFL++ compiler that works: (binary, compiler, errors)."""
    errors = []
    env = dict(os.environ, AFL_QUIET="1")
    for compiler in spec["compilers"]:
        if shutil.which(compiler) is None:
            errors.append(compiler + ": not installed")
            continue
        argv = [compiler, *spec["flags"], spec["source"], "-o", "target", *spec["libs"]]
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                               timeout=spec["build_s"], preexec_fn=limited())
        except subprocess.TimeoutExpired:
            errors.append(compiler + ": build timed out")
            continue
        if p.returncode == 0 and os.path.exists("target"):
            return "./target", compiler, errors
        errors.append(compiler + ": " + tail(p.stdout, 1200))
    return None, None, errors


def folder_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def fuzz(spec, binary):
    os.makedirs("seeds", exist_ok=True)
    for i, text in enumerate(spec["seeds"]):
        with open("seeds/seed%d" % i, "wb") as f:
            f.write(text.encode("utf-8", "replace"))
    env = dict(os.environ, AFL_NO_UI="1", AFL_SKIP_CPUFREQ="1", AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1",
               AFL_NO_AFFINITY="1", AFL_PYTHON_MODULE="wedge_mutator", PYTHONPATH=os.getcwd(),
               AFL_FAST_CAL="1", AFL_NO_CRASH_README="1")
    if spec["custom_only"]:
        env["AFL_CUSTOM_MUTATOR_ONLY"] = "1"
    if not spec["trim"]:
        env["AFL_DISABLE_TRIM"] = "1"
    argv = ["afl-fuzz", "-i", "seeds", "-o", "out", "-V", str(spec["fuzz_s"]), "-t", str(spec["exec_timeout_ms"]),
            "-m", str(spec["target_memory_mb"]), "-G", str(spec["max_len"]), "--", binary]
    log = open("afl.log", "ab")  # append mode: the poll loop below may cut it back to empty
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                            preexec_fn=limited(memory=spec["fuzzer_memory"]))
    stopped = "time"
    deadline = started + spec["fuzz_s"] + spec["grace_s"]
    while proc.poll() is None:
        time.sleep(0.5)
        if time.monotonic() > deadline:
            stopped = "killed after the budget"
            break
        if folder_bytes("out") > spec["disk_cap"]:
            stopped = "disk cap"
            break
        if os.path.getsize("afl.log") > LOG_CAP:  # only its tail is reported; the job's file-size limit stays far
            os.truncate("afl.log", 0)
    if proc.poll() is None:
        kill_group(proc)
    log.close()
    with open("afl.log", "rb") as f:
        text = f.read()
    stats = {}
    try:
        with open("out/default/fuzzer_stats", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                stats[key.strip()] = value.strip()
    except OSError:
        pass
    keep = ("execs_done", "execs_per_sec", "corpus_count", "saved_hangs", "saved_crashes", "bitmap_cvg",
            "run_time", "cycles_done")
    return {"returncode": proc.returncode, "stopped": stopped, "seconds": round(time.monotonic() - started, 1),
            "stats": {k: stats[k] for k in keep if k in stats}, "log": tail(re.sub(rb"\x1b\[[0-9;?]*[a-zA-Z]", b"", text), 2500)}


def entries(spec):
    """(path, kind) of what the fuzzer kept, most promising first: hangs, then the queue
    by size (largest first); the seeds themselves are not candidates."""
    found = []
    for kind in ("hangs", "queue"):
        folder = os.path.join("out", "default", kind)
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if not name.startswith("id:") or ",orig:" in name or not os.path.isfile(path):
                continue
            found.append((path, kind, os.path.getsize(path)))
    found.sort(key=lambda e: (e[1] != "hangs", -e[2]))
    return [(p, k) for p, k, _ in found]


def validate(paths, spec, deadline):
    """The model's validator on each path, in batches of child processes: verdicts (None = valid)."""
    verdicts = {}
    batch = spec["validate_batch"]
    for start in range(0, len(paths), batch):
        if time.monotonic() > deadline:
            break
        chunk = paths[start:start + batch]
        cpu_s = max(1, -(-spec["validate_ms"] * len(chunk) // 1000))
        why = "validator failed on the batch"
        try:
            p = subprocess.run([sys.executable, "-I", "wedge_validate.py"], input=json.dumps(chunk).encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=2 * cpu_s + 2,
                               preexec_fn=limited(cpu_s, spec["validator_memory"]))
            why += ": " + tail(p.stderr, 300)
            result = json.loads(p.stdout.decode("utf-8", "replace") or "null")
        except subprocess.TimeoutExpired:
            why, result = "validator timed out on the batch", None
        except ValueError:
            result = None
        if not isinstance(result, list) or len(result) != len(chunk):
            result = [why] * len(chunk)
        for path, verdict in zip(chunk, result):
            verdicts[path] = verdict
    return verdicts


def triage(paths, binary, spec, deadline):
    """CPU ms, status and satisfied conditions of the target on each path. The driver
    waits for one child at a time, so the growth of its children's rusage is that run's."""
    out = {}
    cpu_s = max(1, -(-spec["exec_timeout_ms"] // 1000))
    for path in paths:
        if time.monotonic() > deadline:
            break
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(path, "rb") as fin, open("triage.err", "wb") as ferr:
            proc = subprocess.Popen([binary], stdin=fin, stdout=subprocess.DEVNULL, stderr=ferr,
                                    preexec_fn=limited(cpu_s, spec["target_memory_mb"] << 20))
            try:
                code = proc.wait(timeout=2 * cpu_s + 2)
            except subprocess.TimeoutExpired:
                kill_group(proc)
                code = None
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_ms = 1000.0 * ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if code is None or code == -signal.SIGXCPU or cpu_ms > spec["exec_timeout_ms"]:
            status = "TLE"
        elif code != 0:
            status = "RE"
        else:
            status = "AC"
        with open("triage.err", "rb") as f:
            err = f.read(1 << 20).decode("utf-8", "replace")
        out[path] = {"cpu_ms": round(cpu_ms, 3), "status": status,
                     "conditions": sorted({int(m) for m in MARKER_RE.findall(err)})}
    return out


def main():
    with open("spec.json", encoding="utf-8") as f:
        spec = json.load(f)
    marker = spec["marker"]
    if shutil.which("afl-fuzz") is None:
        emit(marker, {"error": "unavailable", "detail": "afl-fuzz is not installed"})
        return
    binary, compiler, build_errors = build(spec)
    if binary is None:
        emit(marker, {"error": "build", "detail": "\n".join(build_errors)[-3000:]})
        return
    report = {"compiler": compiler, "fuzz": fuzz(spec, binary)}
    found = entries(spec)
    report["kept"] = {"queue": sum(k == "queue" for _, k in found), "hangs": sum(k == "hangs" for _, k in found)}
    deadline = time.monotonic() + spec["triage_s"]
    paths = [p for p, _ in found]
    verdicts = validate(paths, spec, deadline)
    valid = [p for p in paths if p in verdicts and verdicts[p] is None]
    rejected = [verdicts[p] for p in paths if verdicts.get(p) is not None]
    report["validated"] = len(verdicts)
    report["valid"] = len(valid)
    report["rejections"] = rejected[:5]
    timed = triage(valid, binary, spec, deadline)
    report["triaged"] = len(timed)
    usable = [p for p in valid if p in timed and timed[p]["status"] in ("AC", "TLE")]
    report["target_failed"] = sum(1 for p in timed if timed[p]["status"] not in ("AC", "TLE"))
    usable.sort(key=lambda p: (timed[p]["status"] == "TLE", timed[p]["cpu_ms"], len(timed[p]["conditions"])),
                reverse=True)
    kind = dict(found)
    candidates = []
    for path in usable[:spec["candidates"]]:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        candidates.append({"name": os.path.basename(path), "kind": kind[path], "input": text, **timed[path]})
    report["candidates"] = candidates
    emit(marker, report)


main()
