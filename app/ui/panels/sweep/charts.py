"""What the Sweep tab shows of a run: the Live, Sweep curves and Distributions tabs above the
table of finished points, with the capacity search's marks and the knees on the curves."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QSplitter, QTabWidget

from app.bench.results.point_row import PointRow
from app.ui.exports.tooltips import set_chart_tooltips
from app.ui.panels.sweep.points_table import PointsTable
from app.ui.plots.capacity import Marks, draw_marks, sweep_knees
from app.ui.plots.distributions import DistributionsView
from app.ui.plots.live import LiveCharts
from app.ui.plots.sweep_curves import Series, SweepCurves, sweep_axis


class SweepCharts(QSplitter):
    """The charts' tabs over the points table; the curves are redrawn only when marked dirty.
    Its words keep the panel's translation context (they were the panel's before)."""

    def __init__(self) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.live = LiveCharts()
        self.curves = SweepCurves()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.live, "")
        self.tabs.addTab(self.curves, "")
        self.distributions = DistributionsView()
        self.tabs.addTab(self.distributions, "")
        self.table = PointsTable()
        self.table.cellClicked.connect(
            lambda _r, _c: self.tabs.setCurrentWidget(self.distributions)
        )
        self.addWidget(self.tabs)
        self.addWidget(self.table)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 1)
        self.setSizes([600, 190])
        self.setChildrenCollapsible(False)
        self.tabs.setMinimumHeight(300)
        self.table.setMinimumHeight(110)
        self.marks = Marks()
        self.curves_dirty = False

    def retranslate(self, tips: dict[str, str]) -> None:
        self.tabs.setTabText(0, QCoreApplication.translate("SweepPanel", "Live"))
        self.tabs.setTabText(1, QCoreApplication.translate("SweepPanel", "Sweep curves"))
        self.tabs.setTabText(2, QCoreApplication.translate("SweepPanel", "Distributions"))
        self.table.retranslate(tips)
        set_chart_tooltips(self.curves, self.live)
        self.curves_dirty = True  # the curves' legend names ("this run") are words too

    def clear(self, slos: Sequence[str]) -> None:
        """A new run: empty charts and table, the run's SLO lines to draw."""
        self.table.clear_points()
        self.distributions.set_series([])
        self.live.clear()
        self.curves.set_series([])
        self.marks = Marks(slos=list(slos))

    def add_point(self, row: PointRow) -> None:
        self.table.add_point(row)
        self.curves_dirty = True

    def show_distributions(self, points: Sequence[PointRow]) -> None:
        self.distributions.set_series(self.table.selected_samples(list(points)))

    def mark_boundary(self, highest_pass: float | None, lowest_fail: float | None) -> None:
        """The capacity search's highest passing and lowest failing value so far."""
        self.marks.highest_pass = highest_pass
        self.marks.lowest_fail = lowest_fail
        self.curves_dirty = True

    def draw_curves(self, points: Sequence[PointRow]) -> None:
        """Redraw the sweep curves, their knees and marks, if a point or mark changed."""
        if not self.curves_dirty:
            return
        self.curves_dirty = False
        # A point cut short (a search's early stop, a cancel) covers only its first requests:
        # the curves draw it apart and the knees leave it out.
        series = [Series(QCoreApplication.translate("SweepPanel", "this run"), list(points))]
        self.curves.set_series(series)
        self.marks.knees = sweep_knees(points, sweep_axis(series))
        draw_marks(self.curves, series, self.marks)
