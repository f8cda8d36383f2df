"""`tpotbench compare BASE CANDIDATE`: every matching point's figures, the change, its 95 %
interval and a verdict; `--fail-on` turns significant regressions into exit code 1 for CI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.bench.compare.compare import MIN_EFFECT, Comparison, compare_paths
from app.bench.compare.fail_on import FailOnError, check, parse_fail_on
from app.bench.compare.render import (
    HEADERS,
    figure_cells,
    markdown,
    method_line,
    summary_line,
    unmatched_lines,
)
from app.bench.schema.codec import to_json_obj
from app.bench.schema.compare_doc import FailOnCheck
from app.commands import console, flags

# Exit codes: 0 fine, 1 a --fail-on regression, 2 bad usage, 3 a --fail-on figure that could
# not be checked (no interval: the files lack per-request samples) and no regression.
EXIT_REGRESSION = 1
EXIT_UNCHECKED = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="result file or folder of the base run")
    parser.add_argument(
        "candidate", metavar="CANDIDATE", help="result file or folder of the candidate run"
    )
    parser.add_argument(
        "--fail-on",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="exit 1 when a figure got significantly worse by more than the threshold, e.g. "
        "tpot:p99:+5%% ttft:p99:+10%% throughput:-3%%; exit 3 when one cannot be checked",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--html", metavar="FILE", help="also write the comparison as HTML")
    parser.add_argument(
        "--lang", choices=["en", "zh_CN"], default="en", help="language of the HTML page"
    )
    parser.add_argument(
        "--min-effect",
        type=_percent,
        default=MIN_EFFECT,
        metavar="PCT",
        help="changes smaller than this are no significant change even with an interval "
        "away from 0 (default 2%%: two runs of one setting draw different prompts)",
    )
    parser.add_argument(
        "--seed",
        type=flags.whole(0, flags.MAX_SEED),
        default=0,
        help="seed of the bootstrap's resampling (default 0)",
    )


def _percent(text: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}': give a percentage, e.g. 2%") from None
    if not 0 <= value < 100:
        raise argparse.ArgumentTypeError(f"'{text[:20]}': give a percentage from 0 to 100")
    return value / 100


def _text(comparison: Comparison) -> list[str]:
    lines: list[str] = []
    for point in comparison.points:
        lines.append(method_line(point))
        lines += console.table(HEADERS, [figure_cells(f) for f in point.figures], first_left=True)
        lines += [f"note: {n}" for n in point.notes]
        lines.append("")
    if not comparison.points:
        lines.append("no matching points (same rate, concurrency and dataset) to compare")
    lines += unmatched_lines(comparison)
    lines.append(summary_line(comparison))
    if comparison.min_effect:
        lines.append(f"changes under {comparison.min_effect:.0%} count as no significant change")
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        thresholds = parse_fail_on(args.fail_on)
    except FailOnError as exc:
        return console.error("compare", str(exc))
    for path in (args.base, args.candidate):
        if not Path(path).exists():
            return console.error("compare", f"{path}: no such file or folder")
    comparison = compare_paths([args.base], [args.candidate], args.seed, args.min_effect)
    for problem in comparison.problems:
        print(f"tpotbench compare: skipped {problem}", file=sys.stderr)
    if not comparison.points and not comparison.only_base and not comparison.only_cand:
        return console.error("compare", "no readable result files in BASE or CANDIDATE")
    if args.html:
        from app.report.compare_page import write_compare_page

        try:
            write_compare_page(Path(args.html), comparison, args.lang)
        except OSError as exc:
            return console.error("compare", f"cannot write {args.html}: {exc.strerror}", 1)
        print(f"report: {args.html}", file=sys.stderr)
    checks = check(comparison, thresholds)
    if args.json:
        fail_on = [FailOnCheck(c.threshold.text, c.point, c.status) for c in checks]
        print(json.dumps(to_json_obj(comparison.to_doc(fail_on)), indent=2))
    elif args.markdown:
        print(markdown(comparison), end="")
    else:
        print("\n".join(_text(comparison)))
    for item in checks:
        print(item.line(), file=sys.stderr)
    if thresholds and not checks:
        print("fail-on: no matching point to check", file=sys.stderr)
    if any(c.status == "regression" for c in checks):
        return EXIT_REGRESSION
    if any(c.status == "unknown" for c in checks) or (thresholds and not checks):
        return EXIT_UNCHECKED
    return 0
