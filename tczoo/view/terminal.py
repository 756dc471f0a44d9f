"""``tczoo show``: the run browser's drill-down as rich renderables, for a terminal.

    show RUN                          the run: totals, failures by reason, the report's tables,
                                      problems x methods
    show RUN --problem P              every unit of problem P
    show RUN --method M               every unit of method M
    show RUN --problem P --method M   one unit in full: metrics, failures, tests, verdicts,
                                      artifacts (syntax-highlighted), an agent's rounds, its LLM exchanges
    ... --exchange N                  that unit's N-th exchange: every message and the answer

Everything a model or a program wrote goes through ``Text`` (never rich markup) after
``safe`` (``tczoo.safeio.text.printable``), so no answer can drive the terminal.
"""

from __future__ import annotations

from typing import Any, Iterator

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tczoo.errors import UserError
from tczoo.view.data import RunData, safe

STYLES = {"AC": "black on green", "valid": "black on green", "no": "black on green",
          "WA": "white on red", "invalid": "white on red", "slow": "black on yellow",
          "TLE": "black on dark_orange", "tle": "black on dark_orange",
          "RE": "white on purple", "crash": "white on purple", "MLE": "white on purple", "OLE": "white on purple",
          "CE": "white on purple", "SE": "white on purple"}
LEXERS = {"python": "python", "cpp": "cpp", "c": "c", "java": "java"}


class ShowError(UserError, ValueError):
    pass


def t(value: Any, style: str = "") -> Text:
    """Plain text from data (already made printable by ``safe``), never markup."""
    if isinstance(value, dict) and "clip" in value:
        return Text(value["clip"] + f"\n… (first {len(value['clip'])} of {value['of']} characters)", style=style)
    return Text("" if value is None else str(value), style=style)


def clip(value: Any, lines: int = 6, chars: int = 400) -> Text:
    text = value["clip"] if isinstance(value, dict) and "clip" in value else ("" if value is None else str(value))
    head = "\n".join(text.split("\n")[:lines])[:chars]
    out = Text(head)
    if len(head) < len(text) or isinstance(value, dict):
        out.append(f" … ({len(text) if not isinstance(value, dict) else value['of']} chars)", style="dim")
    return out


def table(title: str, columns: list[str], rows: list[list[Any]], **kw: Any) -> Table:
    tb = Table(title=Text(title), title_justify="left", **kw)
    for c in columns:
        tb.add_column(Text(c), overflow="fold")
    for r in rows:
        tb.add_row(*(c if isinstance(c, (Text, Table, Syntax, Group)) else t(c) for c in r))
    return tb


def money(v: Any) -> str:
    """Dollars, or what the data says instead ("not priced": tczoo.report.cost_shown)."""
    if isinstance(v, str):
        return v
    return f"${float(v or 0):.4f}"


# --------------------------------------------------------------------------- the run


def run_view(data: RunData, *, limit: int = 40) -> Iterator[RenderableType]:
    s = data.summary()
    c, tot = s["config"], s["totals"]
    head = Text()
    head.append(f"run {s['name']}", style="bold")
    head.append(f"  ({s['path']})\n", style="dim")
    head.append(f"model {c.get('model')} · benchmark {c.get('benchmark')} · methods {', '.join(map(str, c.get('methods', [])))}\n")
    head.append(f"{tot['units']} units on {tot['problems']} problems · {tot['calls']} calls ({tot['cached_calls']} cached, "
                f"{tot['failed_calls']} failed) · {tot['prompt_tokens'] + tot['completion_tokens']} tokens · "
                f"{money(tot.get('cost', tot['cost_usd']))} · {tot['generation_seconds']:.1f} s generating")
    yield Panel(head, expand=False)
    if s["failures"]:
        yield table("failures by stage and reason", ["stage", "reason", "count", "units"],
                    [[f["stage"], f["reason"], f["count"], f["units"]] for f in s["failures"]])
    else:
        yield Text("no failures recorded", style="green")
    if s["table_error"]:
        yield t(s["table_error"], "red")
    for tb in s["tables"]:
        rt = table(tb["title"], tb["columns"], tb["rows"])
        yield rt
        for n in tb["notes"]:
            yield t(n, "dim")
    yield grid(data, limit=limit)


