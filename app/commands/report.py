"""`tpotbench report`: one summary row per result file (ours or vLLM's), as a table, CSV or JSON,
and the shareable HTML report (--html)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from app.bench.capacity.knee import sweep_knees
from app.bench.capacity.slo import point_verdict
from app.bench.metrics.definitions import TOOL_NAMES, TOOLS, ToolFigure, point_definitions
from app.bench.results.naming import rate_label
from app.bench.results.point_result import PointResult
from app.bench.results.read import load_results_skipping, result_files
from app.bench.results.sweep_csv import sweep_csv_text
from app.bench.results.write import atomic_write_text, write_target
from app.commands import console

# (header, row key, format) of the terminal table: the columns an engineer reads first.
_TABLE = (
    ("file", "file", "{}"),
    ("rate", "request_rate", "{}"),
    ("conc", "max_concurrency", "{}"),
    ("ok", "completed", "{}"),
    ("fail", "failed", "{}"),
    ("req/s", "request_throughput", "{:.2f}"),
    ("out tok/s", "output_throughput", "{:.1f}"),
    ("TTFT p50", "median_ttft_ms", "{:.1f}"),
    ("TTFT p99", "p99_ttft_ms", "{:.1f}"),
    ("TPOT p50", "median_tpot_ms", "{:.2f}"),
    ("TPOT p99", "p99_tpot_ms", "{:.2f}"),
    ("ITL p99", "p99_itl_ms", "{:.2f}"),
    # Pass/fail against the SLOs the run was held to (sweep/search --slo); "-" without any.
    ("SLO", "slo", "{}"),
    # From the roofline context the run recorded (sweep --gpu ...); "-" when it had none.
    ("floor", "floor_tpot_ms", "{:.2f}"),
    ("MBU", "mbu", "{:.1%}"),
    # "early-stopped after 3 of 48", "cancelled after ..." (a fragment, off the knees); "no
    # success": no latency figures exist; "load: KIND": the load did not happen as planned.
    ("note", "note", "{}"),
)
# Shown only when some point measured them (reasoning replies, prefix cache, spec decode,
# conversations: mean TTFT of first and of later turns).
_WORKLOAD_TABLE = (
    ("TTFO", "ttfo_ms", "{:.1f}"),
    ("reason tok", "reasoning_tokens", "{:.0f}"),
    ("hit usage", "client_hit_rate", "{:.1%}"),
    ("hit /metrics", "server_hit_rate", "{:.1%}"),
    ("accept", "acceptance_rate", "{:.1%}"),
    ("accept len", "acceptance_length", "{:.2f}"),
    ("TTFT 1st turn", "ttft_first_turn_ms", "{:.1f}"),
    ("TTFT later", "ttft_later_turns_ms", "{:.1f}"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="result files or folders (tpotbench's or vllm bench serve's)",
    )
    parser.add_argument("--csv", metavar="FILE", help="also write the rows as CSV to FILE")
    parser.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="also write a self-contained HTML report (table, knee curves, distributions, "
        "roofline, server metrics) to FILE; it opens offline in any browser",
    )
    parser.add_argument(
        "--definitions",
        choices=[*TOOLS, "all"],
        metavar="TOOL",
        help="also show TPOT, ITL and throughput as another tool defines them, from the saved "
        "per-request data: " + ", ".join(TOOLS) + " or all (the README's definitions table "
        "cites each formula)",
    )
    parser.add_argument(
        "--lang",
        choices=["en", "zh_CN"],
        default="en",
        help="language of the HTML report (default en)",
    )


def _cell(value: Any, fmt: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def format_table(points: list[PointResult]) -> str:
    rows = []
    summaries = [point.summary_row() for point in points]
    table = list(_TABLE[:-1])
    table += [c for c in _WORKLOAD_TABLE if any(r.get(c[1]) is not None for r in summaries)]
    table.append(_TABLE[-1])
    for point, row in zip(points, summaries, strict=True):
        row["request_rate"] = rate_label(point.request_rate)
        completeness = point.completeness
        notes = [] if completeness.complete else [completeness.text]
        notes += [] if point.completed else ["no success"]
        notes += [f"load: {w.kind}" for w in point.load_warnings]
        row["note"] = ", ".join(notes) or None
        verdict = point_verdict(point)
        row["slo"] = None if verdict is None else ("pass" if verdict.passed else "FAIL")
        rows.append([_cell(row[key], fmt) for _, key, fmt in table])
    headers = [title for title, _, _ in table]
    return "\n".join(console.table(headers, rows, first_left=True))


def knee_lines(points: list[PointResult]) -> list[str]:
    """The knee of TPOT p99 and TTFT p99 (Kneedle on log2 load) of every run in the files:
    over concurrency for points at rate inf, over rate for points at one concurrency."""
    lines = []
    groups: dict[tuple[str, str], list[PointResult]] = {}
    for point in points:
        if not point.completeness.complete:
            continue  # a point cut short does not sit on the curve
        label = point.label or "-"
        if math.isinf(point.request_rate) and point.max_concurrency is not None:
            groups.setdefault((label, "concurrency"), []).append(point)
        elif not math.isinf(point.request_rate):
            groups.setdefault((label, "rate"), []).append(point)
    for (label, over), group in groups.items():
        if len({p.max_concurrency if over == "concurrency" else p.request_rate for p in group}) < 3:
            continue
        for metric, knee in sweep_knees(group, over).items():
            name = f"{metric.upper()} p99"
            where = "concurrency" if over == "concurrency" else "rate"
            if knee is None:
                lines.append(f"knee [{label}] {name}: none (no near-flat regime to leave)")
            else:
                lines.append(
                    f"knee [{label}] {name}: {where} {knee.load:g} ({knee.value:.1f} ms), "
                    "Kneedle on log2 load"
                )
    return lines


def _search_summaries(paths: list[str]) -> list[str]:
    from app.bench.capacity.search_run import SEARCH_FILE
    from app.bench.schema.search_doc import read_search_doc
    from app.commands.search import format_search_table

    out = []
    for item in paths:
        path = Path(item)
        path = path / SEARCH_FILE if path.is_dir() else path
        if path.name == SEARCH_FILE and path.is_file():
            try:
                doc = read_search_doc(json.loads(path.read_text(encoding="utf-8")))
                out.append(f"search {path}:\n" + format_search_table(doc))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                out.append(f"search {path}: unreadable ({exc})")
    return out


def definition_tools(choice: str | None) -> list[str]:
    if not choice:
        return []
    return list(TOOLS) if choice == "all" else [choice]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def definitions_lines(points: list[PointResult], tools: list[str]) -> list[str]:
    """Per point, each tool's own figures: name, mean / median / p99, weighting, formula."""
    lines: list[str] = []
    headers = ["tool", "figure (tool's name)", "mean", "median", "p99", "unit"]
    headers += ["weighting", "formula"]
    for point in points:
        name = point.path.name if point.path else "-"
        conc = "-" if point.max_concurrency is None else point.max_concurrency
        lines.append(f"definitions: {name} (rate {rate_label(point.request_rate)}, conc {conc})")
        rows = []
        for figure in point_definitions(point.doc, point.duration_s, tools):
            values = figure.values
            cells = [_fmt(values.get(s)) for s in ("mean", "median", "p99")]
            if figure.missing:
                cells = [figure.missing, "", ""]
            tool = TOOL_NAMES[figure.tool]
            rows.append([tool, figure.name, *cells, figure.unit, figure.weighting, figure.formula])
        lines += console.table(headers, rows, first_left=True)
        lines.append("")
    return lines


