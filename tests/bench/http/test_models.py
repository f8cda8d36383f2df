"""The one /v1/models client (sweep's and probe's default model, the window's model list, the
doctor's model check) against real servers on 127.0.0.1: a good list, a 1 GiB inflating list
and a list dripped a byte at a time are all answered, the last two within their bounds."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from app.bench.http.models import ModelList, ModelsError, fetch_models, model_ids
from tests.hostile_server import HostileServer


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer(drip_interval_s=0.05) as server:
        yield server


def test_a_model_list_is_read(hostile: HostileServer) -> None:
    listing = asyncio.run(fetch_models(hostile.url("ok") + "/v1/models", api_key=None))
    assert listing.status == 200 and listing.ids == ["m"] and listing.first() == "m"


def test_an_inflating_list_is_refused_at_the_size_cap(hostile: HostileServer) -> None:
    url = hostile.url("inflate-models") + "/v1/models"
    with pytest.raises(ModelsError, match="larger than 8 MiB") as caught:
        asyncio.run(fetch_models(url, api_key="sk-never-shown"))
    assert caught.value.kind == "oversized"
    assert "sk-never-shown" not in str(caught.value) and len(str(caught.value)) < 400


def test_a_dripping_list_ends_at_the_deadline(hostile: HostileServer) -> None:
    url = hostile.url("drip-models") + "/v1/models"
    with pytest.raises(ModelsError, match=r"within --request-timeout 0\.5 s") as caught:
        asyncio.run(fetch_models(url, api_key=None, request_timeout_s=0.5))
    assert caught.value.kind == "timeout"


def test_what_counts_as_a_list_and_a_usable_first_id() -> None:
    assert model_ids({"data": [{"id": "a"}, {"x": 1}, "b", {"id": "c"}]}) == ["a", "c"]
    assert model_ids({"data": {}}) is None and model_ids([]) is None
    assert ModelList("u", 200, ["x" * 513]).first() is None  # not echoed anywhere
    assert ModelList("u", 200, ["a\nb"]).first() is None
    assert ModelList("u", 200, []).first() is None
