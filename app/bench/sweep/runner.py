"""A sweep: the grid of request rates x concurrencies, run point by point, each saved at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.bench.results.point_result import PointResult
from app.bench.results.read import ResultFileError, point_from_doc, read_points, result_files
from app.bench.results.sweep_csv import refresh_sweep_csv
from app.bench.results.write import ensure_writable_dir
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import PointFinished, RunError, RunFinished, RunStarted
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.point import ResultWriteError, run_point
from app.bench.sweep.run_context import CSV_NAME, RunContext, csv_sort_key, partial_path


@dataclass
class SweepOutcome:
    paths: list[Path]
    csv: Path | None
    cancelled: bool
    results: list[PointDoc]
    write_errors: list[str] = field(default_factory=list)

    @property
    def empty_points(self) -> list[PointDoc]:
        """Saved points in which no request succeeded (their latency figures are null)."""
        return [r for r in self.results if not r.vllm.completed]


def same_label_points(config: RunContext, targets: Sequence[Path]) -> list[PointResult]:
    """The folder's readable points labelled as this run (--label) that this run does not
    rewrite; none without a --label (a default label is new with every run)."""
    if not config.label:
        return []
    mine = {*targets, *map(partial_path, targets)}
    found: list[PointResult] = []
    for path in result_files(config.result_dir):
        if path in mine:
            continue
        # an unreadable file is the note's business (sweep names it), not the summary's
        with contextlib.suppress(ResultFileError):
            found += [p for p in read_points(path) if p.label == config.label]
    return found


def _stopped(problem: str, saved: int, planned: int) -> str:
    return f"{problem}; the sweep stopped after {saved} of {planned} point(s), those are kept"


async def run_sweep(
    config: RunContext,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event | None = None,
) -> SweepOutcome:
    """Run every point in order; a point's JSON (and sweep.csv) is on disk before the next
    point starts. After a cancel, the interrupted point is saved (marked cancelled) and the
    remaining points are skipped."""
    cancel = cancel or asyncio.Event()
    points = config.points
    config = config.planned()  # the CLI planned its files already; a test's context is here
    assert config.plan is not None
    targets = list(config.plan.targets)
    ensure_writable_dir(config.result_dir)
    started = RunStarted(
        points=tuple(points), num_prompts=config.num_requests, endpoint=config.endpoint_info
    )
    for obs in observers:
        obs.run_started(started)
    paths: list[Path] = []
    results: list[PointDoc] = []
    # sweep.csv lists this run's points and the folder's earlier points of the same --label
    # (the field guide runs one point per command in a bash loop); never another run's.
    rows: list[PointResult] = same_label_points(config, targets) if config.write_csv else []
    csv_path: Path | None = None
    write_errors: list[str] = []
    for point, target in zip(points, targets, strict=True):
        if cancel.is_set():
            break
        try:
            path, doc = await run_point(config, point, observers, cancel, target)
        except ResultWriteError as exc:
            # A folder that refused one file (full, read-only) refuses the next: stop here
            # rather than measure points only to drop them.
            write_errors.append(_stopped(str(exc), len(paths), len(points)))
            break
        if path is None:
            break
        paths.append(path)
        results.append(doc)
        csv_failed = None
        if config.write_csv:
            rows.append(point_from_doc(doc, path))
            csv_target = config.result_dir / CSV_NAME
            csv_failed = refresh_sweep_csv(csv_target, sorted(rows, key=csv_sort_key))
            csv_path = None if csv_failed else csv_target
        finished = PointFinished(point.index, str(path), doc)
        for obs in observers:
            obs.point_finished(finished)
        if csv_failed:
            write_errors.append(_stopped(csv_failed, len(paths), len(points)))
            break
    for message in write_errors:
        for obs in observers:
            obs.error(RunError(message))
    cancelled = cancel.is_set()
    ended = RunFinished(cancelled, tuple(map(str, paths)), str(csv_path) if csv_path else None)
    for obs in observers:
        obs.run_finished(ended)
    return SweepOutcome(paths, csv_path, cancelled, results, write_errors)
