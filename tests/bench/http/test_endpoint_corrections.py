"""Structured correction ids on a resolved endpoint, and the doctor deciding by them."""

from __future__ import annotations

import dataclasses

import pytest

from app.bench.doctor.paths import path_check
from app.bench.http.endpoint import CORRECTIONS, resolve_endpoint


@pytest.mark.parametrize(
    ("base", "endpoint", "url", "corrections"),
    [
        ("http://h:8000/v1/v1", None, "http://h:8000/v1/chat/completions", ["doubled_v1"]),
        (
            "http://h:8000",
            "/v1/v1/completions",
            "http://h:8000/v1/completions",
            ["doubled_v1_in_endpoint"],
        ),
        (
            "http://h:8000/v1/chat/completions",
            "/v1/chat/completions",
            "http://h:8000/v1/chat/completions",
            ["path_on_base_url"],
        ),
        (
            "http://h:8000/v1",
            "/v1/chat/completions",
            "http://h:8000/v1/chat/completions",
            ["v1_in_base_and_endpoint"],
        ),
        (
            "https://gw.example/api",
            None,
            "https://gw.example/api/v1/chat/completions",
            ["api_v1_on_gateway_root"],
        ),
        # Nothing corrected: a plain root, an API base, and a path kept in front of --endpoint.
        ("http://h:8000", "/v1/chat/completions", "http://h:8000/v1/chat/completions", []),
        ("http://h:8000/v1", None, "http://h:8000/v1/chat/completions", []),
        ("http://h:8000/api", "/v1/completions", "http://h:8000/api/v1/completions", []),
    ],
)
def test_each_correction_has_its_id(
    base: str, endpoint: str | None, url: str, corrections: list[str]
) -> None:
    r = resolve_endpoint(base, endpoint)
    assert r.url == url
    assert r.corrections == corrections
    assert set(r.corrections) <= set(CORRECTIONS)
    assert len(r.notes) >= len(r.corrections)  # the human sentence is still there


def test_doctor_decides_by_id_not_by_the_wording_of_notes() -> None:
    repaired = resolve_endpoint("http://h:8000/v1", "/v1/chat/completions")
    check = path_check(repaired, 200, "http://h:8000/v1")
    assert check.status == "warn"
    assert "used once" in check.detail  # the note, for people
    assert check.fix.startswith("Write the base URL as http://h:8000 ")
    # Same notes without the id: not a repair, whatever the words say.
    reworded = dataclasses.replace(repaired, corrections=[])
    assert path_check(reworded, 200, "http://h:8000").status == "ok"
    # A guessed /v1 on a gateway root that answered is fine as it is.
    guessed = resolve_endpoint("https://gw.example/api")
    assert path_check(guessed, 200, "https://gw.example/api").status == "ok"
