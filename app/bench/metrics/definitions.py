"""One run under other tools' definitions of TPOT, ITL and throughput, from its per-request data.

The tools agree on TTFT and disagree on the rest; users file issues because the numbers differ.
Each figure below is the tool's own name and formula (sources in the README's definitions
table), computed from our per-request rows:

- vLLM (vllm/benchmarks/serve.py): TPOT = (E2EL − TTFT)/(n − 1) per request, statistics over
  requests; ITL = every gap between content chunks, pooled; output tok/s = tokens / duration.
- GuideLLM (src/guidellm/benchmark/benchmark.py, 0.2–0.3): "time per output token" = E2EL / n,
  TTFT included, weighted by n output tokens; "inter-token latency" = vLLM's TPOT, weighted by
  n − 1 tokens.
- AIPerf (docs/metrics_reference.md): "inter token latency" = vLLM's TPOT per request,
  statistics over requests; "inter chunk latency" = the chunk gaps; "output token throughput
  per user" = 1 / ITL per request; output token throughput = tokens / duration.
- SGLang (python/sglang/bench_serving.py): TPOT as vLLM; ITL = each chunk's gap divided by the
  tokens it carried, repeated once per token, pooled (its native backend, which reads
  cumulative completion_tokens per chunk; without per-chunk counts one ITL per chunk).
- evalscope (evalscope/perf/utils/benchmark_util.py): averages only; "time per output token" =
  mean over successful requests of (latency − TTFT)/(n − 1), a one-token reply counting 0;
  "inter-token latency" = mean of every chunk gap; output throughput = tokens / wall time.

A weighted statistic counts each request once per unit of weight (so a weighted median is the
median of the values repeated weight times, numpy's linear interpolation).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.bench.results.request_rows import RequestRows, request_rows
from app.bench.schema.point_doc import PointDoc

TOOLS = ("vllm", "guidellm", "aiperf", "sglang", "evalscope")
TOOL_NAMES = {
    "vllm": "vLLM",
    "guidellm": "GuideLLM",
    "aiperf": "AIPerf",
    "sglang": "SGLang",
    "evalscope": "evalscope",
}
STATS = ("mean", "median", "p99")
NEEDS_DETAILED = "needs --save-detailed"


@dataclass(frozen=True)
class ToolFigure:
    """One figure as a tool defines it: `name` is the tool's own, `label` a short column title,
    `values` mean/median/p99 (a throughput: mean only), or `missing` says what is needed."""

    tool: str
    key: str
    name: str
    label: str
    unit: str
    weighting: str
    formula: str
    values: dict[str, float]
    missing: str | None = None


def repeated_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """numpy's linear-interpolated quantile of `values` each repeated `weights` times
    (integer weights), without building the repeated array."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    keep = w > 0
    v, w = v[keep], w[keep]
    cum = np.cumsum(w)
    h = (cum[-1] - 1) * q
    low = np.floor(h)
    i_low = min(int(np.searchsorted(cum, low, side="right")), v.size - 1)
    i_high = min(int(np.searchsorted(cum, low + 1, side="right")), v.size - 1)
    return float(v[i_low] + (h - low) * (v[i_high] - v[i_low]))


def _stats(values: np.ndarray, weights: np.ndarray | None = None) -> dict[str, float]:
    if values.size == 0:
        return {}
    if weights is None:
        q = np.percentile(values, [50.0, 99.0])
        return {"mean": float(values.mean()), "median": float(q[0]), "p99": float(q[1])}
    return {
        "mean": float(np.average(values, weights=weights)),
        "median": repeated_quantile(values, weights, 0.5),
        "p99": repeated_quantile(values, weights, 0.99),
    }


def _multi(rows: RequestRows) -> np.ndarray:
    return rows.output_tokens > 1


def _vllm_tpot(rows: RequestRows) -> np.ndarray:
    return np.asarray(rows.tpot_ms[_multi(rows)])


