"""Cost of finishing a point: its result document built from the measurements, typed, written
to its file and encoded as the point_finished event, per point.

This is the work the measuring loop does between a point's last request and the next point's
first (app.bench.sweep.point.run_point after _measure). The script runs one real point against
a simulator child process (`tpotbench sim`: /metrics scraped, SLOs judged with a why, the
roofline floor, --save-detailed optional), keeps what the point measured, then repeats the
finishing work on it and times it in this thread's CPU time (time.thread_time: waiting for a
core on a busy machine is not counted). It times whichever tree is imported, so the same
script measures before and after a change:

  python benchmarks/point_finish.py --port P                # this checkout
  git archive REV app | tar -x -C /tmp/before               # another revision's engine
  python benchmarks/point_finish.py --port P --tree /tmp/before

Prints the best and the median of --repeat runs of --number finishes, in milliseconds per
point, the file's size, and the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

ROOFLINE = {"gpu_id": "rtx3090", "model_id": "qwen2.5-7b", "fmt": "bf16", "kv_dtype": "fp16"}


def _capture(port: int, requests: int, concurrency: int, detailed: bool, folder: Path) -> Any:
    """Run one point against the simulator; the arguments its document was built from."""
    from app.bench.capacity.slo import parse_slos
    from app.bench.datasets.prompts import SampleRequest
    from app.bench.http.endpoint import resolve_endpoint
    from app.bench.sweep import point as point_module
    from app.bench.sweep.plan import PointSpec
    from app.bench.sweep.run_context import RunContext
    from app.roofline.context import RooflineContext
    from app.sim.embedded import start_sim_process

    captured: list[tuple[Any, ...]] = []
    built = point_module.point_document

    def keep(*args: Any) -> Any:
        captured.append(args)
        return built(*args)

    point_module.point_document = keep  # type: ignore[assignment]
    samples = [SampleRequest(f"prompt {i} " * 20, 60, 64, str(i)) for i in range(requests)]
    with start_sim_process([], port=port) as sim:
        config = RunContext(
            resolved=resolve_endpoint(sim.base_url, "/v1/chat/completions", "chat", None),
            model="qwen2.5-7b",
            backend="openai-chat",
            samples=samples,
            rates=[math.inf],
            concurrencies=[concurrency],
            result_dir=folder,
            label="bench",
            save_detailed=detailed,
            roofline=RooflineContext(**ROOFLINE, context=512),
            server_metrics=True,
            slos=parse_slos(["tpot:p99:1"]),  # fails: the why runs too
        )
        point = PointSpec(0, math.inf, concurrency)
        asyncio.run(point_module.run_point(config, point, [], asyncio.Event()))
    point_module.point_document = built  # type: ignore[assignment]
    return captured[0]


def _finisher(args: tuple[Any, ...], path: Path) -> Any:
    """One point's finish as the imported tree does it: build, type, write, encode."""
    from app.bench.results.write import write_point_doc
    from app.bench.sweep.contract import PointFinished, encode
    from app.bench.sweep.point_document import point_document

    try:  # this tree types the document as it builds it
        from app.bench.schema.point_check import checked
    except ImportError:  # a tree that builds a dict and types it at the write and the event
        from app.bench.schema.point_doc import point_doc_of

        def finish_dict() -> int:
            result = point_document(*args)
            write_point_doc(path, point_doc_of(result)[0])
            return len(encode(PointFinished(0, str(path), point_doc_of(result)[0])))

        return finish_dict

    def finish() -> int:
        doc, _ = checked(point_document(*args))
        write_point_doc(path, doc)
        return len(encode(PointFinished(0, str(path), doc)))

    return finish


def _metrics_only(args: tuple[Any, ...]) -> Any:
    """The point's statistics alone (compute_point_metrics, as point_document calls it): the
    part of the finish that the document's form does not change."""
    from app.bench.metrics.point import compute_point_metrics

    config, point, _, measured = args[:4]
    outcome = measured.outcome

    def metrics() -> object:
        return compute_point_metrics(
            outcome.records,
            outcome.duration_s,
            percentiles=config.percentiles,
            goodput=config.effective_goodput,
            origin_ns=outcome.origin_ns,
            count_queue_in_e2el=point.max_concurrency is not None
            and not math.isinf(point.request_rate),
        )

    return metrics


def _time(call: Any, number: int, repeat: int) -> list[float]:
    runs = []
    for _ in range(repeat):
        started = time.thread_time()
        for _ in range(number):
            call()
        runs.append((time.thread_time() - started) / number * 1e3)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--requests", type=int, default=256)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--save-detailed", action="store_true")
    parser.add_argument("--number", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    import app

    print(f"app from {Path(app.__file__).parent}")
    load_before = os.getloadavg()
    with TemporaryDirectory() as tmp:
        built = _capture(
            args.port, args.requests, args.concurrency, args.save_detailed, Path(tmp) / "run"
        )
        path = Path(tmp) / "point.json"
        finish = _finisher(built, path)
        line_bytes = finish()
        runs = _time(finish, args.number, args.repeat)
        stats = _time(_metrics_only(built), args.number, args.repeat)
        size = path.stat().st_size
    print(
        f"{args.requests} requests, conc {args.concurrency}, save_detailed {args.save_detailed}:"
        f" file {size} B, event line {line_bytes} B"
    )
    print(
        f"finish per point: best {min(runs):.2f} ms, median {statistics.median(runs):.2f} ms "
        f"({args.repeat} x {args.number}, thread CPU time)"
    )
    print(
        f"  of which the statistics (compute_point_metrics): best {min(stats):.2f} ms, "
        f"median {statistics.median(stats):.2f} ms; the document's own part: best "
        f"{min(runs) - min(stats):.2f} ms"
    )
    print(f"load before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
