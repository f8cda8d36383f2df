"""Result documents built from known per-request samples, for compare and definitions tests."""

from __future__ import annotations

from typing import Any

import numpy as np


def point_doc(
    rng: np.random.Generator,
    n: int = 150,
    *,
    tokens: int = 7,
    scale: float = 1.0,
    rate: float | str = "inf",
    conc: int = 16,
    dataset: str = "random",
    gaps: bool = True,
) -> dict[str, Any]:
    """One point of `n` requests: TTFT ~ lognormal(100 ms), gaps ~ 20 ms + exponential(5 ms),
    all times multiplied by `scale`; requests start at a steady pace."""
    ttft = rng.lognormal(np.log(100.0), 0.3, n) * scale
    itls = [(20.0 + rng.exponential(5.0, tokens - 1)) * scale for _ in range(n)]
    e2el = ttft + np.asarray([g.sum() for g in itls])
    start = np.arange(n) * 0.05
    duration = float((start + e2el / 1000).max())
    doc: dict[str, Any] = {
        "request_rate": rate,
        "max_concurrency": conc,
        "completed": n,
        "failed": 0,
        "duration": duration,
        "output_throughput": n * tokens / duration,
        "mean_ttft_ms": float(ttft.mean()),
        "tpotbench": {
            "dataset": {"name": dataset, "path": None, "seed": 0},
            "requests": {
                "ok": [True] * n,
                "prompt_tokens": [64] * n,
                "output_tokens": [tokens] * n,
                "start_s": start.tolist(),
                "ttft_ms": ttft.tolist(),
                "tpot_ms": ((e2el - ttft) / (tokens - 1)).tolist(),
                "e2el_ms": e2el.tolist(),
                "error_kind": [None] * n,
            },
        },
    }
    if gaps:
        doc["itls"] = [(g / 1000).tolist() for g in itls]
    return doc
