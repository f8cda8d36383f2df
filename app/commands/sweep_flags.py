"""The flags `sweep` and `search` share: the endpoint, the workload, the load grid, the result
files, the roofline context and the time limits (search adds its own on top)."""

from __future__ import annotations

import argparse

from app.bench.datasets.prompts import DATASET_NAMES
from app.bench.http.client import DEFAULT_READ_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S
from app.bench.schema.run_config import RooflineConfig
from app.bench.sweep.roofline_point import ROOFLINE_KEYS
from app.commands import conversation_flags, flags, trace_flags
from app.commands.connection import add_connection_arguments
from app.commands.timeouts import add_request_timeout
from app.roofline.context import RooflineContext

MAX_WORKERS = 256

# The roofline context's keys (as the profile and the result files hold them) -> their flags.
ROOFLINE_FLAGS: dict[str, str] = dict(
    zip(
        ROOFLINE_KEYS,
        (
            "--gpu",
            "--roofline-model",
            "--dtype",
            "--kv-dtype",
            "--roofline-context",
            "--tensor-parallel-size",
        ),
        strict=True,
    )
)


def roofline_config(context: RooflineContext) -> RooflineConfig:
    """A roofline context (the roofline panel's) as the run's roofline settings, so each
    point's file records the decode floor and MBU; an empty id is not given."""
    return RooflineConfig(
        gpu=context.gpu_id or None,
        model=context.model_id or None,
        dtype=context.fmt or None,
        kv_dtype=context.kv_dtype or None,
        context=context.context,
        tensor_parallel_size=context.tensor_parallel,
    )


