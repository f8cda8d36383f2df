"""What each metric means, in the UI language: the tooltips of the table headers, the form's
load fields and the charts (one text per metric, with GuideLLM's and AIPerf's names)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.ui.plots.live import LiveCharts
from app.ui.plots.sweep_curves import SweepCurves


def metric_tooltips() -> dict[str, str]:
    """What each column means, with the names GuideLLM and AIPerf use for the same quantity."""
    # Long but flat: a table of texts, one per metric, read best in one place.
    ttft = QCoreApplication.translate(
        "Metrics",
        "Time to first token: from sending the request to the first streamed message with "
        "generated content. GuideLLM: time_to_first_token_ms; AIPerf: Time to First Token.",
    )
    tpot = QCoreApplication.translate(
        "Metrics",
        "Time per output token, excluding the first: (E2EL − TTFT) / (output tokens − 1) per "
        "request, output tokens from the server's usage. GuideLLM: inter_token_latency_ms; "
        "AIPerf: Inter Token Latency (note: their 'ITL' is this TPOT).",
    )
    itl = QCoreApplication.translate(
        "Metrics",
        "Inter-token latency: each gap between successive streamed chunks, pooled over all "
        "requests (a chunk with several tokens is one gap). AIPerf: Inter Chunk Latency; "
        "GuideLLM has no per-chunk equivalent.",
    )
    e2el = QCoreApplication.translate(
        "Metrics",
        "End-to-end latency: from sending the request to its last streamed chunk. "
        "GuideLLM: request_latency; AIPerf: Request Latency.",
    )
    return {
        "ttft": ttft,
        "tpot": tpot,
        "itl": itl,
        "e2el": e2el,
        "request_rate": QCoreApplication.translate(
            "Metrics",
            "Target request rate (Poisson arrivals); inf sends every request at once, "
            "limited only by the concurrency.",
        ),
        "max_concurrency": QCoreApplication.translate(
            "Metrics",
            "Most requests in flight at once. GuideLLM: concurrent rate; AIPerf: --concurrency.",
        ),
        "completed": QCoreApplication.translate("Metrics", "Requests that finished successfully."),
        "failed": QCoreApplication.translate(
            "Metrics", "Requests that failed, grouped by kind in the result file."
        ),
        "request_throughput": QCoreApplication.translate(
            "Metrics",
            "Completed requests per second over the point's duration. "
            "GuideLLM: requests_per_second; AIPerf: Request Throughput.",
        ),
        "output_throughput": QCoreApplication.translate(
            "Metrics",
            "Generated tokens per second over the point's duration (tokens from usage). "
            "GuideLLM: output_tokens_per_second; AIPerf: Output Token Throughput.",
        ),
        "median_ttft_ms": ttft,
        "p99_ttft_ms": ttft,
        "median_tpot_ms": tpot,
        "p99_tpot_ms": tpot,
        "p99_itl_ms": itl,
        "median_e2el_ms": e2el,
        "duration": QCoreApplication.translate(
            "Metrics", "From the first request sent to the last one completed, in seconds."
        ),
        "floor_tpot_ms": QCoreApplication.translate(
            "Metrics",
            "Roofline floor: the fastest TPOT the chosen GPU allows at this point's batch = "
            "max(bytes read per decode step / memory bandwidth, FLOPs / peak). The batch is "
            "the server's mean running requests when scraped, else the concurrency (or the "
            "mean requests in flight at a fixed rate). Empty when the run chose no GPU.",
        ),
        "mbu": QCoreApplication.translate(
            "Metrics",
            "Memory-bandwidth utilisation: bytes per decode step / TPOT P50 / the GPU's "
            "bandwidth. 100 % would mean the TPOT sits on the floor.",
        ),
        "ttft_first_turn_ms": QCoreApplication.translate(
            "Metrics",
            "Conversations: mean TTFT of each session's first turn (no history to reuse). "
            "AIPerf and vLLM's multi-turn benchmark report TTFT over all turns.",
        ),
        "ttft_later_turns_ms": QCoreApplication.translate(
            "Metrics",
            "Conversations: mean TTFT of the turns after the first, which resend the whole "
            "history; with prefix caching the server skips the history's prefill.",
        ),
        "ttfo_ms": QCoreApplication.translate(
            "Metrics",
            "Reasoning models: mean time to first output token, the first visible answer "
            "token after the reasoning. TTFT counts the first token of any kind (vLLM). "
            "GuideLLM: time to first output token; AIPerf: TTFO.",
        ),
        "tpot_answer_ms": QCoreApplication.translate(
            "Metrics",
            "Reasoning models: mean TPOT of the answer phase alone, after the reasoning ends. "
            "The TPOT columns cover the whole reply.",
        ),
        "reasoning_tokens": QCoreApplication.translate(
            "Metrics",
            "Reasoning models: mean reasoning tokens per request, from the server's usage "
            "(completion_tokens_details.reasoning_tokens), else counted from reasoning deltas.",
        ),
        "client_hit_rate": QCoreApplication.translate(
            "Metrics",
            "Prefix cache hit rate as the replies report it: cached prompt tokens "
            "(usage.prompt_tokens_details.cached_tokens) / prompt tokens.",
        ),
        "server_hit_rate": QCoreApplication.translate(
            "Metrics",
            "Prefix cache hit rate as the server's /metrics counts it over the point: "
            "prefix-cache hits / queries (vLLM's counters), every client included.",
        ),
        "acceptance_rate": QCoreApplication.translate(
            "Metrics",
            "Speculative decoding: accepted draft tokens / drafted tokens over the point, from "
            "vLLM's spec-decode counters in /metrics.",
        ),
        "trace_lateness_p99_ms": QCoreApplication.translate(
            "Metrics",
            "Trace replay: P99 of how late each request went out against the trace's schedule "
            "(sped up by --trace-speedup). Large values mean the client, not the server, set "
            "the pace.",
        ),
        "acceptance_length": QCoreApplication.translate(
            "Metrics",
            "Speculative decoding: mean tokens produced per decode step (1 + accepted drafts), "
            "from vLLM's spec-decode counters in /metrics.",
        ),
    }


def set_chart_tooltips(curves: SweepCurves, live: LiveCharts | None = None) -> None:
    """Hovering a chart tells what it plots, in the same words as the table headers."""
    tips = metric_tooltips()
    curves.throughput.setToolTip(tips["output_throughput"])
    curves.tpot.setToolTip(tips["median_tpot_ms"])
    curves.ttft.setToolTip(tips["p99_ttft_ms"])
    if live is not None:
        live.itl.setToolTip(tips["p99_itl_ms"])
        live.tpot.setToolTip(tips["median_tpot_ms"])