def definitions_json(points: list[PointResult], tools: list[str]) -> list[dict[str, object]]:
    def one(f: ToolFigure) -> dict[str, object]:
        return {
            "tool": f.tool,
            "figure": f.name,
            "key": f.key,
            "unit": f.unit,
            "weighting": f.weighting,
            "formula": f.formula,
            "values": f.values,
            "missing": f.missing,
        }

    return [
        {
            "file": p.path.name if p.path else None,
            "figures": [one(f) for f in point_definitions(p.doc, p.duration_s, tools)],
        }
        for p in points
    ]


# Outputs that stream to standard output instead of being written as a file.
_STDOUT_NAMES = ("-", "/dev/stdout")


def _input_files(paths: list[str]) -> set[str]:
    """Every file this report reads (result files and search summaries), resolved, so an
    output naming one of them is refused instead of destroying a measurement."""
    from app.bench.capacity.search_run import SEARCH_FILE

    files: set[str] = set()
    for item in map(Path, paths):
        found = [*result_files(item), item / SEARCH_FILE] if item.is_dir() else [item]
        files.update(os.path.realpath(f) for f in found if f.exists())
    return files


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why the outputs asked for cannot be written as named, in one line; None if they can."""
    streamed = [n for n in ("csv", "html") if getattr(args, n) in _STDOUT_NAMES]
    if len(streamed) + bool(args.json) > 1:
        return "only one of --csv -, --html - and --json can use standard output"
    inputs = _input_files(args.paths)
    for name in ("csv", "html"):
        value = getattr(args, name)
        if value is None or value in _STDOUT_NAMES:
            continue
        if os.path.realpath(value) in inputs:
            return f"--{name} {value} is one of the files being reported; name a new file"
        try:
            write_target(Path(value))
        except OSError as exc:
            return f"--{name} {value}: {exc.strerror}, or '-' for standard output"
    return None


def _write_output(target: str, text: str) -> bool:
    """`text` streamed to stdout for '-' or '/dev/stdout', else written atomically to the
    file; False (after one line) when the file cannot be written."""
    if target in _STDOUT_NAMES:
        sys.stdout.write(text)
        sys.stdout.flush()
        return True
    try:
        atomic_write_text(Path(target), text)
    except OSError as exc:
        print(f"tpotbench report: error: cannot write {target}: {exc.strerror}", file=sys.stderr)
        return False
    return True


def run(args: argparse.Namespace) -> int:
    problem = _output_problem(args)
    if problem is not None:
        print(f"tpotbench report: error: {problem}", file=sys.stderr)
        return 2
    points, problems = load_results_skipping(args.paths)
    if not points:
        # Nothing to report: one line when one thing went wrong, else each, then why.
        for problem in problems if len(problems) > 1 else []:
            print(f"tpotbench report: skipped {problem}", file=sys.stderr)
        reason = problems[0] if len(problems) == 1 else None
        if reason is None:
            found = "no readable result" if problems else "no result files (*.json)"
            reason = f"{found} found in " + ", ".join(args.paths)
        print(f"tpotbench report: error: {reason}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"tpotbench report: skipped {problem}", file=sys.stderr)
    if args.csv and not _write_output(args.csv, sweep_csv_text(points)):
        return 1
    if args.html:
        # Imported here: the table and CSV paths do not pay for the report's chart code.
        from app.report import find_searches, render_report

        searches, unreadable = find_searches(args.paths)
        for problem in unreadable:
            print(f"tpotbench report: skipped {problem}", file=sys.stderr)
        html = render_report(
            points, args.lang, searches=searches, definitions=definition_tools(args.definitions)
        )
        if not _write_output(args.html, html):
            return 1
        if args.html not in _STDOUT_NAMES:
            print(f"report: {args.html}", file=sys.stderr)
    if args.csv in _STDOUT_NAMES or args.html in _STDOUT_NAMES:
        return 0  # standard output holds that document alone
    tools = definition_tools(args.definitions)
    if args.json:
        rows: list[dict[str, object]] = [{**p.summary_row()} for p in points]
        if tools:
            for row, figures in zip(rows, definitions_json(points, tools), strict=True):
                row["definitions"] = figures["figures"]
        print(json.dumps(rows, indent=2))
    else:
        print(format_table(points))
        if tools:
            print()
            print("\n".join(definitions_lines(points, tools)).rstrip())
        for line in knee_lines(points):
            print(line)
        for point in points:
            for warning in point.load_warnings:
                name = point.path.name if point.path else "-"
                print(f"load warning [{name}]: {warning.text}")
        for block in _search_summaries(args.paths):
            print()
            print(block)
    return 0
