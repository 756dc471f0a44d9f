"""Progress of long commands: a rich bar on a terminal, plain lines when piped."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from tczoo.cli.output import err_console


def progress(description: str, total: int | None = None) -> "ProgressBar":
    """``with progress("score") as p: p.update(done, total)``."""
    return ProgressBar(description, total)


class ProgressBar:
    """A rich bar on a terminal (or with ``TCZOO_PROGRESS=1``); silent otherwise."""

    def __init__(self, description: str, total: int | None = None):
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=err_console, transient=False,
            disable=not err_console.is_terminal and os.environ.get("TCZOO_PROGRESS") != "1",
        )
        self._task = self._bar.add_task(description, total=total)

    def __enter__(self) -> "ProgressBar":
        self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.__exit__(*exc)

    def update(self, done: int, total: int | None = None) -> None:
        self._bar.update(self._task, completed=done, total=total)

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)

    def callback(self) -> Callable[..., None]:
        """A callback for the run loop's ``tczoo.run.RunProgress`` events."""
        return lambda p: self.update(p.done, p.total or None)


class RunReporter:
    """Progress of ``tczoo run``: a rich bar on a terminal; otherwise (CI, logs,
    ``| tee``) a plain line on stderr every ``interval`` seconds
    (``TCZOO_PROGRESS_INTERVAL``, default 10) with units done of the total, failures
    so far and tokens — also while the benchmark loads — and one at the end. (A run
    that ends, or fails, within the first interval prints no progress at all.)"""

    def __init__(self, interval: float | None = None):
        import threading
        import time

        self._time = time
        self.interval = float(interval if interval is not None else os.environ.get("TCZOO_PROGRESS_INTERVAL", 10))
        self.bar = err_console.is_terminal and os.environ.get("TCZOO_PROGRESS") != "plain"
        self.started = time.monotonic()
        self.state: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._rich: ProgressBar | None = None

    def __enter__(self) -> "RunReporter":
        if self.bar:
            self._rich = ProgressBar("tczoo run")
            self._rich.__enter__()
        else:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._rich is not None:
            self._rich.__exit__(*exc)
        else:
            self._stop.set()
            self._thread.join(timeout=5)
            if self.state is not None and exc[0] is None:
                self._line()

    def __call__(self, state: Any) -> None:
        with self._lock:
            self.state = state
        if self._rich is not None:
            self._rich._bar.update(self._rich._task, description=self._describe(state, bar=True),
                                   completed=state.done, total=state.total or None)

    def _describe(self, s: Any, bar: bool = False) -> str:
        scope = f"{s.scope}: " if getattr(s, "scope", "") else ""
        if s.stage == "load":
            return scope + (s.note or "loading")
        text = f"{s.done}/{s.total} units done, {s.failed} failed, {s.tokens:,} tokens"
        if s.cost:
            text += f", ${s.cost:.4f}"
        return scope + (text if not bar else f"run: {s.failed} failed, {s.tokens:,} tokens")

    def _line(self) -> None:
        with self._lock:
            state = self.state
        if state is None:
            return
        elapsed = int(self._time.monotonic() - self.started)
        sys.stderr.write(f"tczoo: [{elapsed // 60:02d}:{elapsed % 60:02d}] {self._describe(state)}\n")
        sys.stderr.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._line()