def grid(data: RunData, *, problems: list[str] | None = None, limit: int = 40) -> Table:
    units = data.all_units()
    methods = list(dict.fromkeys(u.method for u in units))
    pids = problems or data.problems()
    cells: dict[tuple[str, str], list[Text]] = {}
    for u in units:
        cells.setdefault((u.problem, u.method), []).append(chip(data.unit_line(u)))
    rows = []
    for pid in pids[:limit]:
        rows.append([Text(safe(pid, 200))] + [Text(" ").join(cells.get((pid, m), [])) for m in methods])
    title = "problems x methods (show RUN --problem P --method M for one unit)"
    if len(pids) > limit:
        title += f"; first {limit} of {len(pids)} problems"
    return table(title, ["problem", *[safe(m, 200) for m in methods]], rows)


def chip(line: dict[str, Any]) -> Text:
    label = f"{line['task']} " if line["task"] else ""
    if not line["generated"] or line["crashed"]:
        return Text(label + ("crashed" if line["crashed"] else "not generated"), style="red")
    if line.get("failed"):
        return Text(label + f"failed ({line['failed']})", style="bold red")
    if line["tests"] == 0:
        return Text(label + "no tests", style="red")
    if line["valid"] == 0:
        return Text(label + "0 valid", style="red")
    text = label + (f"{line['headline']} {line['value']:.1f}" if line["value"] is not None else f"{line['tests']} tests")
    if line["failures"]:
        return Text(text + f" · {line['failures']} failures", style="yellow")
    return Text(text)


# --------------------------------------------------------------------------- several units


def units_view(data: RunData | list[RunData], *, problem: str | None,
               method: str | None) -> Iterator[RenderableType]:
    """Every unit of ``problem`` and/or ``method``, over one run or several (a grid's
    cells: then with the model of each)."""
    datas = data if isinstance(data, list) else [data]
    several = len(datas) > 1
    rows = []
    for d in datas:
        for u in d.all_units():
            if (problem is None or u.problem == problem) and (method is None or u.method == method):
                line = d.unit_line(u)
                rows.append(([line["model"]] if several else [])
                            + [line["problem"], line["method"], line["task"], line["tests"], line["valid"], chip(line),
                               ", ".join(line["reasons"]), line["exchanges"], line["tokens"], money(line["cost"])])
    if not rows:
        raise ShowError(_nothing(datas[0], problem, method) if not several else
                        f"no unit{' of method ' + repr(method) if method else ''}"
                        f"{' on problem ' + repr(problem) if problem else ''} in these {len(datas)} runs "
                        f"(problems: {', '.join(sorted({p for d in datas for p in d.problems()})[:8])}; "
                        f"methods: {', '.join(sorted({u.method for d in datas for u in d.all_units()}))})")
    columns = (["model"] if several else []) + ["problem", "method", "task", "tests", "valid", "result", "failures",
                                                "calls", "tokens", "cost"]
    yield table(f"{len(rows)} units", columns, [[safe(c, 300) if isinstance(c, str) else c for c in r] for r in rows])


def runs_view(datas: list[RunData], *, make_table: Any = None, short: Any = None) -> Iterator[RenderableType]:
    """Several runs (a grid's cells, or runs named together): one line per run with its
    totals and how to open it. ``make_table(title, columns, rows)`` builds the table (the
    command line's, fitted to the terminal), ``short(models)`` shortens model strings."""
    make_table = make_table or (lambda title, columns, rows: table(title, columns, rows))
    models = [str(d.config.get("model", "")) for d in datas]
    labels = short(models) if short is not None else models
    rows = []
    for d, label in zip(datas, labels):
        tot = d.totals()
        lines = [d.unit_line(u) for u in d.all_units()]
        failed = sum(1 for x in lines if x.get("failed") or x["crashed"])
        values = [x["value"] for x in lines if x["value"] is not None]
        head = next((x["headline"] for x in lines if x["headline"]), "")
        mean = f"{head} {sum(values) / len(values):.1f}" if values else ("failed" if failed and failed == len(lines)
                                                                          else "")
        rows.append([str(d.root), label, ", ".join(map(str, d.config.get("methods", []))),
                     tot["units"], failed, mean, tot["calls"], tot["prompt_tokens"] + tot["completion_tokens"],
                     money(tot.get("cost", tot["cost_usd"]))])
    yield make_table(f"{len(datas)} runs (show PATH --model M --method X for one; --problem P for its units)",
                     ["run", "model", "methods", "units", "failed", "mean headline", "calls", "tokens", "cost"],
                     [[safe(c, 300) if isinstance(c, str) else c for c in r] for r in rows])


