"""A sweep's load grid as people type it: request rates ("1, 2, 4, inf") and concurrencies
("1,4,8"), for the command line and the window alike. Items may be separated by commas,
semicolons or spaces. A bad item raises GridError, which says what is wrong in English and
carries a `kind` so the window can say it in the user's language."""

from __future__ import annotations

import math
import re
from typing import Literal

GridProblem = Literal[
    "rate_not_number", "rate_not_positive", "no_rate", "conc_not_whole", "conc_range", "no_conc"
]

_SEPARATORS = re.compile(r"[,;\s]+")
_LIST_SEPARATOR = re.compile(r"[,;]")
_INFINITE = ("inf", "infinity", "∞")


class GridError(ValueError):
    def __init__(self, kind: GridProblem, item: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind
        self.item = item


def empty_item(text: str) -> bool:
    """Whether a typed list has an empty item between separators ('1,,2', '1,2,', ',1')."""
    items = _LIST_SEPARATOR.split(text.strip())
    return len(items) > 1 and any(not item.strip() for item in items)


def split_items(text: str) -> list[str]:
    """'1, 2;4  inf' -> ['1', '2', '4', 'inf']: the items of a typed list, empty ones dropped."""
    return [item for item in _SEPARATORS.split(text.strip()) if item]


def parse_rates(text: str) -> list[float]:
    """Request rates in requests/s, greater than 0; inf (or infinity, ∞) sends all at once."""
    rates: list[float] = []
    for item in split_items(text):
        if item.lower() in _INFINITE:
            rates.append(math.inf)
            continue
        try:
            value = float(item)
        except ValueError:
            raise GridError("rate_not_number", item, f"{item!r} is not a number or 'inf'") from None
        if not value > 0 or math.isnan(value):
            raise GridError("rate_not_positive", item, f"{item} must be greater than 0")
        rates.append(value)
    if not rates:
        raise GridError("no_rate", "", "give at least one request rate, e.g. inf")
    return rates


def parse_concurrencies(text: str, most: int) -> list[int]:
    """Most requests in flight, whole numbers from 1 to `most`."""
    values: list[int] = []
    for item in split_items(text):
        try:
            value = int(item)
        except ValueError:
            raise GridError("conc_not_whole", item, f"{item!r} is not a whole number") from None
        if not 1 <= value <= most:
            raise GridError("conc_range", item, f"{item} must be from 1 to {most:,}")
        values.append(value)
    if not values:
        raise GridError("no_conc", "", "give at least one concurrency, e.g. 32")
    return values
