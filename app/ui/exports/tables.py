"""Result table columns, their cells, and the tables exported as CSV, JSON and Markdown."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from app.bench.results.point_row import (
    CONVERSATION_COLUMNS,
    ROOFLINE_COLUMNS,
    WORKLOAD_COLUMNS,
    PointRow,
    Scalar,
)
from app.bench.schema.codec import to_json_obj
from app.jsonfile import Json
from app.ui import point_status
from app.ui.exports.files import write_export
from app.ui.plots.sweep_curves import Series, concurrency_value, format_number
from app.ui.translate_noop import QT_TRANSLATE_NOOP

EXPORT_SCHEMA = 1

# (summary key, English column header, decimals); None decimals = shown as is.
# The headline first: TPOT P50/P99 right after the point's rate and concurrency, so they are
# on screen without scrolling in a 1400x900 window (the tables size columns to their text).
TABLE_COLUMNS: tuple[tuple[str, str, int | None], ...] = (
    ("request_rate", QT_TRANSLATE_NOOP("Metrics", "Rate (req/s)"), None),
    ("max_concurrency", QT_TRANSLATE_NOOP("Metrics", "Concurrency"), None),
    # A point cut short or run at another load than planned says so here ("early-stopped
    # after 3 of 48", "⚠ concurrency 32 of 64"); hidden when every point is whole.
    ("status", QT_TRANSLATE_NOOP("Metrics", "Status"), None),
    ("median_tpot_ms", QT_TRANSLATE_NOOP("Metrics", "TPOT P50 (ms)"), 2),
    ("p99_tpot_ms", QT_TRANSLATE_NOOP("Metrics", "TPOT P99 (ms)"), 2),
    ("median_ttft_ms", QT_TRANSLATE_NOOP("Metrics", "TTFT P50 (ms)"), 1),
    ("p99_ttft_ms", QT_TRANSLATE_NOOP("Metrics", "TTFT P99 (ms)"), 1),
    ("output_throughput", QT_TRANSLATE_NOOP("Metrics", "Output tok/s"), 1),
    ("request_throughput", QT_TRANSLATE_NOOP("Metrics", "Req/s"), 2),
    ("completed", QT_TRANSLATE_NOOP("Metrics", "Completed"), 0),
    ("failed", QT_TRANSLATE_NOOP("Metrics", "Failed"), 0),
    ("p99_itl_ms", QT_TRANSLATE_NOOP("Metrics", "ITL P99 (ms)"), 2),
    ("median_e2el_ms", QT_TRANSLATE_NOOP("Metrics", "E2EL P50 (ms)"), 0),
    ("duration", QT_TRANSLATE_NOOP("Metrics", "Duration (s)"), 1),
    ("floor_tpot_ms", QT_TRANSLATE_NOOP("Metrics", "Floor (ms)"), 2),
    ("mbu", QT_TRANSLATE_NOOP("Metrics", "MBU"), None),
    # Requests per second that met every per-request SLO (vLLM's goodput); "–" without SLOs.
    ("request_goodput", QT_TRANSLATE_NOOP("Metrics", "Goodput (req/s)"), 2),
    # Conversations (--multi-turn): mean TTFT of first turns and of later turns; "–" otherwise.
    ("ttft_first_turn_ms", QT_TRANSLATE_NOOP("Metrics", "TTFT 1st turn (ms)"), 1),
    ("ttft_later_turns_ms", QT_TRANSLATE_NOOP("Metrics", "TTFT later turns (ms)"), 1),
    # Reasoning models, prefix caching, speculative decoding (the point's tpotbench block).
    ("ttfo_ms", QT_TRANSLATE_NOOP("Metrics", "TTFO (ms)"), 1),
    ("tpot_answer_ms", QT_TRANSLATE_NOOP("Metrics", "TPOT answer (ms)"), 2),
    ("reasoning_tokens", QT_TRANSLATE_NOOP("Metrics", "Reasoning tokens"), 1),
    ("client_hit_rate", QT_TRANSLATE_NOOP("Metrics", "Cache hits, usage"), None),
    ("server_hit_rate", QT_TRANSLATE_NOOP("Metrics", "Cache hits, /metrics"), None),
    ("acceptance_rate", QT_TRANSLATE_NOOP("Metrics", "Spec. acceptance"), None),
    ("acceptance_length", QT_TRANSLATE_NOOP("Metrics", "Acceptance length"), 2),
    # Trace replay: how late the sends were against the trace's (sped-up) schedule.
    ("trace_lateness_p99_ms", QT_TRANSLATE_NOOP("Metrics", "Send lateness P99 (ms)"), 2),
)
# Columns only a workload run fills: hidden unless some point in the table has a value, so
# the table of a plain run is as wide as before.
OPTIONAL_KEYS = ("status", *CONVERSATION_COLUMNS, *WORKLOAD_COLUMNS)
# Shares (0..1) shown as percentages.
PERCENT_KEYS = ("mbu", "client_hit_rate", "server_hit_rate", "acceptance_rate")

# A point's roofline columns and their field of tpotbench.roofline.
ROOFLINE_KEYS: Mapping[str, str] = ROOFLINE_COLUMNS

# Everything a spreadsheet user wants per point, in vLLM's key names and units.
CSV_KEYS: tuple[str, ...] = (
    "request_rate",
    "max_concurrency",
    "num_prompts",
    "completed",
    "failed",
    "duration",
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "output_throughput",
    "total_token_throughput",
    "max_output_tokens_per_s",
    "max_concurrent_requests",
    *(
        f"{stat}_{m}_ms"
        for m in ("ttft", "tpot", "itl", "e2el")
        for stat in ("mean", "median", "std", "p90", "p99")
    ),
    *ROOFLINE_KEYS,
    # How much of its plan the point ran, and where its load did not happen as planned.
    "completeness",
    "load_warnings",
)


def point_value(point: PointRow, key: str) -> Scalar:
    """A column's value: the point's typed figures, then its file's own value; the Status,
    completeness and load-warnings columns in words."""
    if key == "status":
        return point_status.status_cell(point) or None
    if key == "completeness":
        return point_status.completeness(point).text
    if key == "load_warnings":
        return "; ".join(w.text for w in point_status.load_warnings(point))
    return point.value(key)


def hidden_keys(points: Iterable[PointRow]) -> set[str]:
    """The optional columns no point in the table has a value for."""
    hidden = set(OPTIONAL_KEYS)
    for point in points:
        hidden -= {key for key in hidden if point_value(point, key) is not None}
    return hidden


def cell_text(point: PointRow, key: str, decimals: int | None) -> str:
    """One table cell: rates and concurrencies as 'inf' when unlimited, numbers rounded."""
    value = point_value(point, key)
    if key in PERCENT_KEYS and isinstance(value, int | float) and math.isfinite(value):
        return f"{value * 100:.1f} %"
    if key == "request_rate":
        return format_number(point.request_rate)
    if key == "max_concurrency":
        return format_number(concurrency_value(value))
    if value is None or value == "":
        return "–"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return format_number(value) if math.isinf(value) else "–"
    if decimals is None:
        return f"{value:g}"
    return f"{value:.{decimals}f}"


def _plain(value: object) -> Json:
    """JSON-safe: infinities become the string 'inf' (JSON has no Infinity), NaN becomes null."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float):  # bool is an int
        return value
    raise TypeError(f"not JSON: {type(value).__name__}")  # an export's own data: a bug


