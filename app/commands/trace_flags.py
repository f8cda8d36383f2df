"""The trace-replay flags of `sweep` (--dataset-name mooncake, --trace-speedup): a trace sets
its own arrival times, so the flags that would set them too are refused with one line."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from app.bench.datasets.mooncake import (
    default_trace_path,
    load_trace,
    sample_trace,
    trace_summary,
)
from app.bench.datasets.prompts import SampleRequest, VocabTokenizer
from app.bench.datasets.sampling import DatasetOptions
from app.bench.load.schedule import ArrivalPlan, trace_plan
from app.bench.schema.point_blocks import TraceBlock
from app.bench.schema.run_config import RunConfig
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


def check(config: RunConfig) -> None:
    """Refuse what contradicts a trace: it sets its own arrival times."""
    trace = config.dataset.name == "mooncake"
    if not trace and config.dataset.trace_speedup is not None:
        raise UsageError("--trace-speedup replays a trace faster; add --dataset-name mooncake")
    if trace:
        for flag, value in (
            ("--request-rate", config.load.request_rates),
            ("--burstiness", config.load.burstiness),
        ):
            if value is not None:
                raise UsageError(
                    f"{flag}: a trace replay sends on the trace's own timestamps; drop {flag} "
                    "and set the pace with --trace-speedup"
                )


def num_prompts(config: RunConfig) -> int:
    """--num-prompts, or its default: all of a trace's lines, else 1000."""
    if config.dataset.num_prompts is not None:
        return config.dataset.num_prompts
    return flags.MAX_PROMPTS if config.dataset.name == "mooncake" else DEFAULT_NUM_PROMPTS


# The longest replay accepted: a day. Beyond it a trace's clock (years of timestamps) or a
# tiny --trace-speedup is a mistake far likelier than an intent, and nobody watches it end.
MAX_REPLAY_S = 24 * 3600.0


def duration_words(seconds: float) -> str:
    """12.5 -> '12.5 s', 5400 -> '1.5 h', 3e7 -> '347 days', 1e300 -> 'longer than the age of
    the universe': a replay's length as a person reads it."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 1e18:
            return "longer than the age of the universe"
        if seconds >= 2 * size if unit in ("years", "days") else seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def check_replay_length(span_s: float, speedup: float, requests: int) -> None:
    """UsageError, in one line with the way out, when replaying would take over a day."""
    if span_s <= MAX_REPLAY_S:
        return
    least = float(f"{span_s * speedup / MAX_REPLAY_S * 1.001:.3g}")  # rounded up, not down
    raise UsageError(
        f"--trace-speedup {speedup:g}: replaying these {requests:,} requests would take "
        f"{duration_words(span_s)}, over the {duration_words(MAX_REPLAY_S)} allowed; use "
        f"--trace-speedup {least:.3g} or more, or fewer lines with --num-prompts"
    )


@dataclass(frozen=True)
class TraceLoad:
    samples: list[SampleRequest]
    plan: ArrivalPlan
    block: TraceBlock

    @property
    def rate(self) -> float:
        """The offered load, for the file name and the summary (4 significant figures: a
        slow replay's rate, 0.00002 req/s, must not round to a rate of 0)."""
        return float(f"{self.plan.mean_rate:.4g}")


def trace_load(
    config: RunConfig, options: DatasetOptions, vocab: VocabTokenizer | None
) -> TraceLoad | None:
    """The trace's requests and schedule, None without --dataset-name mooncake
    (DatasetError for a bad trace file)."""
    if config.dataset.name != "mooncake":
        return None
    path = options.path or default_trace_path()
    entries = load_trace(path, limit=options.num_prompts)
    samples = sample_trace(
        entries, seed=config.load.seed, vocab=vocab, output_len=config.dataset.output_len
    )
    speedup = config.dataset.trace_speedup or 1.0
    plan = trace_plan([e.timestamp_ms for e in entries], speedup)
    check_replay_length(plan.span_s, speedup, len(entries))
    summary = trace_summary(path, entries, plan.speedup or 1.0, plan.span_s)
    return TraceLoad(samples, plan, summary)
