"""Runs zoo-mini's generators (``gen.py SEED ARGS...``) many times in one interpreter.

    python -I zoo_mini_gen.py

Reads one JSON request per line on stdin, ``[gen_path, [argv...]]``, and answers each
with one JSON line, ``{"ok": true, "out": TEXT}`` or ``{"ok": false, "error": TEXT}``.
What a generator prints is what ``python -I gen.py ARGS`` would print, read as text
the way ``subprocess.run(..., text=True)`` reads it (UTF-8, universal newlines): the
loader checks every input against tests.lock.json anyway.

Why: starting an interpreter per golden test cost ~155 starts for zoo-mini, and the
loader runs one of these per core instead. Standalone on purpose (no tczoo imports):
it starts in milliseconds. The generators are tczoo's own, trusted code.
"""

import io
import json
import runpy
import sys
import traceback


def run(path: str, argv: list[str]) -> str:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)
    saved_argv, saved_out = sys.argv, sys.stdout
    sys.argv, sys.stdout = [path, *argv], out
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise RuntimeError(f"exit {e.code}") from None
    finally:
        out.flush()
        sys.argv, sys.stdout = saved_argv, saved_out
    return raw.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def main() -> None:
    answers = sys.stdout
    for line in sys.stdin:
        path, argv = json.loads(line)
        try:
            reply = {"ok": True, "out": run(path, argv)}
        except Exception as e:  # noqa: BLE001 - reported to the loader, which names the test
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-800:]}"}
        answers.write(json.dumps(reply) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
