"""The Results panel: browse result folders, open or overlay runs, export them."""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGraphicsView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bench.metrics.definitions import TOOL_NAMES, TOOLS
from app.bench.results.file_cache import PointFileCache
from app.bench.results.point_result import PointResult
from app.bench.results.read import ResultFileError, point_from_doc
from app.bench.schema.point_doc import PointDoc
from app.ui.app_setup import held_collections, settings
from app.ui.exports.charts import curve_paths, export_curves
from app.ui.exports.files import (
    chart_filters,
    data_filters,
    last_folder,
    remember_folder,
    with_filter_suffix,
)
from app.ui.exports.tables import (
    runs_csv,
    runs_json,
    runs_markdown,
    write_text_atomic,
)
from app.ui.exports.tooltips import set_chart_tooltips
from app.ui.panels.results.compare_view import CompareView
from app.ui.panels.results.definitions_table import DefinitionsTable
from app.ui.panels.results.points_table import PointsTable
from app.ui.panels.results.runs import (
    FolderListing,
    Run,
    folder_runs,
    runs_caption,
    search_doc,
)
from app.ui.panels.sweep.layout import WrappedLabel
from app.ui.plots.capacity import (
    Marks,
    capacity_text,
    draw_marks,
    sweep_knees,
)
from app.ui.plots.distributions import DistributionsView
from app.ui.plots.drawing_queue import drawing_queue
from app.ui.plots.sweep_curves import Series, SweepCurves, sweep_axis
from app.ui.results_root import default_results_root
from app.ui.retranslate import Message, TextSource, is_language_change

_paused_lock = threading.Lock()
_paused = 0  # folder reads under way with the cyclic garbage collector paused
_freeze = False  # one of them parsed enough files to put out of the collector's reach
_was_enabled = True  # automatic collection before the first of them paused it
FREEZE_AT = 500  # files parsed by one read: fewer make collections too short to matter


@contextlib.contextmanager
def _collector_paused(parsed: Callable[[], int], *, may_freeze: bool = True) -> Iterator[None]:
    """Python's cyclic garbage collector (automatic collection and the window's
    GuiThreadCollector) paused while a folder is parsed and, when that
    parsed FREEZE_AT files or more (`parsed` counts them), what is then alive moved out of
    its reach (gc.freeze). Parsing thousands of files makes millions of objects: the
    collections they set off stop every thread, the GUI thread's too (one took 210 ms of a
    2,000-file open), and each later full collection walked the cache again. Parsed results
    are JSON values: counting references frees them, no collection needed. (Small folders
    skip the freeze: it keeps any cyclic garbage alive at that moment for good. The window
    collects before a read for that reason: ResultsPanel._scan_in_background; a read
    that did not, `may_freeze` False, never freezes.)"""
    global _paused, _freeze, _was_enabled
    before = parsed()
    # The window's own collector held too, until the freeze: its timer collected the youngest
    # generation, which holds every object parsed so far (a 60-73 ms hold of the GUI thread
    # at a tick during a 2,000-file read).
    with held_collections():
        with _paused_lock:
            if not _paused:
                _was_enabled = gc.isenabled()
            _paused += 1
            gc.disable()
        try:
            yield
        finally:
            with _paused_lock:
                _paused -= 1
                _freeze = _freeze or (may_freeze and parsed() - before >= FREEZE_AT)
                if not _paused:
                    if _freeze:
                        gc.freeze()
                    _freeze = False
                    # Back as it was: the window keeps automatic collection off for good (its
                    # GuiThreadCollector collects on the GUI thread only, app_setup.py); turning
                    # it on here let any thread collect, and finalise Qt wrappers there.
                    if _was_enabled:
                        gc.enable()