def _pooled_gaps(rows: RequestRows) -> np.ndarray | None:
    if rows.itls_ms is None:
        return None
    return np.concatenate(rows.itls_ms) if rows.itls_ms else np.empty(0)


def _per_token_gaps(rows: RequestRows) -> tuple[np.ndarray, bool] | None:
    """SGLang's ITLs and whether they are per token. Its native backend divides each chunk's
    gap by the tokens the chunk added (meta_info.completion_tokens) and repeats it per token;
    its OpenAI-compatible backends see no per-chunk count and keep one ITL per chunk. So: per
    token when every request's chunk sizes are known (or all chunks carried one token), else
    per chunk, as SGLang itself measures such an endpoint."""
    if rows.itls_ms is None:
        return None
    out = []
    for i, gaps in enumerate(rows.itls_ms):
        counts = rows.itl_tokens[i] if rows.itl_tokens is not None else None
        if counts is None:
            if gaps.size != int(rows.output_tokens[i]) - 1:
                pooled = np.concatenate(rows.itls_ms) if rows.itls_ms else np.empty(0)
                return pooled, False
            counts = np.ones(gaps.size)
        out.append(np.repeat(gaps / counts, counts.astype(int)))
    return (np.concatenate(out) if out else np.empty(0)), True


def _latency(
    tool: str,
    key: str,
    name: str,
    label: str,
    weighting: str,
    formula: str,
    compute: Callable[[], dict[str, float] | str | None],
) -> ToolFigure:
    got = compute()
    if got is None:
        return ToolFigure(tool, key, name, label, "ms", weighting, formula, {}, NEEDS_DETAILED)
    if isinstance(got, str):
        return ToolFigure(tool, key, name, label, "ms", weighting, formula, {}, got)
    return ToolFigure(tool, key, name, label, "ms", weighting, formula, got)


def _of(
    values: np.ndarray | str | None, weights: np.ndarray | None = None
) -> dict[str, float] | str | None:
    if values is None or isinstance(values, str):
        return values
    return _stats(values, weights)


def _mean(values: np.ndarray | None) -> dict[str, float] | None:
    if values is None:
        return None
    return {"mean": float(values.mean())} if values.size else {}


def _rate(
    tool: str, key: str, name: str, label: str, formula: str, value: float | None
) -> ToolFigure:
    missing = None if value is not None else "no duration in the file"
    values = {} if value is None else {"mean": value}
    return ToolFigure(tool, key, name, label, "tok/s", "whole run", formula, values, missing)


