"""What every command prints on the terminal: aligned tables, vLLM-style result rows and rules,
notes and one-line errors. One place, so the commands' output reads the same everywhere."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

WIDTH = 50  # vllm bench serve's result block is 50 characters wide
LABEL_WIDTH = 40


def rule(title: str = "", char: str = "-", width: int = WIDTH) -> str:
    """A title centred in a line of `char`, as vLLM heads its result block's sections."""
    return "{s:{c}^{n}}".format(s=title, n=width, c=char)


def labelled(label: str, value: Any, fmt: str = "{:<10}") -> str:
    """'Label:      value' as in vLLM's result block; a value the file holds as null (nothing
    succeeded) is a dash, never a 0."""
    shown = "{:<10}".format("–") if value is None else fmt.format(value)
    return f"{label:<{LABEL_WIDTH}} " + shown


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, first_left: bool = False
) -> list[str]:
    """Columns two spaces apart, right-aligned (the first left-aligned with `first_left`)."""
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if first_left and i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [line(headers), *(line(r) for r in rows)]


def error(command: str, message: str, code: int = 2, *, events: Any = None) -> int:
    """`tpotbench COMMAND: error: ...` on stderr (and as an event when the window listens);
    returns `code` so a command can `return error(...)`."""
    if events is not None:
        from app.bench.sweep.contract import RunError

        events.error(RunError(message))
    print(f"tpotbench {command}: error: {message}", file=sys.stderr)
    return code


def note(text: str, out: TextIO | None = None) -> None:
    print(f"note: {text}", file=out or sys.stderr)
