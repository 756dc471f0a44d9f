"""The reproduction registry and the papers' numbers as data: every target holds
together, the transcribed tables agree with the papers' own arithmetic (a typo in a
number fails here), and the layout code joins, melts and orders rows as documented."""

from __future__ import annotations

import pytest

from tczoo.experiments.layout import melt, our_rows, side_by_side
from tczoo.experiments.metrics import lookup, norm
from tczoo.experiments.targets import TargetError, load_papers, load_targets, papers, targets
from tczoo.runner import Table


def test_every_target_loads_with_its_paper_tables():
    known = targets()
    wanted = {"tcbench-table1", "tcbench-fig4a", "tcbench-fig5", "harness-table1", "harness-table3", "stab-table2",
              "stab-table3", "stab-table4", "trails-table1", "trails-table2", "tcbench-fig4c", "tcbench-fig6",
              "tcbench-fig7", "tcbench-fig8", "tcbench-a5"}
    assert wanted <= set(known)
    for name, target in known.items():
        assert target.name == name and target.paper in papers()
        assert target.paper_tables(), name  # compared with something of the paper
        for _, table in target.paper_tables():
            assert table.rows or table.claims, f"{name}: a paper table without numbers must say what the paper claims"


def test_tcbench_rows_add_up_as_the_paper_defines_them():
    """HR = WA + RE + TLE = 100 - AC in every row of Tables 1 and 2, but the one row the
    paper itself misprints (kept as printed, and said so in the table's notes)."""
    misprinted = [("Qwen2.5-32B", "pseudo")]
    for tid in ("table1", "table2"):
        table = papers()["tcbench"].tables[tid]
        assert len(table.rows) == (40 if tid == "table1" else 20)
        for row in table.records():
            assert row["WA"] + row["RE"] + row["TLE"] == pytest.approx(row["HR"], abs=0.011), row
            if (row["model"], row["method"]) in misprinted:
                assert any("typo in the paper" in n for n in table.notes)
                continue
            assert row["AC"] + row["HR"] == pytest.approx(100.0, abs=0.011), row


def test_stab_table2_avg_is_the_mean_of_the_five_references_over_the_languages():
    for row in papers()["stab"].tables["table2"].records():
        per_language = [(row[f"{lang} Fast"] + row[f"{lang} Slow"] + 3 * row[f"{lang} Random"]) / 5
                        for lang in ("Python", "Java", "C++")]
        assert sum(per_language) / 3 == pytest.approx(row["Avg"], abs=0.02), row


def test_stab_table3_and_table4_agree_on_stab_and_the_spot_values():
    t3 = {(r["model"], r["method"]): r for r in papers()["stab"].tables["table3"].records()}
    t4 = {(r["model"], r["method"]): r for r in papers()["stab"].tables["table4"].records()}
    for model in ("Gemini-3.1", "GPT-5.4"):
        assert t3[(model, "stab")] == t4[(model, "stab")]
    assert t4[("GPT-5.4", "wedge")]["ASR C++"] == 37.81
    harness = {(r["model"], r["method"], r["dataset"]): r for r in papers()["harnessllm"].tables["table1"].records()}
    assert harness[("Qwen3-4B RL", "harness", "Codeforces")]["TBR"] == 74.4
    trails = {(r["dataset"], r["model"]): r for r in papers()["trails"].tables["table2"].records()}
    assert trails[("CoCoClaNeL", "Olmo3.1-Instr")]["trails correct"] == 100


def test_trails_table1_cells_agree_with_the_relative_changes_the_paper_prints():
    """Spot checks of the OCR'd table against the paper's own '+x%' beside each cell."""
    rows = {(r["dataset"], r["model"]): r for r in papers()["trails"].tables["table1"].records()}
    lcb_qwen = rows[("LiveCodeBench", "Qwen3-Coder")]
    assert lcb_qwen["trails τ=0.8 MCC"] / lcb_qwen["cot MCC"] == pytest.approx(1.0801, abs=0.001)
    coco_olmo = rows[("CoCoClaNeL", "Olmo3.1-Instr")]
    assert coco_olmo["trails τ=0.8 P4"] / coco_olmo["cot P4"] == pytest.approx(1.2030, abs=0.001)
    assert rows[("LiveCodeBench", "Devstral-Small2")]["trails τ=0.7 MCC"] is None  # illegible, never guessed


