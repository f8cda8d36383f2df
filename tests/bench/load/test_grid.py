"""Request-rate and concurrency lists: one parser for the command line and the window."""

from __future__ import annotations

import math

import pytest

from app.bench.load.grid import GridError, parse_concurrencies, parse_rates, split_items


def test_items_split_on_commas_semicolons_and_spaces() -> None:
    assert split_items(" 1, 2;4  inf,, ") == ["1", "2", "4", "inf"]
    assert parse_rates("1, 2;4 inf ∞ Infinity") == [1.0, 2.0, 4.0, *[math.inf] * 3]
    assert parse_concurrencies("1,4; 8", 100) == [1, 4, 8]


@pytest.mark.parametrize(
    ("text", "kind", "item"),
    [
        ("1, fast", "rate_not_number", "fast"),
        ("0", "rate_not_positive", "0"),
        ("nan", "rate_not_positive", "nan"),
        ("-inf", "rate_not_positive", "-inf"),
        (" , ", "no_rate", ""),
    ],
)
def test_bad_rates_say_which_item(text: str, kind: str, item: str) -> None:
    with pytest.raises(GridError) as caught:
        parse_rates(text)
    assert (caught.value.kind, caught.value.item) == (kind, item)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("2.5", "conc_not_whole"), ("0", "conc_range"), ("101", "conc_range"), (";", "no_conc")],
)
def test_bad_concurrencies_say_which_item(text: str, kind: str) -> None:
    with pytest.raises(GridError) as caught:
        parse_concurrencies(text, 100)
    assert caught.value.kind == kind
