"""Progress of long commands: one display for every long phase of every command.

``progress(description, total, unit=...)`` is what ``tczoo run`` shows and what every
other long phase shows too (building a benchmark, loading one, ``benchmarks --check``,
``score``, ``view``, ``compare``, ``reproduce``):

- on a terminal, a rich bar: what is being done, the bar, done/total, elapsed time and
  the time left (ETA);
- otherwise (CI, logs, ``| tee``), a plain line on stderr every ``TCZOO_PROGRESS_INTERVAL``
  seconds (default 5) and one at the end, with no control codes:
  ``tczoo: [01:23] build-benchmark: 3/12 problems done, ETA 04:10``. A phase without
  counts yet (loading) shows its note instead.

``TCZOO_PROGRESS=plain`` forces the lines on a terminal, ``TCZOO_PROGRESS=1`` the bar
when piped, ``TCZOO_PROGRESS=0`` silences both.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable

from tczoo.cli.output import err_console


def progress(description: str, total: int | None = None, *, unit: str = "") -> "ProgressBar":
    """``with progress("score", unit="units") as p: p.update(done, total)``."""
    return ProgressBar(description, total, unit=unit)


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def _mode() -> str:
    forced = os.environ.get("TCZOO_PROGRESS", "").strip().lower()
    if forced in ("0", "off", "none", "no"):
        return "off"
    if forced == "plain":
        return "lines"
    if forced in ("1", "bar"):
        return "bar"
    return "bar" if err_console.is_terminal else "lines"


class ProgressBar:
    """One long phase: ``update(done, total)``, ``note(text)`` while there is nothing to
    count, ``describe(text)`` when the phase moves on (a grid's next cell)."""

    def __init__(self, description: str, total: int | None = None, *, unit: str = "",
                 interval: float | None = None):
        self.description = description
        self.unit = unit
        self.total = total
        self.done = 0
        self.extra = ""  # after the counts: failures, tokens ...
        self.note_text = ""  # instead of the counts, while there are none
        self.mode = _mode()
        self.interval = float(interval if interval is not None else os.environ.get("TCZOO_PROGRESS_INTERVAL", 5))
        self.started = time.monotonic()
        self.counting_since: float | None = None  # when the first count arrived (the ETA's clock)
        self.counted_from = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rich: Any = None
        self._task: Any = None
        self._offset = 0  # done in earlier parts (several runs scored in turn)

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> "ProgressBar":
        if self.mode == "bar":
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            # the ETA is ours (``eta()``: a run's comes from the work left), not rich's
            self._rich = Progress(TextColumn("{task.fields[desc]}", markup=False), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}", markup=False),
                                  TextColumn("{task.fields[extra]}", markup=False),
                                  console=err_console, transient=False)
            self._rich.__enter__()
            self._task = self._rich.add_task(self.description, total=self.total, extra="", eta="-:--",
                                             desc=self.description)
        elif self.mode == "lines":
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._rich is not None:
            self._rich.__exit__(*exc)
        elif self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=5)
            if exc[0] is None and (self.done or self.total or self.note_text):
                self._line(final=True)

    # ------------------------------------------------------------------ updates

    def update(self, done: int, total: int | None = None, *, extra: str | None = None) -> None:
        with self._lock:
            done += self._offset
            if total is not None:
                total += self._offset
            if self.counting_since is None and (total or done):
                self.counting_since, self.counted_from = time.monotonic(), done
            self.done = done
            if total is not None:
                self.total = total
            if extra is not None:
                self.extra = extra
            self.note_text = ""
        self._refresh()

    def advance(self, n: int = 1) -> None:
        self.update(self.done - self._offset + n)

    def note(self, text: str) -> None:
        """What the phase is doing while there is nothing to count (``loading ...``)."""
        with self._lock:
            self.note_text = text
        self._refresh()

    def describe(self, text: str) -> None:
        with self._lock:
            self.description = text
        self._refresh()

    def phase(self, description: str, unit: str = "") -> None:
        """A new phase with counts of its own (loading N problems, then scoring M units):
        its own description, unit and ETA clock."""
        with self._lock:
            changed = description != self.description or unit != self.unit
            self.description, self.unit = description, unit
            if changed:
                self.done, self.total, self._offset, self.extra = 0, None, 0, ""
                self.counting_since = None
        self._refresh()

    def next_part(self) -> None:
        """Counts of a new part add to those of the parts before (several runs in turn)."""
        with self._lock:
            self._offset = self.done

    # ------------------------------------------------------------------ the run loop's events

    def callback(self) -> Callable[[Any], None]:
        """A callback for the run loop's ``tczoo.run.RunProgress`` events."""
        return self.run_callback("")

    def run_callback(self, scope: str = "") -> Callable[[Any], None]:
        """A callback for ``tczoo.run.RunProgress`` events (``run``, ``rescore``): a
        ``load`` event is a note, the others are counts; ``scope`` names the part
        (``run 2/3 DIR``)."""
        self.next_part()
        base = self.description if not scope else None

        def on(p: Any) -> None:
            if scope:
                self.describe(scope)
            elif base is not None:
                self.describe(base)
            if p.stage == "load":
                self.note(p.note or "loading")
            else:
                self.update(p.done, p.total or None)
        return on

    # ------------------------------------------------------------------ output

    def eta(self) -> float | None:
        """Seconds left at the pace since counting began (None until there is a pace)."""
        with self._lock:
            if not self.total or self.counting_since is None or self.done <= self.counted_from:
                return None
            pace = (time.monotonic() - self.counting_since) / (self.done - self.counted_from)
            return max(0.0, pace * (self.total - self.done))

    def text(self, *, final: bool = False) -> str:
        with self._lock:
            head = self.description
            if self.note_text:
                return f"{head}: {self.note_text}"
            unit = f" {self.unit}" if self.unit else ""
            counts = f"{self.done}/{self.total}{unit} done" if self.total else f"{self.done}{unit} done"
            finished = bool(self.total) and self.done >= (self.total or 0)
        eta = self.eta()
        tail = f", ETA {_clock(eta)}" if eta is not None and not finished and not final else ""
        return f"{head}: {counts}{self.extra}{tail}"

    def _refresh(self) -> None:
        if self._rich is None:
            return
        eta = self.eta()
        with self._lock:
            if self.note_text:
                desc, extra = f"{self.description}: {self.note_text}", ""
            else:
                desc, extra = self.description, self.extra.lstrip(", ")
            finished = bool(self.total) and self.done >= (self.total or 0)
            self._rich.update(self._task, description=desc, desc=desc, completed=self.done,
                              total=self.total or None, extra=extra,
                              eta="-:--" if eta is None or finished else _clock(eta))

    def _line(self, final: bool = False) -> None:
        elapsed = time.monotonic() - self.started
        sys.stderr.write(f"tczoo: [{_clock(elapsed)}] {self.text(final=final)}\n")
        sys.stderr.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._line()


