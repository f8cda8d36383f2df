"""The self-test's ceiling moves the right way: measured idle, then with CPU hogs beside it.

Runs `tpotbench selftest --json --no-save` twice in the client's usual mode (in process by
default): once as the machine is, once with `yes > /dev/null` hogs (one per core by default)
started and killed by this script. The ceiling with the hogs should be lower. Prints both, with
the CPU per 1,000 tokens at each ceiling and the machine's load average.

  python benchmarks/selftest_ceiling.py                    # in process, 40 s per run
  python benchmarks/selftest_ceiling.py --workers 2 --time-limit 60 --hogs 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def selftest(args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "app", "selftest", "--json", "--no-save"]
    cmd += ["--workers", str(args.workers), "--time-limit", f"{args.time_limit:g}"]
    cmd += ["--max-streams", str(args.max_streams)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=args.time_limit + 120, env=env, check=True
    )
    for line in done.stderr.splitlines():
        print(f"#   {line}", flush=True)
    result: dict[str, Any] = json.loads(done.stdout)["results"][str(args.workers)]
    return result


def shown(result: dict[str, Any]) -> str:
    bound = "at least " if result["at_least"] else ""
    cpu = result["cpu_ms_per_1k"]
    cpu_text = f"{cpu:.0f} ms CPU per 1k tokens" if cpu is not None else "no CPU figure"
    why = result["why"] or result["stopped"]
    return f"{bound}{result['streams']} streams ({cpu_text}; stopped: {why})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=0, help="0: in process (default)")
    parser.add_argument("--time-limit", type=float, default=40.0, help="seconds per run")
    parser.add_argument("--max-streams", type=int, default=512)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    print(f"# load average before: {os.getloadavg()}", flush=True)
    idle = selftest(args)
    print(f"idle:           {shown(idle)}", flush=True)
    hogs = [subprocess.Popen("exec yes > /dev/null", shell=True) for _ in range(max(1, args.hogs))]
    try:
        print(f"# {len(hogs)} CPU hog(s) started: yes > /dev/null", flush=True)
        busy = selftest(args)
        print(f"# load average with the hogs: {os.getloadavg()}", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    print(f"with {len(hogs)} hog(s): {shown(busy)}", flush=True)
    moved = "down" if busy["streams"] < idle["streams"] else "NOT down"
    print(f"the ceiling moved {moved}: {idle['streams']} -> {busy['streams']} streams")


if __name__ == "__main__":
    main()
