"""The Sweep panel: set up a rate x concurrency sweep, run it in a worker, watch it live."""

from __future__ import annotations

import gc
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bench.results.write import remove_empty_dirs
from app.bench.schema.search_doc import SearchDoc
from app.bench.selftest.store import load_ceiling, mode_of, point_streams
from app.bench.sweep.contract import (
    PointFinished,
    PointStarted,
    Progress,
    RunFinished,
    RunStarted,
    SearchFinished,
    SearchValue,
)
from app.commands.argv import SweepSpec, build_run_config
from app.commands.copy_command import copied_commands
from app.profiles import Target
from app.ui.app_setup import settings
from app.ui.engine_errors import engine_error
from app.ui.exports.tooltips import metric_tooltips
from app.ui.panels.sweep import status_text
from app.ui.panels.sweep.capacity_line import CapacityLine
from app.ui.panels.sweep.charts import SweepCharts
from app.ui.panels.sweep.form import SweepForm
from app.ui.panels.sweep.form_state import FormState
from app.ui.panels.sweep.layout import SettingsToggle, WrappedLabel
from app.ui.panels.sweep.run_model import SweepRun
from app.ui.retranslate import Message, TextSource, is_language_change
from app.ui.run_extras import RunExtras
from app.ui.run_process import RunProcess

# One timer, the only place the live charts are drawn. 5 Hz: each repaint costs about the same
# whatever it brings (the scatter's strip, the curves' arrays, Qt's own pass), so halving the
# rate from 10 Hz took ~0.1 s of CPU off a 12 s, 64-stream run (benchmarks/gui_fidelity.py),
# and a chart moving 5 times a second still reads as live. The status line and the progress
# bar (a relayout each) follow every third tick.
REPAINT_MS = 200
STATUS_EVERY = 3


