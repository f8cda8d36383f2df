"""What the window says about a point that is not a full measurement of its load: cut short
(the engine's completeness) or run at another load than planned (its load warnings), in the
UI language. The tables, the status line, the curves' tooltips and the exports read it here."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QTableWidgetItem

from app.bench.results.completeness import CANCELLED, EARLY_STOPPED, Completeness
from app.bench.results.load_warnings import LoadWarning
from app.bench.results.point_row import PointRow

WARN_FG = "#b3261e"  # the Status cell of a point that is not a full measurement of its load


def completeness(point: PointRow) -> Completeness:
    """A point's completeness (the engine's verdict, app.bench.results.completeness)."""
    return point.completeness


def load_warnings(point: PointRow) -> tuple[LoadWarning, ...]:
    return point.load_warnings


def is_fragment(point: PointRow) -> bool:
    """Cut short: shown, never as a measurement (off the curves and the knees)."""
    return not completeness(point).complete


def off_the_curve(point: PointRow) -> bool:
    """Not a measurement of the load it names (a fragment, or a load that did not happen):
    drawn apart from the curves, left out of the knees and the roofline panel."""
    return not point.on_the_curve


def completeness_text(done: Completeness) -> str:
    """ "early-stopped after 3 of 48" in the UI language ("" for a complete point)."""
    planned = "?" if done.planned is None else str(done.planned)
    if done.state == EARLY_STOPPED:
        return QCoreApplication.translate("PointStatus", "early-stopped after {0} of {1}").format(
            done.ran, planned
        )
    if done.state == CANCELLED:
        return QCoreApplication.translate("PointStatus", "cancelled after {0} of {1}").format(
            done.ran, planned
        )
    if not done.complete:
        return QCoreApplication.translate("PointStatus", "partial: {0} of {1} ran").format(
            done.ran, planned
        )
    return ""


def _templates() -> dict[str, str]:
    # The engine's sentences (app.bench.results.load_warnings.TEMPLATES), translatable.
    return {
        "concurrency_prompts": QCoreApplication.translate(
            "PointStatus",
            "Concurrency {target} was never reached: only {prompts} prompts for {target} "
            "streams, so at most {peak} requests were in flight; these are figures for a lower "
            "concurrency.",
        ),
        "concurrency_peak": QCoreApplication.translate(
            "PointStatus",
            "Concurrency {target} was never reached: at most {peak} requests were in flight "
            "(limit {limit}); these are figures for a lower concurrency.",
        ),
        "arrivals_cap": QCoreApplication.translate(
            "PointStatus",
            "Arrivals fell behind their schedule: {late} of {count} sends were late, p99 "
            "{p99_s:.2f} s (limit {limit_s:.2f} s), held by the concurrency cap of {cap} (all "
            "slots busy); the server did not see the planned arrivals.",
        ),
        "arrivals_client": QCoreApplication.translate(
            "PointStatus",
            "Arrivals fell behind their schedule: {late} of {count} sends were late, p99 "
            "{p99_s:.2f} s (limit {limit_s:.2f} s); the client sent late, so the server did not "
            "see the planned arrivals.",
        ),
        "client_cpu": QCoreApplication.translate(
            "PointStatus",
            "The client was saturated: it used {cpu:.0%} of a CPU core (limit {limit:.0%}); its "
            "send times and timestamps are at risk.",
        ),
        "client_lag": QCoreApplication.translate(
            "PointStatus",
            "The client was saturated: its event loop ran {lag:.0f} ms late (median, limit "
            "{limit:.0f} ms); its send times and timestamps are at risk.",
        ),
    }


def warning_text(warning: LoadWarning) -> str:
    template = _templates().get(warning.template)
    if template is None:
        return warning.text
    try:
        return template.format(**warning.params)
    except (KeyError, ValueError, IndexError):  # a translation that lost a placeholder
        return warning.text


def warning_word(warning: LoadWarning) -> str:
    """A few words for a table cell."""
    if warning.kind == "concurrency_not_reached":
        return QCoreApplication.translate("PointStatus", "⚠ concurrency {0} of {1}").format(
            int(warning.value), warning.params.get("target", int(warning.limit))
        )
    if warning.kind == "arrivals_late":
        return QCoreApplication.translate("PointStatus", "⚠ sends late (p99 {0:.2f} s)").format(
            warning.value / 1000.0
        )
    return QCoreApplication.translate("PointStatus", "⚠ client saturated")


def status_cell(point: PointRow) -> str:
    """The Status column: what is wrong with the point in a few words; "" when nothing."""
    words = [completeness_text(completeness(point))]
    words += [warning_word(w) for w in load_warnings(point)]
    return " · ".join(w for w in words if w)


def status_tooltip(point: PointRow) -> str:
    """Every sentence behind the Status cell."""
    done = completeness(point)
    lines = []
    if not done.complete:
        lines.append(
            QCoreApplication.translate(
                "PointStatus",
                "Not a full measurement: {0}. Its figures cover only the requests that "
                "finished; it is drawn apart from the curves and left out of the knees.",
            ).format(completeness_text(done))
        )
    lines += [warning_text(w) for w in load_warnings(point)]
    return "\n".join(lines)


def mark_cell(item: QTableWidgetItem, key: str, fragment: bool, tip: str) -> None:
    """A table cell of such a point: italics for a fragment, the sentences on hover, the
    Status cell in red when it says something."""
    if fragment:
        font = QFont(item.font())
        font.setItalic(True)
        item.setFont(font)
    if tip:
        item.setToolTip(tip)
        if key == "status":
            item.setForeground(QColor(WARN_FG))