def test_registry_mistakes_are_named():
    good = {"title": "t", "cite": "c", "tables": {"t1": {"ref": "Table 1", "keys": ["method"], "columns": ["HR"],
                                                          "rows": [["crux", 1.0]]}}}
    assert load_papers({"p": good})["p"].tables["t1"].records() == [{"method": "crux", "HR": 1.0}]
    bad_row = {"title": "t", "cite": "c", "tables": {"t1": {"ref": "r", "keys": ["method"], "columns": ["HR"],
                                                             "rows": [["crux"]]}}}
    with pytest.raises(TargetError, match="row 1 has 1 values"):
        load_papers({"p": bad_row})
    known = load_papers({"p": good})
    base = {"paper": "p", "title": "x", "run": {"methods": ["crux"]}, "layout": {"keys": ["method"], "columns": ["HR"]},
            "compare": ["t1"]}
    assert load_targets({"x": base}, known)["x"].name == "x"
    with pytest.raises(TargetError, match="no table 't9'"):
        load_targets({"x": {**base, "compare": ["t9"]}}, known)
    with pytest.raises(TargetError, match="unknown paper"):
        load_targets({"x": {**base, "paper": "nope"}}, known)
    with pytest.raises(TargetError, match="none of the columns"):
        load_targets({"x": {**base, "layout": {"keys": ["method"], "columns": ["PR"]}}}, known)
    with pytest.raises(TargetError, match="without runs needs an analysis"):
        load_targets({"x": {**base, "run": None}}, known)
    with pytest.raises(TargetError, match="x:"):
        load_targets({"x": {**base, "surprise": 1}}, known)


def test_melt_turns_dataset_columns_into_rows():
    table = Table(title="HarnessLLM bug finding (Table 1 layout)",
                  columns=["model", "method", "lcb GI", "lcb TBR", "cf GI", "cf TBR", "responses", "units"],
                  rows=[{"model": "m", "method": "IO", "lcb GI": 1.0, "lcb TBR": 2.0, "cf GI": 3.0, "cf TBR": 4.0,
                         "responses": 8, "units": 8}])
    out = melt(table, {"pattern": r"^(?P<dataset>.+) (?P<metric>GI|ITR|TBR)$"})
    assert out.columns == ["model", "method", "responses", "units", "dataset", "GI", "TBR"]
    assert out.rows == [{"model": "m", "method": "IO", "responses": 8, "units": 8, "dataset": "lcb", "GI": 1.0, "TBR": 2.0},
                        {"model": "m", "method": "IO", "responses": 8, "units": 8, "dataset": "cf", "GI": 3.0, "TBR": 4.0}]


def test_our_rows_follow_the_papers_method_order_and_sit_beside_the_paper_rows():
    target = targets()["tcbench-table1"]
    table = Table(title="TC-Bench HackRate", columns=["model", "method", "PR", "HR", "units", "failed"],
                  rows=[{"model": "m", "method": m.upper(), "PR": 50.0, "HR": 10.0 * i, "units": 1, "failed": 0}
                        for i, m in enumerate(["ht", "algo", "crux", "lcb", "pseudo"])])
    ours, picked = our_rows(target, [table], lambda m: m)
    assert picked is table and [r["method"] for r in ours] == ["crux", "pseudo", "algo", "lcb", "ht"]
    rows = side_by_side(target, ours, [{"source": "paper Table 2", "_table": "table2", **r}
                                       for r in papers()["tcbench"].tables["table2"].records()])
    # each of ours, then the chosen paper model's row for the same method
    assert [(r["source"], r["model"], r["method"]) for r in rows[:2]] == [
        ("ours", "m", "crux"), ("paper Table 2", "Qwen2.5-Coder-7B", "crux")]
    assert len(rows) == 10


def test_lookup_reads_a_cells_metrics_and_says_failed():
    table = Table(title="t", columns=["model", "method", "PR", "HR", "units"],
                  rows=[{"model": "a", "method": "CRUX", "PR": 1.0, "HR": 2.0, "units": 1},
                        {"model": "b", "method": "CRUX", "PR": "failed", "HR": "failed", "units": 1}])
    assert [(c, v) for c, v, _ in lookup([table], "hackrate", "a", "crux")] == [("PR", 1.0), ("HR", 2.0)]
    assert [(c, v) for c, v, _ in lookup([table], "hackrate", "b", "crux", which="headline")] == [("HR", "failed")]
    assert lookup([table], "hackrate", "c", "crux") == []
    selector = Table(title="best", columns=["selector", "pool"], rows=[{"selector": "io (m)", "pool": 40.0}])
    assert [(c, v) for c, v, _ in lookup([selector], "bestofn", "m", "io")] == [("pool", 40.0)]
    # a runner nobody described: its numeric columns, the first as the headline
    assert [c for c, _, _ in lookup([table], "someone-else", "a", "crux", which="headline")] == ["PR"]
    assert norm("STAB-BASE") == norm("stab-base")