# Whole on purpose: a flat list of flags, each with its help, in the order --help shows them.
def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add_connection_arguments(parser, host_port=True)
    add(
        "--tokenizer",
        metavar="DIR",
        help="folder with tokenizer.json, for prompt lengths and replies without usage "
        "(default: an estimate, marked as such)",
    )
    add(
        "--dataset-name",
        choices=DATASET_NAMES,
        default="sharegpt",
        help="sharegpt (default: the shipped synthetic ShareGPT file), random, prompts, "
        "prefix (shared prefixes + unique suffixes, vLLM's prefix_repetition), or mooncake "
        "(replay a Mooncake trace on its own clock; default: the shipped synthetic trace)",
    )
    add(
        "--dataset-path",
        help="ShareGPT JSON, prompts file (text lines or JSONL) or Mooncake trace (JSONL)",
    )
    add(
        "--num-prompts",
        type=flags.whole(1, flags.MAX_PROMPTS),
        default=None,
        help="requests per point (default 1000; a trace: all its lines)",
    )
    trace_flags.add_arguments(parser)
    add("--random-input-len", type=flags.whole(0), default=1024)
    add("--random-output-len", type=flags.whole(1), default=128)
    add("--random-range-ratio", type=flags.number(0.0, 0.999999), default=0.0)
    # vLLM's prefix_repetition flags (AIPerf: --num-prefix-prompts, --prefix-prompt-length)
    add("--prefix-repetition-prefix-len", type=flags.whole(1), default=256)
    add("--prefix-repetition-suffix-len", type=flags.whole(1), default=256)
    add("--prefix-repetition-num-prefixes", type=flags.whole(1), default=10)
    add("--prefix-repetition-output-len", type=flags.whole(1), default=128)
    add(
        "--sharegpt-output-len",
        type=flags.whole(1),
        help="fixed output length for ShareGPT prompts",
    )
    add(
        "--output-len",
        type=flags.whole(1),
        help="output length for every dataset (overrides the others)",
    )
    add(
        "--request-rate",
        default=None,
        help="requests/s, or a comma list such as 1,2,4,inf (default inf: all at once)",
    )
    add(
        "--burstiness",
        type=flags.number(0.0, 1e6, above=True),
        default=None,
        help="(default 1) gamma shape of arrival gaps: 1 = Poisson, <1 burstier, >1 more even",
    )
    add(
        "--max-concurrency",
        default=None,
        help="most requests in flight, or a comma list such as 1,4,8,16,32",
    )
    add("--seed", type=flags.whole(0, flags.MAX_SEED), default=0)
    conversation_flags.add_arguments(parser)
    add(
        "--workers",
        type=flags.whole(1, MAX_WORKERS),
        metavar="N",
        help="split each point's load over N worker processes on this machine (one core each) "
        "or, with --ray, N Ray actors; every request keeps its arrival time and the concurrency "
        "cap is split between them (default 1; 2 with --ray)",
    )
    add(
        "--ray",
        metavar="ADDRESS",
        help="run the load workers as Ray actors: 'auto' joins this machine's Ray cluster or "
        "starts a local one, or give the cluster's address (pip install 'tpotbench[distributed]')",
    )
    add(
        "--num-warmups",
        type=flags.whole(0, flags.MAX_PROMPTS),
        default=0,
        help="warmup requests before each point (not counted)",
    )
    add("--ignore-eos", action="store_true", help="ask the server to ignore end-of-sequence")
    add(
        "--temperature",
        type=flags.number(0.0, 1e6),
        help="sampling temperature sent with every request",
    )
    add("--extra-body", type=flags.json_object, help="JSON merged into every request body")
    add(
        "--goodput",
        nargs="+",
        metavar="KEY:MS",
        help="per-request SLOs as vLLM defines goodput, e.g. ttft:500 tpot:50; a point passes "
        "when --good-share of its requests meet every one",
    )
    add(
        "--slo",
        nargs="+",
        metavar="METRIC:STAT:MS",
        help="SLOs on a point's statistics, e.g. ttft:p99:2000 tpot:p99:50 (metrics ttft, "
        "tpot, itl, e2el; stat mean, median or pNN); each point shows pass/fail per SLO and "
        "its goodput",
    )
    add(
        "--good-share",
        type=flags.number(0.0, 1.0, above=True),
        default=0.99,
        metavar="FRACTION",
        help="with --goodput: the share of requests that must meet every limit (default 0.99)",
    )
    add(
        "--reset-prefix-cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="POST /reset_prefix_cache before each point so earlier points cannot warm the "
        "cache (default: on for a server on this machine, off otherwise)",
    )
    add(
        "--percentile-metrics",
        default="ttft,tpot,itl,e2el",
        help="metrics with percentiles: ttft,tpot,itl,e2el,client_queue_time,"
        "e2el_including_client_queue",
    )
    add("--metric-percentiles", default="50,90,95,99", help="percentiles, e.g. 50,90,99")
    add("--result-dir", default=".", help="folder for the result files (default: current)")
    add("--result-filename", help="file name for a single-point run (as in vllm bench serve)")
    add(
        "--label",
        help="file name prefix: {label}_rate{rate}_conc{conc}.json (default: the backend and "
        "the run's date-time, so no run replaces another's files)",
    )
    add(
        "--overwrite",
        action="store_true",
        help="replace result files of the same name (--label, --result-filename) from an "
        "earlier run",
    )
    add(
        "--save-result",
        action="store_true",
        help="accepted for vllm bench serve compatibility; results are always saved",
    )
    add(
        "--save-detailed",
        action="store_true",
        help="also save per-request arrays (ttfts, itls, latencies ... in seconds)",
    )
    add("--events", choices=["jsonl"], help="write machine-readable events to stdout")
    add(
        "--config",
        metavar="FILE",
        help="take the whole run from a JSON RunConfig file instead of flags ('-': the first "
        "line of stdin, as the window sends it); no other flag may be given with it",
    )
    add("--disable-tqdm", action="store_true", help="no progress bar")
    add(
        "--scrape-metrics",
        "--server-metrics",
        dest="server_metrics",
        action="store_true",
        help="scrape the server's /metrics about once a second during each point (KV cache, "
        "running, waiting, preemptions, server-side TTFT/ITL) and save a summary with the point",
    )
    add(
        "--gpu",
        help="roofline: the GPU serving the model (catalogue id or name, e.g. rtx3090); each "
        "point's file then records the decode floor at its batch and the MBU of its TPOT p50",
    )
    add(
        "--roofline-model",
        metavar="MODEL",
        help="roofline: the model's architecture (catalogue id, Hugging Face name or a path to "
        "its config.json; default: --model)",
    )
    add("--dtype", help="roofline: weight format, e.g. bf16, fp8, awq-int4 (default bf16)")
    add("--kv-dtype", help="roofline: KV-cache dtype fp16, bf16 or fp8 (default fp16)")
    add(
        "--roofline-context",
        type=flags.whole(1),
        metavar="TOKENS",
        help="roofline: context length per sequence for the KV bytes (default 512)",
    )
    add(
        "--tensor-parallel-size",
        type=flags.whole(1),
        metavar="N",
        help="roofline: GPUs the model is split over, as vLLM's own flag (default 1); the "
        "Pareto chart shows output tokens/s per GPU",
    )
    add(
        "--timeout",
        type=flags.seconds,
        default=DEFAULT_READ_TIMEOUT_S,
        metavar="S",
        help="longest silence while waiting for or reading a reply, seconds (default "
        f"{DEFAULT_READ_TIMEOUT_S:g}: a deep queue can hold the first byte for minutes)",
    )
    add_request_timeout(parser, DEFAULT_REQUEST_TIMEOUT_S)
    add(
        "--grace-period",
        type=flags.number(0.0, flags.MAX_SECONDS),
        default=5.0,
        metavar="S",
        help="seconds in-flight requests may finish after a cancel (default 5)",
    )
