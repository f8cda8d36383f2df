"""What `tpotbench compare` costs on large points: seconds and peak memory of one A/B compare
of two synthetic points (lognormal TTFT, 20 ms + exponential gaps, the candidate 1 % slower),
for a few sizes. Each size runs in a fresh process so its peak RSS is its own.

    .venv/bin/python benchmarks/compare_cost.py [--sizes 200x64,2000x128,10000x200]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _doc(rng, n: int, tokens: int, scale: float) -> dict:  # type: ignore[no-untyped-def]
    import numpy as np

    ttft = rng.lognormal(np.log(100.0), 0.3, n) * scale
    gaps = (20.0 + rng.exponential(5.0, (n, tokens - 1))) * scale
    e2el = ttft + gaps.sum(axis=1)
    start = np.arange(n) * 0.05
    return {
        "request_rate": "inf",
        "max_concurrency": 32,
        "completed": n,
        "duration": float((start + e2el / 1000).max()),
        "itls": (gaps / 1000).tolist(),
        "tpotbench": {
            "requests": {
                "ok": [True] * n,
                "output_tokens": [tokens] * n,
                "start_s": start.tolist(),
                "ttft_ms": ttft.tolist(),
                "e2el_ms": e2el.tolist(),
            }
        },
    }


def child(n: int, tokens: int) -> None:
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from app.bench.compare.compare import compare_points
    from app.bench.results.read import point_from_dict

    rng = np.random.default_rng(1)
    base = point_from_dict(_doc(rng, n, tokens, 1.0), Path("base.json"))
    cand = point_from_dict(_doc(rng, n, tokens, 1.01), Path("cand.json"))
    started = time.perf_counter_ns()
    result = compare_points([base], [cand])
    seconds = (time.perf_counter_ns() - started) / 1e9
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    point = result.points[0]
    print(
        f"{n:>6} requests x {tokens:>3} tokens: {seconds:6.2f} s compare, peak RSS "
        f"{peak_mb:6.0f} MB (documents included), {point.resamples} resamples, "
        f"{len(point.notes)} subsampling note(s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200x64,2000x128,10000x200")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n, tokens = (int(x) for x in args.child.split("x"))
        child(n, tokens)
        return 0
    for size in args.sizes.split(","):
        subprocess.run([sys.executable, __file__, "--child", size], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
