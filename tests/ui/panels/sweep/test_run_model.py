"""The Sweep tab's run model without Qt: plan, labels, progress and the time left, driven by
hand-made worker events (the contract's typed objects) and a fake clock (as ndv tests its
controller)."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.bench.schema.point_doc import read_point_doc
from app.bench.sweep.contract import (
    EndpointInfo,
    PointFinished,
    PointStarted,
    Progress,
    RunStarted,
)
from app.bench.sweep.plan import PointSpec
from app.ui.panels.sweep import status_text
from app.ui.panels.sweep.run_model import SweepRun, is_partial, point_label
from tests.ui.rows import row_of

ROOT = Path(__file__).resolve().parents[4]
INF = math.inf


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _finished(point: int, rate: float, conc: int | None, path: str) -> PointFinished:
    summary = {"request_rate": rate, "max_concurrency": conc, "completed": 10, "num_prompts": 10}
    summary |= {"median_e2el_ms": 2000.0, "request_throughput": 1.25}
    return PointFinished(point, path, read_point_doc(summary, strict=True))


def _progress(completed: int, total: int, elapsed_s: float = 0.0, failed: int = 0) -> Progress:
    return Progress(0, completed, failed, total, 0, elapsed_s, 0.0)


def test_a_grid_run_labels_what_varies_and_counts_progress_and_time_left() -> None:
    clock = Clock()
    run = SweepRun(clock)
    run.start([INF], [8, 16, 32], search=False)
    assert [p.max_concurrency for p in run.plan] == [8, 16, 32] and run.eta() is None
    assert run.point_started(PointStarted(0, INF, 8)) == "c=8"
    assert run.current_concurrency() == 8
    run.progress_event(_progress(4, 10, 5.0, failed=1))
    assert run.fraction() == 0.5 / 3  # half of the first of three points
    eta = run.eta()
    assert (eta.point, eta.points, eta.done, eta.total, eta.failed) == (0, 3, 5, 10, 1)
    assert math.isnan(eta.left_s)  # nothing said before a point has measured the pace
    clock.now += 8.0
    row = run.point_finished(_finished(0, INF, 8, "/r/a.json"))
    assert row.path == "/r/a.json" and row.point == 0 and run.points == [row]
    assert (row.request_rate, row.max_concurrency, row.completed) == (INF, 8, 10)
    assert row.stats["median_e2el_ms"] == 2000.0 and row.request_throughput == 1.25
    run.point_started(PointStarted(1, INF, 16))
    run.progress_event(_progress(0, 10))
    assert run.fraction() == 1 / 3
    # Point 0 measured 2 s a request and 1.25 requests/s: 10 requests at concurrency 16 are
    # one wave (2 s) at least, 10 / 1.25 = 8 s at most; the same for concurrency 32.
    eta = run.eta()
    assert (eta.left_lo_s, eta.left_hi_s) == (2.0 + 2.0, 8.0 + 8.0)
    run.progress_event(_progress(5, 10, 3.0))
    assert (run.eta().left_lo_s, run.eta().left_hi_s) == (2.0 + 2.0, 4.0 + 8.0)


def test_labels_name_rate_or_both_and_the_plan_comes_from_the_engine() -> None:
    run = SweepRun(Clock())
    run.start([1.0, 2.0], [32], search=False)
    assert run.point_started(PointStarted(0, 1.0, 32)) == "r=1"
    run.start([1.0, 2.0], [4, 8], search=False)
    assert run.point_started(PointStarted(0, 2.0, None)) == "r=2 c=∞"
    engine_plan = (PointSpec(0, INF, 64),)
    run.run_started(
        RunStarted(
            points=engine_plan, num_prompts=10, endpoint=EndpointInfo("http://h", "m", "chat")
        )
    )
    assert run.plan == [PointSpec(0, INF, 64)]
    assert point_label(row_of({"request_rate": "inf", "max_concurrency": None})) == "r=inf c=∞"
    assert point_label(row_of({"request_rate": 2.5, "max_concurrency": 8})) == "r=2.5 c=8"


def test_a_search_has_no_plan_and_its_bar_is_the_running_point() -> None:
    run = SweepRun(Clock())
    run.start([INF], [1, 256], search=True)
    assert run.plan == []
    assert run.point_started(PointStarted(2, INF, 4)) == "c=4"
    run.progress_event(_progress(3, 12))
    assert run.fraction() == 0.25
    eta = run.eta()
    assert eta.points == 0 and eta.point == 2 and math.isnan(eta.left_s)
    assert run.current_concurrency() is None  # no plan entry for a search point


def test_a_cancelled_run_keeps_the_bar_where_it_stopped() -> None:
    run = SweepRun(Clock())
    run.start([INF], [8, 16], search=False)
    run.point_started(PointStarted(0, INF, 8))
    run.point_finished(_finished(0, INF, 8, "/r/a.json"))
    run.point_started(PointStarted(1, INF, 16))
    run.progress_event(_progress(6, 10))
    run.cancelled = True
    partial = run.point_finished(_finished(1, INF, 16, "/r/b.partial.json"))
    run.finish()
    assert is_partial(partial) and run.partial_points() == [partial]
    assert len(run.complete_points()) == 1
    assert run.fraction() == (1 + 0.6) / 2  # not 100 %: the second point was cut short


def test_the_run_model_and_run_extras_import_without_qt() -> None:
    script = textwrap.dedent(
        """
        import importlib.abc, sys

        class NoQt(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "qasync"):
                    raise ImportError(name)
                return None

        sys.meta_path.insert(0, NoQt())
        import app.ui.panels.sweep.run_model, app.ui.run_extras
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_time_left_holds_the_truth_and_never_jumps_on_experiment_b() -> None:
    """Experiment B on a server whose request time grows with load (1 s + 25 ms per stream):
    the old single figure from the running point's pace swung by minutes (7:06, 11:49, 3:28
    for a 5-minute run). The range holds the true time left at every progress event after
    the first point, and its ends only move down within a point."""
    n = 64
    concs = [1, 4, 16, 64]

    def e2el(c: int) -> float:
        return 1.0 + 0.025 * c

    def duration(c: int) -> float:
        return math.ceil(n / c) * e2el(c)

    clock = Clock()
    run = SweepRun(clock)
    run.start([INF], concs, search=False)
    seen: list[tuple[float, float, float]] = []  # (low, truth, high)
    for index, c in enumerate(concs):
        run.point_started(PointStarted(index, INF, c))
        waves = math.ceil(n / c)
        previous = (math.inf, math.inf)
        for wave in range(waves + 1):
            elapsed = wave * e2el(c)
            done = min(n, wave * c)
            run.progress_event(Progress(index, done, 0, n, min(c, n - done), elapsed, 0.0))
            truth = duration(c) - elapsed + sum(duration(k) for k in concs[index + 1 :])
            eta = run.eta()
            if index == 0:
                assert math.isnan(eta.left_s)
                continue
            seen.append((eta.left_lo_s, truth, eta.left_hi_s))
            assert eta.left_lo_s <= truth + 1e-9 <= eta.left_hi_s + 2e-9, (c, wave, eta)
            assert eta.left_lo_s <= previous[0] and eta.left_hi_s <= previous[1]
            previous = (eta.left_lo_s, eta.left_hi_s)
        clock.now += duration(c)
        summary = {"request_rate": INF, "max_concurrency": c, "completed": n, "num_prompts": n}
        summary |= {"median_e2el_ms": e2el(c) * 1000, "request_throughput": n / duration(c)}
        doc = read_point_doc(summary, strict=True)
        run.point_finished(PointFinished(index, f"/r/c{c}.json", doc))
    assert len(seen) > 6


def test_a_search_says_how_long_a_load_takes_and_at_most_how_many_remain() -> None:
    clock = Clock()
    run = SweepRun(clock)
    run.start([INF], [4, 256], search=True)
    for index, (conc, seconds) in enumerate(((4, 23.5), (8, 13.6), (16, 15.9))):
        run.point_started(PointStarted(index, INF, conc))
        clock.now += seconds
        run.point_finished(_finished(index, INF, conc, f"/r/c{conc}.json"))
        run.search_value(conc, None)
    run.point_started(PointStarted(3, INF, 32))
    run.progress_event(_progress(10, 128))
    eta = run.eta()
    assert eta.load_s == pytest.approx((13.6, 23.5)) and eta.loads_left == 0  # still doubling
    text = status_text.progress(eta)()
    assert "a load takes 14 s–24 s" in text and "more" not in text
    run.search_value(32, 64)  # 64 failed: bisection down to one stream, then the check above
    assert run.eta().loads_left == 6
    assert "at most 6 more" in status_text.progress(run.eta())()
