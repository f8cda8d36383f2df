"""Scale-out: client fidelity and cost with the load split over worker processes or Ray actors.

Against benchmarks/chunk_server.py (fixed ITL, logs when it wrote each chunk on CLOCK_MONOTONIC),
runs one point of N streams at rate inf per variant and prints, as benchmarks/fidelity_stream.py
does: TTFT excess (client TTFT - server TTFT), ITL p99 error, client CPU per 1,000 tokens (driver
plus every worker), and each worker's peak memory per stream it carried.

  inproc     the single-process path (fidelity_stream's 'ours' variant, in a child process)
  workers-1  one worker process through the worker driver (cost of the driver and the pipe)
  workers-2  two worker processes, each pinned to a core
  ray-2      two Ray actors on a local cluster (needs: pip install 'tpotbench[distributed]')

  python benchmarks/workers_scaleout.py                       # 256 and 1024 streams, all
  python benchmarks/workers_scaleout.py --conc 256 --variants inproc,workers-2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fidelity_stream import _print_row, _start_server, _uptime, evaluate  # noqa: E402

VARIANTS = ("inproc", "workers-1", "workers-2", "ray-2")


def _inproc(url: str, conc: int, total: int, tokens: int, tag: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [sys.executable, str(ROOT / "benchmarks" / "fidelity_stream.py"), "--child", "ours"]
        cmd += ["--url", url, "--conc", str(conc), "--total", str(total)]
        cmd += ["--tokens", str(tokens), "--tag", tag, "--out", str(out)]
        subprocess.run(cmd, check=True, timeout=1800)
        return json.loads(out.read_text())


def _workers(url: str, conc: int, total: int, tokens: int, tag: str, n: int, ray: bool) -> dict:
    from app.bench.http.endpoint import resolve_endpoint
    from app.bench.http.request import RequestSpec
    from app.bench.load.arrivals import LoadState, arrival_offsets
    from app.bench.load.workers.driver import run_workers
    from app.bench.load.workers.local import LocalPool
    from app.bench.load.workers.messages import WorkerJob
    from app.bench.load.workers.plan import split_load

    resolved = resolve_endpoint(url, None, "chat", model="bench")
    specs = [RequestSpec("hi", 1, tokens, request_id=f"{tag}-{i}") for i in range(total)]
    shares = split_load(arrival_offsets(total, float("inf")), conc, n)
    jobs = [
        WorkerJob(share=s, specs=[specs[i] for i in s.indices], resolved=resolved, cpu=s.worker)
        for s in shares
    ]
    if ray:
        from app.bench.load.workers.ray_pool import RayPool

        pool = RayPool("auto")
    else:
        pool = LocalPool()

    async def main():
        return await run_workers(pool, jobs, cancel=asyncio.Event(), state=LoadState())

    cpu0 = time.process_time()
    out = asyncio.run(main())
    driver_cpu = time.process_time() - cpu0
    for w, reason in out.lost.items():
        print(f"#   worker {w} lost: {reason}", flush=True)
    streams = {s.worker: s.max_concurrency or len(s.indices) for s in shares}
    rss = {w: out.max_rss_kib.get(w, 0) / 1024 for w in streams}
    print(
        "#   per worker: "
        + ", ".join(
            f"w{w} {rss[w]:.0f} MiB peak RSS for {streams[w]} streams"
            f" ({rss[w] * 1024 / streams[w]:.0f} KiB/stream), {out.cpu_s.get(w, 0):.2f} s CPU"
            for w in streams
        )
        + f"; driver {driver_cpu:.2f} s CPU",
        flush=True,
    )
    return {
        "records": [
            {
                "id": r.request_id,
                "ok": r.ok,
                "error": r.error,
                "send_ns": r.send_ns,
                "chunk_ns": r.chunk_ns,
                "tokens": r.output_tokens,
            }
            for r in out.load.records
        ],
        "cpu_s": driver_cpu + sum(out.cpu_s.values()),
        "wall_s": out.load.duration_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--conc", default="256,1024")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--itl-ms", type=float, default=20.0)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--waves", type=int, default=2, help="requests per stream slot")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variant(s) {sorted(unknown)}; choose from {VARIANTS}")
    if "ray-2" in variants:
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        import ray

        ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    server, url = _start_server(args.itl_ms, args.tokens)
    print(f"# {_uptime()}")
    print(f"# server: ITL {args.itl_ms} ms, {args.tokens} tokens, TTFT 5 ms; {url}")
    print(
        f"{'variant':<13}{'conc':>5}{'reqs':>6}{'fail':>5}{'TTFTexcess':>11}{'p99':>8}"
        f"{'lag':>7}{'ITLp99err':>10}{'gapErrP99':>10}{'TPOTerr%':>9}{'CPU/1k':>8}{'tok/s':>8}"
    )
    try:
        for conc in [int(c) for c in args.conc.split(",")]:
            total = conc * args.waves
            for variant in variants:
                tag = f"{variant}-{conc}"
                if variant == "inproc":
                    res = _inproc(url, conc, total, args.tokens, tag)
                else:
                    n = int(variant.rsplit("-", 1)[1])
                    res = _workers(url, conc, total, args.tokens, tag, n, variant == "ray-2")
                with urllib.request.urlopen(f"{url}/truth") as resp:
                    truth = json.loads(resp.read())
                _print_row(variant, conc, evaluate(res, truth))
    finally:
        server.terminate()
        server.wait()
    print(f"# {_uptime()}")


if __name__ == "__main__":
    main()
