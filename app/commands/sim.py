"""`tpotbench sim`: serve the simulated vLLM (OpenAI-compatible API, /metrics) until Ctrl+C."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from app.sim.config import DEFAULT_SPIN_US, FAULT_KINDS, SimConfig, SimConfigError

if TYPE_CHECKING:
    import uvicorn

_D = SimConfig()


# Long on purpose: a flat list of argparse flags in their help groups, one call per flag.
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.ArgumentDefaultsHelpFormatter
    add = parser.add_argument
    add("--host", default=_D.host, help="address to listen on")
    add("--port", type=int, default=_D.port, help="port to listen on (0 = any free port)")
    add(
        "--gpu",
        default=_D.gpu,
        help="simulated GPU id from the catalogue (see 'tpotbench roofline')",
    )
    add("--model", default=_D.model, help="simulated model architecture id from the catalogue")
    add("--dtype", default=_D.dtype, help="weight format id (bf16, fp16, fp8, awq-int4, ...)")
    add("--kv-cache-dtype", default=_D.kv_cache_dtype, help="auto, fp16, bf16 or fp8")
    add(
        "--served-model-name",
        nargs="+",
        default=None,
        help="name(s) the API accepts in 'model' (default: the --model id)",
    )
    add(
        "--gpu-memory-utilization",
        type=float,
        default=_D.gpu_memory_utilization,
        help="share of GPU memory for weights, activations and KV cache, as in vLLM",
    )
    add("--max-model-len", type=int, default=_D.max_model_len, help="prompt + reply limit")
    add("--max-num-seqs", type=int, default=_D.max_num_seqs, help="most running sequences")
    add(
        "--max-num-batched-tokens",
        type=int,
        default=_D.max_num_batched_tokens,
        help="token budget of one engine step (decodes + prefill chunks)",
    )
    add("--block-size", type=int, default=_D.block_size, help="KV cache block size in tokens")
    add("--seed", type=int, default=_D.seed, help="seed for reply lengths, text and faults")
    add(
        "--exit-on-stdin-eof",
        action="store_true",
        help="shut down when standard input reaches end of file: a parent that starts the "
        "simulator with a pipe on its stdin takes it down when it exits, even if killed",
    )

    timing = parser.add_argument_group("timing model")
    timing.add_argument(
        "--bandwidth-efficiency",
        type=float,
        default=_D.bandwidth_efficiency,
        help="achieved share of peak memory bandwidth",
    )
    timing.add_argument(
        "--compute-efficiency",
        type=float,
        default=_D.compute_efficiency,
        help="achieved share of peak tensor FLOP/s",
    )
    timing.add_argument(
        "--decode-compute-efficiency",
        type=float,
        default=_D.decode_compute_efficiency,
        help="achieved share of peak tensor FLOP/s in a decode step's skinny GEMMs (one row "
        "per sequence); sets the batch where decode turns compute-bound",
    )
    timing.add_argument(
        "--step-overhead-ms", type=float, default=_D.step_overhead_ms, help="fixed cost per step"
    )
    timing.add_argument(
        "--engine-us-per-seq",
        type=float,
        default=_D.engine_us_per_seq,
        help="CPU time per scheduled sequence per step (vLLM V1's scheduler, input "
        "preparation and output update loops over the batch)",
    )
    timing.add_argument(
        "--spin-us",
        type=float,
        default=DEFAULT_SPIN_US,
        help="busy-wait this long before each step's deadline (asyncio timers tick in ms)",
    )
    timing.add_argument(
        "--frontend-us-per-token",
        type=float,
        default=_D.frontend_us_per_token,
        help="a step's tokens go out this far apart, as vLLM's API server writes them one "
        "request after another (0 = all at the step's end)",
    )
    timing.add_argument(
        "--eos-median-tokens",
        type=float,
        default=_D.eos_median_tokens,
        help="median natural reply length when ignore_eos is off (log-normal)",
    )
    timing.add_argument(
        "--eos-sigma", type=float, default=_D.eos_sigma, help="log-normal spread of reply lengths"
    )

    cache = parser.add_argument_group("prefix caching, reasoning, speculative decoding")
    cache.add_argument(
        "--enable-prefix-caching",
        action=argparse.BooleanOptionalAction,
        default=_D.enable_prefix_caching,
        help="automatic prefix caching, as vLLM V1 (on by default there too): full KV blocks "
        "are found again by chained hash of their token ids, a hit skips that part of the "
        "prefill, unreferenced cached blocks are evicted least recently used first; "
        "POST /reset_prefix_cache empties it",
    )
    cache.add_argument(
        "--enable-prompt-tokens-details",
        action=argparse.BooleanOptionalAction,
        default=_D.enable_prompt_tokens_details,
        help="send usage.prompt_tokens_details.cached_tokens when some prompt tokens were "
        "cached (vLLM sends it only with this flag)",
    )
    cache.add_argument(
        "--reasoning-share",
        type=float,
        default=_D.reasoning_share,
        help="a reasoning model, as vLLM with --reasoning-parser: this share of each chat "
        "reply streams as delta.reasoning_content before the answer, counted in "
        "usage.completion_tokens_details.reasoning_tokens; a request turns it off with "
        'chat_template_kwargs {"enable_thinking": false}',
    )
    cache.add_argument(
        "--num-speculative-tokens",
        type=int,
        default=_D.num_speculative_tokens,
        help="speculative decoding with k drafts per step (vLLM's --speculative-config "
        "num_speculative_tokens; 0 = off): each step verifies k+1 tokens per sequence and "
        "streams the accepted ones plus one in a single chunk; spec-decode counters in /metrics",
    )
    cache.add_argument(
        "--spec-acceptance-rate",
        type=float,
        default=_D.spec_acceptance_rate,
        help="probability that each draft position is accepted (independently, up to the "
        "first rejection): a step yields (1 - a^(k+1)) / (1 - a) tokens on average",
    )
    cache.add_argument(
        "--speculative-method",
        choices=["eagle", "ngram"],
        default=_D.speculative_method,
        help="draft cost: eagle = k sequential passes of a one-layer draft head sharing the "
        "LM head (memory-bound, in the step time); ngram = matched on the CPU, no GPU cost",
    )

    gateway = parser.add_argument_group("gateway behaviour")
    gateway.add_argument("--path-prefix", default="", help="serve under a prefix, e.g. /api")
    gateway.add_argument(
        "--api-key", default=None, help="require 'Authorization: Bearer KEY' on /v1 routes"
    )
    gateway.add_argument(
        "--api-key-env",
        metavar="NAME",
        default=None,
        help="like --api-key, the key read from this environment variable (not shown by ps)",
    )
    gateway.add_argument(
        "--network-latency-ms",
        type=float,
        default=0.0,
        help="added one-way delay on every request and every response write",
    )
    gateway.add_argument(
        "--no-stream-usage",
        action="store_true",
        help="never send the usage chunk, even when stream_options.include_usage is set",
    )
    gateway.add_argument("--disable-metrics", action="store_true", help="answer 404 on /metrics")

    faults = parser.add_argument_group(
        "fault injection",
        "; ".join(f"{k}: {v}" for k, v in FAULT_KINDS.items()),
    )
    faults.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=list(FAULT_KINDS),
        help="inject this fault (repeat to rotate several); on every request unless limited",
    )
    faults.add_argument(
        "--fault-rate", type=float, default=None, help="share of requests hit (0-1)"
    )
    faults.add_argument("--fault-every", type=int, default=None, help="hit every Nth request")
    faults.add_argument(
        "--retry-after", type=int, default=_D.retry_after_s, help="429 Retry-After (s)"
    )
    faults.add_argument(
        "--slow-first-byte-ms",
        type=float,
        default=_D.slow_first_byte_ms,
        help="delay of the slow-first-byte fault",
    )


def config_from_args(args: argparse.Namespace) -> SimConfig:
    return SimConfig(
        host=args.host,
        port=args.port,
        gpu=args.gpu,
        model=args.model,
        dtype=args.dtype,
        kv_cache_dtype=args.kv_cache_dtype,
        served_model_name=list(args.served_model_name or [args.model]),
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens,
        block_size=args.block_size,
        seed=args.seed,
        bandwidth_efficiency=args.bandwidth_efficiency,
        compute_efficiency=args.compute_efficiency,
        decode_compute_efficiency=args.decode_compute_efficiency,
        step_overhead_ms=args.step_overhead_ms,
        engine_us_per_seq=args.engine_us_per_seq,
        spin_us=args.spin_us,
        frontend_us_per_token=args.frontend_us_per_token,
        eos_median_tokens=args.eos_median_tokens,
        eos_sigma=args.eos_sigma,
        enable_prefix_caching=args.enable_prefix_caching,
        enable_prompt_tokens_details=args.enable_prompt_tokens_details,
        reasoning_share=args.reasoning_share,
        num_speculative_tokens=args.num_speculative_tokens,
        spec_acceptance_rate=args.spec_acceptance_rate,
        speculative_method=args.speculative_method,
        path_prefix=args.path_prefix,
        api_key=args.api_key,
        network_latency_ms=args.network_latency_ms,
        faults=list(args.fault),
        fault_rate=args.fault_rate,
        fault_every=args.fault_every,
        retry_after_s=args.retry_after,
        slow_first_byte_ms=args.slow_first_byte_ms,
        no_stream_usage=args.no_stream_usage,
        disable_metrics=args.disable_metrics,
    )


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    try:
        if args.api_key_env:
            key = os.environ.get(args.api_key_env)
            if not key:
                raise SimConfigError(f"--api-key-env: the variable {args.api_key_env} is not set")
            config.api_key = key
        config.validate()
        from app.roofline.catalog import CatalogError
        from app.sim.server import build_app

        try:
            app = build_app(config)
        except CatalogError as exc:
            raise SimConfigError(str(exc)) from None
    except SimConfigError as exc:
        print(f"tpotbench sim: error: {exc}", file=sys.stderr)
        return 2
    import gc

    import uvicorn

    # Everything built so far lives as long as the server: keep it out of the collector's
    # full passes, whose pauses (a few ms) would otherwise make a step late now and then.
    gc.collect()
    gc.freeze()
    state = app.state.sim
    prefix = config.normalized_prefix
    print(
        f"tpotbench sim: {config.model} ({config.dtype}) on {state.cost.gpu.name}, "
        f"{state.cost.num_gpu_blocks} KV blocks x {config.block_size} tokens; "
        f"serving {', '.join(config.served_model_name)} at "
        f"http://{config.host}:{config.port}{prefix}/v1",
        flush=True,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            loop="auto",
            http="auto",
            timeout_graceful_shutdown=2,
        )
    )
    if args.exit_on_stdin_eof:
        _watch_stdin(server)
    server.run()
    return 0


def _watch_stdin(server: uvicorn.Server) -> None:
    """Ask the server to exit once stdin closes (the parent exited or closed the pipe)."""
    import threading

    def watch() -> None:
        stream = sys.stdin.buffer if sys.stdin is not None else None
        try:
            while stream is not None and stream.read(4096):
                pass
        except (OSError, ValueError):
            pass
        server.should_exit = True

    threading.Thread(target=watch, name="stdin-eof-watch", daemon=True).start()