class ResultsPanel(QWidget):
    """Browse a results folder; select one run to open it, several to overlay; export.

    Signals:
        runsShown(list): the names of the runs now shown.
    """

    runsShown = Signal(list)
    # A folder read on its own thread: (which refresh, its listing), delivered to this thread.
    _scanned = Signal(int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        # Long but flat: the widgets in the order they appear; one layout read top to bottom.
        super().__init__(parent)
        self.runs: list[Run] = []
        self.errors: list[str] = []
        self._unread_files = 0  # of self.errors, the ones that name a file (not a folder)
        self._missing_folder: Path | None = None  # the folder typed is not one
        self.empty_note: TextSource = ""
        self.shown: list[Run] = []
        # Parsed result files by path and identity: a refresh after each finished point parses
        # only the new file, however many the folder holds (it ran on the GUI thread, every
        # file every time).
        self.file_cache = PointFileCache()
        self.listing: FolderListing | None = None  # the folder as last listed
        # Each listed folder's runs and unreadable files: a point joining one folder groups
        # that folder again, not the whole history.
        self._by_folder: dict[Path, tuple[list[Run], list[str]]] = {}
        self._view_stale = False  # shown runs changed while the tab was out of sight
        # Points joining the shown runs on screen: drawn once the event loop is free, all the
        # points of a burst in one drawing (a drawing per point held the window each time),
        # in stages (_draw_joined), each a piece of the window's drawing queue: one piece a
        # turn of the event loop, so the window answers and paints between two.
        self._queue = drawing_queue()
        # Charts of such a drawing not painted yet: each painted on a turn of its own (the
        # four painted at once held the window for several frames). A chart waiting its turn
        # shows the last drawing, whole, until it is painted.
        self._waiting: list[QGraphicsView] = []
        # Reading a folder of thousands of files takes seconds: the window's reads run on a
        # thread of their own; `_generation` names the latest, so an older one is dropped.
        self._generation = 0
        self._scanning = False
        self._pending: list[tuple[str | Path, PointDoc]] = []  # points meanwhile
        self._scanned.connect(self._on_scanned)
        self.folder = QLineEdit()
        self.folder.returnPressed.connect(lambda: self.refresh(background=True))
        self.browse_button = QPushButton()
        self.browse_button.clicked.connect(self._browse)
        self.reload_button = QPushButton()
        self.reload_button.setShortcut("F5")
        self.reload_button.clicked.connect(lambda: self.refresh(background=True))
        self.folder_label = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.folder_label)
        top.addWidget(self.folder, 1)
        top.addWidget(self.browse_button)
        top.addWidget(self.reload_button)

        self.tree = QTreeWidget()
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setRootIsDecorated(False)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(False)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = Message(self._show_note)
        self.export_data_button = QPushButton()
        self.export_data_button.clicked.connect(self.export_dialog)
        self.export_charts_button = QPushButton()
        self.export_charts_button.clicked.connect(self.export_charts_dialog)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_data_button)
        buttons.addWidget(self.export_charts_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.message)
        # A capacity search's answer when the shown run's folder holds search.json.
        # Its minimum height follows its text, so a long why is never cut off at the bottom of
        # the splitter's top section (a plain word-wrapped QLabel was, at 1280x720).
        self.capacity = WrappedLabel("")
        self.capacity.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Its answer and why run to several lines: they scroll in a box of their own, so the
        # run list above keeps rows to pick from (it shrank to two for a capacity run).
        self.capacity_box = QScrollArea()
        self.capacity_box.setWidgetResizable(True)
        self.capacity_box.setFrameShape(QScrollArea.Shape.NoFrame)
        self.capacity_box.setWidget(self.capacity)
        self.capacity_box.setMaximumHeight(5 * self.fontMetrics().lineSpacing() + 6)
        self.capacity_box.setVisible(False)
        left_layout.addWidget(self.capacity_box)
        self.tree.setMinimumHeight(5 * (self.fontMetrics().height() + 6))  # header + 4 rows
        left_layout.addLayout(buttons)

        self.curves = SweepCurves()
        self.table = PointsTable()
        # Click a point: its distributions; Ctrl/Shift-click points of any shown runs: overlaid.
        self.table.itemSelectionChanged.connect(
            lambda: self.distributions.set_series(self.table.selected_samples())
        )
        self.table.cellClicked.connect(
            lambda _r, _c: self.chart_tabs.setCurrentWidget(self.distributions)
        )
        self.table.detailed = lambda point: self.file_cache.detailed(point)
        self.distributions: DistributionsView = DistributionsView()
        self.compare = CompareView()
        self.compare.detailed = self.table.detailed
        self.chart_tabs: QTabWidget = QTabWidget()
        self.chart_tabs.addTab(self.curves, "")
        self.chart_tabs.addTab(self.distributions, "")
        self.chart_tabs.addTab(self.compare, "")
        # The table in vLLM's definitions (the files' own figures) or another tool's.
        self.definitions_label = QLabel()
        self.definitions = QComboBox()
        for tool in TOOLS:
            self.definitions.addItem(TOOL_NAMES[tool], tool)
        self.definitions.currentIndexChanged.connect(self._definitions_changed)
        self.definitions_note = QLabel()
        self.definitions_note.setWordWrap(True)
        self.tool_table = DefinitionsTable()
        self.tables = QStackedWidget()
        self.tables.addWidget(self.table)
        self.tables.addWidget(self.tool_table)
        table_bar = QHBoxLayout()
        table_bar.addWidget(self.definitions_label)
        table_bar.addWidget(self.definitions)
        table_bar.addWidget(self.definitions_note, 1)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addLayout(table_bar)
        table_layout.addWidget(self.tables, 1)
        # One column: the run list on top, then the knee curves and the table at full width,
        # so the three curves stay readable in the narrow centre of a 1280-px window.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(left)
        splitter.addWidget(self.chart_tabs)
        splitter.addWidget(table_box)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([150, 420, 230])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.retranslate()
        self._update_buttons()
        # Where the Sweep panel saves by default; an absent folder just means no runs yet.
        self.folder.setText(str(default_results_root()))
        self.refresh(background=True)

    def retranslate(self) -> None:
        """Every fixed string in the UI language; the runs and the selection stay."""
        self.folder.setPlaceholderText(self.tr("A folder with result JSON files"))
        self.browse_button.setText(self.tr("Browse…"))
        self.reload_button.setText(self.tr("Reload"))
        self.folder_label.setText(self.tr("Results folder"))
        self.tree.setHeaderLabels([self.tr("Run"), self.tr("Points"), self.tr("Model")])
        self.tree.setToolTip(self.tr("Select one run to open it; Ctrl/Shift-select to compare."))
        self.export_data_button.setText(self.tr("Export data…"))
        self.export_data_button.setToolTip(self.tr("CSV, JSON or Markdown table (Ctrl+E)"))
        self.export_charts_button.setText(self.tr("Export charts…"))
        self.export_charts_button.setToolTip(self.tr("Each chart as PNG or SVG"))
        self.chart_tabs.setTabText(0, self.tr("Knee curves"))
        self.chart_tabs.setTabText(1, self.tr("Distributions"))
        self.chart_tabs.setTabText(2, self.tr("Compare"))
        self.definitions_label.setText(self.tr("Definitions"))
        self.definitions.setToolTip(
            self.tr(
                "Show TPOT, ITL and throughput as this tool defines them, computed from each "
                "point's saved per-request data"
            )
        )
        self._definitions_note()
        set_chart_tooltips(self.curves)
        self.table.retranslate()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            assert item is not None  # i < topLevelItemCount()
            run = next((r for r in self.runs if r.name == item.text(0)), None)
            if run is not None:
                self._tree_tooltip(item, run)
        self.note.refresh()

    def changeEvent(self, event: QEvent) -> None:
        if is_language_change(event):
            self.retranslate()
        super().changeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        # Points that joined the shown runs while the tab was out of sight: drawn once, as
        # points joining on screen are (_draw_joined: over several turns of the event loop,
        # the charts showing their last drawing, whole, until their turn). Drawn at once, the
        # run and its labels held the window for 200-400 ms as the tab came up.
        if self._view_stale:
            self._view_stale = False
            self._queue.cancel(self)
            self._queue.post(self, self._draw_joined)
        super().showEvent(event)

    # ---- loading ------------------------------------------------------------------------
    def set_folder(self, path: str | Path) -> None:
        self.folder.setText(str(path))
        self.refresh()

    def refresh(self, *, background: bool = False) -> None:
        """Read the folder again (files that changed on disk are parsed again, the others come
        from the cache); keep showing the runs that are still there. `background`: list and
        parse on a thread of its own, the runs shown when it is done (the window's way)."""
        self._generation += 1
        self._scanning = False
        self._pending.clear()  # a read of the folder lists them
        text = self.folder.text().strip()
        last_read = self.listing.root if self.listing is not None else None
        self.listing = None
        self.empty_note = ""
        self._missing_folder = None
        listing_errors: list[str] = []
        if text:
            root = Path(text).expanduser()
            if root.is_dir() and background:
                self._scan_in_background(root, again=root == last_read)
                return
            if root.is_dir():
                self.listing = FolderListing.scan(root)
            elif root == default_results_root():
                self.empty_note = lambda: self.tr(
                    "No results yet: a sweep saves its runs in {0}."
                ).format(root)
            else:
                self._missing_folder = root
                listing_errors = [self._not_a_folder(root)]
        if self.listing is not None:
            self._show_listing(self.file_cache.read, keep={r.name for r in self.shown})
            self.file_cache.forget_except(self.listing.files())
        else:
            self.runs, self.errors, self._unread_files = [], listing_errors, 0
            self._show_runs_found(keep={r.name for r in self.shown})

    def _scan_in_background(self, root: Path, *, again: bool = False) -> None:
        """`root` listed and parsed on a thread of its own. `again`: the folder the cache
        holds already (Reload), so few files are parsed: no freeze at its end, nor the
        collection before it."""
        generation, cache, scanned = self._generation, self.file_cache, self._scanned
        self._scanning = True
        self.note.set(lambda: self.tr("Reading {0}…").format(root))
        # A read of FREEZE_AT files or more freezes what is alive at its end, and frozen
        # cyclic garbage is never freed: what is garbage now is collected first, here on the
        # GUI thread (the one thread that collects: app_setup.GuiThreadCollector), before the
        # files parsed exist. (An earlier read's cache, frozen, is not walked again.) A full
        # pass walks every object not frozen: after a sweep's end, when the Sweep tab thaws
        # the heap, 130-210 ms of the GUI thread with 2,000 files shown. A Reload, which
        # parses only the files changed since, skips it and the freeze it is for.
        if not again:
            gc.collect()

        def scan() -> None:  # on its own thread: nothing of the widget but the signal
            with _collector_paused(lambda: cache.parsed, may_freeze=not again):
                listing = FolderListing.scan(root)
                files = listing.files()
                for file in files:
                    parsed = cache.parsed
                    with contextlib.suppress(ResultFileError):  # reported when shown
                        cache.read(file)
                    if cache.parsed != parsed:
                        # The interpreter lock handed over after each file parsed: every Qt
                        # call of the GUI thread lets the lock go and waits to take it back, up
                        # to the switch interval (5 ms) each time while this thread parses; a
                        # paint of the tab, a few dozen such calls, held the window 30-56 ms
                        # during a 2,000-file read. (A file from the cache costs a stat, which
                        # lets the lock go itself; a yield after each made a Reload 5x longer.)
                        time.sleep(0)
                cache.forget_except(files)
            with contextlib.suppress(RuntimeError):  # the panel is gone
                scanned.emit(generation, listing)

        threading.Thread(target=scan, name="results-scan", daemon=True).start()

    def _on_scanned(self, generation: int, listing: FolderListing) -> None:
        if generation != self._generation:
            return  # a later refresh (or folder) took its place
        self._scanning = False
        self.listing = listing
        # Every file was just read into the cache: shown from it without a stat each.
        self._show_listing(self.file_cache.stored, keep={r.name for r in self.shown})
        pending, self._pending = self._pending, []
        for path, summary in pending:  # points that finished while the folder was read
            self.add_point(path, summary)

    @property
    def scanning(self) -> bool:
        """Whether the folder is being read on its own thread (its runs not shown yet)."""
        return self._scanning

    def add_point(self, path: str | Path | None, summary: PointDoc) -> bool:
        """A point a sweep has just saved at `path`, its typed result (less the per-request
        arrays) in `summary`: shown as a re-read of the folder would show it, without reading
        the folder or the file. False when the folder shown would not list it (another folder)."""
        if self._scanning and path is not None:
            self._pending.append((path, summary))  # taken in once the folder is read
            return True
        listing = self.listing
        if path is None or listing is None:
            if path is not None and self.listing is None and self._root_appeared():
                self.refresh()  # the first run in a folder that did not exist: nothing to scan
                return True
            return False
        file = self._under_root(Path(path), listing.root)
        if file is None:
            return False
        try:
            points = [self._point_of(summary, file)]
        except ResultFileError:
            points = None  # the file says what is wrong with it when read
        if points is not None and not self.file_cache.add(file, points):
            return False  # gone already: a new listing would not find it
        if not listing.add(file):
            return False
        # The shown runs are drawn again only when the point joins one of their folders (the
        # runs of other folders keep their points, the very objects, so their view stands),
        # and only on screen: drawing a run's curves and table takes longer than everything
        # else here, so with the tab out of sight (the Sweep tab, during a sweep) it waits
        # for the tab to be shown.
        redraw = any(r.folder == file.parent for r in self.shown)
        if redraw and not self.isVisible():
            redraw, self._view_stale = False, True
        self._show_listing(
            self.file_cache.stored,
            keep={r.name for r in self.shown},
            redraw=False,
            changed=file.parent,
        )
        if redraw:
            # A drawing still due or under way is superseded: this one draws its points too
            # (one drawing for a burst). Its charts keep showing their last whole drawing.
            self._queue.cancel(self)
            self._queue.post(self, self._draw_joined)
        return True

    @staticmethod
    def _point_of(summary: PointDoc, file: Path) -> PointResult:
        """A finished point's result as a read of its file gives it (ResultFileError when it
        is not one)."""
        return point_from_doc(summary, file)

    @property
    def drawing_due(self) -> bool:
        """Whether points joined the shown runs on screen and are still to be drawn (once the
        event loop is free), or some of their charts still to be painted."""
        return self._queue.waiting(self) or bool(self._waiting)

    def _draw_joined(self) -> None:
        """The shown runs drawn again over several turns of the event loop, each a short hold
        of the window: the curves and the table now; the Pareto chart (its labels a turn
        after its curves), the marks, the layout and ranges, and the labels' first slice each
        on a turn of its own; then each chart painted on its own
        turn. Until its turn a chart shows its last drawing, whole (its updates held)."""
        self.show_runs([r.name for r in self.shown], staged=True)
        self._select(self.shown)
        self._waiting = list[QGraphicsView](self.curves.charts().values())
        for chart in self._waiting:
            chart.setUpdatesEnabled(False)
        series = [r.series() for r in self.shown]
        stages: list[Callable[[], None]] = [
            # Its labels on the next turn, before the stages below (they place them).
            partial(self.curves.draw_pareto, later=partial(self._queue.post_next, self)),
            lambda: self._show_capacity(series),
            self.curves.settle_ranges,
            self.curves.place_first,
        ]
        stages += [partial(self._paint_chart, chart) for chart in self._waiting]
        for stage in stages:
            self._queue.post(self, stage)

    def _paint_chart(self, chart: QGraphicsView) -> None:
        """A chart of a staged drawing let paint (on the event loop's next turn)."""
        if chart in self._waiting:
            self._waiting.remove(chart)
            chart.setUpdatesEnabled(True)

    def _paint_charts_now(self) -> None:
        """A staged drawing (_draw_joined) given up (the runs are drawn again whole), its
        charts painted again."""
        self._queue.cancel(self)
        while self._waiting:
            self._waiting.pop(0).setUpdatesEnabled(True)

    def _root_appeared(self) -> bool:
        text = self.folder.text().strip()
        return bool(text) and Path(text).expanduser().is_dir()

    @staticmethod
    def _under_root(path: Path, root: Path) -> Path | None:
        """`path` spelled from `root` as the listing spells its files, when it is under it."""
        if root in path.parents:
            return path
        try:  # the same folder reached another way (a symlink, a relative path)
            rel = path.resolve().relative_to(root.resolve())
        except (OSError, ValueError):
            return None
        return root / rel

    def _show_listing(
        self,
        read: Callable[[Path], list[PointResult]],
        *,
        keep: set[str],
        redraw: bool = True,
        changed: Path | None = None,
    ) -> None:
        """The runs of the listing, each file's points from `read`; only the `changed`
        folder's (and new folders') grouped again when given, the others' runs kept."""
        listing = self.listing
        assert listing is not None
        if changed is None:
            self._by_folder = {}
        else:
            self._by_folder.pop(changed, None)
        by_folder = {
            f: self._by_folder.get(f) or folder_runs(listing, f, read) for f in listing.folders
        }
        self._by_folder = by_folder
        runs = [run for found, _errors in by_folder.values() for run in found]
        errors = [e for _found, problems in by_folder.values() for e in problems]
        self.runs, self.errors = runs, listing.errors + errors
        self._unread_files, self._missing_folder = len(errors), None
        self._show_runs_found(keep=keep, redraw=redraw)

    def _show_runs_found(self, *, keep: set[str], redraw: bool = True) -> None:
        self.tree.blockSignals(True)
        items = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        if [item.text(0) if item else None for item in items] == [r.name for r in self.runs]:
            # The same runs (a point joined one): their rows updated, not made again.
            for item, run in zip(items, self.runs, strict=True):
                assert item is not None  # i < topLevelItemCount()
                for column, text in enumerate((run.name, str(len(run.points)), run.model)):
                    if item.text(column) != text:
                        item.setText(column, text)
                self._tree_tooltip(item, run)
        else:
            self.tree.clear()
            for run in self.runs:
                item = QTreeWidgetItem([run.name, str(len(run.points)), run.model])
                self._tree_tooltip(item, run)
                self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        self._show_messages()
        self.compare.set_runs(self.runs)
        names = [r.name for r in self.runs if r.name in keep]
        if redraw:
            self.show_runs(names)
        else:  # the same runs with the same points: nothing to draw again
            self.shown = [r for r in self.runs if r.name in keep]
        self._select(self.shown)

    def _tree_tooltip(self, item: QTreeWidgetItem, run: Run) -> None:
        tip = self.tr("{0}\nwritten by {1}").format(run.folder, run.source)
        for column in range(3):
            if item.toolTip(column) != tip:
                item.setToolTip(column, tip)

    def _show_messages(self) -> None:
        errors = list(self.errors)
        if not errors:
            note = self.empty_note
            count = len(self.runs)
            self.note.set((lambda: self.tr("{0} run(s) found.").format(count)) if count else note)
            return

        unread, missing = self._unread_files, self._missing_folder
        if missing is not None:  # no file to count: the folder itself, and what to do
            self.note.set(lambda: self._not_a_folder(missing), error=True)
            return

        def problems() -> str:
            if unread:
                head = self.tr("{0} file(s) could not be read; the others opened:").format(unread)
            else:
                head = self.tr("Some folders could not be read; the others opened:")
            return head + "\n" + "\n".join(f"• {e}" for e in errors[:8])

        self.note.set(problems, error=True)

    def _not_a_folder(self, root: Path) -> str:
        return self.tr(
            "{0} is not a folder: type the folder your sweeps save to, or choose one with Browse…"
        ).format(root)

    def _show_note(self, text: str, error: bool) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #c0392b;" if error else "")

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose a results folder"))
        if path:
            self.folder.setText(path)
            self.refresh(background=True)

    # ---- showing ------------------------------------------------------------------------
    def show_runs(self, names: Sequence[str], staged: bool = False) -> None:
        """Open one run or overlay several (by name, as listed). `staged`: the Pareto chart
        and the marks are left to the caller (_draw_joined)."""
        self._view_stale = False
        self._paint_charts_now()  # drawn now
        wanted = set(names)
        self.shown = [r for r in self.runs if r.name in wanted]
        series = [r.series() for r in self.shown]
        # Points cut short (a search's early stop, a cancel) stay in the table; the curves
        # draw them apart and the knees leave them out.
        later = partial(self._queue.post, self) if staged else None
        self.curves.set_series(series, pareto_later=staged, later=later)
        if not staged:
            self._show_capacity(series)
        by_path = {str(p.path): p for r in self.shown for p in r.points if p.path}
        self.distributions.set_series([])
        self.table.show_points(series, by_path)
        self._definitions_changed()
        self._update_buttons()
        self.runsShown.emit([r.name for r in self.shown])

    def _definitions_changed(self) -> None:
        """vLLM's definitions: the points table; another tool's: its figures per point."""
        tool = self.definitions.currentData() or "vllm"
        if tool == "vllm":
            self.tables.setCurrentWidget(self.table)
        else:
            detailed = self.file_cache.detailed  # the figures need the per-request data
            points = [
                (r.name, detailed(p))
                for r in self.shown
                for p in sorted(r.points, key=lambda p: (p.max_concurrency or 0, p.request_rate))
            ]
            self.tool_table.show_points(tool, points)
            self.tables.setCurrentWidget(self.tool_table)
        self._definitions_note()

    def _definitions_note(self) -> None:
        tool = self.definitions.currentData() or "vllm"
        notes = {
            "vllm": self.tr("TPOT per request; ITL per chunk gap (the files' own figures)."),
            "guidellm": self.tr(
                "GuideLLM: its TPOT includes TTFT; its ITL is vLLM's TPOT; both weighted by "
                "output tokens."
            ),
            "aiperf": self.tr(
                "AIPerf: its inter-token latency is vLLM's TPOT (per request); inter-chunk "
                "latency is the chunk gaps."
            ),
            "sglang": self.tr(
                "SGLang: ITL per token (a chunk's gap shared by its tokens) when chunk sizes "
                "are known, else per chunk."
            ),
            "evalscope": self.tr("evalscope: averages; a one-token reply counts 0 in its TPOT."),
        }
        self.definitions_note.setText(notes[tool])

    def _show_capacity(self, series: list[Series]) -> None:
        """One run shown: its knees, SLO lines and, from search.json, boundary and why."""
        self.capacity_box.setVisible(False)
        if len(self.shown) != 1 or not series:
            return
        marks = Marks(knees=sweep_knees(series[0].points, sweep_axis(series)))
        slo = next((p.blocks.slo for r in self.shown for p in r.points if p.blocks.slo), None)
        marks.slos = [f"{s.metric}:{s.stat}:{s.limit_ms:g}" for s in slo.limits] if slo else []
        doc = search_doc(self.shown[0].folder)
        if doc is not None:
            marks.highest_pass = doc.boundary.highest_pass
            marks.lowest_fail = doc.boundary.lowest_fail
            self.capacity.setText(capacity_text(doc, knees=False))
            self.capacity.setToolTip(capacity_text(doc))
            self.capacity_box.setVisible(True)
        draw_marks(self.curves, series, marks)

    def _select(self, runs: Sequence[Run]) -> None:
        names = {r.name for r in runs}
        self.tree.blockSignals(True)
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            assert item is not None  # i < topLevelItemCount()
            item.setSelected(item.text(0) in names)
        self.tree.blockSignals(False)

    def _selection_changed(self) -> None:
        names = [item.text(0) for item in self.tree.selectedItems()]
        self.show_runs(names)
        if len(names) == 2:  # two runs selected: the Compare view's natural pair
            self.compare.pick(*names)

    def _update_buttons(self) -> None:
        self.export_data_button.setEnabled(bool(self.shown))
        self.export_charts_button.setEnabled(bool(self.shown))

    # ---- exporting ----------------------------------------------------------------------
    def export_data(self, path: str | Path) -> Path:
        """The shown run(s) as .csv, .json or .md (Markdown table), by extension."""
        target = Path(path)
        series = [r.series() for r in self.shown]
        suffix = target.suffix.lower()
        if suffix == ".csv":
            text = runs_csv(series)
        elif suffix == ".json":
            text = runs_json(series)
        elif suffix in (".md", ".markdown"):
            text = runs_markdown(series, self.table.headers())
        else:
            raise ValueError(
                self.tr("Choose a .csv, .json or .md file name (got {0}).").format(target.name)
            )
        return write_text_atomic(target, text)

    def export_charts(self, path: str | Path) -> list[Path]:
        """Each chart as NAME_throughput/_tpot/_ttft with the given .png or .svg extension,
        titled with the run(s), model, GPU and date."""
        return export_curves([r.series() for r in self.shown], path, runs_caption(self.shown))

    def export_dialog(self) -> None:
        """Export data… (File > Export too): the shown runs as CSV, JSON or Markdown."""
        self._export_via_dialog(
            self.tr("Export data"), "comparison.csv", data_filters(), self.export_data
        )

    def export_charts_dialog(self) -> None:
        self._export_via_dialog(
            self.tr("Export charts"),
            "charts.png",
            chart_filters(),
            self.export_charts,
            writes=lambda target: curve_paths(target, list(SweepCurves.CHART_KEYS)),
        )

    def _export_via_dialog(
        self,
        title: str,
        default_name: str,
        filters: list[str],
        export: Callable[[Path], Path | list[Path]],
        writes: Callable[[Path], list[Path]] | None = None,
    ) -> None:
        """Ask for a file in the last export's folder (the chosen filter's extension added to a
        bare name), export, and say which files were written. `writes` names the files an
        export to a name really writes, when they are not that name (the charts' three): the
        dialog's own overwrite question would be about a file that is never written, so those
        files are asked about instead."""
        start = str(last_folder(settings()) / default_name)
        options = QFileDialog.Option.DontConfirmOverwrite if writes else QFileDialog.Option(0)
        path, chosen = QFileDialog.getSaveFileName(
            self, title, start, ";;".join(filters), "", options
        )
        if not path:
            return
        target = with_filter_suffix(path, chosen, filters)
        if writes is not None:
            existing = [p for p in writes(target) if p.exists()]
            if existing and not self._confirm_replace(existing):
                return
        remember_folder(settings(), target)
        self._try(lambda: export(target), target)

    def _confirm_replace(self, existing: list[Path]) -> bool:
        names = "\n".join(p.name for p in existing)
        answer = QMessageBox.question(
            self,
            self.tr("Replace files?"),
            self.tr("These files already exist in {0}:\n{1}\nReplace them?").format(
                existing[0].parent, names
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _try(self, action: Callable[[], Path | list[Path]], path: Path) -> None:
        """Run an export and say which files it wrote (or why it could not)."""
        try:
            done = action()
            written = done if isinstance(done, list) else [done]
        except (OSError, ValueError) as exc:
            problem = str(exc)
            self.note.set(
                lambda: self.tr("Could not export to {0}: {1}").format(path, problem),
                error=True,
            )
        else:
            folder = written[0].parent if written else path.parent
            names = ", ".join(p.name for p in written)
            self.note.set(lambda: self.tr("Exported to {0}: {1}.").format(folder, names))
