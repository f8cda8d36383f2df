"""A measured point's result document: vLLM's keys, then the tpotbench block with the server's
/metrics summary, the roofline floor, the client's own load, conversations, the prefix cache,
send lateness, the trace and SLO verdicts."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from app.bench.capacity.slo import slo_block
from app.bench.capacity.why import explain
from app.bench.datasets.prompts import SampleRequest
from app.bench.load.arrivals import LoadOutcome
from app.bench.metrics.lateness import lateness_summary
from app.bench.metrics.point import PointMetrics, compute_point_metrics
from app.bench.results.load_warnings import check_load
from app.bench.results.write import PointInfo, build_result, context_block, roofline_block
from app.bench.schema.point_blocks import (
    ClientBlock,
    EarlyStopBlock,
    LoopLag,
    PrefixCacheBlock,
    RooflineBlock,
    ServerMetricsBlock,
    SloBlock,
    WorkersBlock,
)
from app.bench.schema.point_check import as_written
from app.bench.schema.point_doc import PointDoc
from app.bench.selftest.store import point_block, point_streams
from app.bench.serverstats.scrape import MetricsScraper, result_block, scrape_error
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.prefix_cache import expected_share, hit_rate, stale_cache_warning
from app.bench.sweep.roofline_point import roofline_batch
from app.bench.sweep.run_context import RunContext


@dataclass
class Measured:
    """What running a point produced, before it is summed up."""

    outcome: LoadOutcome
    workers_block: WorkersBlock | None  # what the load workers cost, when there were any
    started_at: datetime
    cpu_share: float  # this process's CPU over the point, in cores
    lags_ms: list[float]  # how late the loop woke for each tick
    scraper: MetricsScraper | None  # the point's /metrics scrapes, when asked for


# Long on purpose: the document is built in file order (the keys' order is the format), each
# block one call to a helper below.
def point_document(
    config: RunContext,
    point: PointSpec,
    samples: Sequence[SampleRequest],
    measured: Measured,
    cache_reset: str | None,
    early_stop: EarlyStopBlock | None,
) -> PointDoc:
    """The point's document; `early_stop` says why the point was stopped early (None: it was
    not)."""
    outcome = measured.outcome
    conversations = config.conversations
    num_requests = len(samples) if conversations is None else conversations.num_requests
    goodput = config.effective_goodput
    metrics = compute_point_metrics(
        outcome.records,
        outcome.duration_s,
        percentiles=config.percentiles,
        goodput=goodput,
        origin_ns=outcome.origin_ns,
        count_queue_in_e2el=point.max_concurrency is not None
        and not math.isinf(point.request_rate),
    )
    server_block = _server_block(measured.scraper, metrics)
    doc = build_result(
        _point_info(config, point, num_requests, goodput),
        metrics,
        save_detailed=config.save_detailed,
        cancelled=outcome.cancelled and early_stop is None,
        aborted=outcome.aborted,
        not_sent=outcome.not_sent,
        started_at=measured.started_at,
        roofline=_roofline(config, point, outcome, num_requests, metrics, server_block),
        server_metrics=server_block,
    )
    ceiling = point_block(config.client_ceiling, point_streams(point.max_concurrency, num_requests))
    warning = stale_cache_warning(server_block, cache_reset, expected_share(samples, config.trace))
    if conversations is not None:
        doc = conversations.annotate(doc, outcome, metrics)
        # A later turn resends its history: hits up to that share are the workload's own.
        conv = doc.typed_blocks.conversations
        history = (conv.history_share if conv is not None else None) or 0.0
        if (hit_rate(server_block) or 0.0) <= history + 0.05:
            warning = None
    blocks = replace(
        doc.typed_blocks,
        workers=measured.workers_block,
        client=ClientBlock(round(measured.cpu_share, 4), _lag_summary(measured.lags_ms)),
        client_ceiling=ceiling,
        prefix_cache=PrefixCacheBlock(cache_reset, hit_rate(server_block), warning),
        schedule_lateness_ms=lateness_summary(outcome.records),
        trace=config.trace,
        early_stop=early_stop,
    )
    if config.slos:
        slo = _slo(config, metrics, stopped_early=early_stop is not None)
        blocks = replace(blocks, slo=slo)
        if not slo.passed:
            # Why it failed, with the evidence read (a fragment's why abstains and says so).
            failed = [c.slo for c in slo.checks if not c.passed]
            why = explain(replace(doc, blocks=blocks), failed or None)
            blocks = replace(blocks, why=why)
    doc = replace(doc, blocks=blocks)
    # Whether the load happened as planned (the target reached, sends on schedule, the client
    # not saturated): typed entries, empty when it did.
    warnings = tuple(w.block() for w in check_load(doc))
    return replace(doc, blocks=replace(blocks, load_warnings=warnings))


def _point_info(
    config: RunContext, point: PointSpec, num_requests: int, goodput: dict[str, float] | None
) -> PointInfo:
    return PointInfo(
        backend=config.backend,
        model_id=config.model,
        endpoint_url=config.resolved.url,
        api=config.resolved.api,
        num_prompts=num_requests,
        request_rate=point.request_rate,
        max_concurrency=point.max_concurrency,
        burstiness=config.burstiness,
        label=config.label,
        tokenizer_id=config.tokenizer_id,
        point_index=point.index,
        percentile_metrics=config.percentile_metrics,
        percentiles=config.percentiles,
        goodput=goodput,
        num_warmups=config.num_warmups,
        seed=config.seed,
        dataset_name=config.dataset_name,
        dataset_path=config.dataset_path,
        profile=config.profile,
        run_id=config.run_id,
    )


def _server_block(
    scraper: MetricsScraper | None, metrics: PointMetrics
) -> ServerMetricsBlock | None:
    """The server's /metrics over the point, as its file holds it (the why reads these
    figures). Whatever the page held, the point is saved: a summary that fails is recorded as
    an error in its block."""
    if scraper is None:
        return None
    try:
        return as_written(
            result_block(
                scraper,
                context_len=_longest_context(metrics),
                client=(
                    {f"mean_{k}_ms": metrics.stats[k].mean for k in ("ttft", "itl", "e2el")}
                    if metrics.completed
                    else None
                ),
            )
        )
    except Exception as exc:
        return scrape_error(
            scraper.metrics_url, f"summary failed: {type(exc).__name__}: {exc}"[:300]
        )


def _roofline(
    config: RunContext,
    point: PointSpec,
    outcome: LoadOutcome,
    num_requests: int,
    metrics: PointMetrics,
    server_block: ServerMetricsBlock | None,
) -> RooflineBlock | None:
    """The run's roofline context with the floor at the point's batch and its TPOT p50's MBU."""
    if not config.roofline:
        return None
    found = roofline_batch(point, outcome, num_requests, server_block)
    tpot = metrics.stats.get("tpot")
    p50 = tpot.median if tpot is not None and metrics.completed else None
    if found is not None:
        # A context the catalogue does not know (yet) is still recorded, just without a floor.
        with contextlib.suppress(KeyError, ValueError, ArithmeticError):
            return roofline_block(config.roofline, *found, p50)
    return context_block(config.roofline)


