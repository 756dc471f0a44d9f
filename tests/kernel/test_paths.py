import threading
import time

from tczoo.paths import cached_json, cached_json_many, texts_digest


def test_cached_json_computes_once_across_threads_and_processes_reuse_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.2)  # long enough for the other threads to arrive while it runs
        return {"runtimes": [1.5, 2.0]}

    results = []
    threads = [threading.Thread(target=lambda: results.append(cached_json("t", ["p", 1], compute))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and results == [{"runtimes": [1.5, 2.0]}] * 4
    assert cached_json("t", ["p", 1], lambda: 1 / 0) == {"runtimes": [1.5, 2.0]}  # read back, not recomputed
    assert cached_json("t", ["p", 2], lambda: [3]) == [3]  # another key


def test_a_value_keep_refuses_is_never_stored_and_a_stored_one_is_measured_again(tmp_path, monkeypatch):
    """An accepted solution's TLE measured under load must not exclude its problem from
    every later run: the efficiency runner keeps no timing with a TLE."""
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    no_tle = lambda v: "TLE" not in v["verdicts"]  # noqa: E731
    runs = iter([{"verdicts": ["AC", "TLE"]}, {"verdicts": ["AC", "AC"]}])
    assert cached_json("eff", ["p"], lambda: next(runs), keep=no_tle) == {"verdicts": ["AC", "TLE"]}
    assert not list((tmp_path / "eff").glob("*.json"))  # not stored
    assert cached_json("eff", ["p"], lambda: next(runs), keep=no_tle) == {"verdicts": ["AC", "AC"]}
    assert cached_json("eff", ["p"], lambda: 1 / 0, keep=no_tle) == {"verdicts": ["AC", "AC"]}  # now read back
    # a refused value stored by an older version is computed again
    cached_json("old", ["p"], lambda: {"verdicts": ["TLE"]})
    assert cached_json("old", ["p"], lambda: {"verdicts": ["AC"]}, keep=no_tle) == {"verdicts": ["AC"]}


def test_cached_json_many_computes_only_what_is_missing_in_one_batch(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    batches = []

    def compute(todo):
        batches.append(list(todo))
        return [{"ok": k != 2, "v": k} for k in todo]

    ok = lambda v: isinstance(v, dict) and v.get("ok") is True  # noqa: E731
    keys = [["a"], ["b"], ["c"]]
    assert cached_json_many("batch", keys, compute, keep=ok) == [{"ok": True, "v": 0}, {"ok": True, "v": 1},
                                                                {"ok": False, "v": 2}]
    assert batches == [[0, 1, 2]]
    # the refused value was not kept: only it is computed again, alone
    assert [v["v"] for v in cached_json_many("batch", keys, compute, keep=ok)] == [0, 1, 2]
    assert batches[1:] == [[2]]
    # a damaged file is computed again, not an error; everything kept: no call at all
    [damaged] = [p for p in (tmp_path / "batch").iterdir() if '"v": 0' in p.read_text()]
    damaged.write_text("{not json")
    cached_json_many("batch", keys[:2], compute, keep=ok)
    assert batches[2:] == [[0]]
    cached_json_many("batch", keys[:2], lambda todo: 1 / 0, keep=ok)


def test_texts_digest_keys_tests_by_their_content_and_boundaries():
    """The cache key of megabytes of tests: equal texts give one key; a text moved across
    a boundary, another pair, another order or a lone surrogate give another."""
    tests = [("1 2\n", "3\n"), ("x" * 100_000, "y")]
    assert texts_digest(tests) == texts_digest([(a, b) for a, b in tests])
    others = [[("1 2\n3", "\n"), tests[1]], [tests[1], tests[0]], tests[:1], [*tests, ("", "")],
              [("1 2\n\udcff", "3\n"), tests[1]]]
    keys = {texts_digest(t) for t in others}
    assert len(keys) == len(others) and texts_digest(tests) not in keys
