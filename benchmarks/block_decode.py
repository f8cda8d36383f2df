"""Cost of reading a point file's typed blocks, per point, as the Results tab pays it.

The Results tab and `tpotbench report` read thousands of point files; each one's row
(`PointResult.summary_row()`) reads the typed `tpotbench` blocks (app.bench.schema.point_blocks)
through the codec. This times, for --copies copies of one real point file (each its own parsed
document, so no cache is shared between them):

  row     PointResult.summary_row() of a freshly loaded point (the blocks read inside it)
  blocks  blocks_of(document) of a fresh document
  read + row  point_from_dict(document) then its summary_row(): the whole cost of a parsed
          file's row, wherever a tree reads its blocks (at the read, or inside the row)

of whichever tree is imported, so the same script measures before and after a change:

  tpotbench sim --port P --gpu rtx3090 &
  tpotbench sweep --base-url http://127.0.0.1:P --num-prompts 30 --request-rate 8 \
      --scrape-metrics --gpu rtx3090 --goodput tpot:50 ttft:500 --slo tpot:p99:50 \
      --result-dir DIR --save-result               # a file with /metrics, SLO, roofline
  python benchmarks/block_decode.py DIR/FILE.json                  # this checkout
  git archive REV app | tar -x -C /tmp/before
  python benchmarks/block_decode.py DIR/FILE.json --tree /tmp/before

Prints the best and the median of --repeat runs in microseconds of this thread's CPU time per
point (time.thread_time: waiting for a core on a busy machine is not counted), and the load
average before and after (compare runs made back to back).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", type=Path, help="a point file with server_metrics, slo, roofline")
    parser.add_argument("--tree", type=Path, help="the app/ tree to import (default: this one)")
    parser.add_argument("--copies", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree or Path(__file__).resolve().parents[1]))

    import app
    from app.bench.results.read import load_result, point_from_dict
    from app.bench.schema.point_blocks import blocks_of

    doc = json.loads(args.file.read_text(encoding="utf-8"))
    block = doc.get("tpotbench") or {}
    for name in ("server_metrics", "slo", "roofline"):
        if name not in block:
            raise SystemExit(f"{args.file}: no tpotbench.{name}; make it as the docstring says")
    load_before = os.getloadavg()
    rows: list[float] = []
    reads: list[float] = []
    whole: list[float] = []
    for _ in range(args.repeat):
        points = [load_result(args.file) for _ in range(args.copies)]
        docs: list[Any] = [copy.deepcopy(doc) for _ in range(args.copies)]
        start = time.thread_time_ns()
        for point in points:
            point.summary_row()
        rows.append((time.thread_time_ns() - start) / 1e3 / args.copies)
        start = time.thread_time_ns()
        for d in docs:
            blocks_of(d)
        reads.append((time.thread_time_ns() - start) / 1e3 / args.copies)
        docs = [copy.deepcopy(doc) for _ in range(args.copies)]
        start = time.thread_time_ns()
        for d in docs:
            point_from_dict(d, args.file).summary_row()
        whole.append((time.thread_time_ns() - start) / 1e3 / args.copies)
    load_after = os.getloadavg()
    print(f"app from {Path(app.__file__).parent}; {args.copies} copies of {args.file.name}")
    for name, runs in (
        ("row (summary_row)", rows),
        ("blocks (blocks_of)", reads),
        ("read + row", whole),
    ):
        print(
            f"  {name:20s} best {min(runs):8.1f} us  median {statistics.median(runs):8.1f} us"
            " per point"
        )
    print(f"  load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")


if __name__ == "__main__":
    main()
