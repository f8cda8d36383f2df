"""Argparse types shared by every command: a bad value is one line naming the flag, exit code 2.

Each type rejects what cannot mean anything (NaN, infinities, negatives where a count or a
duration is asked for) and sizes far beyond any real deployment, which would otherwise overflow a
float conversion, allocate gigabytes or wait for ever before failing somewhere deep inside.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

# Generous ceilings: an order of magnitude or more beyond the largest real value.
MAX_TOKENS = 100_000_000  # context, prompt and reply lengths (the longest contexts are ~10M)
MAX_BATCH = 1_000_000  # running sequences, concurrency
MAX_PROMPTS = 1_000_000  # requests per point: a point's prompts are all held in memory
MAX_SECONDS = 86_400.0  # timeouts and waits: a day
MAX_SEED = 2**32 - 1  # numpy's legacy generator (vLLM's arrival times) takes 32-bit seeds
MAX_JSON_DEPTH = 64


def _short(value: int) -> str:
    text = f"{value:,}" if abs(value) < 10**30 else f"{value:.3g}"
    return text


def _shown(text: str) -> str:
    """The flag's text as given, cut to 40 characters for the error line."""
    return text if len(text) <= 40 else text[:37] + "..."


def whole(lo: int = 0, hi: int = MAX_TOKENS) -> Callable[[str], int]:
    """A whole number in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number, got {_shown(text)!r}"
            ) from None
        if value < lo:
            floor = "must not be negative" if lo == 0 else f"must be at least {lo:,}"
            raise argparse.ArgumentTypeError(f"{floor}, got {_short(value)}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:,}, got {_short(value)}")
        return value

    parse.__name__ = "whole number"
    return parse


def number(
    lo: float = 0.0, hi: float = 1e6, *, above: bool = False, infinite_ok: bool = False
) -> Callable[[str], float]:
    """A finite number in [lo, hi] ((lo, hi] with `above`); `infinite_ok` also takes inf."""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {_shown(text)!r}") from None
        if math.isnan(value):
            raise argparse.ArgumentTypeError("expected a number, got NaN")
        if math.isinf(value) and not (infinite_ok and value > 0):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text.strip()}")
        if value < lo or (above and value == lo):
            bound = f"greater than {lo:g}" if above else f"at least {lo:g}"
            if lo == 0 and not above:
                bound = "not negative"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value:g}")
        if value > hi and not (infinite_ok and math.isinf(value)):
            raise argparse.ArgumentTypeError(f"must be at most {hi:g}, got {value:g}")
        return value

    parse.__name__ = "number"
    return parse


def seconds(text: str) -> float:
    """A duration: greater than 0, at most a day."""
    return number(0.0, MAX_SECONDS, above=True)(text)


def port(text: str) -> int:
    return whole(1, 65535)(text)


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of parsed JSON, stopping once past `limit`."""
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            break
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON; use a number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def json_object(text: str) -> dict[str, Any]:
    """A JSON object such as '{"top_p": 0.9}': no NaN or Infinity, no absurd nesting."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise argparse.ArgumentTypeError("the JSON is nested too deeply") from None
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        kind = {list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
            type(value), "a number"
        )
        raise argparse.ArgumentTypeError(
            f"expected a JSON object such as '{{\"top_p\": 0.9}}', got {kind}"
        )
    if _depth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise argparse.ArgumentTypeError(f"the JSON is nested more than {MAX_JSON_DEPTH} deep")
    return value
