"""The calibration table in virtual time, over sampling seeds and two client tokenizers.

One 200-prompt sample's P99 is about its third-worst request, and a run's duration hangs on its
longest reply: a single sample can sit inside or outside the field guide's bands by luck. This
runs the field guide's scenarios through the simulator's timing model (`app.sim.replay`, the
server's own scheduler and cost model in virtual time, ~1 % from the live server) on samples
drawn like `vllm bench serve` (shuffle with the seed, vLLM's length filter, first N) with
sampling seeds 0-4 and two client tokenizers: the simulated model's own, and a BPE-like count
(4 ASCII characters per token, tpotbench's estimate) that sets other max_tokens and filters
other entries. It prints every run and the median of each figure against its band.

    .venv/bin/python benchmarks/sim_calibration_seeds.py [--seeds 5] [--set NAME=VALUE ...]

--set overrides a SimConfig field (e.g. --set step_overhead_ms=2.5) to explore the model.
Exit code 1 when a median leaves its band.

Note on the knee (conc-64 TPOT P99 / conc-32 TPOT P99, the guide's 165 / 60 = 2.75; its band
asks for >= 2). Both P99s are set by first-wave requests with short replies, which decode one
token per 2,048-token prefill chunk (~0.5 s) while the rest of the first wave is prefilled;
that part of the ratio is the sample's luck. The rest is decode physics: a decode step's
GEMMs have one row per sequence, and such skinny GEMMs reach about a third of the tensor peak
(SimConfig.decode_compute_efficiency, fixed by the guide's saturation at concurrency 32, not
by the knee), so up to 32 sequences a step is the weight read (~21 ms) and above it grows with
the batch (64: ~40 ms). With it the median knee is 2.16 (1.89-2.99); without it (--set
decode_compute_efficiency=1) 1.79. KV capacity is not the cause: 5,306 blocks x 16 tokens hold
~85k tokens and 64 ShareGPT streams use ~30k, no run preempts.

A third client tokenizer (--tokenizers sim,bpe-estimate,words-1.3) moves the workload, not the
simulator: it sets longer max_tokens and keeps other entries, so the first wave of 32 carries
fewer prompt tokens (words-1.3 over seeds 0-4: 3,709-7,387 against 5,389-10,253 with the
simulator's own) spread over longer replies, and the conc-32 TPOT P99 falls with it (median
34.2 ms against 42.3 ms); over the 15 samples of the three tokenizers the P99 follows the
first wave's prompt tokens with a correlation of 0.84. TTFT at one stream moves with the
seed (20.6-49.9 ms: the median of 30 prompts' lengths), hardly with the tokenizer.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import sys
import time
from pathlib import Path

from app.bench.datasets.sharegpt import default_sharegpt_path, sample_sharegpt
from app.bench.http.tokens import estimate_tokens
from app.sim.config import SimConfig
from app.sim.replay import ReplayResult, percentile, replay
from app.sim.textgen import count_chat_tokens, count_tokens, request_seed

_spec = importlib.util.spec_from_file_location(
    "sim_calibration", Path(__file__).with_name("sim_calibration.py")
)
assert _spec is not None and _spec.loader is not None
calibration = importlib.util.module_from_spec(_spec)
sys.modules["sim_calibration"] = calibration  # dataclasses look their module up
_spec.loader.exec_module(calibration)


class SimTokenizer:
    name = "sim"

    def count(self, text: str) -> int:
        return count_tokens(text)


class EstimateTokenizer:
    name = "bpe-estimate"

    def count(self, text: str) -> int:
        return estimate_tokens(text)


class WordsTokenizer:
    """A third client tokenizer: ~1.3 tokens per whitespace word (Llama-like counts), which
    sets longer max_tokens than the other two and keeps other ShareGPT entries."""

    name = "words-1.3"

    def count(self, text: str) -> int:
        return max(1, round(len(text.split()) * 1.3))


TOKENIZERS = {t.name: t for t in (SimTokenizer(), EstimateTokenizer(), WordsTokenizer())}


def workload(tokenizer: object, seed: int, n: int) -> list[tuple[int, int, int]]:
    samples = sample_sharegpt(default_sharegpt_path(), n, tokenizer, seed=seed)  # type: ignore[arg-type]
    return [
        (
            count_chat_tokens([{"role": "user", "content": s.prompt}]),
            s.expected_output_len,
            request_seed(0, s.prompt),
        )
        for s in samples
    ]


def figures(config: SimConfig, tokenizer: object, seed: int) -> dict[str, float]:
    """Every figure of the calibration table for one sample, keyed like the result JSON."""
    out: dict[str, float] = {}
    runs: dict[str, ReplayResult] = {}
    for point in calibration.POINTS:
        load = workload(tokenizer, seed, point.prompts)
        rate = float(point.rate)
        runs[point.name] = replay(
            config, load, max_concurrency=point.concurrency, request_rate=rate, seed=seed
        )
    for name, run in runs.items():
        out[f"{name}.median_tpot_ms"] = percentile(run.tpot_s, 50) * 1000
        out[f"{name}.median_ttft_ms"] = percentile(run.ttft_s, 50) * 1000
        out[f"{name}.p99_tpot_ms"] = percentile(run.tpot_s, 99) * 1000
        out[f"{name}.mean_tpot_ms"] = statistics.fmean(run.tpot_s) * 1000
        out[f"{name}.output_throughput"] = run.output_throughput
        out[f"{name}.request_throughput"] = run.request_throughput
    out["knee"] = out["conc64.p99_tpot_ms"] / out["conc32.p99_tpot_ms"]
    # What sets the conc-32 TPOT P99: the prompt tokens the first wave prefills while its
    # short replies decode (see the note above).
    out["wave32_prompt_tokens"] = sum(p for p, _, _ in workload(tokenizer, seed, 200)[:32])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="sampling seeds 0..N-1")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--tokenizers",
        default="sim,bpe-estimate",
        help=f"comma list of client tokenizers, of {', '.join(TOKENIZERS)} (default the two "
        "the bands were set on)",
    )
    args = parser.parse_args()
    overrides: dict[str, object] = {}
    fields = {f.name: f for f in dataclasses.fields(SimConfig)}
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in fields:
            print(f"--set: SimConfig has no field {name!r}", file=sys.stderr)
            return 2
        overrides[name] = type(getattr(SimConfig(), name))(value)
    config = SimConfig(**overrides)  # type: ignore[arg-type]
    started = time.perf_counter()
    table: list[tuple[str, int, dict[str, float]]] = []
    names = args.tokenizers.split(",")
    if any(name not in TOKENIZERS for name in names):
        print(f"--tokenizers: choose from {', '.join(TOKENIZERS)}", file=sys.stderr)
        return 2
    for name in names:
        for seed in range(args.seeds):
            table.append((name, seed, figures(config, TOKENIZERS[name], seed)))
    keys = [f"{c.point}.{c.key}" for c in calibration.CHECKS if c.band is not None]
    keys += ["knee", "wave32_prompt_tokens"]
    short = [k.replace("rate4_conc16", "r4c16").replace("_throughput", "_tput") for k in keys]
    print(f"{'tokenizer':<13}{'seed':>4}  " + "  ".join(f"{s:>12.12}" for s in short))
    for name, seed, row in table:
        print(f"{name:<13}{seed:>4}  " + "  ".join(f"{row[k]:>12.4g}" for k in keys))
    print()
    print(f"{'figure':<32}{'reference':>11}{'median':>10}{'min':>9}{'max':>9}  {'band':<20}result")
    failures = 0
    for check in calibration.CHECKS:
        key = "knee" if check.band is None else f"{check.point}.{check.key}"
        values = [row[key] for _, _, row in table]
        median = statistics.median(values)
        if check.band is None:
            ok, band, label, ref = median >= 2.0, ">= 2.0", "conc=64 / conc=32 TPOT P99", 2.0
        else:
            low, high = check.reference * (1 - check.band), check.reference * (1 + check.band)
            ok, band = low <= median <= high, f"+-{check.band:.0%} [{low:.4g}, {high:.4g}]"
            label, ref = check.label, check.reference
        failures += not ok
        print(
            f"{label:<32}{ref:>11.4g}{median:>10.4g}{min(values):>9.4g}{max(values):>9.4g}  "
            f"{band:<20}{'PASS' if ok else 'FAIL'}"
        )
    waves = [row["wave32_prompt_tokens"] for _, _, row in table]
    tails = [row["conc32.p99_tpot_ms"] for _, _, row in table]
    if len(table) > 2:
        corr = statistics.correlation(waves, tails)
        print(f"correlation of the first wave's prompt tokens with conc=32 TPOT P99: {corr:.2f}")
    print(f"({len(table)} samples, {time.perf_counter() - started:.0f} s; overrides {overrides})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
