"""The sweep form's typed values: request rates and concurrencies read by the engine's rules with
the reason in the window's language, and a duration as the status line shows it."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.bench.load import grid
from app.commands.flags import MAX_BATCH
from app.ui.translate_noop import QT_TRANSLATE_NOOP

# The strings the module-level helpers pass to _tr(), spelled out for lupdate.
_TR_STRINGS = (
    QT_TRANSLATE_NOOP("SweepForm", "'{0}' is not a request rate: use numbers or inf."),
    QT_TRANSLATE_NOOP("SweepForm", "Request rate {0} must be above 0 (use inf for no limit)."),
    QT_TRANSLATE_NOOP("SweepForm", "Enter at least one request rate, for example: inf"),
    QT_TRANSLATE_NOOP("SweepForm", "'{0}' is not a concurrency: use whole numbers of 1 or more."),
    QT_TRANSLATE_NOOP("SweepForm", "Enter at least one concurrency, for example: 32"),
    QT_TRANSLATE_NOOP("SweepForm", "{0} h {1} min"),
    QT_TRANSLATE_NOOP("SweepForm", "{0} min {1} s"),
    QT_TRANSLATE_NOOP("SweepForm", "{0} s"),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("SweepForm", text)


def parse_rates(text: str) -> list[float]:
    """'1, 2, 4, inf' -> [1.0, 2.0, 4.0, inf] (the engine's rules); ValueError says which item
    is wrong, in the UI language."""
    try:
        return grid.parse_rates(text)
    except grid.GridError as exc:
        if exc.kind == "rate_not_number":
            message = _tr("'{0}' is not a request rate: use numbers or inf.")
        elif exc.kind == "rate_not_positive":
            message = _tr("Request rate {0} must be above 0 (use inf for no limit).")
        else:
            message = _tr("Enter at least one request rate, for example: inf")
        raise ValueError(message.format(exc.item)) from None


def parse_concurrencies(text: str) -> list[int]:
    """'1, 4, 8' -> [1, 4, 8] (the engine's rules); ValueError says which item is wrong."""
    try:
        return grid.parse_concurrencies(text, MAX_BATCH)
    except grid.GridError as exc:
        if exc.kind in ("conc_not_whole", "conc_range"):
            message = _tr("'{0}' is not a concurrency: use whole numbers of 1 or more.")
        else:
            message = _tr("Enter at least one concurrency, for example: 32")
        raise ValueError(message.format(exc.item)) from None


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds >= 3600:
        return _tr("{0} h {1} min").format(seconds // 3600, seconds % 3600 // 60)
    if seconds >= 60:
        return _tr("{0} min {1} s").format(seconds // 60, seconds % 60)
    return _tr("{0} s").format(seconds)
