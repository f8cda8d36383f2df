"""The Model field's /v1/models lookup: bounded, one readable sentence on failure."""

from __future__ import annotations

import asyncio

import pytest

from app.ui.panels.endpoints.models import list_models
from tests.hostile_server import HostileServer


def test_list_models_is_bounded_in_size_and_time() -> None:
    with HostileServer(drip_interval_s=0.05) as server:
        with pytest.raises(ValueError, match=r"Could not reach .*: oversized"):
            asyncio.run(list_models(server.url("inflate-models"), "", {}, True))
        with pytest.raises(ValueError, match=r"Could not reach .*: timeout"):
            asyncio.run(list_models(server.url("drip-models"), "", {}, True, request_timeout_s=0.5))
        assert asyncio.run(list_models(server.url("ok"), "", {}, True)) == ["m"]
