"""How the panels talk to each other: finished sweep points and probes onto the roofline, the
live floor while a sweep runs, the Server metrics dock following the endpoint and the runs.

Every link is an explicit call between panels the window built; nothing is looked up by name.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from app.bench.results.read import ResultFileError, point_from_doc
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_doc import PointDoc
from app.bench.sweep.contract import PointFinished
from app.bench.sweep.roofline_point import ROOFLINE_KEYS
from app.profiles import ProfileStore, Target
from app.roofline.context import RooflineContext
from app.ui.panels.probe.outcome import ProbeOutcome
from app.ui.panels.probe.panel import ProbePanel
from app.ui.panels.results.panel import ResultsPanel
from app.ui.panels.roofline.panel import RooflinePanel
from app.ui.panels.server_metrics.panel import ServerMetricsPanel, endpoint_key
from app.ui.panels.sweep.panel import SweepPanel
from app.ui.retranslate import TextSource
from app.ui.run_extras import RunExtras

log = logging.getLogger(__name__)


class PanelLinks(QObject):
    """Owns the wiring between the window's panels (the window owns the panels)."""

    def __init__(
        self,
        *,
        probe: ProbePanel,
        sweep: SweepPanel,
        results: ResultsPanel,
        roofline: RooflinePanel,
        metrics: ServerMetricsPanel,
        store: ProfileStore,
        current_target: Callable[[], Target],
        current_profile: Callable[[], str],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.probe, self.sweep, self.results = probe, sweep, results
        self.roofline, self.metrics = roofline, metrics
        self.store = store
        self._current_target = current_target
        self._current_profile = current_profile
        self._metrics_key: tuple[object, ...] | None = None
        self._server_running: float | None = None
        self.live_timer = QTimer(self)
        self.live_timer.setInterval(1000)
        self.live_timer.timeout.connect(self.live_roofline)

        sweep.worker.pointFinished.connect(self.on_point_finished)
        # The Results tab takes a finished point from its event (path and result): reading
        # the user's whole results folder again after every point stalled the window.
        sweep.worker.pointFinished.connect(
            lambda e: (
                results.add_point(e.path, e.summary) if isinstance(e.summary, PointDoc) else None
            )
        )
        # One reader of an endpoint's /metrics: during a sweep the worker's (its samples go
        # into each point's file, RunExtras.server_metrics) and the dock shows them on its
        # own timeline; otherwise the dock reads it itself.
        sweep.pointStarted.connect(metrics.mark)
        sweep.serverMetrics.connect(metrics.add_run_sample)
        metrics.sampled.connect(self.on_server_sample)
        sweep.runningChanged.connect(lambda running: self.on_run_state(running, sweep=True))
        probe.runningChanged.connect(lambda running: self.on_run_state(running, sweep=False))
        roofline.contextChanged.connect(self.on_roofline_context)
        probe.probeFinished.connect(self.on_probe_finished)

    def run_context(self) -> RunExtras:
        """What each sweep gets beyond its form, read when Run is pressed."""
        return RunExtras(roofline=self.roofline.context(), server_metrics=True)

    def is_busy(self) -> bool:
        return self.probe.running or self.sweep.is_running()

    # ---- the endpoint ----

    def profile_changed(self, name: str) -> None:
        """A profile was selected: the metrics dock follows it, its saved roofline comes back."""
        self.watch_metrics()
        profile = self.store.get(name)
        if profile is not None and profile.roofline:
            saved = profile.roofline
            try:
                self.roofline.set_context(**{k: saved.get(k) for k in ROOFLINE_KEYS})
            except (ValueError, TypeError):
                log.warning("stored roofline context of %s no longer valid", name)

    def watch_metrics(self) -> None:
        """Point the Server metrics dock at the selected endpoint (a new timeline per endpoint)."""
        target = self._current_target()
        key = endpoint_key(target)
        if key == self._metrics_key:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a window built outside the app (a test without a loop): no background reads
        self._metrics_key = key
        if target.base_url:
            self.metrics.start(target)
        else:
            self.metrics.stop()
            self.metrics.clear()

    def on_roofline_context(self, context: RooflineContext) -> None:
        # Remembered per endpoint; the run reads the dock itself (run_context).
        self.store.set_roofline(self._current_profile(), to_json_obj(context))

    # ---- runs ----

    def on_server_sample(self, sample: Mapping[str, float]) -> None:
        running = sample.get("running")
        if isinstance(running, float) and math.isfinite(running):
            self._server_running = running

    def on_run_state(self, running: bool, *, sweep: bool) -> None:
        if sweep:
            self._server_running = None
            if running:
                self.live_timer.start()
            else:
                self.live_timer.stop()
            # The sweep was started a moment ago with the endpoint selected now.
            self.metrics.follow_run(self._current_target() if running else None)
        self.metrics.set_running(self.is_busy() or running)
        if running and sweep:
            self.metrics.mark(lambda: self.tr("sweep"), run_start=True)
            self.roofline.start_run()

    def live_roofline(self) -> None:
        """Once a second during a sweep: the Rolling TPOT chart's floor for the batch the
        server runs now, and the live point on the roofline panel at that batch."""
        if not self.sweep.is_running():
            return
        live = self.sweep.live
        if self._server_running is not None and self._server_running >= 1:
            batch = self._server_running
            source: TextSource = partial(self._batch_source, batch)
        elif self.metrics.sample_count() > 0:
            return  # the server runs nothing right now (between points): the floor stays
        else:
            concurrency = self.sweep.current_concurrency()
            if concurrency is None:
                return
            batch = float(concurrency)
            source = partial(self._concurrency_source, concurrency)
        scenario = self.roofline.scenario()
        floor_ms = scenario.floor(max(1, round(batch))).seconds * 1000.0
        live.set_floor(floor_ms, source)
        if len(live.rolling):
            p50 = float(live.rolling.tail(1)[0, 1])
            self.roofline.set_live_tpot_ms(
                p50,
                batch,
                partial(self._live_label, round(batch, 1)),
            )

    # Made again on a language switch: the labels outlive the language they were made in.
    def _batch_source(self, batch: float) -> str:
        return self.tr("batch {0:g} (/metrics)").format(batch)

    def _concurrency_source(self, concurrency: int) -> str:
        return self.tr("concurrency {0} (no /metrics)").format(concurrency)

    def _live_label(self, batch: float) -> str:
        return self.tr("live sweep, batch {0:g}").format(batch)

    def on_point_finished(self, event: PointFinished) -> None:
        if not isinstance(event.summary, PointDoc):
            return
        try:
            point = point_from_doc(event.summary, Path(event.path) if event.path else None)
        except ResultFileError:
            return
        if not point.on_the_curve:
            return  # cut short or run at fewer streams: its TPOT is not the figure of its batch
        concurrency = point.max_concurrency
        if concurrency is None:
            # A rate-limited point has no concurrency cap; the measured peak stands in.
            concurrency = point.max_concurrent_requests
        p50 = point.metric("tpot", "median")
        p99 = point.metric("tpot", "p99")
        if concurrency is None or p50 is None or p99 is None:
            return
        server = point.blocks.server_metrics
        running = server.running.mean if server is not None and server.running else None
        self.roofline.add_measured_point(
            int(concurrency), p50, p99, running, point.output_throughput
        )

    def on_probe_finished(self, outcome: ProbeOutcome) -> None:
        if outcome.tpot_ms is not None:
            self.roofline.set_live_tpot_ms(outcome.tpot_ms)
