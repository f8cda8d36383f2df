"""A capacity search run against a real endpoint: each load value is an ordinary sweep point
(run_point: the same measuring, files and events as `tpotbench sweep`), and search.json beside
the points records the whole search after every value."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.bench.capacity.knee import find_knee
from app.bench.capacity.search import (
    RunMeasurement,
    SearchOutcome,
    SearchSettings,
    ValueOutcome,
    search,
)
from app.bench.capacity.why import explain
from app.bench.results.load_warnings import point_on_the_curve
from app.bench.results.point_result import PointResult
from app.bench.results.read import point_from_doc
from app.bench.results.sweep_csv import refresh_sweep_csv
from app.bench.results.write import atomic_write_text
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import EMPTY, WhyBlock
from app.bench.schema.point_doc import PointDoc
from app.bench.schema.search_doc import (
    BoundaryEvidence,
    SearchDoc,
    SearchEndpoint,
    SearchFixed,
    SearchKnee,
)
from app.bench.sweep.contract import (
    PointFinished,
    RunError,
    RunFinished,
    RunStarted,
    SearchFinished,
    SearchValue,
)
from app.bench.sweep.early_stop import EarlyStop
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.point import ResultWriteError, run_point
from app.bench.sweep.run_context import (
    CSV_NAME,
    ResultExistsError,
    RunContext,
    csv_sort_key,
    partial_path,
)

SEARCH_FILE = "search.json"


def point_for(config: RunContext, settings: SearchSettings, value: float, index: int) -> PointSpec:
    """The sweep point of one load value: concurrency at the run's fixed rate, or the reverse."""
    if settings.over == "concurrency":
        return PointSpec(index, config.rates[0], int(value))
    return PointSpec(index, float(value), config.concurrencies[0])


class PointMeasure:
    """The search's measure function: one sweep point per call, its file saved as usual."""

    def __init__(
        self,
        config: RunContext,
        settings: SearchSettings,
        observers: Sequence[SweepObserver],
        cancel: asyncio.Event,
    ) -> None:
        self.config = config
        self.settings = settings
        self.observers = list(observers)
        self.cancel = cancel
        self.index = 0
        self.paths: list[Path] = []
        self.rows: list[PointResult] = []  # this search's points only, for sweep.csv
        self.csv: Path | None = None

    async def __call__(
        self, value: float, run: int, num_requests: int, *, early_stop: bool = True
    ) -> RunMeasurement:
        """One point at `value`; `early_stop=False` runs it to the end whatever the SLOs."""
        config, settings = self.config, self.settings
        spec = point_for(config, settings, value, self.index)
        self.index += 1
        target = config.path_for(spec)
        if settings.runs > 1:
            target = target.with_name(f"{target.stem}_run{run}{target.suffix}")
        # Loads are only known as the search goes: a file an earlier run left under the same
        # name is kept (this one gets -2, -3 ...) unless --overwrite.
        stem, n = target.stem, 2
        while not config.overwrite and (target.exists() or partial_path(target).exists()):
            target = target.with_name(f"{stem}-{n}{target.suffix}")
            n += 1
        early = (
            EarlyStop(config.slos, num_requests)
            if early_stop and settings.early_stop and config.slos
            else None
        )
        started = time.perf_counter_ns()
        try:
            path, doc = await run_point(
                config,
                spec,
                self.observers,
                self.cancel,
                target,
                early_stop=early,
                samples=config.samples[:num_requests],
            )
        except ResultWriteError as exc:  # the load's verdict stands; its file is lost
            error = RunError(str(exc))
            for obs in self.observers:
                obs.error(error)
            raise
        measuring_s = (time.perf_counter_ns() - started) / 1e9
        if path is not None:
            self.paths.append(path)
            if config.write_csv:
                self.rows.append(point_from_doc(doc, path))
                csv_target = config.result_dir / CSV_NAME
                problem = refresh_sweep_csv(csv_target, sorted(self.rows, key=csv_sort_key))
                self.csv = None if problem else csv_target
                for obs in self.observers if problem else ():
                    obs.error(RunError(problem or ""))
            finished = PointFinished(spec.index, str(path), doc)
            for obs in self.observers:
                obs.point_finished(finished)
        slo = doc.typed_blocks.slo
        return RunMeasurement(
            value=value,
            run=run,
            passed=bool(slo and slo.passed),
            checks=slo.checks if slo is not None else (),
            measuring_s=measuring_s,
            num_requests=num_requests,
            early_stop=early.reason if early is not None and path is not None else None,
            path=path.name if path else None,
            result=doc,
        )