class RunReporter(ProgressBar):
    """Progress of ``tczoo run``, ``compare`` and ``reproduce``: the same display, fed the
    run loop's ``tczoo.run.RunProgress`` events (``reporter(state)``): units done of the
    total, failures so far, tokens and cost, and what is loading before."""

    def __init__(self, interval: float | None = None):
        super().__init__("tczoo run", unit="units", interval=interval)
        self.state: Any = None

    def __call__(self, state: Any) -> None:
        self.state = state
        scope = getattr(state, "scope", "") or ""
        if state.stage == "load":
            if state.total:  # problems of the benchmark loading one by one
                self.phase(f"{scope}: {state.note}" if scope else state.note or "loading", "problems")
                self.update(state.done, state.total)
            else:
                self.describe(scope or "tczoo run")
                self.note(state.note or "loading")
            return
        self.phase(scope or "tczoo run", "units")
        extra = f", {state.failed} failed, {state.tokens:,} tokens"
        if getattr(state, "tok_s", None):
            extra += f" ({state.tok_s:.1f} answer tok/s)"
        if state.cost:
            extra += f", ${state.cost:.4f}"
        self.update(state.done, state.total or None, extra=extra)

    def eta(self) -> float | None:
        """The run loop's own ETA (from the work left: ``tczoo.run.RunPace``) while it has
        one; else the pace of units done."""
        state = self.state
        if state is not None and state.stage == "run" and getattr(state, "eta_s", None) is not None:
            return state.eta_s
        return super().eta()
