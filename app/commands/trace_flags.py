"""The trace-replay flags of `sweep` (--dataset-name mooncake, --trace-speedup): a trace sets
its own arrival times, so the flags that would set them too are refused with one line."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from app.bench.datasets.mooncake import (
    default_trace_path,
    load_trace,
    sample_trace,
    trace_summary,
)
from app.bench.datasets.prompts import SampleRequest, VocabTokenizer
from app.bench.datasets.sampling import DatasetOptions
from app.bench.load.schedule import ArrivalPlan, trace_plan
from app.commands import flags
from app.commands.credentials import UsageError

DEFAULT_NUM_PROMPTS = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace-speedup",
        type=flags.number(0.0, 1e6, above=True),
        metavar="X",
        help="--dataset-name mooncake: replay the trace X times faster (default 1: its own "
        "clock); the arrival times replace --request-rate, --max-concurrency caps them",
    )


def check(args: argparse.Namespace) -> None:
    """Refuse what contradicts a trace, and fill the defaults that depend on it (all the
    trace's lines; vLLM's rate and burstiness otherwise)."""
    trace = args.dataset_name == "mooncake"
    if not trace and args.trace_speedup is not None:
        raise UsageError("--trace-speedup replays a trace faster; add --dataset-name mooncake")
    if trace:
        for flag, value in (
            ("--request-rate", args.request_rate),
            ("--burstiness", args.burstiness),
        ):
            if value is not None:
                raise UsageError(
                    f"{flag}: a trace replay sends on the trace's own timestamps; drop {flag} "
                    "and set the pace with --trace-speedup"
                )
    if args.num_prompts is None:
        args.num_prompts = flags.MAX_PROMPTS if trace else DEFAULT_NUM_PROMPTS
    if args.request_rate is None:
        args.request_rate = "inf"
    if args.burstiness is None:
        args.burstiness = 1.0


@dataclass(frozen=True)
class TraceLoad:
    samples: list[SampleRequest]
    plan: ArrivalPlan
    block: dict[str, Any]

    @property
    def rate(self) -> float:
        """The offered load, for the file name and the summary."""
        return round(self.plan.mean_rate, 3)


def trace_load(
    args: argparse.Namespace, options: DatasetOptions, vocab: VocabTokenizer | None
) -> TraceLoad | None:
    """The trace's requests and schedule, None without --dataset-name mooncake
    (DatasetError for a bad trace file)."""
    if args.dataset_name != "mooncake":
        return None
    path = options.path or default_trace_path()
    entries = load_trace(path, limit=args.num_prompts)
    samples = sample_trace(entries, seed=args.seed, vocab=vocab, output_len=args.output_len)
    plan = trace_plan([e.timestamp_ms for e in entries], args.trace_speedup or 1.0)
    return TraceLoad(samples, plan, trace_summary(path, entries, plan.speedup or 1.0, plan.span_s))
