"""How late a Mooncake trace replay sends against the trace's schedule, and the prefix-cache
hit rate the simulator sees against the one the trace's hash ids predict.

    .venv/bin/python benchmarks/trace_lateness.py [--speedups 1,10] [--trace FILE]
        [--max-concurrency N] [--nice -10] [--sim-spin-us 0]

Starts `tpotbench sim` as a child process (its own interpreter), then for each speed-up
runs `tpotbench sweep --dataset-name mooncake --trace-speedup X` (the shipped 300-request
trace by default, no concurrency cap: every request is sent when the trace says, however
far behind the server falls) and prints, per speed-up:
- send lateness (the moment the request's bytes went out less its due time on the trace's
  clock divided by X): median, p99, max, and how many sends were more than 10 ms late;
- the "submit" part of it: due time to the request handed to the HTTP client (the loop's
  wakeup and any cap's slot wait); the rest is the HTTP client's (a connection to open,
  since idle kept-alive ones are dropped after 4 s as servers close them, and the write);
- the client's own loop lag and CPU share in the same run (how late a bare 100 ms timer woke), the
  machine's share of any lateness: on a loaded machine a runnable process waits for a core;
- prefix-cache hit rates: predicted by the hash ids (unbounded cache), from the replies'
  usage (cached_tokens) and from the simulator's /metrics counters.
Lateness depends on the machine's load: compare speed-ups run in the same minute.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from app import jsonfile
from app.sim.embedded import start_sim_process


def _replay(base_url: str, out: Path, speedup: str, extra: list[str], nice: int) -> dict:
    cmd = [sys.executable, "-m", "app", "sweep", "--base-url", base_url, "--backend", "openai"]
    cmd += ["--dataset-name", "mooncake", "--trace-speedup", speedup, "--server-metrics"]
    cmd += ["--disable-tqdm", "--result-dir", str(out), *extra]
    subprocess.run(cmd, check=True, capture_output=True, preexec_fn=lambda: os.nice(nice))
    (path,) = out.glob("*.json")
    return jsonfile.loads(path.read_text(encoding="utf-8"))  # the file as written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speedups", default="1,10")
    parser.add_argument("--trace", help="a Mooncake trace (default: the shipped one)")
    parser.add_argument("--max-concurrency", help="cap the replay (default: none)")
    parser.add_argument(
        "--sim-spin-us",
        type=float,
        default=3000.0,
        help="the simulator's busy-wait before each step (its default 3000 keeps one core "
        "nearly busy while it serves; 0 leaves both cores to the client on a 2-core machine)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run the client at this niceness (negative needs root): on a shared machine a "
        "higher priority takes most of the machine's scheduling delay out of the sends",
    )
    args = parser.parse_args()
    extra = ["--dataset-path", args.trace] if args.trace else []
    if args.max_concurrency:
        extra += ["--max-concurrency", args.max_concurrency]
    cores = os.cpu_count()
    print(
        f"load average {os.getloadavg()[0]:.1f} on {cores} cores; client nice {args.nice}, "
        f"sim spin {args.sim_spin_us:g} us"
    )
    head = (
        f"{'speedup':>7} {'reqs':>5} {'req/s':>6} | {'late p50':>8} {'p99':>7} {'max':>7} "
        f"{'>10ms':>5} {'submit p99':>10} {'max':>6} | "
        f"{'loop lag p99':>12} {'max':>6} {'cpu':>5} | "
        f"{'hit pred':>8} {'usage':>6} {'/metrics':>8}"
    )
    sim = start_sim_process(["--spin-us", str(args.sim_spin_us)])
    try:
        print(head)
        for speedup in args.speedups.split(","):
            with tempfile.TemporaryDirectory() as out:
                raw = _replay(sim.base_url, Path(out), speedup.strip(), extra, args.nice)
            block = raw["tpotbench"]
            late = block["schedule_lateness_ms"]
            lag = block["client"]["loop_lag_ms"]
            submit = late["submit"]
            server = (block.get("server_metrics") or {}).get("prefix_cache") or {}
            client = block.get("prefix_cache_client") or {}
            print(
                f"{speedup:>6}x {late['count']:>5} {raw['request_rate']:>6.2f} | "
                f"{late['median_ms']:>8.2f} {late['p99_ms']:>7.2f} {late['max_ms']:>7.2f} "
                f"{late['late']:>5} {submit['p99_ms']:>10.2f} {submit['max_ms']:>6.2f} | "
                f"{lag['p99']:>12.2f} "
                f"{lag['max']:>6.2f} {block['client']['cpu_share']:>5.0%} | "
                f"{block['trace']['predicted_hit_rate']:>8.1%} "
                f"{client.get('hit_rate') or 0:>6.1%} {server.get('hit_rate') or 0:>8.1%}",
                flush=True,
            )
    finally:
        sim.stop()
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