def _run_result(value: ValueOutcome | None) -> PointDoc | None:
    if value is None:
        return None
    results = [r.result for r in value.runs if r.result is not None]
    return results[-1] if results else None


def _fragment(run: RunMeasurement) -> bool:
    """A run that cannot be evidence: stopped early, cancelled, or with nothing finished."""
    blocks = run.result.typed_blocks if run.result is not None else EMPTY
    return bool(run.early_stop or blocks.early_stop or blocks.cancelled)


def needs_evidence(outcome: SearchOutcome) -> bool:
    """Whether the boundary's why needs a full run: its lowest failing load was measured only
    in fragments (early stops), or its why abstains for want of requests or samples."""
    fail = outcome.at(outcome.lowest_fail)
    if fail is None or outcome.cancelled:
        return False
    whole = [r for r in fail.runs if r.result is not None and not _fragment(r)]
    if not whole:
        return True
    why = explain(whole[-1].result or PointDoc(), fail.failed)
    return why.cause == "abstain" and any(item.key == "short" for item in why.missing)


@dataclass(frozen=True, slots=True)
class Analysis:
    """The why at the boundary, the run it was read from, and the knees."""

    boundary_why: WhyBlock | None = None
    boundary_evidence: BoundaryEvidence | None = None
    knee: dict[str, SearchKnee | None] = field(default_factory=dict)


def analysis(outcome: SearchOutcome, evidence: RunMeasurement | None = None) -> Analysis:
    """The why at the boundary (the lowest failing value, from its full evidence run when
    the search measured one) and the knee of the search's own full points, with the why
    there. An early-stopped fragment is never the why's evidence."""
    boundary_why: WhyBlock | None = None
    boundary_evidence: BoundaryEvidence | None = None
    knees: dict[str, SearchKnee | None] = {}
    fail = outcome.at(outcome.lowest_fail)
    if fail is not None:
        runs = [r for r in fail.runs if r.result is not None and not _fragment(r)]
        if evidence is not None and evidence.result is not None:
            runs = [evidence]
            boundary_evidence = BoundaryEvidence(
                value=evidence.value,
                num_requests=evidence.num_requests,
                measuring_s=round(evidence.measuring_s, 3),
                path=evidence.path,
                passed=evidence.passed,
            )
        if runs:
            boundary_why = explain(runs[-1].result or PointDoc(), fail.failed)
        else:  # every run at the boundary a fragment: the why says so instead of guessing
            last = next((r for r in reversed(fail.runs) if r.result is not None), None)
            if last is not None:
                boundary_why = explain(last.result or PointDoc(), fail.failed)
    full = [v for v in outcome.values if not any(_fragment(r) for r in v.runs)]
    # Nor a load that did not happen (fewer prompts than streams, a saturated client).
    full = [v for v in full if point_on_the_curve(_run_result(v) or PointDoc())]
    for metric in ("tpot", "ttft"):
        loads, values, owners = [], [], []
        for v in full:
            figure = _run_result(v)
            p99 = figure.stats.get(f"p99_{metric}_ms") if figure is not None else None
            if isinstance(p99, int | float):
                loads.append(v.value)
                values.append(float(p99))
                owners.append(v)
        knee = find_knee(loads, values)
        if knee is None:
            knees[metric] = None
            continue
        owner = owners[knee.index]
        why = explain(_run_result(owner) or PointDoc(), [f"{metric}:p99"])
        knees[metric] = SearchKnee(knee.load, knee.value, round(knee.difference, 4), why)
    return Analysis(boundary_why, boundary_evidence, knees)


