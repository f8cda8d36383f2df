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


def test_the_window_and_the_command_line_agree() -> None:
    pytest.importorskip("PySide6")
    from app.commands.credentials import UsageError
    from app.commands.flags import MAX_BATCH
    from app.commands.sweep_config import _concurrencies, _rates
    from app.ui.worker import parse_concurrencies as form_concurrencies
    from app.ui.worker import parse_rates as form_rates

    assert _rates("1 2;inf") == form_rates("1 2;inf") == [1.0, 2.0, math.inf]
    assert _concurrencies("1,4") == form_concurrencies("1,4") == [1, 4]
    too_many = str(MAX_BATCH + 1)  # the form took any size before; now both refuse it
    with pytest.raises(UsageError, match="must be from 1 to"):
        _concurrencies(too_many)
    with pytest.raises(ValueError, match="is not a concurrency"):
        form_concurrencies(too_many)
