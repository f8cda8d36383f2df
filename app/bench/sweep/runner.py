"""A sweep: the grid of request rates x concurrencies, run point by point, each saved at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.bench.results.point_result import PointResult
from app.bench.results.read import point_from_dict
from app.bench.results.sweep_csv import write_sweep_csv
from app.bench.results.write import ensure_writable_dir
from app.bench.sweep.config import CSV_NAME, SweepConfig, csv_sort_key
from app.bench.sweep.contract import PointFinished, RunError, RunFinished, RunStarted
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.point import ResultWriteError, run_point


@dataclass
class SweepOutcome:
    paths: list[Path]
    csv: Path | None
    cancelled: bool
    results: list[dict[str, Any]]
    write_errors: list[str] = field(default_factory=list)

    @property
    def empty_points(self) -> list[dict[str, Any]]:
        """Saved points in which no request succeeded (their latency figures are null)."""
        return [r for r in self.results if not r.get("completed")]


async def run_sweep(
    config: SweepConfig,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event | None = None,
) -> SweepOutcome:
    """Run every point in order; a point's JSON (and sweep.csv) is on disk before the next
    point starts. After a cancel, the interrupted point is saved (marked cancelled) and the
    remaining points are skipped."""
    cancel = cancel or asyncio.Event()
    points = config.points
    targets = config.plan_targets()
    ensure_writable_dir(config.result_dir)
    started = RunStarted(tuple(points), config.num_requests, config.endpoint_info)
    for obs in observers:
        obs.run_started(started)
    paths: list[Path] = []
    results: list[dict[str, Any]] = []
    rows: list[PointResult] = []  # this run's points only: sweep.csv never mixes two runs
    csv_path: Path | None = None
    write_errors: list[str] = []
    for point, target in zip(points, targets, strict=True):
        if cancel.is_set():
            break
        try:
            path, result = await run_point(config, point, observers, cancel, target)
        except ResultWriteError as exc:  # a full disk, say: this point is lost, not the others
            message = str(exc)
            write_errors.append(message)
            for obs in observers:
                obs.error(RunError(message))
            continue
        if path is None:
            break
        paths.append(path)
        results.append(result)
        if config.write_csv:
            rows.append(point_from_dict(result, path))
            try:
                csv_path = write_sweep_csv(
                    config.result_dir / CSV_NAME, sorted(rows, key=csv_sort_key)
                )
            except OSError as exc:
                message = f"cannot write {config.result_dir / CSV_NAME}: {exc.strerror or exc}"
                write_errors.append(message)
                for obs in observers:
                    obs.error(RunError(message))
        finished = PointFinished(point.index, str(path), result)
        for obs in observers:
            obs.point_finished(finished)
    cancelled = cancel.is_set()
    ended = RunFinished(cancelled, tuple(map(str, paths)), str(csv_path) if csv_path else None)
    for obs in observers:
        obs.run_finished(ended)
    return SweepOutcome(paths, csv_path, cancelled, results, write_errors)
