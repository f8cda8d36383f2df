"""Result file names and how a request rate is written in them."""

from __future__ import annotations

import math
from typing import Any


def rate_to_file(rate: float) -> float | str:
    """Request rate as vLLM writes it: a number, or the string "inf" (rate_from_file reads it)."""
    return "inf" if math.isinf(rate) else rate


def rate_from_file(value: Any) -> float:
    """A request rate as a result file or event holds it, as a float; 'inf', None, Infinity
    and <= 0 mean 'as fast as possible' (the inverse of rate_to_file)."""
    if value is None:
        return math.inf
    if isinstance(value, str):
        text = value.strip().lower()
        return math.inf if text in ("inf", "infinity", "") else float(text)
    number = float(value)
    return math.inf if number <= 0 else number


def rate_label(rate: float) -> str:
    """4.0 -> '4', 0.5 -> '0.5', inf -> 'inf' (the field guide's file names)."""
    if math.isinf(rate):
        return "inf"
    return str(int(rate)) if rate == int(rate) else repr(rate)


def point_filename(label: str, rate: float, max_concurrency: int | None) -> str:
    """`{label}_rate{rate}_conc{conc}.json`, e.g. expA_rate4_conc32.json."""
    conc = "none" if max_concurrency is None else str(max_concurrency)
    return f"{label}_rate{rate_label(rate)}_conc{conc}.json"
