"""The Headers field's syntax: 'Name: value' or KEY=VALUE lines, refused with the line named."""

from __future__ import annotations

import pytest

from app.profiles import ProfileError
from app.ui.panels.endpoints.headers import headers_text, parse_headers


def test_parse_headers_names_the_bad_line() -> None:
    assert parse_headers("A: 1\n\nB:two") == {"A": "1", "B": "two"}
    try:
        parse_headers("A: 1\nnot a header")
    except ValueError as exc:
        assert "line 2" in str(exc)
    else:
        raise AssertionError("expected a ProfileError")


def test_header_lines_take_the_command_lines_key_value_form_too() -> None:
    assert parse_headers("A: 1\nB=2\nC=x:y") == {"A": "1", "B": "2", "C": "x:y"}


@pytest.mark.parametrize("line", ["X-Team: café", "X-Team: a\x00b", "X Team: perf", "Tëam: x"])
def test_header_lines_that_cannot_be_sent_are_refused(line) -> None:
    with pytest.raises(ProfileError, match="Header line 1: use letters, digits"):
        parse_headers(line)
    assert parse_headers("X-Team: perf") == {"X-Team": "perf"}


def test_a_header_dict_is_shown_as_lines_that_parse_back() -> None:
    headers = {"X-Team": "perf", "Authorization-Extra": "a=b"}
    assert headers_text(headers) == "X-Team: perf\nAuthorization-Extra: a=b"
    assert parse_headers(headers_text(headers)) == headers
