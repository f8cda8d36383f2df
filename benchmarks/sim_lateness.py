"""How late the simulator writes tokens against its own deadlines, under 128 streams.

Starts `tpotbench sim` as a child process, opens 128 concurrent streaming requests
(ignore_eos, long replies) and, after a warm-up, reads the simulator's own record of
(write time - the token's deadline) from its /sim/stats route. The step overhead is raised so
that 128 streams produce about 1,000 tokens/s, the load named in the issue.

A token's deadline is its step's end plus its turn in the front end (`--frontend-us-per-token`,
20 us by default: the simulator, like vLLM's API server, writes a step's tokens one request
after another). With 0 every token is due at the step's end and the p99 is simply the time
128 loopback writes take (~10 us each here).

The simulator runs on one core and this client on the others (Linux CPU affinity): on a
2-core machine an unpinned client woken by the simulator's writes is placed on the
simulator's core and preempts it for a 4 ms scheduler tick, which is then what gets measured.
`--no-pin` shows that.

    .venv/bin/python benchmarks/sim_lateness.py [--streams 128] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

import httpx

from app.sim.embedded import start_sim_process


async def _stream(client: httpx.AsyncClient, url: str, counts: list[int], stop: float) -> None:
    body = {
        "model": "qwen2.5-7b",
        "prompt": "Tell me a long story about the river and the stone.",
        "max_tokens": 3000,
        "ignore_eos": True,
        "stream": True,
    }
    while time.monotonic() < stop:
        async with client.stream("POST", url, json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    counts[0] += 1
                if time.monotonic() >= stop:
                    break


async def _run(base_url: str, streams: int, warmup_s: float, seconds: float) -> dict:
    limits = httpx.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    timeout = httpx.Timeout(60.0)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        counts = [0]
        stop = time.monotonic() + warmup_s + seconds
        url = f"{base_url}/v1/completions"
        tasks = [asyncio.ensure_future(_stream(client, url, counts, stop)) for _ in range(streams)]
        await asyncio.sleep(warmup_s)
        await client.get(f"{base_url}/sim/stats", params={"reset": "1"})
        start_count, t0 = counts[0], time.monotonic()
        await asyncio.sleep(seconds)
        stats = (await client.get(f"{base_url}/sim/stats")).json()
        rate = (counts[0] - start_count) / (time.monotonic() - t0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    stats["client_tokens_per_s"] = rate
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=128)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument(
        "--step-overhead-ms",
        type=float,
        default=80.0,
        help="raises the step time so 128 streams run near 1,000 tok/s",
    )
    parser.add_argument("--spin-us", type=float, default=3000.0, help="passed to tpotbench sim")
    parser.add_argument(
        "--frontend-us-per-token",
        type=float,
        default=None,
        help="passed to tpotbench sim (default: the simulator's own, 20)",
    )
    parser.add_argument(
        "--no-pin", action="store_true", help="leave both processes to the OS scheduler"
    )
    args = parser.parse_args()
    sim_args = ["--step-overhead-ms", str(args.step_overhead_ms), "--spin-us", str(args.spin_us)]
    if args.frontend_us_per_token is not None:
        sim_args += ["--frontend-us-per-token", str(args.frontend_us_per_token)]
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pin = not args.no_pin and len(cpus) >= 2
    with start_sim_process(sim_args) as sim:
        if pin:
            assert sim.pid is not None
            os.sched_setaffinity(sim.pid, {cpus[0]})
            os.sched_setaffinity(0, set(cpus[1:]))
        stats = asyncio.run(_run(sim.base_url, args.streams, args.warmup, args.seconds))
    load = os.getloadavg()
    late = stats["lateness_us"]
    frontend = args.frontend_us_per_token if args.frontend_us_per_token is not None else 20.0
    where = f"simulator on CPU {cpus[0]}, client on CPU {cpus[1:]}" if pin else "not pinned"
    print(
        f"streams {args.streams}, {stats['client_tokens_per_s']:.0f} tok/s received; "
        f"front end {frontend:g} us per token; {where}"
    )
    print(
        f"simulator write lateness over {stats['writes']} writes: p50 {late['p50']:.0f} us, "
        f"p90 {late['p90']:.0f} us, p99 {late['p99']:.0f} us, max {late['max']:.0f} us"
    )
    wake = stats["step_wake_lateness_us"]
    print(
        f"step wake-up lateness (first write of a step): p50 {wake['p50']:.0f} us, "
        f"p99 {wake['p99']:.0f} us, max {wake['max']:.0f} us"
    )
    cost = stats["write_cost_us"]
    print(
        f"cost of one stream's write: p50 {cost['p50']:.1f} us, p99 {cost['p99']:.1f} us "
        "(the writes of one step go out one after another)"
    )
    print(f"load average (1/5/15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        "goal: p99 < 1000 us:", "PASS" if late["p99"] is not None and late["p99"] < 1000 else "FAIL"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
