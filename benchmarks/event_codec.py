"""Cost of the event stream's encode and decode per event, for its hot events.

The writer thread encodes every event of a sweep (`tokens` about 10 times a second per point,
merged when the reader lags; `progress` about 10 times a second; one `request` per finished
request) and the window decodes every line, both while the measuring loop shares the GIL, so
their cost per event is the figure that matters. This times app.bench.sweep.contract.encode
(event -> line) and app.bench.sweep.event_decode.decode (line -> event) of whichever tree is
imported, so the same script measures before and after a change:

  python benchmarks/event_codec.py                       # this checkout
  git archive REV app | tar -x -C /tmp/before            # another revision's engine
  python benchmarks/event_codec.py --tree /tmp/before

Prints, per event kind, the best and the median of --repeat runs of --number calls each, in
microseconds of this thread's CPU time per event (time.thread_time: time spent
waiting for a core on a busy machine is not counted; --number calls for a ~150-byte line,
fewer for longer ones; point_finished is a real line of tests/bench/schema/point_golden), plus
the machine's load average before and after (timing on a busy
machine is noisy: compare runs made back to back).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _events() -> list[tuple[str, Any]]:
    from app.bench.sweep.contract import Progress, RequestDone, Tokens

    rng = random.Random(7)

    def batch(n: int) -> Any:
        t_s = sorted(rng.uniform(0, 60) for _ in range(n))
        return Tokens(3, t_s, [rng.uniform(5, 40) for _ in range(n)])

    return [
        ("tokens x20", batch(20)),
        ("tokens x400", batch(400)),
        ("progress", Progress(3, 120, 2, 500, 64, 12.3456789, 2345.6789)),
        ("request ok", RequestDone(3, True, 41.23456789, 19.7123456, 512.3456, 24, None, 128)),
        ("request failed", RequestDone(3, False, None, None, 1250.0, 3, "http_500", None)),
    ]


def _time(call: Callable[[], object], number: int, repeat: int) -> tuple[float, float]:
    timer = timeit.Timer(call, timer=time.thread_time)
    runs = [t / number * 1e6 for t in timer.repeat(number=number, repeat=repeat)]
    return min(runs), statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--number", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    import app
    from app.bench.sweep.contract import encode
    from app.bench.sweep.event_decode import decode

    print(f"app from {Path(app.__file__).parent}")
    print(f"tree {args.tree}  load {os.getloadavg()[0]:.2f}  {args.repeat} x {args.number}")
    header = ("event", "bytes", "encode best", "median", "decode best", "median")
    print("{:<16}{:>7}{:>13}{:>10}{:>13}{:>10}".format(*header))
    # A finished point's summary: a real line (server metrics, SLO, why, roofline), decoded by
    # the tree under test, so its summary is whatever that tree's type is.
    golden = Path(__file__).resolve().parents[1] / "tests/bench/schema/point_golden"
    lines = (golden / "point_finished.jsonl").read_text(encoding="utf-8").splitlines()
    [finished] = [line for line in lines if "rich_rateinf_conc4" in line]
    for name, event in [*_events(), ("point_finished", decode(finished))]:
        line = encode(event)
        assert encode(decode(line)) == line
        number = max(100, args.number * 150 // len(line))  # about the same time per kind
        enc = _time(lambda e=event: encode(e), number, args.repeat)
        dec = _time(lambda s=line: decode(s), number, args.repeat)
        print(
            f"{name:<16}{len(line):>7}{enc[0]:>11.2f}us{enc[1]:>8.2f}us"
            f"{dec[0]:>11.2f}us{dec[1]:>8.2f}us"
        )
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