def _nothing(data: RunData, problem: str | None, method: str | None) -> str:
    if problem is not None and problem not in data.problems():
        known = ", ".join(data.problems()[:8])
        return f"run {data.name} has no problem {problem!r} (it has: {known}{' ...' if len(data.problems()) > 8 else ''})"
    methods = sorted({u.method for u in data.all_units()})
    return f"run {data.name} has no unit of method {method!r}" + (f" on {problem!r}" if problem else "") + \
        f" (methods: {', '.join(methods)})"


# --------------------------------------------------------------------------- one unit


def unit_view(data: RunData, problem: str, method: str, *, task: str | None = None,
              exchange: int | None = None, full: bool = False) -> Iterator[RenderableType]:
    units = [u for u in data.all_units() if u.problem == problem and u.method == method
             and (task is None or u.task == task)]
    if not units:
        raise ShowError(_nothing(data, problem, method))
    if len(units) > 1 and task is None:
        yield from units_view(data, problem=problem, method=method)
        yield Text(f"{len(units)} tasks: pick one with --task ({', '.join(u.task for u in units)})", style="yellow")
        return
    d = safe(data.unit_detail(units[0]), data.max_chars)
    line = d["line"]
    if exchange is not None:
        xs = d["exchanges"]
        if not 1 <= exchange <= len(xs):
            raise ShowError(f"--exchange must be between 1 and {len(xs)} for this unit" if xs
                            else "this unit recorded no LLM exchange")
        yield from exchange_view(xs[exchange - 1], exchange, len(xs), line)
        return
    lines = 10_000 if full else 6
    chars = 10_000_000 if full else 400
    yield Panel(t(f"{line['method']} on {line['problem']}" + (f" [{line['task']}]" if line["task"] else "")
                  + f"\nmodel {line['model']} · {d.get('seconds', 0)} s · {line['exchanges']} LLM calls · "
                    f"{line['tokens']} tokens · {money(line['cost'])}"), expand=False)
    if d.get("error"):
        yield Panel(clip(d["error"], 20, 3000), title="the method crashed", border_style="red")
    for sc in d["scores"]:
        yield table(f"metrics ({sc['runner']})", ["metric", "value"], [[k, v] for k, v in sc["metrics"].items()])
        if sc["note"]:
            yield t(sc["note"], "dim")
    if not d["scores"]:
        yield Text("not scored", style="yellow")
    if d["failures"]:
        yield table("failures", ["stage", "reason", "item", "detail"],
                    [[f["stage"], Text(str(f["reason"]), style="bold red"), f["item"], clip(f["detail"], 4, 300)]
                     for f in d["failures"]])
    if d.get("rounds"):
        yield from rounds_view(d["rounds"], full)
    tests = d.get("tests", [])
    if tests:
        validity = {}
        for sc in d["scores"]:
            for m in sc["matrices"]:
                for row in m["rows"]:
                    if row["label"] == "validity":
                        validity.update({col: cell for col, cell in zip(m["tests"], row["cells"])})
        rows = []
        for i, test in enumerate(tests):
            v = validity.get(i)
            rows.append([f"t{i}", test["origin"], clip(test["input"], lines, chars),
                         Text("(oracle)", style="dim") if test["output"] is None else clip(test["output"], lines, chars),
                         Text(f"{v[0]} {v[1]}", style=STYLES.get(v[0], "")) if v else ""])
        yield table(f"tests ({len(tests)}; oracle {d['oracle']['kind']})", ["#", "origin", "input", "output", "validity"], rows,
                    show_lines=True)
    elif "tests" in d:
        yield Text("this unit produced no tests", style="bold red")
    for sc in d["scores"]:
        for m in sc["matrices"]:
            yield matrix(m)
    for a in d.get("artifacts", []):
        made = (f"made {a['tests_made']} of the tests" if a["tests_made"] is not None
                else "its tests are not told apart from its family's in this run")
        title = f"{a['role']}: {a['program']['name']} ({'ran' if a['ok'] else 'failed'}; {made})"
        body: list[RenderableType] = []
        if a["note"]:
            body.append(t(a["note"], "dim"))
        for f in a["failures"]:
            body.append(Text(f"{f['stage']}:{f['reason']} ", style="red") + clip(f["detail"], 3, 200))
        code = a["program"]["code"]
        code = code["clip"] if isinstance(code, dict) else code
        if not full:
            code = "\n".join(code.split("\n")[:40])
        body.append(Syntax(code, LEXERS.get(a["program"]["language"], "text"), line_numbers=True, word_wrap=True))
        yield Panel(Group(*body), title=Text(title), border_style="green" if a["ok"] else "red")
    xs = d["exchanges"]
    if xs:
        yield table("LLM exchanges (show ... --exchange N for one in full)", ["N", "status", "tokens", "cost", "latency", "answer starts"],
                    [[str(i + 1), ("cached" if x["cached"] else "ok") if x["ok"] else f"failed: {x['reason']}",
                      f"{x['prompt_tokens']} → {x['completion_tokens']}", money(x["cost"]),
                      "" if x["seconds"] is None else f"{x['seconds']:.2f} s", clip(x["answer"], 1, 80)]
                     for i, x in enumerate(xs)])
    else:
        yield Text("no LLM exchange recorded for this unit", style="dim")


