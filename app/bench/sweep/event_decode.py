"""The one decode of the event stream: a JSON line back to its typed event (app.bench.sweep.
contract), strictly: an unknown type, a missing or unknown field or a value of the wrong kind is
an EventError naming it, never anything else."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from app.bench.sweep.contract import (
    EndpointInfo,
    Event,
    EventError,
    PointFinished,
    PointStarted,
    Progress,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    SearchFinished,
    SearchValue,
    ServerMetrics,
    Tokens,
)
from app.bench.sweep.plan import PointSpec

T = TypeVar("T")


class _Fields:
    """Typed reads of one event's JSON object; every problem is an EventError naming it."""

    def __init__(self, kind: str, obj: dict[str, Any], allowed: Sequence[str]) -> None:
        self.kind = kind
        self.obj = obj
        unknown = [k for k in obj if k != "type" and k not in allowed]
        if unknown:
            raise EventError(f"{kind} event: unknown field {unknown[0]!r}")

    def _get(self, key: str, check: Callable[[Any], bool], what: str) -> Any:
        if key not in self.obj:
            raise EventError(f"{self.kind} event: field {key!r} is missing")
        value = self.obj[key]
        if not check(value):
            shown = repr(value)[:60]
            raise EventError(f"{self.kind} event: {key!r} must be {what}, got {shown}")
        return value

    def whole(self, key: str) -> int:
        value: int = self._get(key, _is_int, "a whole number")
        return value

    def opt_whole(self, key: str) -> int | None:
        value: int | None = self._get(key, _opt(_is_int), "a whole number or null")
        return value

    def num(self, key: str) -> float:
        value: float = self._get(key, _is_num, "a number")
        return value

    def opt_num(self, key: str) -> float | None:
        value: float | None = self._get(key, _opt(_is_num), "a number or null")
        return value

    def rate(self, key: str) -> float:
        value: float | str = self._get(key, _is_rate, 'a number or "inf"')
        return math.inf if isinstance(value, str) else value

    def flag(self, key: str) -> bool:
        value: bool = self._get(key, lambda v: isinstance(v, bool), "true or false")
        return value

    def text(self, key: str) -> str:
        value: str = self._get(key, lambda v: isinstance(v, str), "a string")
        return value

    def opt_text(self, key: str) -> str | None:
        value: str | None = self._get(key, _opt(lambda v: isinstance(v, str)), "a string or null")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        value: dict[str, Any] = self._get(key, lambda v: isinstance(v, dict), "an object")
        return value

    def nums(self, key: str) -> list[float]:
        value: list[float] = self._get(key, _is_num_list, "a list of numbers")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        value: list[str] = self._get(key, _is_text_list, "a list of strings")
        return tuple(value)

    def items(self, key: str, read: Callable[[_Fields], T], allowed: Sequence[str]) -> list[T]:
        value: list[dict[str, Any]] = self._get(key, _is_object_list, "a list of objects")
        return [read(_Fields(f"{self.kind}.{key}", x, allowed)) for x in value]

    def one(self, key: str, read: Callable[[_Fields], T], allowed: Sequence[str]) -> T:
        return read(_Fields(f"{self.kind}.{key}", self.mapping(key), allowed))


_NUMBER_TYPES = (int, float)  # exact types: JSON true/false are bools, never numbers here


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_num(value: Any) -> bool:
    return type(value) in _NUMBER_TYPES


def _is_rate(value: Any) -> bool:
    return value == "inf" or _is_num(value)


def _is_num_list(value: Any) -> bool:
    return isinstance(value, list) and all(type(x) in _NUMBER_TYPES for x in value)


def _is_text_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _is_object_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, dict) for x in value)


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _point_spec(f: _Fields) -> PointSpec:
    return PointSpec(f.whole("index"), f.rate("request_rate"), f.opt_whole("max_concurrency"))


