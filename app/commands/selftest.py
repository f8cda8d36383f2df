"""`tpotbench selftest`: this machine's client ceiling, the most streams the benchmark client
stamps faithfully, measured against a local zero-latency server that logs its send times."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from app.bench.selftest.decide import Ceiling, Limits, StepResult, find_ceiling, stream_steps
from app.bench.selftest.output import SelftestResult, StepLine
from app.bench.selftest.store import machine_facts, save_ceiling
from app.commands import flags
from app.commands.console import error, table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--workers",
        default="0,2",
        metavar="N[,N]",
        help="client processes to measure: 0 runs the streams in this process (as a plain "
        "sweep does), N > 1 splits them over N load workers (sweep --workers N); default 0,2",
    )
    add(
        "--max-streams",
        type=flags.whole(1, 65536),
        default=512,
        metavar="N",
        help="highest stream count to try (steps double from 1; default 512)",
    )
    add(
        "--time-limit",
        type=flags.number(1.0, 3600.0),
        default=60.0,
        metavar="S",
        help="seconds for the whole test, shared by the modes (default 60); a step that would "
        "not fit is not started and the ceiling is then a lower bound",
    )
    add(
        "--max-ttft-excess-ms",
        type=flags.number(0.0, 1e6),
        default=1.0,
        metavar="MS",
        help="limit on the median of client TTFT minus the server's (default 1)",
    )
    add(
        "--max-gap-error-ms",
        type=flags.number(0.0, 1e6),
        default=0.5,
        metavar="MS",
        help="limit on the p99 of |client gap - server gap| between chunks (default 0.5)",
    )
    add("--tokens", type=flags.whole(2, 4096), default=32, help="tokens per reply (default 32)")
    add(
        "--itl-ms",
        type=flags.number(1.0, 1000.0),
        default=10.0,
        metavar="MS",
        help="the local server's gap between tokens (default 10)",
    )
    add(
        "--requests-per-stream",
        type=flags.whole(1, 1000),
        default=4,
        metavar="N",
        help="requests each stream sends one after another at each step (default 4)",
    )
    add("--no-save", action="store_true", help="do not store the result for this machine")
    # The local server itself, started by the self-test as `tpotbench selftest --serve ITL N`
    # (the same program, so a bundled app can start it too).
    add("--serve", nargs=2, metavar=("ITL_MS", "TOKENS"), help=argparse.SUPPRESS)
    add("--json", action="store_true", help="print the result as JSON on stdout")
    add(
        "--jsonl",
        action="store_true",
        help="print each step and then the result as JSON lines on stdout (kind 'step' or "
        "'result'), for the window's Check this machine",
    )


def _workers(text: str) -> list[int]:
    try:
        out = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--workers: {text!r} is not a list of whole numbers") from None
    if not out or any(w < 0 or w == 1 or w > 256 for w in out):
        raise ValueError("--workers: use 0 (in process) or 2..256 worker processes")
    return out


def _mode(workers: int) -> str:
    return "in process" if workers == 0 else f"{workers} workers"


def _progress(workers: int, jsonl: bool) -> Callable[[StepResult, list[str]], None]:
    def show(step: StepResult, broken: list[str]) -> None:
        if jsonl:
            print(StepLine(workers=workers, step=step, broken=broken).json_text(), flush=True)
        verdict = "ok" if not broken else "over the limit: " + "; ".join(broken)
        print(
            f"[{_mode(workers)}] {step.streams:>5} streams: TTFT excess p50 "
            f"{step.ttft_excess_ms:.2f} ms, gap error p99 {step.gap_error_p99_ms:.2f} ms, "
            f"CPU {step.cpu_ms_per_1k:.0f} ms per 1k tokens, {step.wall_s:.1f} s — {verdict}",
            file=sys.stderr,
            flush=True,
        )

    return show


def _result(results: dict[int, Ceiling], saved: Path | None) -> SelftestResult:
    documents = {str(w): c.document() for w, c in results.items()}
    return SelftestResult(machine_facts(), documents, str(saved) if saved else None)


def _answer(ceiling: Ceiling) -> str:
    if ceiling.streams == 0:
        return "not enough evidence: even 1 stream broke the limits (" + ceiling.why + ")"
    bound = "at least " if ceiling.at_least else ""
    return f"{bound}{ceiling.streams}"


def _serve(itl_ms: str, tokens: str) -> int:
    from app.bench.selftest.chunk_server import run_server

    run_server(
        argparse.Namespace(
            host="127.0.0.1",
            port=0,
            itl_ms=float(itl_ms),
            tokens=int(tokens),
            ttft_ms=0.0,
            role_chunk=False,
            metrics_page=None,
        )
    )
    return 0


def run(args: argparse.Namespace) -> int:
    from app.bench.selftest.measure import local_server, measure_step

    if args.serve:
        return _serve(*args.serve)
    try:
        modes = _workers(args.workers)
    except ValueError as exc:
        return error("selftest", str(exc))
    limits = Limits(args.max_ttft_excess_ms, args.max_gap_error_ms)
    steps = stream_steps(args.max_streams)
    results: dict[int, Ceiling] = {}
    start = time.monotonic()
    print(
        f"tpotbench selftest: streams {steps[0]}..{steps[-1]}, limits TTFT excess <= "
        f"{limits.ttft_excess_ms:g} ms and gap error p99 <= {limits.gap_error_p99_ms:g} ms, "
        f"at most {args.time_limit:g} s",
        file=sys.stderr,
        flush=True,
    )
    with local_server(args.itl_ms, args.tokens) as url:
        for n, workers in enumerate(modes):
            # Each mode gets an equal share of what is left.
            end = start + args.time_limit * (n + 1) / len(modes)

            def measure(streams: int, workers: int = workers) -> StepResult:
                return measure_step(url, streams, args.tokens, args.requests_per_stream, workers)

            def remaining(end: float = end) -> float:
                return end - time.monotonic()

            results[workers] = find_ceiling(
                measure,
                steps,
                limits,
                remaining,
                _progress(workers, args.jsonl),
            )
    saved = None
    if not args.no_save:
        for workers, ceiling in results.items():
            saved = save_ceiling(workers, ceiling)
    if args.json or args.jsonl:
        print(_result(results, saved).json_text(line=args.jsonl))
        return 0
    rows = [
        [
            _mode(w),
            _answer(c),
            f"{c.cpu_ms_per_1k:.0f}" if c.cpu_ms_per_1k is not None else "–",
            c.why or ("time limit" if c.stopped == "time" else "all steps kept the limits"),
        ]
        for w, c in results.items()
    ]
    print("Client ceiling on this machine (concurrent streams, all client processes):")
    for line in table(
        ["mode", "ceiling", "CPU ms/1k tok", "first step over the limits"], rows, first_left=True
    ):
        print("  " + line)
    if saved:
        print(f"saved to {saved}; sweeps past it warn before they start")
    return 0
