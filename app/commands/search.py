"""`tpotbench search`: the highest concurrency (or request rate) that meets every SLO, and why."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.bench.capacity.search import SearchSettings
from app.bench.capacity.why import render as render_why
from app.bench.schema.run_config import RunConfig
from app.bench.schema.search_doc import SearchDoc
from app.bench.sweep.contract import SearchFinished, SearchValue
from app.bench.sweep.observer import SweepObserver
from app.commands import flags
from app.commands.console import table
from app.commands.credentials import UsageError
from app.commands.run_args import SEARCH_NUM_PROMPTS, replaced
from app.commands.search_text import capacity_lines, load, progress_line, say
from app.commands.sweep_flags import add_sweep_arguments


# Whole on purpose: a flat list of the search's own flags, in the order --help shows them.
def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_sweep_arguments(parser)
    add = parser.add_argument
    add(
        "--over",
        choices=["concurrency", "rate"],
        default="concurrency",
        help="what to search: max concurrency at --request-rate (default inf, as experiment B) "
        "or request rate at --max-concurrency",
    )
    add(
        "--start",
        type=flags.number(0.0, flags.MAX_BATCH, above=True),
        default=1.0,
        help="first load tried (default 1)",
    )
    add(
        "--max",
        type=flags.number(0.0, flags.MAX_BATCH, above=True),
        help="highest load tried (default 256 streams, or 256 req/s)",
    )
    add(
        "--growth",
        type=flags.number(1.0, 1000.0, above=True),
        default=2.0,
        help="factor between loads until one fails (2)",
    )
    add(
        "--resolution",
        default=None,
        help="stop bisecting when highest pass and lowest fail are this close: a number, or a "
        "percentage of the highest pass such as 5%% (default 1 stream, or 5%% of the rate)",
    )
    add(
        "--runs",
        type=flags.whole(1, 1000),
        default=1,
        help="runs per load; with 2+ the decision uses the 95%% interval",
    )
    add(
        "--min-prompts",
        type=flags.whole(1, flags.MAX_PROMPTS),
        default=64,
        help="fewest requests at a load (default 64)",
    )
    add(
        "--prompts-per-unit",
        type=flags.number(0.0, flags.MAX_PROMPTS),
        default=8.0,
        help="requests per unit of load: per stream (batch rounds) or per req/s (seconds of "
        "arrivals), between --min-prompts and --num-prompts (default 8; 0 = --num-prompts "
        "at every load)",
    )
    add(
        "--no-early-stop",
        dest="early_stop",
        action="store_false",
        help="run every point to the end, even once it has provably failed an SLO",
    )
    add(
        "--no-check-above",
        dest="check_above",
        action="store_false",
        help="skip the check point one growth step above the first failure (monotonicity)",
    )
    add(
        "--lang",
        choices=["en", "zh_CN"],
        default="en",
        help="language of the progress lines and of the lines under the table (default en)",
    )
    parser.set_defaults(num_prompts=SEARCH_NUM_PROMPTS)


def settings_from(config: RunConfig) -> SearchSettings:
    search = config.search
    assert search is not None
    num_prompts = config.dataset.num_prompts or SEARCH_NUM_PROMPTS
    resolution_text = search.resolution or ("1" if search.over == "concurrency" else "5%")
    relative = resolution_text.strip().endswith("%")
    try:
        resolution = float(resolution_text.strip().rstrip("%"))
    except ValueError:
        raise UsageError(
            f"--resolution: {resolution_text!r} is not a number or a percentage"
        ) from None
    if relative:
        resolution /= 100.0
    settings = SearchSettings(
        over=search.over,
        start=search.start,
        maximum=search.max if search.max is not None else 256.0,
        growth=search.growth,
        resolution=resolution,
        relative_resolution=relative,
        runs=search.runs,
        num_prompts=num_prompts,
        min_prompts=min(search.min_prompts, num_prompts),
        prompts_per_unit=search.prompts_per_unit,
        early_stop=search.early_stop,
        check_above=search.check_above,
    )
    try:
        settings.validate()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return settings


def _cell(value: Any, fmt: str) -> str:
    if value is None:
        return "-"
    return fmt.format(value)


# Whole on purpose: the table's columns, its rows and the lines under it, in printed order.
def format_search_table(doc: SearchDoc, lang: str = "en") -> str:
    """The console table of a search document: one row per load value, then the boundary,
    the failing SLOs, the why and the knee."""
    labels: list[str] = []
    for point in doc.points:
        for label in point.figures:
            if label not in labels and label != "failed_requests":
                labels.append(label)
    over = doc.over
    headers = [over, "phase", "runs", "requests", *labels, "decision", "time s"]
    rows = []
    for point in doc.points:
        cells = [f"{point.value:g}", point.phase, str(len(point.runs))]
        cells.append(str(sum(r.num_requests for r in point.runs)))
        for label in labels:
            fig = point.figures.get(label)
            if fig is None:
                cells.append("-")
                continue
            share = label.startswith("goodput")
            mean = f"{fig.mean:.1%}" if share else f"{fig.mean:.1f}"
            if fig.n > 1:
                low, high = fig.ci95
                half = (high - low) / 2
                mean += f" ±{half:.1%}" if share else f" ±{half:.1f}"
                if fig.cv is not None:
                    mean += f" cv {fig.cv:.0%}"
            cells.append(mean)
        decision = point.decision
        if any(r.early_stop for r in point.runs):
            decision += " (early stop)"
        cells.append(decision)
        cells.append(f"{sum(r.measuring_s for r in point.runs):.1f}")
        rows.append(cells)
    lines = table(headers, rows)
    lines.append("")
    lines += capacity_lines(doc, lang)
    why = doc.boundary_why
    if why is not None:
        full = doc.boundary_evidence
        text = render_why(why, lang)
        if full:
            lines.append(
                say(
                    lang,
                    "why_full",
                    load=load(over, full.value, lang),
                    requests=full.num_requests,
                    seconds=full.measuring_s,
                    text=text,
                )
            )
        else:
            lines.append(say(lang, "why", text=text))
    for metric, knee in doc.knee.items():
        if knee is not None:
            lines.append(
                say(
                    lang,
                    "knee",
                    metric=metric.upper(),
                    load=load(over, knee.load, lang),
                    value=knee.value,
                    text=render_why(knee.why, lang),
                )
            )
    lines.append(say(lang, "measuring", seconds=doc.measuring_s, loads=len(doc.points)))
    return "\n".join(lines)


class SearchConsole(SweepObserver):
    """A line per load value on stderr; the table at the end on stdout."""

    wants_tokens = False

    def __init__(self, out: Any, lang: str = "en") -> None:
        self.out = out
        self.lang = lang

    def search_value(self, event: SearchValue) -> None:
        line = progress_line(event.value, event.highest_pass, event.lowest_fail, self.lang)
        print(line, file=sys.stderr)

    def search_finished(self, event: SearchFinished) -> None:
        print(format_search_table(event.search, self.lang), file=self.out, flush=True)
        print(f"saved {event.path}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from app.commands import sweep as sweep_cmd

    return sweep_cmd.start(args, "search")


def run_search_config(config: RunConfig) -> int:
    """The search a RunConfig describes: its own checks (exit 2), then the points."""
    from app.commands import sweep as sweep_cmd

    search, load = config.search, config.load
    assert search is not None
    try:
        settings = settings_from(config)
        if len(load.request_rates or ()) > 1 or len(load.max_concurrencies or ()) > 1:
            raise UsageError("search takes one --request-rate and one --max-concurrency, not lists")
        if not (config.slo.slos or config.slo.goodput):
            raise UsageError("search needs SLOs: --slo tpot:p99:50 ttft:p99:2000 (or --goodput)")
        if config.output.result_filename:
            raise UsageError(
                "search writes one file per load; use --label instead of --result-filename"
            )
        # A flag the search sets itself would be silently overridden: refused instead.
        if search.over == "concurrency" and load.max_concurrencies is not None:
            raise UsageError(
                "--max-concurrency does not apply to --over concurrency (the search sets the "
                "concurrency); give its range with --start and --max"
            )
        if search.over == "rate" and load.request_rates is not None:
            raise UsageError(
                "--request-rate does not apply to --over rate (the search sets the rate); "
                "give its range with --start and --max"
            )
    except UsageError as exc:
        print(f"tpotbench search: error: {exc}", file=sys.stderr)
        return 2
    if search.over == "rate":  # replaced per load; the fixed rate is not used
        config = replaced(config, "load", request_rates=(1.0,))
    # The search exists to say where the limit is and why; the why reads the server's
    # /metrics (queue, KV cache, preemptions) and abstains without them, so the search always
    # scrapes them (a server without /metrics is named in the why, nothing fails).
    config = replaced(config, "options", server_metrics=True)
    console = SearchConsole(sys.stdout, search.lang)
    return sweep_cmd.run_with(config, search=settings, search_console=console)
