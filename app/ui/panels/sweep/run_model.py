"""A sweep run as plain data: its plan, the finished points, the running point's progress and
the time left. No Qt: the Sweep panel feeds it the worker's events and shows what it says, and
the tests drive it with hand-made events (the contract's typed objects) and a fake clock."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.bench.results.completeness import CANCELLED
from app.bench.results.point_row import PointRow, Scalar, point_row
from app.bench.results.read import point_from_doc
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import PointFinished, PointStarted, Progress, RunStarted
from app.bench.sweep.plan import PointSpec, plan_points

# Before a point's first progress event: nothing done yet.
NO_PROGRESS = Progress(
    point=-1, completed=0, failed=0, total=0, in_flight=0, elapsed_s=0.0, output_tok_s=0.0
)


def as_rate(value: Scalar) -> float:
    """A point's request rate as a number (the engine writes 'inf' for no limit)."""
    if value is None or value in ("inf", "Infinity"):
        return math.inf
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.inf


def is_partial(row: PointRow) -> bool:
    """A point cut short (a cancel, NAME.partial.json; a search's early stop): the engine's
    completeness, the one place that decides it."""
    return not row.completeness.complete


def is_cancelled(row: PointRow) -> bool:
    """A point a cancel cut short (the run stops after it; an early stop does not)."""
    return row.completeness.state == CANCELLED


def has_load_warnings(row: PointRow) -> bool:
    """The point's load did not happen as planned (app.bench.results.load_warnings)."""
    return bool(row.load_warnings)


def point_label(row: PointRow) -> str:
    """A finished point's full name: "r=4 c=8" ("c=∞" when unlimited)."""
    conc = row.max_concurrency
    return f"r={_rate_label(row.request_rate)} c={conc if conc is not None else '∞'}"


def _rate_label(value: Scalar) -> str:
    rate = as_rate(value)
    return "inf" if math.isinf(rate) else f"{rate:g}"


@dataclass(frozen=True)
class Eta:
    """What the status line says while a point runs. points is 0 during a capacity search
    (how many loads it still needs is not known); the time left is a range, NaN until a
    finished point has measured how fast requests go (see SweepRun.eta)."""

    point: int  # the running point, 0-based
    points: int
    done: int
    total: int
    failed: int
    left_lo_s: float
    left_hi_s: float
    # A search: how long its finished loads took (shortest, longest) and at most how many
    # loads it still runs (0: not known yet, while it is still doubling).
    load_s: tuple[float, float] | None = None
    loads_left: int = 0

    @property
    def left_s(self) -> float:
        """The range's upper end: what to plan for."""
        return self.left_hi_s


def point_time_range(
    requests: int, rate: float, concurrency: int | None, e2el_s: float, req_per_s: float
) -> tuple[float, float]:
    """How long `requests` of a point take, as (at least, at most), from measured figures.

    At least: the arrival schedule (requests / rate) and the waves of the concurrency limit,
    each wave one request time at the fastest pace measured (latency only grows with load).
    At most: the requests at the throughput of the latest finished point (a sweep goes up in
    load, and throughput does not fall before the server is past its knee).
    """
    if requests <= 0:
        return 0.0, 0.0
    schedule = requests / rate if math.isfinite(rate) and rate > 0 else 0.0
    slots = min(concurrency or requests, requests)
    low = max(schedule, math.ceil(requests / slots) * e2el_s)
    high = max(low, schedule, requests / req_per_s if req_per_s > 0 else math.inf)
    return low, high


