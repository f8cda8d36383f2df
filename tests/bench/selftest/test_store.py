"""The ceiling saved per machine, read back for a sweep's warning and each point's record."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import point_blocks
from app.bench.selftest.decide import Ceiling, Limits
from app.bench.selftest.store import (
    SavedCeiling,
    ceiling_warning,
    load_ceiling,
    point_block,
    point_streams,
    save_ceiling,
)


def test_saved_per_mode_with_date_and_machine(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    save_ceiling(0, Ceiling(64, 90.0, "limit", Limits()), path)
    save_ceiling(2, Ceiling(128, 150.0, "time", Limits()), path)
    doc = json.loads(path.read_text())
    assert doc["machine"]["hostname"] == socket.gethostname() and doc["machine"]["cpu_count"]
    assert set(doc["results"]) == {"0", "2"} and doc["results"]["0"]["date"]
    one = load_ceiling(0, path)
    assert one is not None and (one.streams, one.at_least) == (64, False)
    two = load_ceiling(2, path)
    assert two is not None and (two.streams, two.at_least) == (128, True)
    assert load_ceiling(4, path) is None
    doc["machine"]["hostname"] = "another-box"
    path.write_text(json.dumps(doc))
    assert load_ceiling(0, path) is None  # a copied config folder says nothing about here


def test_warning_names_the_streams_and_the_ceiling() -> None:
    saved = SavedCeiling(0, 16, False, "2026-12-02T01:00:00+00:00")
    assert ceiling_warning([1, 8, 16], 200, 1, saved) is None
    text = ceiling_warning([1, 32, None], 200, 1, saved)
    assert text is not None
    # No concurrency cap: all 200 requests at once.
    assert text.startswith("this sweep runs up to 200 streams, past this machine's client")
    assert "ceiling of 16 streams in one process (tpotbench selftest, 2026-12-02)" in text
    assert point_streams(None, 200) == 200 and point_streams(64, 10) == 10
    block = point_block(saved, 32)
    assert block is not None and (block.streams, block.ceiling, block.ratio) == (32, 16, 2.0)
    # the file's block, as a point writes it and reads it back
    assert to_json_obj(block) == {
        "streams": 32,
        "ceiling": 16,
        "ceiling_at_least": False,
        "ratio": 2.0,
        "workers": 0,
        "measured": saved.date,
    }
    assert point_blocks({"client_ceiling": to_json_obj(block)}).client_ceiling == block
    assert point_block(None, 32) is None
