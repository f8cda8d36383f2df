"""Multi-turn conversations against the simulator with prefix caching on and off: TTFT of first
turns against later turns, and the share of prompt tokens served from the cache.

Usage: python benchmarks/conversation_prefix_cache.py [--num-sessions 20 --max-concurrency 4
       --think-time 0.5]
Two simulators (one with --no-enable-prefix-caching) each get the same sweep of the shipped
synthetic multi-turn dataset. A later turn resends its whole history; with the cache its
prefill skips every full KV block of the previous turn's prompt, so its TTFT should fall to
about that of a first turn or below, while without the cache it grows with the history.
Timings measured on a busy machine are noisy: compare the ratios of the same run; the cached
token counts are exact.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from app import jsonfile
from app.sim.config import SimConfig
from app.sim.embedded import start_sim_thread


def sweep(base_url: str, out: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, "-m", "app", "sweep", "--base-url", base_url, "--multi-turn"]
    cmd += ["--num-sessions", str(args.num_sessions)]
    cmd += ["--max-concurrency", str(args.max_concurrency)]
    cmd += ["--think-time", str(args.think_time), "--seed", str(args.seed)]
    cmd += ["--server-metrics", "--disable-tqdm", "--result-dir", out]
    print("$", " ".join(cmd[1:]).replace(base_url, "URL"))
    subprocess.run(cmd, check=True, capture_output=True)
    (path,) = Path(out).glob("*.json")
    return jsonfile.loads(path.read_text(encoding="utf-8"))  # the file as written


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-sessions", type=int, default=20)
    parser.add_argument("--max-concurrency", type=int, default=4)
    parser.add_argument("--think-time", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    for caching in (True, False):
        config = SimConfig(enable_prefix_caching=caching)
        with start_sim_thread(config, port=0) as sim, tempfile.TemporaryDirectory() as out:
            raw = sweep(sim.base_url, out, args)
        conv = raw["tpotbench"]["conversations"]
        server = (raw["tpotbench"].get("server_metrics") or {}).get("prefix_cache") or {}
        rows.append((caching, conv, server.get("hit_rate")))
    print(
        f"{'prefix cache':<13}{'turns':>7}{'TTFT 1st':>10}{'TTFT later':>12}{'later p99':>11}"
        f"{'cached later':>14}{'hit /metrics':>14}"
    )
    for caching, conv, server_hit in rows:
        first, later = conv["ttft_first_turn_ms"], conv["ttft_later_turns_ms"]
        cached = conv["prefix_cache_hit_rate_later_turns"]
        print(
            f"{'on' if caching else 'off':<13}{conv['turns_completed']:>7}"
            f"{first['mean']:>8.1f}ms{later['mean']:>10.1f}ms{later['p99']:>9.1f}ms"
            f"{(cached or 0):>14.1%}{(server_hit or 0):>14.1%}"
        )
    on, off = rows[0][1], rows[1][1]
    ratio = on["ttft_later_turns_ms"]["mean"] / off["ttft_later_turns_ms"]["mean"]
    print(f"later-turn TTFT, cache on / off: {ratio:.2f}")


if __name__ == "__main__":
    main()