class SweepRun:
    """One run of the Sweep tab, from Run to the end (a new run starts it again)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.plan: list[PointSpec] = []
        self.points: list[PointRow] = []
        self.search = False
        self._search_max = 0.0
        self._boundary: tuple[float | None, float | None] = (None, None)
        self._load_durations: list[float] = []
        self.cancelled = False
        self.over = True
        self.point_index = -1
        self.progress = NO_PROGRESS
        self._point_started = 0.0

    def start(self, rates: Sequence[float], concurrencies: Sequence[int], *, search: bool) -> None:
        self.search = search
        self._search_max = float(max(concurrencies)) if concurrencies else 0.0
        self._boundary = (None, None)
        self._load_durations = []
        # A search chooses its loads as it goes; a grid is every rate with every concurrency.
        self.plan = [] if search else plan_points(list(rates), list(concurrencies))
        self.points.clear()
        self.cancelled = False
        self.over = False
        self.point_index = -1
        self.progress = NO_PROGRESS

    # ---- the worker's events ----

    def run_started(self, event: RunStarted) -> None:
        if event.points:
            self.plan = list(event.points)

    def point_started(self, event: PointStarted) -> str:
        """Start the next point; its short label, naming only what varies across the sweep
        (short labels overlap less on short points)."""
        self.point_index = event.point
        self._point_started = self._clock()
        self.progress = NO_PROGRESS
        rate = "r=" + _rate_label(event.request_rate)
        conc = event.max_concurrency
        conc_text = f"c={conc if conc is not None else '∞'}"
        rates = {p.request_rate for p in self.plan}
        concs = {p.max_concurrency for p in self.plan}
        if self.search or (len(rates) == 1 and len(concs) > 1):
            return conc_text
        if len(concs) == 1 and len(rates) > 1:
            return rate
        return f"{rate} {conc_text}"

    def progress_event(self, event: Progress) -> None:
        self.progress = event

    def point_finished(self, event: PointFinished) -> PointRow:
        """Keep a finished point; its row, built as the Results tab builds a file's."""
        if not isinstance(event.summary, PointDoc):
            raise TypeError("a sweep's point_finished carries a point's document")
        result = point_from_doc(event.summary, Path(event.path) if event.path else None)
        row = point_row(result, event.point)
        self.points.append(row)
        self._load_durations.append(self._clock() - self._point_started)
        return row

    def search_value(self, highest_pass: float | None, lowest_fail: float | None) -> None:
        """The search's boundary so far (its search_value events)."""
        self._boundary = (highest_pass, lowest_fail)

    def search_loads_left(self) -> int:
        """At most how many loads a search still measures once a load has failed: the
        bisection's steps down to one stream, and the check one step above; 0 while it is
        still doubling (its end is not known)."""
        highest_pass, lowest_fail = self._boundary
        if lowest_fail is None:
            return 0
        gap = max(1.0, float(lowest_fail) - float(highest_pass or 0.0))
        return math.ceil(math.log2(gap)) + 1

    def finish(self) -> None:
        self.over = True

    # ---- what the panel shows ----

    def complete_points(self) -> list[PointRow]:
        """The points a cancel did not cut short (the run's progress counts them)."""
        return [p for p in self.points if not is_cancelled(p)]

    def partial_points(self) -> list[PointRow]:
        """The point a cancel cut short, if any."""
        return [p for p in self.points if is_cancelled(p)]

    def warned_points(self) -> list[PointRow]:
        """The points whose load did not happen as planned."""
        return [p for p in self.points if has_load_warnings(p)]

    def _requests(self) -> tuple[int, int, int]:
        """(done, total, failed) of the running point's requests."""
        p = self.progress
        return p.completed + p.failed, p.total, p.failed

    def fraction(self) -> float:
        """The progress bar, 0..1: finished points plus the running point's share of its
        requests; during a search (length unknown) the running point's share alone."""
        done, total, _failed = self._requests()
        share = (done / total) if total else 0.0
        if self.search:
            return min(1.0, share)
        running = self.point_index >= len(self.points) or bool(self.partial_points())
        overall = len(self.complete_points()) + (share if running else 0)
        return min(1.0, overall / max(1, len(self.plan)))

    def eta(self) -> Eta | None:
        """Where the run is and the time left, as a range from measured request times.

        A single figure from the running point's pace jumped (7:06, 11:49, 3:28 for a run of
        5 min): at high concurrency requests finish in waves, and the points of a sweep take
        very different times. So nothing is said until a point has finished; then each point
        still to run (and the rest of the running one) gets point_time_range() from the
        fastest median request time and the latest throughput measured.
        """
        if self.point_index < 0:
            return None
        done, total, failed = self._requests()
        points = max(1, len(self.plan))
        pace = self._measured_pace()
        if self.search:
            loads = self._load_durations
            span = (min(loads), max(loads)) if loads else None
            return Eta(self.point_index, 0, done, total, failed, math.nan, math.nan, span,
                       self.search_loads_left())  # fmt: skip
        if pace is None:
            return Eta(self.point_index, points, done, total, failed, math.nan, math.nan)
        e2el_s, req_per_s = pace
        per_point = total or self._requests_per_point()
        low = high = 0.0
        for index in range(self.point_index, len(self.plan)):
            spec = self.plan[index]
            left = max(0, total - done) if index == self.point_index else per_point
            lo, hi = point_time_range(
                left, spec.request_rate, spec.max_concurrency, e2el_s, req_per_s
            )
            low, high = low + lo, high + hi
        return Eta(self.point_index, points, done, total, failed, low, high)

    def _measured_pace(self) -> tuple[float, float] | None:
        """(fastest point-median request time s, latest finished point's requests/s) of the
        complete points so far; None before one has finished."""
        complete = [p for p in self.complete_points() if p.stats.get("median_e2el_ms")]
        if not complete:
            return None
        e2el_s = min(p.stats["median_e2el_ms"] or 0.0 for p in complete) / 1000.0
        req_per_s = float(complete[-1].request_throughput or 0.0)
        return e2el_s, req_per_s

    def _requests_per_point(self) -> int:
        done = self.complete_points()
        if not done:
            return 0
        planned = done[-1].completeness.planned
        return int(planned or done[-1].completed or 0)

    def in_flight(self) -> int:
        return self.progress.in_flight

    def current_concurrency(self) -> int | None:
        """The running point's concurrency limit (None: unlimited, or no point started)."""
        if not 0 <= self.point_index < len(self.plan):
            return None
        value = self.plan[self.point_index].max_concurrency
        return value if value is not None and value > 0 else None
