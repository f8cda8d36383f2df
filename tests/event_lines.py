"""Reading a worker's `--events jsonl` output in tests: the file format as JSON objects."""

from __future__ import annotations

import json
from typing import Any

from app.bench.sweep.event_decode import decode


def wire_event(line: str) -> dict[str, Any]:
    """One stream line as its JSON object, once the window's strict decode has accepted it."""
    decode(line)
    event: dict[str, Any] = json.loads(line)
    return event
