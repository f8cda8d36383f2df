"""The Sweep panel: set up a rate x concurrency sweep, run it in a worker, watch it live."""

from __future__ import annotations

import gc
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.profiles import Target
from app.ui.exports.tooltips import metric_tooltips, set_chart_tooltips
from app.ui.panels.sweep import status_text
from app.ui.panels.sweep.capacity_line import CapacityLine
from app.ui.panels.sweep.form import SweepForm
from app.ui.panels.sweep.layout import WrappedLabel
from app.ui.panels.sweep.points_table import PointsTable
from app.ui.panels.sweep.run_model import SweepRun
from app.ui.plots.capacity import (
    Marks,
    draw_marks,
    sweep_knees,
)
from app.ui.plots.distributions import DistributionsView
from app.ui.plots.live import LiveCharts, Series, SweepCurves, sweep_axis
from app.ui.retranslate import Message, TextSource, is_language_change
from app.ui.run_context import RunContext
from app.ui.worker import (
    SweepSpec,
    SweepWorker,
)

# One timer, the only place the live charts are drawn. 10 Hz: the worker batches tokens about
# 10 times a second, so a faster timer only repaints the same data; the status line and the
# progress bar (a relayout each) follow every third tick.
REPAINT_MS = 100
STATUS_EVERY = 3