def search_document(
    config: RunContext,
    outcome: SearchOutcome,
    endpoint: SearchEndpoint,
    evidence: RunMeasurement | None = None,
) -> SearchDoc:
    """search.json of the search so far (`evidence`: the boundary's full run, if any)."""
    found = analysis(outcome, evidence)
    return SearchDoc(
        endpoint=endpoint,
        slos=config.slos.targets() if config.slos else None,
        fixed=SearchFixed(
            request_rate=None if math.isinf(config.rates[0]) else config.rates[0],
            max_concurrency=config.concurrencies[0],
        ),
        over=outcome.settings.over,
        settings=outcome.settings,
        boundary=outcome.boundary(),
        stop_reason=outcome.stop_reason,
        fill_limit=outcome.fill_limited,
        cancelled=outcome.cancelled,
        monotonic=not outcome.violations,
        violations=tuple(outcome.violations),
        measuring_s=round(outcome.measuring_s, 3),
        points=tuple(v.entry() for v in outcome.values),
        boundary_why=found.boundary_why,
        boundary_evidence=found.boundary_evidence,
        knee=found.knee,
    )


def search_json(doc: SearchDoc) -> str:
    """search.json's text."""
    return json.dumps(to_json_obj(doc), indent=2) + "\n"


async def run_search(
    config: RunContext,
    settings: SearchSettings,
    observers: Sequence[SweepObserver],
    cancel: asyncio.Event | None = None,
) -> tuple[SearchOutcome, Path, SearchDoc]:
    """Search, saving search.json after every value; observers get the search's own events
    (search_value, search_finished) besides each point's."""
    cancel = cancel or asyncio.Event()
    endpoint = SearchEndpoint(config.resolved.url, config.model, config.resolved.api)
    path = config.result_dir / SEARCH_FILE
    if path.exists() and not config.overwrite:
        raise ResultExistsError(
            f"{path} exists (an earlier search); pass --overwrite to replace it, or choose "
            "another --result-dir"
        )
    started = RunStarted(points=(), num_prompts=settings.num_prompts, endpoint=config.endpoint_info)
    for obs in observers:
        obs.run_started(started)
    measure = PointMeasure(config, settings, observers, cancel)

    def on_value(value: ValueOutcome, outcome: SearchOutcome) -> None:
        doc = search_document(config, outcome, endpoint)
        atomic_write_text(path, json.dumps(to_json_obj(doc), indent=2))
        event = SearchValue(value.entry(), outcome.highest_pass, outcome.lowest_fail)
        for obs in observers:
            obs.search_value(event)

    outcome = await search(settings, measure, cancel=cancel, on_value=on_value)
    evidence = None
    if needs_evidence(outcome) and outcome.lowest_fail is not None and not cancel.is_set():
        # The load that decides the boundary, measured to the end: its why needs a whole
        # point's /metrics and latencies, not the fragment an early stop left.
        value = outcome.lowest_fail
        evidence = await measure(
            value, 1, max(settings.requests_for(value), settings.min_prompts), early_stop=False
        )
        if cancel.is_set():
            outcome.cancelled, outcome.stop_reason, evidence = True, "cancelled", None
    doc = search_document(config, outcome, endpoint, evidence)
    with contextlib.suppress(OSError):
        config.result_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, search_json(doc))
    finished = SearchFinished(str(path), doc)
    for obs in observers:
        obs.search_finished(finished)
    csv = str(measure.csv) if measure.csv else None
    ended = RunFinished(outcome.cancelled, tuple(map(str, measure.paths)), csv)
    for obs in observers:
        obs.run_finished(ended)
    return outcome, path, doc
