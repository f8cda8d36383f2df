"""Capacity search against a brute-force grid of experiment B: same boundary, less measuring.

Two parts, both with --slo tpot:p99:50 ttft:p99:2000 on the simulated RTX 3090 + Qwen2.5-7B:

1. Virtual time (the replay engine: the simulator's scheduler and cost model without HTTP), on
   the field guide's workload (ShareGPT, 200 prompts, natural reply lengths): the search's
   boundary and its measuring time (sum of the virtual durations of its points; early stops
   not modelled, so this overstates the search's time) against the grid 1, 2, 4 ... 128 plus
   every load the search visited, each at 200 prompts.
2. Real runs over HTTP against a simulator child process (`tpotbench sim`): the same
   comparison, wall-clock measuring time. Replies are capped with --sharegpt-output-len
   (default 64) so that the grid's concurrency-1 point takes minutes, not a quarter hour.

  python benchmarks/capacity_search.py [--skip-real] [--output-len 64] [--port 0]

Prints one line per measured point and the figures at the end. Timing on a shared machine is
noisy; the two runs of part 2 happen back to back so their ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.capacity.search import RunMeasurement, SearchSettings, search
from app.bench.capacity.search_run import run_search
from app.bench.capacity.slo import evaluate, parse_slos
from app.bench.datasets.sharegpt import default_sharegpt_path, sample_sharegpt
from app.bench.http.endpoint import resolve_endpoint
from app.bench.sweep.contract import SearchValue
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.plan import PointSpec
from app.bench.sweep.point import run_point
from app.bench.sweep.run_context import RunContext
from app.sim.config import SimConfig
from app.sim.embedded import start_sim_process
from app.sim.replay import percentile, replay
from app.sim.textgen import count_chat_tokens, count_tokens, request_seed

SLOS = parse_slos(["tpot:p99:50", "ttft:p99:2000"])
GRID = [1, 2, 4, 8, 16, 32, 64, 128]


class _SimTokenizer:
    def count(self, text: str) -> int:
        return count_tokens(text)


def grid_boundary(passed: dict[int, bool]) -> int | None:
    values = sorted(passed)
    fails = [v for v in values if not passed[v]]
    if not fails:
        return values[-1]
    below = [v for v in values if v < fails[0]]
    return below[-1] if below else None


def virtual(output_len: int | None) -> None:
    samples = sample_sharegpt(
        default_sharegpt_path(), 200, _SimTokenizer(), seed=0, output_len=output_len
    )
    workload = [
        (
            count_chat_tokens([{"role": "user", "content": s.prompt}]),
            s.expected_output_len,
            request_seed(0, s.prompt),
        )
        for s in samples
    ]

    async def measure(value: float, run: int, n: int) -> RunMeasurement:
        result = replay(SimConfig(), workload[:n], max_concurrency=int(value))
        stats = {
            "ttft": {"p99": percentile(result.ttft_s, 99) * 1000},
            "tpot": {"p99": percentile(result.tpot_s, 99) * 1000},
        }
        verdict = evaluate(SLOS, stats, completed=len(result.output_tokens), failed=0)
        return RunMeasurement(
            value, run, verdict.passed, list(verdict.checks), result.duration_s, n
        )

    out = asyncio.run(search(SearchSettings(), measure))
    visited = sorted({int(v.value) for v in out.values})
    grid = sorted(set(GRID) | set(visited))
    passed, grid_s = {}, 0.0
    for conc in grid:
        m = asyncio.run(measure(conc, 1, 200))
        passed[conc] = m.passed
        grid_s += m.measuring_s
    label = f"output len {output_len}" if output_len else "natural reply lengths"
    print(f"[virtual, {label}] search visited {[int(v.value) for v in out.values]}")
    print(
        f"[virtual, {label}] search boundary {out.highest_pass}/{out.lowest_fail}, "
        f"grid boundary {grid_boundary(passed)} on grid {grid}"
    )
    print(
        f"[virtual, {label}] measuring time: search {out.measuring_s:.0f} s, grid {grid_s:.0f} s, "
        f"ratio {out.measuring_s / grid_s:.2f}"
    )


def real(output_len: int, port: int) -> None:
    samples = sample_sharegpt(
        default_sharegpt_path(), 200, _SimTokenizer(), seed=0, output_len=output_len
    )
    with start_sim_process([], port=port) as sim, TemporaryDirectory() as tmp:

        def config(folder: str) -> RunContext:
            return RunContext(
                resolved=resolve_endpoint(sim.base_url, "/v1/chat/completions", "chat", None),
                model="qwen2.5-7b",
                backend="openai-chat",
                samples=list(samples),
                rates=[math.inf],
                concurrencies=[None],
                result_dir=Path(tmp) / folder,
                label="expB",
                slos=SLOS,
            )

        class Line(SweepObserver):
            def search_value(self, event: SearchValue) -> None:
                v = event.value
                print(
                    f"  search {v.value:g}: {v.decision} "
                    f"{sum(r.measuring_s for r in v.runs):.1f} s "
                    f"{[r.early_stop for r in v.runs if r.early_stop]}",
                    flush=True,
                )

        out, _, doc = asyncio.run(run_search(config("search"), SearchSettings(), [Line()]))
        visited = sorted({int(v.value) for v in out.values})
        grid = sorted(set(GRID) | set(visited))
        passed, grid_s = {}, 0.0
        grid_config = config("grid")
        for i, conc in enumerate(grid):
            started = time.perf_counter_ns()
            _, doc = asyncio.run(
                run_point(grid_config, PointSpec(i, math.inf, conc), [], asyncio.Event())
            )
            took = (time.perf_counter_ns() - started) / 1e9
            grid_s += took
            slo = doc.typed_blocks.slo
            passed[conc] = bool(slo is not None and slo.passed)
            print(f"  grid {conc}: {'pass' if passed[conc] else 'fail'} {took:.1f} s", flush=True)
    print(f"[real, output len {output_len}] search visited {[int(v.value) for v in out.values]}")
    print(
        f"[real, output len {output_len}] search boundary {out.highest_pass}/{out.lowest_fail}, "
        f"grid boundary {grid_boundary(passed)} on grid {grid}"
    )
    print(
        f"[real, output len {output_len}] measuring time: search {out.measuring_s:.0f} s, "
        f"grid {grid_s:.0f} s, ratio {out.measuring_s / grid_s:.2f}"
    )
    why = doc.boundary_why or {}
    print(f"[real] why at the boundary: {why.get('text')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-len", type=int, default=64)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--skip-real", action="store_true")
    args = parser.parse_args()
    virtual(None)
    virtual(args.output_len)
    if not args.skip_real:
        real(args.output_len, args.port)


if __name__ == "__main__":
    main()
