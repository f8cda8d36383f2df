"""Reading result files back: ours, vLLM's and the older benchmark_serving.py's, into
PointResult; a folder's result files in natural order."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISREG
from typing import Any

from app import jsonfile
from app.bench.results import vllm_adapter
from app.bench.results.lean_read import LEAN_BYTES, SET_ASIDE_KEY, set_aside_itls
from app.bench.results.point_result import PointResult
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import ItlHistogram
from app.bench.schema.point_doc import BLOCK_KEY, STAT_KEY, PointDoc, read_point_doc

# Files a run writes beside its points that are not points (a capacity search's summary).
NOT_POINT_FILES = frozenset({"search.json"})


class ResultFileError(ValueError):
    """A result file that cannot be read; the message names the file and the problem."""


def _number(data: dict[str, Any], key: str, path: Path | None) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ResultFileError(f"{path}: '{key}' is {_excerpt(value)}, expected a number")
    number = float(value)  # an integer beyond a float's range raises OverflowError here
    if not math.isfinite(number):
        raise ResultFileError(f"{path}: '{key}' is {value!r}, expected a finite number")
    return number


def _count(data: dict[str, Any], key: str, path: Path | None) -> int | None:
    value = _number(data, key, path)
    if value is not None and value < 0:
        raise ResultFileError(f"{path}: '{key}' is {data[key]!r}, expected a count (0 or more)")
    return None if value is None else int(value)


def _excerpt(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text(data: dict[str, Any], key: str, path: Path | None) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ResultFileError(f"{path}: '{key}' is {_excerpt(value)}, expected a string")


def _check_block(block: dict[str, Any], path: Path | None) -> None:
    """The parts of our `tpotbench` block that summaries read must have their written types."""
    where = f"{path}: tpotbench"
    for key in ("slot_wait_ms", "ttft_first_content_ms", "tokens_per_chunk", "roofline"):
        value = block.get(key)
        if value is not None and not isinstance(value, dict):
            raise ResultFileError(f"{where}.{key} is {_excerpt(value)}, expected an object")
        for stat, number in (value or {}).items() if key != "roofline" else ():
            if number is not None and (
                isinstance(number, bool)
                or not isinstance(number, int | float)
                or not math.isfinite(number)
            ):
                raise ResultFileError(f"{where}.{key}.{stat} is {_excerpt(number)}, not a number")
    failures = block.get("failures")
    if failures is None:
        return
    if not isinstance(failures, list):
        raise ResultFileError(f"{where}.failures is {_excerpt(failures)}, expected a list")
    for i, entry in enumerate(failures):
        if not isinstance(entry, dict):
            raise ResultFileError(f"{where}.failures[{i}] is {_excerpt(entry)}, not an object")
        kind, count = entry.get("kind"), entry.get("count")
        if not isinstance(kind, str):
            raise ResultFileError(f"{where}.failures[{i}] has no 'kind' string")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ResultFileError(f"{where}.failures[{i}].count is {_excerpt(count)}, not a count")
        for key in ("example", "fix", "title"):
            if not isinstance(entry.get(key, ""), str):
                raise ResultFileError(f"{where}.failures[{i}].{key} is not a string")


def _parse_rate(value: Any, path: Path | None) -> float:
    rate: float | None = None
    if value is None:
        return math.inf
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            rate = float(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):
            rate = float(value)
    # "inf" (unlimited) is vLLM's own spelling; NaN or a negative rate is no rate at all.
    if rate is None or not rate > 0:
        raise ResultFileError(f"{path}: request_rate {_excerpt(value)} is not a rate")
    return rate


def point_from_dict(data: Any, path: Path | None = None) -> PointResult:
    """Interpret one result document (ours, vllm bench serve's, or benchmark_serving.py's)."""
    if not isinstance(data, dict):
        raise ResultFileError(f"{path}: expected a JSON object, found {type(data).__name__}")
    if "completed" not in data or "duration" not in data:
        raise ResultFileError(
            f"{path}: not a benchmark result (no 'completed'/'duration'; is this a "
            "vllm bench serve --save-result or tpotbench file?)"
        )
    try:
        return _point_from_dict(data, path)
    except OverflowError:  # an integer too large for a float, e.g. "duration": 1e400 as digits
        raise ResultFileError(f"{path}: a number is too large to be a measurement") from None


def point_from_doc(doc: PointDoc, path: Path | None = None) -> PointResult:
    """A point of ours from its typed document (a point_finished event's): the same PointResult
    as reading its file gives, its blocks those of the document (not read again)."""
    head = to_json_obj(doc.vllm)  # the top level as its file holds it (no block, no arrays)
    head.update(doc.stats)
    if doc.blocks is not None:
        head[BLOCK_KEY] = {}
    _refuse_what_is_not_a_measurement(head, path)
    return _point_of(doc, path, "tpotbench", head)


def _point_from_dict(data: dict[str, Any], path: Path | None) -> PointResult:
    """Ours through the schema, vLLM's and benchmark_serving.py's through their adapter; the
    PointResult built the same way from either."""
    _refuse_what_is_not_a_measurement(data, path)
    if isinstance(data.get("tpotbench"), dict):
        return _point_of(read_point_doc(data, strict=False), path, "tpotbench", data)
    return _point_of(vllm_adapter.point_doc(data), path, vllm_adapter.source_of(data), data)


def _refuse_what_is_not_a_measurement(data: dict[str, Any], path: Path | None) -> None:
    """ResultFileError for the first value a summary cannot use (in the order they were
    always checked, so a file's message stays the same)."""
    block = data.get("tpotbench")
    if isinstance(block, dict):
        _check_block(block, path)
    goodput_key = "request_goodput" if "request_goodput" in data else "request_goodput:"
    for key in ("completed", "failed", "num_prompts"):
        _count(data, key, path)
    for key in ("model_id", "backend"):
        _text(data, key, path)
    if not data.get("backend"):
        _text(data, "endpoint_type", path)
    _text(data, "date", path)
    _parse_rate(data.get("request_rate"), path)
    _count(data, "max_concurrency", path)
    _number(data, "burstiness", path)
    _number(data, "duration", path)
    _count(data, "total_input_tokens", path)
    _count(data, "total_output_tokens", path)
    for key in ("request_throughput", goodput_key, "output_throughput"):
        _number(data, key, path)
    for key in ("total_token_throughput", "max_output_tokens_per_s"):
        _number(data, key, path)
    _count(data, "max_concurrent_requests", path)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _point_of(doc: PointDoc, path: Path | None, source: str, raw: dict[str, Any]) -> PointResult:
    """A PointResult from a typed document whose values have passed the refusals above."""
    head = doc.vllm
    stats: dict[str, dict[str, float]] = {}
    for key, value in doc.stats.items():
        # A null figure (no request succeeded) or a foreign value is left out, never guessed.
        if value is not None and math.isfinite(value):
            match = STAT_KEY.match(key)
            assert match is not None  # the document holds only such keys
            stats.setdefault(match.group(2), {})[match.group(1)] = float(value)
    point = PointResult(
        path=path,
        source=source,
        label=head.label if isinstance(head.label, str) else None,
        model_id=head.model_id,
        backend=head.backend or head.endpoint_type,
        date=head.date,
        request_rate=_parse_rate(head.request_rate, path),
        max_concurrency=head.max_concurrency,
        burstiness=_float(head.burstiness),
        num_prompts=head.num_prompts,
        completed=head.completed or 0,
        failed=head.failed,
        duration_s=float(head.duration or 0.0),
        total_input_tokens=head.total_input_tokens,
        total_output_tokens=head.total_output_tokens,
        request_throughput=_float(head.request_throughput),
        request_goodput=_float(head.request_goodput),
        output_throughput=_float(head.output_throughput),
        total_token_throughput=_float(head.total_token_throughput),
        max_output_tokens_per_s=_float(head.max_output_tokens_per_s),
        max_concurrent_requests=head.max_concurrent_requests,
        stats=stats,
        doc=doc,
        file_keys={k: v for k, v in raw.items() if not isinstance(v, list | dict)},
        itl_set_aside=_set_aside(raw),
    )
    return point


def _set_aside(raw: dict[str, Any]) -> ItlHistogram | None:
    hist = raw.get(SET_ASIDE_KEY)  # put there by _documents, never read from a file
    return hist if isinstance(hist, ItlHistogram) else None


def _documents(path: Path) -> list[Any]:
    try:
        # Checked before opening: opening a FIFO waits for a writer that may never come.
        if not S_ISREG(os.stat(path).st_mode):
            raise ResultFileError(
                f"{path}: not a regular file (a folder, FIFO or device), not a result"
            )
        hist = None
        if os.stat(path).st_size > LEAN_BYTES:
            raw, hist = set_aside_itls(path.read_bytes())
            text = raw.decode("utf-8")
            del raw
        else:
            text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ResultFileError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as exc:
        raise ResultFileError(f"{path}: cannot read ({exc.strerror})") from None
    decoder = jsonfile.decoder()
    docs: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ResultFileError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "the file is truncated or corrupt"
            ) from None
        except RecursionError:
            raise ResultFileError(f"{path}: JSON nested too deeply to be a result") from None
        except ValueError as exc:  # NaN/Infinity/1e400, or an integer of thousands of digits
            raise ResultFileError(f"{path}: {str(exc)[:200]}, not a result") from None
        docs.append(doc)
    if not docs:
        raise ResultFileError(f"{path}: the file is empty")
    if hist is not None and len(docs) == 1 and isinstance(docs[0], dict):
        docs[0][SET_ASIDE_KEY] = hist
    return docs


def read_points(path: Path) -> list[PointResult]:
    """All results in one file (vLLM's --append-result puts several in one file)."""
    path = Path(path)
    return [point_from_dict(doc, path) for doc in _documents(path)]


def load_result(path: str | Path) -> PointResult:
    points = read_points(Path(path))
    if len(points) != 1:
        raise ResultFileError(
            f"{path}: holds {len(points)} results (written with --append-result); "
            "read it with load_results"
        )
    return points[0]


def _natural_key(path: Path) -> list[Any]:
    # expB_rateinf_conc8 before expB_rateinf_conc16, as a person would list them
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", path.name)]


def result_files(folder: Path) -> list[Path]:
    """A folder's result files in natural name order: *.json without our hidden temp files
    and vLLM's *.pytorch.json side files."""
    return sorted(
        (
            p
            for p in folder.glob("*.json")
            if not p.name.startswith(".")
            and not p.name.endswith(".pytorch.json")
            and p.name not in NOT_POINT_FILES
        ),
        key=_natural_key,
    )


def load_results_skipping(paths: Iterable[str | Path]) -> tuple[list[PointResult], list[str]]:
    """Results from files and folders, and one line per file that could not be read (each
    names the file): one bad file never hides the others."""
    points: list[PointResult] = []
    problems: list[str] = []
    for item in paths:
        item = Path(item)
        if item.is_dir():
            files = result_files(item)
        elif item.exists():
            files = [item]
        else:
            problems.append(f"{item}: no such file or folder")
            continue
        for file in files:
            try:
                points.extend(read_points(file))
            except ResultFileError as exc:
                problems.append(str(exc))
    return points, problems


def load_results(paths: Iterable[str | Path]) -> list[PointResult]:
    """Results from files and folders (a folder: its *.json files in natural name order);
    ResultFileError for the first file that cannot be read."""
    points, problems = load_results_skipping(paths)
    if problems:
        raise ResultFileError(problems[0])
    return points
