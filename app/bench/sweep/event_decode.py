"""The one decode of the event stream: a JSON line back to its typed event (app.bench.sweep.
contract), strictly: an unknown type, a missing or unknown field or a value of the wrong kind is
an EventError naming it (`request.ok: must be true or false, got 1`), never anything else.

What each event holds is read from its class through the schema codec; this module adds only
what is not a field: the JSON text itself and the rules between fields."""

from __future__ import annotations

import json
from typing import Any

from app.bench.schema.codec import SchemaError, from_json_obj
from app.bench.sweep.contract import EVENT_CLASSES, Event, EventError, Tokens

# The decode's registry: which class reads a line of each "type" (from the one union).
EVENT_BY_KIND: dict[str, type[Event]] = {cls.kind: cls for cls in EVENT_CLASSES}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def decode(line: str | bytes) -> Event:
    """One line of the stream -> its event; EventError says what is wrong with it."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise EventError(f"not JSON: {exc.msg}: {text[:80]!r}") from None
    except (ValueError, RecursionError) as exc:  # NaN, a 5000-digit number, deep nesting
        raise EventError(f"not JSON: {str(exc)[:80]}: {text[:80]!r}") from None
    kind = obj.pop("type", None) if isinstance(obj, dict) else None
    cls = EVENT_BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"not an event (no known 'type'): {text[:80]!r}")
    try:
        event = from_json_obj(cls, obj, where=cls.kind)
    except SchemaError as exc:
        raise EventError(str(exc)) from None
    if isinstance(event, Tokens) and len(event.t_s) != len(event.itl_ms):
        raise EventError(f"tokens: t_s has {len(event.t_s)} values but itl_ms {len(event.itl_ms)}")
    return event