def tool_figures(tool: str, rows: RequestRows, duration_s: float) -> list[ToolFigure]:
    """The run's figures under `tool`'s definitions (one of TOOLS)."""
    tokens = float(rows.output_tokens.sum())
    rate = tokens / duration_s if duration_s > 0 else None
    ttft = _latency(tool, "ttft", "TTFT", "TTFT", "per request", "first token − send",
                    lambda: _stats(rows.ttft_ms))  # fmt: skip
    multi = _multi(rows)
    if tool == "vllm":
        return [
            ttft,
            _latency(tool, "tpot", "TPOT", "TPOT", "per request", "(E2EL − TTFT) / (n − 1)",
                     lambda: _stats(_vllm_tpot(rows))),
            _latency(tool, "itl", "ITL", "ITL", "per chunk gap", "gaps between chunks, pooled",
                     lambda: _of(_pooled_gaps(rows))),
            _rate(tool, "output_throughput", "output_throughput", "out tok/s",
                  "output tokens / duration", rate),
        ]  # fmt: skip
    if tool == "guidellm":
        n = rows.output_tokens
        return [
            ttft,
            _latency(tool, "tpot", "time_per_output_token_ms", "TPOT (incl. TTFT)",
                     "per output token", "E2EL / n, weighted by n",
                     lambda: _stats(rows.e2el_ms / n, n)),
            _latency(tool, "itl", "inter_token_latency_ms", "ITL (= vLLM TPOT)",
                     "per output token", "(E2EL − TTFT) / (n − 1), weighted by n − 1",
                     lambda: _stats(rows.tpot_ms[multi], n[multi] - 1)),
            _rate(tool, "output_throughput", "output_tokens_per_second", "out tok/s",
                  "output tokens / duration", rate),
        ]  # fmt: skip
    if tool == "aiperf":
        itl = _vllm_tpot(rows)
        per_user = 1000.0 / itl[itl > 0]
        per_user_figure = ToolFigure(
            tool, "per_user", "output_token_throughput_per_user", "tok/s per user",
            "tok/s", "per request", "1 / inter_token_latency", _stats(per_user),
        )  # fmt: skip
        return [
            ttft,
            _latency(tool, "itl", "inter_token_latency", "ITL (= vLLM TPOT)", "per request",
                     "(latency − TTFT) / (OSL − 1)", lambda: _stats(itl)),
            _latency(tool, "icl", "inter_chunk_latency", "ICL (chunk gaps)", "per chunk gap",
                     "gaps between chunks, pooled", lambda: _of(_pooled_gaps(rows))),
            per_user_figure,
            _rate(tool, "output_throughput", "output_token_throughput", "out tok/s",
                  "total OSL / benchmark duration", rate),
        ]  # fmt: skip
    if tool == "sglang":
        per_token = _per_token_gaps(rows)
        if per_token is None or per_token[1]:
            itl_how = ("per token", "chunk gap / its tokens, once per token, pooled")
        else:
            itl_how = ("per chunk gap", "one per chunk: no per-chunk token counts (as SGLang's "
                       "OpenAI backends measure)")  # fmt: skip
        return [
            ttft,
            _latency(tool, "tpot", "TPOT", "TPOT", "per request", "(latency − TTFT) / (n − 1)",
                     lambda: _stats(_vllm_tpot(rows))),
            _latency(tool, "itl", "ITL", "ITL", *itl_how,
                     lambda: None if per_token is None else _stats(per_token[0])),
            _rate(tool, "output_throughput", "output_throughput", "out tok/s",
                  "output tokens / duration", rate),
        ]  # fmt: skip
    if tool == "evalscope":
        tpot0 = np.where(multi, rows.tpot_ms, 0.0)  # a one-token reply counts as 0
        gaps = _pooled_gaps(rows)
        return [
            _latency(tool, "ttft", "Average time to first token", "TTFT", "per request",
                     "mean of first-chunk latency", lambda: {"mean": float(rows.ttft_ms.mean())}),
            _latency(tool, "tpot", "Average time per output token", "TPOT", "per request",
                     "mean of (latency − TTFT) / (n − 1); 0 for n = 1",
                     lambda: {"mean": float(tpot0.mean())}),
            _latency(tool, "itl", "Average inter-token latency", "ITL", "per chunk gap",
                     "mean of every chunk gap",
                     lambda: _mean(gaps)),
            _rate(tool, "output_throughput", "Output token throughput", "out tok/s",
                  "output tokens / wall time", rate),
        ]  # fmt: skip
    raise ValueError(f"unknown tool {tool!r}: choose one of {', '.join(TOOLS)}")


def point_definitions(doc: PointDoc, duration_s: float, tools: list[str]) -> list[ToolFigure]:
    """Every figure of `tools` for one result document; a file without per-request data (a
    vllm bench serve file without --save-detailed) gets each figure marked missing."""
    rows = request_rows(doc)
    out: list[ToolFigure] = []
    for tool in tools:
        if rows is None or rows.n == 0:
            none = np.empty(0)
            empty = RequestRows(none, none, none, none, None, None)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")  # only the names and formulas are wanted here
                shapes = tool_figures(tool, empty, 0.0)
            for figure in shapes:
                out.append(
                    ToolFigure(
                        tool, figure.key, figure.name, figure.label, figure.unit,
                        figure.weighting, figure.formula, {}, NEEDS_DETAILED,
                    )
                )  # fmt: skip
            continue
        out.extend(tool_figures(tool, rows, duration_s))
    return out