class SweepPanel(QWidget):
    """Sweep set-up, run/cancel, live charts, a table of finished points and the sweep curves.

    Signals:
        pointFinished(PointRow): a finished point as the table and the charts read it.
        pointStarted(TextSource): a point started; its short label ("c=8", "r=4", "r=4 c=8")
            in the UI language, re-made after a language switch.
        runningChanged(bool): a sweep started (True) or ended (False).
        serverMetrics(ServerMetrics): the worker's server_metrics events, forwarded.
    """

    pointFinished = Signal(object)
    pointStarted = Signal(object)
    runningChanged = Signal(bool)
    serverMetrics = Signal(object)

    def __init__(
        self,
        target_provider: Callable[[], Target],
        context_provider: Callable[[], RunExtras] = RunExtras,
        parent: QWidget | None = None,
        store: QSettings | None = None,
    ):
        super().__init__(parent)
        self._target_provider = target_provider
        # What the window adds to each run (roofline, /metrics), read when Run is pressed.
        self._context_provider = context_provider
        self.worker = RunProcess(self)
        # The run's plan, points, progress and time left: plain data, shown by this panel.
        self.run_model = SweepRun()
        self.points = self.run_model.points  # the same list, for readers of the panel
        self.run_dir: Path | None = None
        self.last_error = ""
        self._ticks = 0
        self.search_doc: SearchDoc | None = None  # the last capacity search's summary
        self._build_ui()
        # The form's values come back after a restart (the app's settings unless given).
        self.form_state = FormState(self.form, store if store is not None else settings())
        self.form_state.restore()
        self.form_state.watch()
        self._connect_worker()
        self.repaint_timer = QTimer(self)
        self.repaint_timer.setInterval(REPAINT_MS)
        self.repaint_timer.timeout.connect(self._repaint)

    # ---- construction -------------------------------------------------------------------
    def _build_ui(self) -> None:
        # The settings sit above the charts in two form columns (one when narrow), so the
        # charts get the panel's whole width and the panel no longer needs a wide window.
        self.settings_box = self.form = SweepForm()
        self.copy_button = self.form.copy_button
        self.copy_button.clicked.connect(self.copy_command)
        self.run_button = QPushButton()
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.settings_toggle = SettingsToggle(self.settings_box)
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
        self.ceiling_note = WrappedLabel("")
        self.ceiling_note.setStyleSheet("color: #9a6700;")
        self.ceiling_note.setVisible(False)
        self._ceiling_run: tuple[SweepSpec, Target] | None = None
        self.message = Message(self._show_status)

        self.charts = charts = SweepCharts()
        # The charts' parts by name, for the window's links and the tests.
        self.live, self.curves, self.tabs = charts.live, charts.curves, charts.tabs
        self.distributions, self.table = charts.distributions, charts.table
        self.table.itemSelectionChanged.connect(lambda: charts.show_distributions(self.points))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.settings_box)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(self.capacity)
        layout.addWidget(self.ceiling_note)
        layout.addWidget(charts, 1)
        self.retranslate()

    def retranslate(self) -> None:
        """Every fixed string and the status line in the UI language; the form keeps its values."""
        self.form.retranslate()
        self.capacity.refresh()
        self.run_button.setText(self.tr("Run sweep"))
        self.run_button.setToolTip(self.tr("Run the sweep (Ctrl+R)"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop after in-flight requests; keeps finished points (Esc)")
        )
        self.copy_button.setText(self.tr("Copy as command"))
        self.copy_button.setToolTip(
            self.tr(
                "Copy the tpotbench sweep (or search) command for these settings, and the "
                "matching vllm bench serve line per point where vLLM has the same workload; "
                "the key is never copied (the command reads OPENAI_API_KEY)"
            )
        )
        self.settings_toggle.retranslate()
        if self._ceiling_run is not None and self.ceiling_note.text():
            self.ceiling_note.setText(self._past_ceiling(*self._ceiling_run))
        self.charts.retranslate(metric_tooltips())
        if self.message.text():
            self.message.refresh()
        else:
            self._set_status(lambda: self.tr("Ready."))

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def _connect_worker(self) -> None:
        w = self.worker
        w.runStarted.connect(self._on_run_started)
        w.pointStarted.connect(self._on_point_started)
        w.tokens.connect(lambda e: self.live.add_tokens(e.t_s, e.itl_ms))
        w.request.connect(lambda e: self.live.add_request(e.tpot_ms) if e.ok else None)
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
        return self.form.build_spec(self._context_provider().spec_fields())

    def _past_ceiling(self, spec: SweepSpec, target: Target) -> str:
        """A warning when the sweep asks this machine for more streams than its measured
        client ceiling (Run ▸ Check this machine); '' when it does not or none was measured."""
        if target.ray_address:
            return ""  # the streams run on the cluster's machines
        workers = self.form.advanced.workers.value()
        saved = load_ceiling(mode_of(workers))
        if saved is None:
            return ""
        worst = max(point_streams(c, spec.num_prompts) for c in spec.max_concurrencies)
        if worst <= saved.streams:
            return ""
        mode = (
            self.tr("in one process")
            if saved.workers == 0
            else self.tr("with {n} workers").format(n=saved.workers)
        )
        return self.tr(
            "⚠ This sweep runs up to {n} streams, past this machine's client ceiling of "
            "{ceiling} streams {mode} (measured {date}): figures above it may include the "
            "client's own delays. Add load workers (Advanced settings) or check the machine "
            "again (Run ▸ Check this machine)."
        ).format(n=worst, ceiling=saved.streams, mode=mode, date=saved.date[:10])

    def copy_command(self) -> str:
        """Put the shell commands for the form's settings on the clipboard; the text copied
        ('' and a message in the panel when the form cannot be run)."""
        try:
            spec = self.build_spec()
            target = self._target_provider()
            if not target.base_url:
                raise ValueError(self.tr("The selected endpoint has no base URL yet."))
        except ValueError as exc:
            self._set_status(str(exc), error=True)
            return ""
        root = Path(self.form.results_root.text().strip()).expanduser()
        copied = copied_commands(spec, target, str(root / spec.label))
        text = copied.text()
        QGuiApplication.clipboard().setText(text)
        lines = len(copied.vllm)
        self._set_status(
            lambda: (
                self.tr(
                    "Copied to the clipboard: the tpotbench command and {n} vllm bench serve "
                    "line(s), one per point."
                ).format(n=lines)
                if lines
                else self.tr("Copied the tpotbench command to the clipboard.")
            )
        )
        self.status.setToolTip(text)
        return text

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
            spec.result_dir = str(run_dir)
            config = build_run_config(spec, target)  # checked as the CLI checks its flags
            run_dir.mkdir(parents=True, exist_ok=True)
        except (ValueError, OSError) as exc:
            self._set_status(str(exc), error=True)
            return False
        # Said before the run starts and kept in view while it lasts (not a modal question:
        # a benchmark started from a script or a test must never wait on a dialog).
        past = self._past_ceiling(spec, target)
        self._ceiling_run = (spec, target)
        self.ceiling_note.setText(past)
        self.ceiling_note.setVisible(bool(past))
        self.form_state.save()
        # The charts get the room while it runs; the toggle brings the form back.
        self.settings_toggle.setChecked(False)
        self.run_dir = run_dir
        self.run_model.start(
            spec.request_rates, spec.max_concurrencies, search=spec.search is not None
        )
        self.charts.clear(spec.slos)
        self.search_doc = None
        self.capacity.reset()
        self.last_error = ""
        self.progress_bar.setValue(0)
        self._set_status(lambda: self.tr("Starting the benchmark worker…"))
        self.worker.start(config, target, argv=argv)
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
        # The running sweep was built from the form: edits could not reach it and would make
        # the form lie about what is measured.
        self.form.setEnabled(not running)
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
        self.status.setToolTip("")  # a copied command's text belongs to its own message
        self.status.setStyleSheet("color: #c0392b;" if error else "")

    # ---- worker events (data only; painting happens in _repaint) -------------------------
    def _on_run_started(self, event: RunStarted) -> None:
        self.run_model.run_started(event)

    def _on_point_started(self, event: PointStarted) -> None:
        label = partial(status_text.point_label, self.run_model.point_started(event))
        self.live.start_point(label)
        self.pointStarted.emit(label)

    def _on_progress(self, event: Progress) -> None:
        self.run_model.progress_event(event)
        self.live.add_progress(event.elapsed_s, event.output_tok_s, event.in_flight)

    def _on_point_finished(self, event: PointFinished) -> None:
        row = self.run_model.point_finished(event)
        self.charts.add_point(row)
        self.pointFinished.emit(row)

    def _on_run_finished(self, event: RunFinished) -> None:
        self.run_model.finish()
        where = str(self.run_dir) if self.run_dir else ""
        if event.cancelled or self.run_model.cancelled:
            # The bar stays where the run stopped: a cancelled sweep is not 100 % done.
            self._update_progress()
            self._set_status(self._noted(status_text.cancelled(self.run_model, where)))
            return
        self.progress_bar.setValue(self.progress_bar.maximum())
        if self.run_model.search:
            self._set_status(self._noted(status_text.search_done(self.run_model, where)))
        else:
            text, error = status_text.done(self.run_model, where)
            # A load that did not happen is not a clean "Done": the line is shown as a warning.
            warned = bool(self.run_model.warned_points())
            self._set_status(self._noted(text), error=error or warned)

    def _noted(self, text: status_text.Text) -> status_text.Text:
        """A status line with the points whose load did not happen as planned, if any."""
        return status_text.with_load_note(text, self.run_model)

    def _on_error(self, message: str) -> None:
        self.run_model.finish()
        self.last_error = message
        # The worker speaks to a terminal ("run 'tpotbench doctor'"); the window names its own.
        self._set_status(partial(engine_error, message), error=True)

    def _on_stopped(self) -> None:
        # A run that saved nothing (every request refused with 401, an unreachable server)
        # leaves no empty folder behind: it would read as a run with no results.
        if self.run_dir is not None:
            remove_empty_dirs([self.run_dir])
        self._set_running(False)

    def current_concurrency(self) -> int | None:
        """The running point's concurrency limit (None: unlimited, or nothing running)."""
        return self.run_model.current_concurrency() if self.is_running() else None

    def _on_search_value(self, event: SearchValue) -> None:
        self.run_model.search_value(event.highest_pass, event.lowest_fail)
        self.charts.mark_boundary(event.highest_pass, event.lowest_fail)
        self.capacity.search_value(event.value, event.highest_pass, event.lowest_fail)

    def _on_search_finished(self, event: SearchFinished) -> None:
        doc = self.search_doc = event.search
        self.charts.mark_boundary(doc.boundary.highest_pass, doc.boundary.lowest_fail)
        # The boundary and its why in the panel; the knees (drawn on the curves) as a tooltip.
        self.capacity.search_finished(doc)
        self.tabs.setCurrentWidget(self.curves)

    # ---- the one repaint path -------------------------------------------------------------
    def _repaint(self, *, full: bool = False) -> None:
        self.live.refresh(full=full)
        self.charts.draw_curves(self.points)
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
            self._set_status(self._noted(status_text.progress(eta)))

    def closeEvent(self, event: Any) -> None:
        self.cancel()
        super().closeEvent(event)
