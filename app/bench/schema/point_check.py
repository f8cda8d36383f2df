"""The check of a point document the engine built, before its file and its event.

The engine builds `PointDoc` from typed parts, so mypy checks what goes where; what it cannot
see is a value of the wrong kind at run time (a helper's text where a number belongs). Such a
bug must not cost the measurement, and the event stream is read strictly (a line that does not
decode is refused whole): so the typed blocks are written and read back under the stream's
strict rules once, here, and a part that does not read is left out and named, the rest of the
point kept. vLLM's keys and the statistics are not checked: they are copied from
`PointMetrics`'s typed figures, with no helper between.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj
from app.bench.schema.point_blocks import PointBlocks
from app.bench.schema.point_doc import BLOCK_KEY, PointDoc

T = TypeVar("T")


def as_written(value: T) -> T:
    """A typed block as its file and event will hold it: rounded to its fields' digits, a
    key written only beside another (`present_with`) gone without it. The engine reads its
    own blocks this way (a why's evidence holds the figures the file shows)."""
    read: T = from_json_obj(type(value), to_json_obj(value))
    return read


def checked(doc: PointDoc) -> tuple[PointDoc, str | None]:
    """The document and None; or, should a typed part not read back as its declared type (a
    bug of the code that built it), the document without that part and a line saying which."""
    whole = None if doc.blocks is None else _reads_back(PointBlocks, doc.blocks, BLOCK_KEY)
    if doc.blocks is None or whole is None:
        return doc, None
    # Part by part: each bad one is reset to its absence, the first named.
    bad: dict[str, object] = {}
    problem = ""
    for f in dataclasses.fields(PointBlocks):
        found = _reads_back(_HINTS[f.name], getattr(doc.blocks, f.name), f"{BLOCK_KEY}.{f.name}")
        if found is not None:
            bad[f.name] = _absent(f)
            problem = problem or found
    blocks = dataclasses.replace(doc.blocks, **bad)  # type: ignore[arg-type]
    problem = problem or whole
    return dataclasses.replace(doc, blocks=blocks), f"left out of the point's file: {problem}"


_HINTS = typing.get_type_hints(PointBlocks)


def _reads_back(tp: Any, value: object, where: str) -> str | None:
    """None when `value` written reads back strictly as `tp`; else what is wrong, and where."""
    try:
        from_json_obj(tp, to_json_obj(value), where=where)
    except SchemaError as exc:
        return str(exc)
    except (TypeError, ValueError) as exc:  # a writer that could not take the value (round)
        return f"{where}: cannot be written: {type(exc).__name__}: {exc}"
    return None


def _absent(f: dataclasses.Field[Any]) -> object:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default