def _workload_keys(series: Sequence[Series]) -> list[str]:
    """The optional columns some point of the runs has, in table order."""
    hidden = hidden_keys(p for s in series for p in s.points)
    # The status cell is the window's words: files carry completeness and load_warnings.
    return [key for key in OPTIONAL_KEYS if key not in hidden and key != "status"]


def runs_csv(series: Sequence[Series]) -> str:
    """One row per point of every run; a 'run' column first so comparisons stay one file.
    After vLLM's keys, the workload's own (TTFO, cache hit rates…) when some point has them."""
    keys = [*CSV_KEYS, *_workload_keys(series)]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["run", *keys])
    for s in series:
        for point in s.points:
            row: list[Json] = [s.name]
            for key in keys:
                if key == "request_rate":
                    row.append(format_number(point.request_rate))
                elif key == "max_concurrency":
                    row.append(format_number(concurrency_value(point.max_concurrency)))
                else:
                    value = _plain(point_value(point, key))
                    row.append("" if value is None else value)
            writer.writerow(row)
    return buf.getvalue()


def _json_point(point: PointRow) -> Json:
    flat = _summary(point)
    for key in ROOFLINE_KEYS:  # flat beside the nested block, so scripts find them one way
        flat[key] = point_value(point, key)
    completeness = point_status.completeness(point)
    flat["completeness"] = {**to_json_obj(completeness), "text": completeness.text}
    # As the point file's tpotbench.load_warnings holds them
    flat["load_warnings"] = [to_json_obj(w.block()) for w in point_status.load_warnings(point)]
    for key in OPTIONAL_KEYS:  # the workload's figures too, where the point has them
        if key == "status":
            continue  # the window's words; completeness and load_warnings say it for scripts
        value = point_value(point, key)
        if value is not None:
            flat[key] = value
    return _plain(flat)


