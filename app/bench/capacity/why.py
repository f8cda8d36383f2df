"""Why a load is the limit: one sentence naming the cause, with the measured evidence.

Read from a point's result file: the client's own health (CPU, event-loop lag), the server's
/metrics summary (KV-cache usage, preemptions, waiting queue), the roofline block (the
batch-aware floor and MBU) and the latency statistics. The first cause whose evidence holds
wins, in this order: the client (its numbers are then at risk, so nothing else can be
trusted), the KV cache (full or preempting), then per failing metric: for TTFT a waiting queue
in the server, else TTFT spent in prefill; for TPOT/ITL a step time near the roofline floor
(bandwidth- or compute-bound), else decode steps stretched by chunked prefill (ITL spikes).

Each cause has a template key and parameters (the window translates the template); `text`
is the English sentence. The roofline what-if (INT4 weights) is an estimate and says so.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.roofline.scenario import Scenario

CLIENT_CPU_SHARE = 0.9  # of one core: a Python client near this cannot keep up
CLIENT_LOOP_LAG_MS = 20.0  # median lateness of the client's 100 ms tick
KV_FULL = 0.95
QUEUE_MEAN = 0.5  # requests waiting in the server, on average over the point
NEAR_FLOOR = 1.6  # TPOT p50 within this factor of the roofline floor: the hardware's limit
ITL_SPIKE = 3.0  # ITL p99 / median at or above this: steps stretched by prefill chunks

TEMPLATES: dict[str, str] = {
    "client": (
        "The client is the limit, not the server: TPOT Bench used {cpu:.0%} of a CPU core and "
        "its event loop ran {lag:.0f} ms late (median), so its timestamps are at risk; use "
        "a faster machine or fewer concurrent streams per process."
    ),
    "kv": (
        "The KV cache is full: usage peaked at {kv:.0%} with {preemptions:g} preemptions, so "
        "the server evicts and recomputes requests; more KV memory (FP8 KV cache, higher "
        "--gpu-memory-utilization) or shorter contexts move the limit."
    ),
    "queue": (
        "Requests queue inside the server: on average {waiting:.1f} waited (peak {peak:g}) "
        "while {running:.0f} ran, so TTFT grows with the queue; the scheduler's limit "
        "(--max-num-seqs) or the KV cache caps the batch."
    ),
    "bandwidth": (
        "Decode is bandwidth-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is "
        "×{ratio:.2f} the roofline floor of {floor:.1f} ms (MBU {mbu:.0%}); only faster memory "
        "or fewer bytes per step (smaller weights, FP8 KV) move it."
    ),
    "compute": (
        "Decode is compute-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is ×{ratio:.2f} "
        "the roofline floor of {floor:.1f} ms, which the GPU's FLOP/s set at this batch; a "
        "smaller batch or a faster GPU moves it."
    ),
    "chunked_prefill": (
        "Decode steps are stretched by prefill: ITL p99 {itl_p99:.0f} ms is ×{ratio:.1f} the "
        "median {itl_p50:.1f} ms, as new prompts' chunks share steps with running decodes; a "
        "smaller --max-num-batched-tokens evens it out."
    ),
    "prefill": (
        "TTFT is spent in prefill: p99 {ttft_p99:.0f} ms for {prompt:.0f}-token prompts "
        "(median {ttft_p50:.0f} ms) with no queue in the server; shorter prompts or "
        "prefix caching lower it."
    ),
    "unknown": (
        "No single cause stands out: {failed} is over its limit, yet the KV cache, the "
        "server's queue, the roofline floor and the spread of ITL all look ordinary; measure "
        "again (--runs 3) to tell a real limit from noise."
    ),
    "unknown_blind": (
        "No single cause stands out in the measurements: {failed} is over its limit; scrape "
        "/metrics (--scrape-metrics) and set the roofline (--gpu) for more evidence."
    ),
}

ESTIMATE_TEMPLATE = (
    "Estimate from the roofline, not a measurement: {fmt} weights lower the floor at batch "
    "{batch:.0f} from {floor:.1f} to {new_floor:.1f} ms; the bandwidth-bound part of the limit "
    "would move by about ×{gain:.1f}."
)


@dataclass(frozen=True)
class Why:
    key: str
    params: dict[str, Any]
    evidence: dict[str, Any]
    estimate: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        out = TEMPLATES[self.key].format(**self.params)
        if self.estimate:
            out += " " + ESTIMATE_TEMPLATE.format(**self.estimate)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.key,
            "text": self.text,
            "params": self.params,
            "evidence": self.evidence,
            "estimate": self.estimate,
        }


def _num(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _spread(block: dict[str, Any], key: str) -> tuple[float | None, float | None]:
    item = block.get(key) or {}
    return (
        (_num(item.get("mean")), _num(item.get("max"))) if isinstance(item, dict) else (None, None)
    )


def _scenario(roofline: dict[str, Any]) -> tuple[Scenario, int]:
    """The point's roofline scenario and its batch, from a result's roofline block."""
    from app.roofline.scenario import Scenario

    scenario = Scenario.from_ids(
        str(roofline["gpu_id"]),
        str(roofline["model_id"]),
        str(roofline["fmt"]),
        str(roofline["kv_dtype"]),
        int(roofline.get("context") or 512),
    )
    return scenario, max(1, round(float(roofline.get("batch") or 1)))


def int4_estimate(roofline: dict[str, Any], fmt: str = "awq-int4") -> dict[str, Any] | None:
    """The floor at the point's batch with INT4 weights instead (roofline only)."""
    from app.roofline.catalog import get_weight_format

    if not roofline or roofline.get("fmt") == fmt:
        return None
    with contextlib.suppress(Exception):  # a context the catalogue no longer knows
        scenario, batch = _scenario(roofline)
        floor = scenario.floor(batch).seconds * 1e3
        new = replace(scenario, fmt=get_weight_format(fmt)).floor(batch).seconds * 1e3
        return {
            "fmt": "INT4 (AWQ)",
            "batch": batch,
            "floor": floor,
            "new_floor": new,
            "gain": floor / new,
        }
    return None