def _endpoint(f: _Fields) -> EndpointInfo:
    return EndpointInfo(f.text("url"), f.text("model"), f.text("api"))


def _run_started(f: _Fields) -> RunStarted:
    return RunStarted(
        schema=f.whole("schema"),
        app_version=f.text("app_version"),
        points=tuple(f.items("points", _point_spec, ("index", "request_rate", "max_concurrency"))),
        num_prompts=f.whole("num_prompts"),
        endpoint=f.one("endpoint", _endpoint, ("url", "model", "api")),
    )


def _tokens(f: _Fields) -> Tokens:
    t_s, itl_ms = f.nums("t_s"), f.nums("itl_ms")
    if len(t_s) != len(itl_ms):
        raise EventError(f"tokens event: t_s has {len(t_s)} values but itl_ms {len(itl_ms)}")
    first = f.opt_num("first_token_s") if "first_token_s" in f.obj else None
    text = f.text("text") if "text" in f.obj else None
    return Tokens(f.whole("point"), t_s, itl_ms, first_token_s=first, text=text)


_READERS: dict[str, tuple[Callable[[_Fields], Event], tuple[str, ...]]] = {
    "run_started": (
        _run_started,
        ("schema", "app_version", "points", "num_prompts", "endpoint"),
    ),
    "point_started": (
        lambda f: PointStarted(
            f.whole("point"), f.rate("request_rate"), f.opt_whole("max_concurrency")
        ),
        ("point", "request_rate", "max_concurrency"),
    ),
    "tokens": (_tokens, ("point", "t_s", "itl_ms", "first_token_s", "text")),
    "progress": (
        lambda f: Progress(
            f.whole("point"),
            f.whole("completed"),
            f.whole("failed"),
            f.whole("total"),
            f.whole("in_flight"),
            f.num("elapsed_s"),
            f.num("output_tok_s"),
        ),
        ("point", "completed", "failed", "total", "in_flight", "elapsed_s", "output_tok_s"),
    ),
    "request": (
        lambda f: RequestDone(
            f.whole("point"),
            f.flag("ok"),
            f.opt_num("ttft_ms"),
            f.opt_num("tpot_ms"),
            f.opt_num("e2el_ms"),
            f.whole("output_tokens"),
            f.opt_text("error_kind"),
            f.opt_whole("prompt_tokens"),
        ),
        (
            "point",
            "ok",
            "ttft_ms",
            "tpot_ms",
            "e2el_ms",
            "output_tokens",
            "error_kind",
            "prompt_tokens",
        ),
    ),
    "point_finished": (
        lambda f: PointFinished(f.whole("point"), f.opt_text("path"), f.mapping("summary")),
        ("point", "path", "summary"),
    ),
    "server_metrics": (
        lambda f: ServerMetrics(
            f.num("t_s"),
            f.opt_num("kv_cache_usage"),
            f.opt_num("running"),
            f.opt_num("waiting"),
            f.opt_num("preemptions"),
        ),
        ("t_s", "kv_cache_usage", "running", "waiting", "preemptions"),
    ),
    "run_finished": (
        lambda f: RunFinished(f.flag("cancelled"), f.texts("paths"), f.opt_text("csv")),
        ("cancelled", "paths", "csv"),
    ),
    "error": (lambda f: RunError(f.text("message")), ("message",)),
    "search_value": (
        lambda f: SearchValue(
            f.mapping("value"), f.opt_num("highest_pass"), f.opt_num("lowest_fail")
        ),
        ("value", "highest_pass", "lowest_fail"),
    ),
    "search_finished": (
        lambda f: SearchFinished(f.text("path"), f.mapping("search")),
        ("path", "search"),
    ),
}


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
    kind = obj.get("type") if isinstance(obj, dict) else None
    if not isinstance(kind, str) or kind not in _READERS:
        raise EventError(f"not an event (no known 'type'): {text[:80]!r}")
    read, allowed = _READERS[kind]
    return read(_Fields(kind, obj, allowed))