def _summary(point: PointRow) -> dict[str, Json]:
    """Every key of the point as read, in the file's order, with the window's typed figures
    in their places (the load as a number, the statistics, the roofline context, the
    workload's columns): what the JSON export has always held for a point."""
    flat: dict[str, Json] = dict(point.file_keys)
    flat.update(
        request_rate=point.request_rate,
        max_concurrency=point.max_concurrency,
        completed=point.completed,
        failed=point.failed,
        duration=point.duration,
        output_throughput=point.output_throughput,
        request_throughput=point.request_throughput,
        path=point.path,
    )
    flat.update({key: value for key, value in point.stats.items() if value is not None})
    flat.update(point.roofline_columns)
    flat["completeness"] = None  # its place; the value is set by _json_point
    flat["load_warnings"] = None
    if point.roofline is not None:  # the whole context, for a script's hardware
        flat["roofline"] = to_json_obj(point.roofline)
    flat.update(point.workload)
    return flat


def runs_json(series: Sequence[Series]) -> str:
    """The runs with every summary key as read (schema-versioned), for scripts to load."""
    payload = {
        "schema": EXPORT_SCHEMA,
        "kind": "tpotbench-comparison",
        "runs": [{"name": s.name, "points": [_json_point(p) for p in s.points]} for s in series],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table; '|' inside cells is escaped."""

    def esc(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in headers) + " |"]
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def runs_markdown(series: Sequence[Series], headers: Sequence[str] | None = None) -> str:
    """The results table as Markdown: run name, then TABLE_COLUMNS as the window shows them
    (`headers`, maybe translated, one per column with the run's first): a workload column
    only when some point has a value for it, as in the window's tables."""
    heads = list(headers) if headers else ["Run", *(h for _, h, _ in TABLE_COLUMNS)]
    hidden = hidden_keys(p for s in series for p in s.points)
    shown = [i for i, (key, _, _) in enumerate(TABLE_COLUMNS) if key not in hidden]
    rows = [
        [s.name, *(cell_text(p, TABLE_COLUMNS[i][0], TABLE_COLUMNS[i][2]) for i in shown)]
        for s in series
        for p in s.points
    ]
    return markdown_table([heads[0], *(heads[1 + i] for i in shown)], rows)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write via a temp file in the same folder and rename, so a crash never leaves half a file
    (created with the process umask, like the result files)."""
    return write_export(Path(path), text)