def _slo(config: RunContext, metrics: PointMetrics, *, stopped_early: bool) -> SloBlock:
    assert config.slos is not None
    stats = {
        k: {
            "mean": v.mean,
            "median": v.median,
            **{f"p{w}": x for w, x in v.percentiles.items()},
        }
        for k, v in metrics.stats.items()
    }
    block = slo_block(
        config.slos,
        stats,
        completed=metrics.completed,
        failed=metrics.failed,
        goodput=metrics.request_goodput,
        duration_s=metrics.duration_s,
    )
    if stopped_early:  # an early stop is a proven failure even if the finished part passed
        block = replace(block, passed=False)
    return block


def _longest_context(metrics: PointMetrics) -> int | None:
    """The longest prompt + reply that succeeded: how many such requests the KV pool holds."""
    lengths = [
        i + o
        for i, o, kind in zip(
            metrics.input_lens, metrics.output_lens, metrics.error_kinds, strict=True
        )
        if kind is None and i + o > 0
    ]
    return max(lengths, default=None)


def _lag_summary(lags_ms: list[float]) -> LoopLag | None:
    if not lags_ms:
        return None
    ordered = sorted(lags_ms)
    return LoopLag(
        median=round(ordered[len(ordered) // 2], 3),
        p99=round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        max=round(ordered[-1], 3),
    )
