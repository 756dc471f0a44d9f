import threading
import time

from tczoo.paths import cached_json


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
