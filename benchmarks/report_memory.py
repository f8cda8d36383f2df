"""Peak memory of `tpotbench report` on a large `--save-detailed` file.

Writes a `vllm bench serve --save-detailed`-shaped result (about --mb megabytes, nearly all of
it the per-gap `itls` array: ~6.7 bytes per gap) to a temporary folder, then runs, each in its
own child process, `tpotbench report FILE` (the table) and `tpotbench report FILE --html OUT`,
and prints each child's peak RSS (ru_maxrss from wait4) and wall time. With --pythonpath DIR the
children run another checkout's code (e.g. the tree before a change) for a before/after.

  python benchmarks/report_memory.py [--mb 100] [--pythonpath DIR ...]

Issue 23 measured 943 MB (table) and 1.9 GB (--html) on a 134 MB file (20M gaps) before large
files were read lean (app/bench/results/lean_read.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[1]
GAPS_PER_REQUEST = 1000
BYTES_PER_GAP = 6.7  # "0.0201," with indent-free lists: measured on the files written here


def write_detailed(path: Path, megabytes: float, seed: int = 0) -> tuple[int, int]:
    """A vLLM-shaped detailed result of about `megabytes` MB; (requests, gaps)."""
    rng = random.Random(seed)
    requests = max(1, int(megabytes * 1e6 / BYTES_PER_GAP / GAPS_PER_REQUEST))
    head = {
        "date": "20261202-000000",
        "backend": "openai-chat",
        "endpoint_type": "openai-chat",
        "model_id": "qwen2.5-7b",
        "tokenizer_id": "qwen2.5-7b",
        "num_prompts": requests,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 64,
        "duration": 3600.0,
        "completed": requests,
        "failed": 0,
        "total_input_tokens": 512 * requests,
        "total_output_tokens": (GAPS_PER_REQUEST + 1) * requests,
        "request_throughput": requests / 3600.0,
        "output_throughput": (GAPS_PER_REQUEST + 1) * requests / 3600.0,
        "mean_ttft_ms": 120.0,
        "median_ttft_ms": 110.0,
        "p99_ttft_ms": 400.0,
        "mean_tpot_ms": 20.5,
        "median_tpot_ms": 20.1,
        "p99_tpot_ms": 31.0,
        "mean_itl_ms": 20.5,
        "median_itl_ms": 20.0,
        "p99_itl_ms": 45.0,
        "input_lens": [512] * requests,
        "output_lens": [GAPS_PER_REQUEST + 1] * requests,
        "ttfts": [round(rng.uniform(0.05, 0.4), 4) for _ in range(requests)],
        "generated_texts": [""] * requests,
        "errors": [""] * requests,
    }
    text = json.dumps(head)[:-1]  # the object stays open for the itls array
    with path.open("w", encoding="utf-8") as out:
        out.write(text + ', "itls": [')
        for i in range(requests):
            gaps = ",".join(f"{rng.gauss(0.0205, 0.003):.4f}" for _ in range(GAPS_PER_REQUEST))
            out.write(("," if i else "") + "[" + gaps + "]")
        out.write("]}\n")
    return requests, requests * GAPS_PER_REQUEST


def peak_rss(args: list[str], pythonpath: str) -> tuple[float, float, int]:
    """(peak RSS MiB, seconds, exit code) of `python -m app ARGS` run from `pythonpath`."""
    env = {**os.environ, "PYTHONPATH": pythonpath, "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter_ns()
    child = subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=pythonpath,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = (time.perf_counter_ns() - started) / 1e9
    return usage.ru_maxrss / 1024, seconds, child.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the file (MB)")
    parser.add_argument(
        "--pythonpath",
        action="append",
        help="a checkout to run `report` from (repeat for a before/after; default this tree)",
    )
    args = parser.parse_args()
    trees = args.pythonpath or [str(ROOT)]
    with TemporaryDirectory(prefix="tpotbench-report-memory-") as tmp:
        path = Path(tmp) / "expB_rateinf_conc64.json"
        requests, gaps = write_detailed(path, args.mb)
        size_mb = path.stat().st_size / 1e6
        load = os.getloadavg()[0]
        print(f"file: {size_mb:.1f} MB, {requests:,} requests, {gaps:,} gaps (load {load:.1f})")
        for tree in trees:
            for name, extra in (("table", []), ("--html", ["--html", str(Path(tmp) / "r.html")])):
                mib, seconds, code = peak_rss(["report", str(path), *extra], tree)
                print(
                    f"{tree}: report {name}: peak RSS {mib:,.0f} MiB, {seconds:.1f} s, exit {code}"
                    f" (load {os.getloadavg()[0]:.1f})"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
