"""Reading JSON from files a user hands us: every way `json.loads` can fail, as one error.

The standard parser also raises RecursionError (deep nesting), a bare ValueError (an integer
of thousands of digits), and accepts NaN, Infinity and 1e400 (which becomes inf); none of
those belongs in a benchmark's input or result, and none may end in a traceback.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeAlias

# A JSON value as json.dumps takes it: what an export builds before writing it.
Json: TypeAlias = dict[str, "Json"] | list["Json"] | str | int | float | bool | None

MAX_INT_DIGITS = 30  # 10**30 is past any count, length or size a file here holds
_LONG_INT = re.compile(rf"-?\d{{{MAX_INT_DIGITS + 1},}}")


class JSONProblem(ValueError):
    """Why a text is not usable JSON, in words, with the line and column when known."""


def _no_constant(name: str) -> Any:
    raise JSONProblem(f"{name} is not a JSON number (finite numbers only)")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONProblem(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONProblem(f"{text[:40]} is too large for a number")
    return value


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def loads(text: str) -> Any:
    """Parse `text` as standard JSON with finite numbers and sane integers; JSONProblem if not."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise JSONProblem(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise JSONProblem("JSON nested too deeply") from None
    except JSONProblem as exc:
        match = _LONG_INT.search(text) if "digits" in str(exc) else None
        where = f" at {_where(text, match.start())}" if match else ""
        raise JSONProblem(f"{exc}{where}") from None
    except ValueError as exc:  # any other refusal by the parser
        raise JSONProblem(str(exc)[:200]) from None


def decoder() -> json.JSONDecoder:
    """A decoder with the same rules, for `raw_decode` of several documents in one text
    (its errors: JSONDecodeError, RecursionError, JSONProblem)."""
    return json.JSONDecoder(parse_constant=_no_constant, parse_int=_int, parse_float=_float)


def finite(value: Any) -> Any:
    """`value` with every NaN or infinite float replaced by None: standard JSON (which has no
    inf or NaN), readable by any parser, ours included."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def number(value: Any) -> float | None:
    """A JSON value read as a number: a finite int or float as a float; None for anything
    else (text, a bool, null, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None
