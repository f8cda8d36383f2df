"""What the Sweep tab's status line says about a run, from its run model, in the UI language.

Each function returns a text source (a function called again on a language change); the
strings keep the "SweepPanel" translation context the panel has always used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from app.ui.panels.sweep.form_values import format_duration
from app.ui.panels.sweep.point_notes import no_success_message, stamping_message
from app.ui.panels.sweep.run_model import Eta, SweepRun
from app.ui.panels.sweep.run_model import point_label as summary_label

Text = Callable[[], str]


def point_label(label: str) -> str:
    """A point's short label ("r=4 c=8") in the UI language."""
    rate = QCoreApplication.translate("SweepPanel", "r=", "a point's request rate, as in r=4")
    conc = QCoreApplication.translate("SweepPanel", "c=", "a point's concurrency, as in c=8")
    return " ".join(
        rate + part[2:]
        if part.startswith("r=")
        else conc + part[2:]
        if part.startswith("c=")
        else part
        for part in label.split(" ")
    )


def draining(in_flight: int) -> Text:
    """While a cancel drains: how many requests are still out, never a time left."""
    if in_flight:
        return lambda: QCoreApplication.translate(
            "SweepPanel",
            "Cancelling: no new requests; waiting for {0} in-flight request(s) to finish…",
        ).format(in_flight)
    return lambda: QCoreApplication.translate(
        "SweepPanel", "Cancelling: waiting for in-flight requests…"
    )


def cancelled(run: SweepRun, where: str) -> Text:
    full = len(run.complete_points())
    partial = run.partial_points()

    def text() -> str:
        line = QCoreApplication.translate(
            "SweepPanel", "Cancelled: {0} complete point(s) kept in {1}."
        ).format(full, where)
        for p in partial:
            line += " " + QCoreApplication.translate(
                "SweepPanel", "One partial point ({0} of {1} requests finished) saved as {2}."
            ).format(
                p.completed,
                p.completeness.planned or "?",
                Path(p.path).name,
            )
        return line

    return text


def search_done(run: SweepRun, where: str) -> Text:
    points = list(run.points)

    def text() -> str:
        line = QCoreApplication.translate(
            "SweepPanel", "Search done: {0} point(s) saved in {1}."
        ).format(len(points), where)
        return f"{line} {stamping_message(points)}".strip()

    return text


def done(run: SweepRun, where: str) -> tuple[Text, bool]:
    """The line for a finished grid and whether it is an error (a point with no success)."""
    points = list(run.points)

    def text() -> str:
        line = QCoreApplication.translate("SweepPanel", "Done: {0} point(s) saved in {1}.")
        # no_success_message is "" when every point had a success.
        notes = f"{no_success_message(points)} {stamping_message(points)}".strip()
        return f"{line.format(len(points), where)} {notes}".strip()

    return text, any(not p.completed for p in points)


def progress(eta: Eta) -> Text:
    """Where a running sweep is and the time left; a search says only its point."""
    if not eta.points:  # a search: how many loads it still needs is known only at the end

        def searching() -> str:
            line = QCoreApplication.translate(
                "SweepPanel", "Search point {0} · requests {1}/{2}"
            ).format(eta.point + 1, eta.done, eta.total or "?")
            if eta.load_s is not None:
                low, high = (format_duration(s) for s in eta.load_s)
                line += " · " + QCoreApplication.translate(
                    "SweepPanel", "a load takes {0}", "how long one search point took"
                ).format(low if low == high else f"{low}–{high}")
            if eta.loads_left:
                line += " · " + QCoreApplication.translate("SweepPanel", "at most {0} more").format(
                    eta.loads_left
                )
            return line

        return searching

    def text() -> str:
        line = QCoreApplication.translate(
            "SweepPanel", "Point {0} of {1} · requests {2}/{3}"
        ).format(eta.point + 1, eta.points, eta.done, eta.total or "?")
        if eta.failed:
            line += " " + QCoreApplication.translate("SweepPanel", "({0} failed)").format(
                eta.failed
            )
        if math.isfinite(eta.left_lo_s) and math.isfinite(eta.left_hi_s):
            low, high = format_duration(eta.left_lo_s), format_duration(eta.left_hi_s)
            if low == high:
                line += " · " + QCoreApplication.translate("SweepPanel", "about {0} left").format(
                    low
                )
            else:
                line += " · " + QCoreApplication.translate(
                    "SweepPanel", "{0} to {1} left", "the time a sweep still needs"
                ).format(low, high)
        elif eta.point == 0:
            line += " · " + QCoreApplication.translate(
                "SweepPanel", "time left known after the first point"
            )
        return line

    return text


def with_load_note(source: Text, run: SweepRun) -> Text:
    """`source`'s line, then how many finished points did not run the load they name (said
    during the run, as each one finishes, and at the end; the table's Status says which)."""

    def text() -> str:
        line = source()
        warned = run.warned_points()
        if not warned:
            return line
        names = ", ".join(point_label(summary_label(p)) for p in warned)
        note = QCoreApplication.translate(
            "SweepPanel", "⚠ Load not as planned at {0} point(s): {1} (see Status)."
        ).format(len(warned), names)
        return f"{line} {note}"

    return text