class SweepPanel(QWidget):
    """Sweep set-up, run/cancel, live charts, a table of finished points and the sweep curves.

    Signals:
        pointFinished(dict): a point's summary (vLLM keys plus tpotbench extras; 'path' added).
        pointStarted(str): a point started; its short label ("c=8", "r=4", "r=4 c=8").
        runningChanged(bool): a sweep started (True) or ended (False).
        serverMetrics(dict): server_metrics events from the worker, forwarded.
    """

    pointFinished = Signal(dict)
    pointStarted = Signal(str)
    runningChanged = Signal(bool)
    serverMetrics = Signal(dict)

    def __init__(
        self,
        target_provider: Callable[[], Target],
        context_provider: Callable[[], RunContext] = RunContext,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self._target_provider = target_provider
        # What the window adds to each run (roofline, /metrics), read when Run is pressed.
        self._context_provider = context_provider
        self.worker = SweepWorker(self)
        # The run's plan, points, progress and time left: plain data, shown by this panel.
        self.run_model = SweepRun()
        self.points = self.run_model.points  # the same list, for readers of the panel
        self.run_dir: Path | None = None
        self.last_error = ""
        self._curves_dirty = False
        self._ticks = 0
        self.search_doc: dict[str, Any] | None = None  # the last capacity search's summary
        self._marks = Marks()
        self._build_ui()
        self._connect_worker()
        self.repaint_timer = QTimer(self)
        self.repaint_timer.setInterval(REPAINT_MS)
        self.repaint_timer.timeout.connect(self._repaint)

    # ---- construction -------------------------------------------------------------------
    def _build_ui(self) -> None:
        # The settings sit above the charts in two form columns (one when narrow), so the
        # charts get the panel's whole width and the panel no longer needs a wide window.
        self.settings_box = self.form = SweepForm()
        self.run_button = QPushButton()
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.settings_toggle = QToolButton()
        self.settings_toggle.setObjectName("settingsToggle")
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setChecked(True)
        self.settings_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.settings_toggle.toggled.connect(self._show_settings)
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.addWidget(self.run_button)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.progress_bar, 1)
        actions.addWidget(self.settings_toggle)
        self.status = WrappedLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The capacity search's answer: boundary, failing SLO, the why (knees in the tooltip).
        self.capacity = CapacityLine()
        self.message = Message(self._show_status)

        self.live = LiveCharts()
        self.curves = SweepCurves()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.live, "")
        self.tabs.addTab(self.curves, "")
        self.distributions = DistributionsView()
        self.tabs.addTab(self.distributions, "")
        self.table = PointsTable()
        self.table.itemSelectionChanged.connect(self._show_distributions)
        self.table.cellClicked.connect(
            lambda _r, _c: self.tabs.setCurrentWidget(self.distributions)
        )
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.tabs)
        charts.addWidget(self.table)
        charts.setStretchFactor(0, 3)
        charts.setStretchFactor(1, 1)
        charts.setSizes([600, 190])
        charts.setChildrenCollapsible(False)
        self.tabs.setMinimumHeight(300)
        self.table.setMinimumHeight(110)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.settings_box)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(self.capacity)
        layout.addWidget(charts, 1)
        self.retranslate()

    def retranslate(self) -> None:
        """Every fixed string and the status line in the UI language; the form keeps its values."""
        self.form.retranslate()
        tips = metric_tooltips()
        self.capacity.refresh()
        self.run_button.setText(self.tr("Run sweep"))
        self.run_button.setToolTip(self.tr("Run the sweep (Ctrl+R)"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop after in-flight requests; keeps finished points (Esc)")
        )
        self._name_settings_toggle()
        self.tabs.setTabText(0, self.tr("Live"))
        self.tabs.setTabText(1, self.tr("Sweep curves"))
        self.tabs.setTabText(2, self.tr("Distributions"))
        self.table.retranslate(tips)
        set_chart_tooltips(self.curves, self.live)
        if self.message.text():
            self.message.refresh()
        else:
            self._set_status(lambda: self.tr("Ready."))
        self._curves_dirty = True  # the curves' legend names ("this run") are words too

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def _show_settings(self, shown: bool) -> None:
        self.settings_box.setVisible(shown)
        self._name_settings_toggle()

    def _name_settings_toggle(self) -> None:
        shown = self.settings_toggle.isChecked()
        # Named for what a click does: the form can be folded away to give the charts room.
        self.settings_toggle.setText(
            self.tr("Hide sweep settings") if shown else self.tr("Show sweep settings")
        )
        self.settings_toggle.setToolTip(
            self.tr("Fold the sweep settings away so the charts get the room")
            if shown
            else self.tr("Show the sweep settings form")
        )
        self.settings_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )

    def _row(*widgets: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        for w in widgets:
            row.addWidget(w)
        return box

    def _connect_worker(self) -> None:
        w = self.worker
        w.runStarted.connect(self._on_run_started)
        w.pointStarted.connect(self._on_point_started)
        w.tokens.connect(lambda e: self.live.add_tokens(e["t_s"], e["itl_ms"]))
        w.request.connect(
            lambda e: self.live.add_request(e.get("tpot_ms")) if e.get("ok") else None
        )
        w.progress.connect(self._on_progress)
        w.pointFinished.connect(self._on_point_finished)
        w.serverMetrics.connect(self.serverMetrics)
        w.runFinished.connect(self._on_run_finished)
        w.searchValue.connect(self._on_search_value)
        w.searchFinished.connect(self._on_search_finished)
        w.errorMessage.connect(self._on_error)
        w.stopped.connect(self._on_stopped)

    # ---- form ---------------------------------------------------------------------------
    def build_spec(self) -> SweepSpec:
        """The form as a SweepSpec with what the window adds (result_dir not yet set);
        ValueError with a readable message."""
        return self.form.build_spec(self._context_provider().argv())

    # ---- run / cancel -------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.worker.is_running()

    def run(self, *, argv: list[str] | None = None) -> bool:
        """Start the sweep from the form; False (and a message in the panel) if it cannot."""
        if self.is_running():
            return False
        try:
            spec = self.build_spec()
            target = self._target_provider()
            if not target.base_url:
                raise ValueError(self.tr("The selected endpoint has no base URL yet."))
            stamp = datetime.now().astimezone().strftime("%Y%m%d-%H%M%S")
            run_dir = (
                Path(self.form.results_root.text().strip()).expanduser() / f"{spec.label}-{stamp}"
            )
            run_dir.mkdir(parents=True, exist_ok=True)
        except (ValueError, OSError) as exc:
            self._set_status(str(exc), error=True)
            return False
        # The charts get the room while it runs; the toggle brings the form back.
        self.settings_toggle.setChecked(False)
        spec.result_dir = str(run_dir)
        self.run_dir = run_dir
        self.run_model.start(
            spec.request_rates, spec.max_concurrencies, search=spec.search is not None
        )
        self.table.clear_points()
        self.distributions.set_series([])
        self.live.clear()
        self.curves.set_series([])
        self.search_doc = None
        self._marks = Marks(slos=list(spec.slos))
        self.capacity.reset()
        self.last_error = ""
        self.progress_bar.setValue(0)
        self._set_status(lambda: self.tr("Starting the benchmark worker…"))
        self.worker.start(spec, target, argv=argv)
        self._set_running(True)
        return True

    def cancel(self) -> None:
        if self.is_running() and not self.run_model.cancelled:
            self.run_model.cancelled = True
            self.worker.cancel()
            self._show_draining()

    def _show_draining(self) -> None:
        self._set_status(status_text.draining(self.run_model.in_flight()))

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            # What the window built so far outlives the run: kept out of the collector's full
            # passes, which walked all of it (~0.1 s of the GUI thread) in the middle of a run.
            gc.freeze()
            self.repaint_timer.start()
        else:
            self.repaint_timer.stop()
            gc.unfreeze()
            self._repaint(full=True)
        self.runningChanged.emit(running)

    def _set_status(self, text: TextSource, *, error: bool = False) -> None:
        self.message.set(text, error)

    def _show_status(self, text: str, error: bool) -> None:
        if text == self.status.text() and error == bool(self.status.styleSheet()):
            return  # an unchanged label would still relayout the panel
        self.status.setText(text)
        self.status.setStyleSheet("color: #c0392b;" if error else "")

    # ---- worker events (data only; painting happens in _repaint) -------------------------
    def _on_run_started(self, event: dict[str, Any]) -> None:
        self.run_model.run_started(event)

    def _on_point_started(self, event: dict[str, Any]) -> None:
        label = self.run_model.point_started(event)
        self.live.start_point(label)
        self.pointStarted.emit(label)

    def _on_progress(self, event: dict[str, Any]) -> None:
        self.run_model.progress_event(event)
        self.live.add_progress(
            float(event.get("elapsed_s") or 0.0),
            float(event.get("output_tok_s") or 0.0),
            float(event.get("in_flight") or 0.0),
        )

    def _on_point_finished(self, event: dict[str, Any]) -> None:
        summary = self.run_model.point_finished(event)
        self.table.add_point(summary)
        self._curves_dirty = True
        self.pointFinished.emit(summary)

    def _on_run_finished(self, event: dict[str, Any]) -> None:
        self.run_model.finish()
        where = str(self.run_dir) if self.run_dir else ""
        if event.get("cancelled") or self.run_model.cancelled:
            # The bar stays where the run stopped: a cancelled sweep is not 100 % done.
            self._update_progress()
            self._set_status(status_text.cancelled(self.run_model, where))
            return
        self.progress_bar.setValue(self.progress_bar.maximum())
        if self.run_model.search:
            self._set_status(status_text.search_done(len(self.points), where))
        else:
            text, error = status_text.done(self.run_model, where)
            self._set_status(text, error=error)

    def _on_error(self, message: str) -> None:
        self.run_model.finish()
        self.last_error = message
        self._set_status(message, error=True)

    def _on_stopped(self) -> None:
        self._set_running(False)

    def current_concurrency(self) -> int | None:
        """The running point's concurrency limit (None: unlimited, or nothing running)."""
        return self.run_model.current_concurrency() if self.is_running() else None

    def _show_distributions(self) -> None:
        self.distributions.set_series(self.table.selected_samples(self.points))

    def _on_search_value(self, event: dict[str, Any]) -> None:
        self._marks.highest_pass = event.get("highest_pass")
        self._marks.lowest_fail = event.get("lowest_fail")
        self._curves_dirty = True
        value = dict(event.get("value") or {})
        self.capacity.search_value(value, self._marks.highest_pass, self._marks.lowest_fail)

    def _on_search_finished(self, event: dict[str, Any]) -> None:
        doc = dict(event.get("search") or {})
        self.search_doc = doc
        boundary = doc.get("boundary") or {}
        self._marks.highest_pass = boundary.get("highest_pass")
        self._marks.lowest_fail = boundary.get("lowest_fail")
        self._curves_dirty = True
        # The boundary and its why in the panel; the knees (drawn on the curves) as a tooltip.
        self.capacity.search_finished(doc)
        self.tabs.setCurrentWidget(self.curves)

    # ---- the one repaint path -------------------------------------------------------------
    def _repaint(self, *, full: bool = False) -> None:
        self.live.refresh(full=full)
        if self._curves_dirty:
            self._curves_dirty = False
            # A point stopped early (its SLO failure proven) covers only its first requests:
            # it stays in the table but would bend the curves.
            whole = [p for p in self.points if not (p.get("tpotbench") or {}).get("early_stop")]
            series = [Series(self.tr("this run"), whole)]
            self.curves.set_series(series)
            self._marks.knees = sweep_knees(whole, sweep_axis(series))
            draw_marks(self.curves, series, self._marks)
        self._ticks += 1
        if (
            self.is_running()
            and not self.run_model.over
            and (full or self._ticks % STATUS_EVERY == 0)
        ):
            self._update_progress()
            if self.run_model.cancelled:
                self._show_draining()
            else:
                self._show_eta()

    def _update_progress(self) -> None:
        self.progress_bar.setValue(int(1000 * self.run_model.fraction()))

    def _show_eta(self) -> None:
        eta = self.run_model.eta()
        if eta is not None:
            self._set_status(status_text.progress(eta))

    def closeEvent(self, event: Any) -> None:
        self.cancel()
        super().closeEvent(event)
