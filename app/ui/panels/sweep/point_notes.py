"""What the window says about a sweep's points where no request succeeded."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from app.bench.http.failures import fix_for, title_for
from app.bench.results.point_row import PointRow
from app.ui.panels.doctor.messages import translate_template


def no_success_message(points: Sequence[PointRow]) -> str:
    """One sentence for the points (a sweep's finished points) with no successful request,
    e.g. "No request succeeded in 1 of 2 point(s): 60 × HTTP 404 not found. The path or
    model is wrong: ..." ("" when every point had one)."""
    empty = [p for p in points if not p.completed]
    if not empty:
        return ""
    counts: dict[str, int] = {}
    for point in empty:
        for failure in point.blocks.failures:
            counts[failure.kind] = counts.get(failure.kind, 0) + failure.count
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    what = ", ".join(f"{n} × {translate_template(title_for(kind))}" for kind, n in ranked)
    fix = translate_template(fix_for(ranked[0][0])) if ranked else ""
    head = QCoreApplication.translate(
        "SweepPanel", "No request succeeded in {0} of {1} point(s); they have no latency figures."
    ).format(len(empty), len(points))
    if not what:
        return head
    return QCoreApplication.translate("SweepPanel", "{head} {what}. {fix}").format(
        head=head, what=what, fix=fix
    )


def _stamping_words(kind: str) -> str:
    if kind == "kernel":
        return QCoreApplication.translate("SweepPanel", "kernel receive stamps")
    if kind == "loop":
        return QCoreApplication.translate(
            "SweepPanel", "stamped by the event loop (no kernel stamps: late when busy)"
        )
    if kind == "tls-record":
        return QCoreApplication.translate("SweepPanel", "stamped per decrypted TLS record")
    return kind


def stamping_message(points: Sequence[PointRow]) -> str:
    """How the points' token times were stamped, e.g. "Token times: 640 × kernel receive
    stamps." ("" when no point says)."""
    counts: dict[str, int] = {}
    for point in points:
        for entry in point.blocks.stamping:
            counts[entry.kind] = counts.get(entry.kind, 0) + entry.requests
    if not counts:
        return ""
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    what = ", ".join(f"{n} × {_stamping_words(kind)}" for kind, n in ranked)
    return QCoreApplication.translate("SweepPanel", "Token times: {0}.").format(what)