def explain(result: dict[str, Any], failed: list[str] | None = None) -> Why:
    """The cause of a point's latency, from its result dict. `failed` names the SLO checks it
    failed ('tpot:p99:50' ...) and steers the last, metric-specific causes; without it the
    cause is read for TPOT then TTFT."""
    block = result.get("tpotbench") or {}
    server = block.get("server_metrics") or {}
    roofline = block.get("roofline") or {}
    client = block.get("client") or {}
    metrics = [label.split(":")[0] for label in failed or []] or ["tpot", "ttft"]

    cpu = _num(client.get("cpu_share")) or 0.0
    lag = _num((client.get("loop_lag_ms") or {}).get("median")) or 0.0
    if cpu >= CLIENT_CPU_SHARE or lag >= CLIENT_LOOP_LAG_MS:
        return Why("client", {"cpu": cpu, "lag": lag}, {"cpu_share": cpu, "loop_lag_ms": lag})

    kv_mean, kv_peak = _spread(server, "kv_cache_usage")
    preemptions = _num(server.get("preemptions")) or 0.0
    if preemptions > 0 or (kv_peak or 0.0) >= KV_FULL:
        evidence = {"kv_peak": kv_peak, "kv_mean": kv_mean, "preemptions": preemptions}
        return Why("kv", {"kv": kv_peak or 0.0, "preemptions": preemptions}, evidence)

    wait_mean, wait_peak = _spread(server, "waiting")
    run_mean, _ = _spread(server, "running")
    tpot50 = _num(result.get("median_tpot_ms"))
    itl50, itl99 = _num(result.get("median_itl_ms")), _num(result.get("p99_itl_ms"))
    for metric in metrics:
        if metric in ("ttft", "e2el") and (wait_mean or 0.0) >= QUEUE_MEAN:
            # A queue delays the first token; it does not slow the decoding of running requests.
            params = {"waiting": wait_mean, "peak": wait_peak or 0.0, "running": run_mean or 0.0}
            return Why("queue", params, dict(params))
        if metric in ("tpot", "itl", "e2el"):
            floor = _num(roofline.get("floor_tpot_ms"))
            if tpot50 and floor and tpot50 <= NEAR_FLOOR * floor:
                key = "bandwidth" if _bound(roofline) == "memory" else "compute"
                params = {
                    "tpot": tpot50,
                    "batch": _num(roofline.get("batch")) or 1.0,
                    "ratio": tpot50 / floor,
                    "floor": floor,
                    "mbu": _num(roofline.get("mbu")) or 0.0,
                }
                estimate = int4_estimate(roofline) if key == "bandwidth" else None
                return Why(key, params, dict(params), estimate)
            if itl50 and itl99 and itl99 >= ITL_SPIKE * itl50:
                params = {"itl_p99": itl99, "itl_p50": itl50, "ratio": itl99 / itl50}
                return Why("chunked_prefill", params, dict(params))
        if metric == "ttft":
            ttft99, ttft50 = _num(result.get("p99_ttft_ms")), _num(result.get("median_ttft_ms"))
            completed = _num(result.get("completed")) or 0.0
            prompt = (_num(result.get("total_input_tokens")) or 0.0) / max(1.0, completed)
            if ttft99 is not None and ttft50 is not None:
                params = {"ttft_p99": ttft99, "ttft_p50": ttft50, "prompt": prompt}
                return Why("prefill", params, dict(params))
    failed_text = ", ".join(failed or []) or "latency"
    # With /metrics and the roofline read, "nothing stands out" is itself a finding.
    seen = bool(server) and not server.get("error") and bool(roofline.get("floor_tpot_ms"))
    return Why("unknown" if seen else "unknown_blind", {"failed": failed_text}, {})


def _bound(roofline: dict[str, Any]) -> str:
    """'memory' or 'compute': which roof the floor at the point's batch sits on."""
    with contextlib.suppress(Exception):
        scenario, batch = _scenario(roofline)
        return scenario.floor(batch).bound
    return "memory"