def _observed(observed: dict[str, Any]) -> Text:
    """A round's observations in a few lines: the counts, then the examples."""
    out = Text()
    for key, value in observed.items():
        if key == "examples" or (isinstance(value, dict) and "clip" not in value):
            continue
        out.append(f"{key} {value}  ")
    for key, value in observed.items():
        if isinstance(value, dict) and "clip" not in value:
            inner = {k: v for k, v in value.items() if k != "examples"}
            out.append(f"\n{key}: " + "  ".join(f"{k} {v}" for k, v in inner.items()))
            for ex in value.get("examples", [])[:3]:
                out.append("\n  · " + " ".join(f"{k}={t(v).plain!r}"[:120] for k, v in ex.items()), style="dim")
    for ex in observed.get("examples", [])[:3]:
        out.append("\n  · " + " ".join(f"{k}={t(v).plain!r}"[:160] for k, v in ex.items()), style="dim")
    return out


def rounds_view(rounds: list[dict[str, Any]], full: bool = False) -> Iterator[RenderableType]:
    """An agent's rounds: what each wrote, observed and changed (``--full``: their programs)."""
    rows = []
    for r in rounds:
        wrote = "\n".join(f"{w['name']}" + (f" (score {w['score']})" if w.get("score") is not None else "")
                          + ("" if w.get("selected", True) else " not kept") for w in r["wrote"])
        rows.append([str(r["round"]), f"{r['step']} {r['action']}", wrote, "\n".join(str(c) for c in r["changed"]),
                     _observed(r["observed"]),
                     Text(str(r["outcome"]), style="green" if str(r["outcome"]).startswith("clean") else "yellow")])
    yield table(f"agent rounds ({len(rounds)}; show ... --full for each program)", ["#", "step", "wrote", "changed",
                                                                                    "observed", "outcome"],
                rows, show_lines=True)
    if not full:
        return
    for r in rounds:
        for w in r["wrote"]:
            code = w["code"]["clip"] if isinstance(w["code"], dict) else w["code"]
            body: list[RenderableType] = []
            if w.get("commands"):
                body.append(t("commands:\n" + "\n".join(str(c) for c in w["commands"]), "dim"))
            body.append(Syntax(code, "python", line_numbers=True, word_wrap=True))
            yield Panel(Group(*body), title=Text(f"round {r['round']}: {w['name']}"),
                        border_style="green" if w.get("selected", True) else "dim")


def matrix(m: dict[str, Any]) -> Table:
    tb = Table(title=Text(m["title"]), title_justify="left", padding=(0, 0))
    tb.add_column("")
    for col in m["tests"]:
        tb.add_column(Text(f"t{col}"), justify="center")
    for row in m["rows"]:
        cells = [Text(f" {c[0]} ", style=STYLES.get(c[0], "dim")) for c in row["cells"]]
        tb.add_row(t(row["label"]), *cells)
    if m["notes"]:
        tb.caption = Text("; ".join(m["notes"]))
    return tb


def exchange_view(x: dict[str, Any], n: int, total: int, line: dict[str, Any]) -> Iterator[RenderableType]:
    status = ("answered from the cache" if x["cached"] else "answered") if x["ok"] else f"failed: {x['reason']}"
    head = Text(f"exchange {n} of {total}: {line['method']} on {line['problem']}\n", style="bold")
    head.append(f"{status} · model {x['model']} · sample {x['sample']} · {x['prompt_tokens']} → "
                f"{x['completion_tokens']} tokens · {money(x['cost'])} · "
                + ("latency not recorded" if x["seconds"] is None else f"{x['seconds']:.3f} s"))
    yield Panel(head, expand=False)
    if x["error"]:
        yield Panel(t(x["error"]), title="error", border_style="red")
    for m in x["messages"]:
        yield Panel(t(m["content"]), title=t(m["role"]), title_align="left", border_style="blue")
    yield Panel(t(x["answer"]), title="answer", title_align="left", border_style="green")
