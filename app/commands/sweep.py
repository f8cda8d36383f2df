"""`tpotbench sweep`: `vllm bench serve` over a grid of request rates x concurrencies."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import math
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.bench.capacity.search import SearchSettings
from app.bench.capacity.slo import parse_slos
from app.bench.datasets.prompts import (
    DATASET_NAMES,
    DatasetError,
    DatasetOptions,
    HFVocab,
    get_samples,
)
from app.bench.http.auth import cleartext_warning
from app.bench.http.client import DEFAULT_READ_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S
from app.bench.http.endpoint import EndpointError, resolve_endpoint
from app.bench.http.tokens import TokenCounter, TokenizerError, estimate_tokens
from app.bench.load.workers.pool import WorkerError
from app.bench.metrics.options import (
    METRIC_TITLES,
    parse_goodput,
    parse_percentile_metrics,
    parse_percentiles,
)
from app.bench.metrics.workload import workload_rows
from app.bench.results.point_result import PointResult
from app.bench.results.read import point_from_dict, result_files
from app.bench.results.write import ensure_writable_dir, no_success_note
from app.bench.sweep.events import EventWriter
from app.bench.sweep.runner import (
    PointSpec,
    ResultExistsError,
    SweepConfig,
    UnreachableError,
    check_roofline,
    fetch_first_model,
    run_sweep,
)
from app.commands import flags
from app.commands.credentials import (
    UsageError,
    check_headers,
    parse_headers,
    require_api_key,
)
from app.commands.timeouts import add_request_timeout, request_limit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--backend",
        choices=["openai", "openai-chat"],
        help="API flavour as in vllm bench serve: openai (completions) or openai-chat "
        "(default: from --endpoint, else openai-chat)",
    )
    add("--base-url", help="server root or API base (default http://HOST:PORT)")
    add("--host", default="127.0.0.1", help="server host when --base-url is not given")
    add("--port", type=flags.port, default=8000, help="server port when --base-url is not given")
    add("--endpoint", help="API path, e.g. /v1/chat/completions (as in vllm bench serve)")
    add("--model", help="model id (default: the first id from /v1/models)")
    add(
        "--tokenizer",
        metavar="DIR",
        help="folder with tokenizer.json, for prompt lengths and replies without usage "
        "(default: an estimate, marked as such)",
    )
    add("--profile", help="use a saved endpoint profile (its key from the keyring)")
    add(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY, then API_KEY)",
    )
    add(
        "--header",
        metavar="KEY=VALUE",
        nargs="*",
        default=[],
        help="extra HTTP headers for every request",
    )
    add("--insecure", action="store_true", help="do not verify the server's TLS certificate")
    add(
        "--dataset-name",
        choices=DATASET_NAMES,
        default="sharegpt",
        help="sharegpt (default: the shipped synthetic ShareGPT file), random, prompts, or "
        "prefix (shared prefixes + unique suffixes, vLLM's prefix_repetition)",
    )
    add("--dataset-path", help="ShareGPT JSON or prompts file (text lines or JSONL)")
    add(
        "--num-prompts",
        type=flags.whole(1, flags.MAX_PROMPTS),
        default=1000,
        help="requests per point (default 1000)",
    )
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
        default="inf",
        help="requests/s, or a comma list such as 1,2,4,inf (default inf: all at once)",
    )
    add(
        "--burstiness",
        type=flags.number(0.0, 1e6, above=True),
        default=1.0,
        help="gamma shape of arrival gaps: 1 = Poisson, <1 burstier, >1 more even",
    )
    add(
        "--max-concurrency",
        default=None,
        help="most requests in flight, or a comma list such as 1,4,8,16,32",
    )
    add("--seed", type=flags.whole(0, flags.MAX_SEED), default=0)
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


# A random-dataset point's prompts are built up front: ~6 bytes of filler text per token.
_MAX_PROMPT_TOKENS = 100_000_000


def _rates(text: str) -> list[float]:
    rates = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"--request-rate: {item!r} is not a number or 'inf'") from None
        if not value > 0 or math.isnan(value):
            raise UsageError(f"--request-rate: {item} must be greater than 0")
        rates.append(value)
    return rates


def _concurrencies(text: str | None) -> list[int | None]:
    if text is None:
        return [None]
    values: list[int | None] = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = int(item)
        except ValueError:
            raise UsageError(f"--max-concurrency: {item!r} is not a whole number") from None
        if not 1 <= value <= flags.MAX_BATCH:
            raise UsageError(f"--max-concurrency: {item} must be from 1 to {flags.MAX_BATCH:,}")
        values.append(value)
    return values


class _EstimateCounter:
    def count(self, text: str) -> int:
        return estimate_tokens(text)


def format_summary(result: dict[str, Any] | PointResult) -> str:
    """vLLM's end-of-run block ("==== Serving Benchmark Result ====") for one point."""
    point = result if isinstance(result, PointResult) else point_from_dict(result)
    lines = ["{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="=")]

    def row(label: str, value: Any, fmt: str = "{:<10}") -> None:
        # A figure the file holds as null (no request succeeded) is a dash, never a 0.
        lines.append(
            f"{label:<40} " + ("{:<10}".format("–") if value is None else fmt.format(value))
        )

    row("Successful requests:", point.completed)
    row("Failed requests:", point.failed if point.failed is not None else "n/a")
    if point.max_concurrency is not None:
        row("Maximum request concurrency:", point.max_concurrency)
    if not math.isinf(point.request_rate):
        row("Request rate configured (RPS):", point.request_rate, "{:<10.2f}")
    row("Benchmark duration (s):", point.duration_s, "{:<10.2f}")
    row("Total input tokens:", point.total_input_tokens)
    row("Total generated tokens:", point.total_output_tokens)
    row("Request throughput (req/s):", point.request_throughput or 0.0, "{:<10.2f}")
    if point.request_goodput is not None:
        row("Request goodput (req/s):", point.request_goodput, "{:<10.2f}")
    row("Output token throughput (tok/s):", point.output_throughput or 0.0, "{:<10.2f}")
    if point.max_output_tokens_per_s is not None:
        row("Peak output token throughput (tok/s):", point.max_output_tokens_per_s, "{:<10.2f}")
    if point.max_concurrent_requests is not None:
        row("Peak concurrent requests:", point.max_concurrent_requests, "{:<10.2f}")
    row("Total token throughput (tok/s):", point.total_token_throughput or 0.0, "{:<10.2f}")
    for name, (short, header) in METRIC_TITLES.items():
        stats = point.stats.get(name) or _null_stats(point.raw, name)
        if not stats:
            continue
        lines.append("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        row(f"Mean {short} (ms):", stats.get("mean"), "{:<10.2f}")
        row(f"Median {short} (ms):", stats.get("median"), "{:<10.2f}")
        for key in sorted((k for k in stats if k.startswith("p")), key=lambda k: float(k[1:])):
            row(f"P{key[1:]} {short} (ms):", stats[key], "{:<10.2f}")
    block = point.tpotbench or {}
    if not point.completed and block:
        lines.append(no_success_note(block.get("failures") or []))
    if block:
        lines.append("{s:{c}^{n}}".format(s="TPOT Bench extras", n=50, c="-"))
        wait = block.get("slot_wait_ms") or {}
        row("Mean slot wait (ms):", wait.get("mean"), "{:<10.2f}")
        chunk = block.get("tokens_per_chunk") or {}
        row("Tokens per chunk (mean):", chunk.get("mean") or 0.0, "{:<10.2f}")
        retried = block.get("retried_requests")
        if isinstance(retried, int) and not isinstance(retried, bool):
            row("Retried on a new connection:", retried)
        for label, value, fmt in workload_rows(block):
            row(label, value, fmt)
        for failure in block.get("failures") or []:
            row(f"Failed ({failure['kind']}):", failure["count"])
            lines.append(f"  e.g. {failure.get('example', '')[:120]}")
            lines.append(f"  fix: {failure.get('fix', '')}")
        if block.get("cancelled"):
            lines.append("Cancelled: this point stopped early; the numbers cover what finished.")
        server = block.get("server_metrics")
        for warning in (server.get("warnings") or []) if isinstance(server, dict) else []:
            lines.append(f"server metrics: {warning}")
        warning = (block.get("prefix_cache") or {}).get("warning")
        if warning:
            lines.append(f"Warning: {warning}")
        lines.extend(slo_lines(block))
    lines.append("=" * 50)
    return "\n".join(lines)


def _null_stats(raw: dict[str, Any], name: str) -> dict[str, None]:
    """The statistics a file holds as null for `name` (a point where no request succeeded)."""
    stats: dict[str, None] = {}
    for key, value in raw.items():
        if value is None and key.endswith(f"_{name}_ms"):
            stat = key[: -len(f"_{name}_ms")]
            if stat in ("mean", "median", "std") or stat[1:].replace(".", "", 1).isdigit():
                stats[stat] = None
    return stats


def slo_lines(block: dict[str, Any]) -> list[str]:
    """Pass/fail per SLO of a point (empty without SLOs), for the end-of-point block."""
    slo = block.get("slo")
    if not isinstance(slo, dict):
        return []
    lines = ["{s:{c}^{n}}".format(s="SLOs", n=50, c="-")]
    for check in slo.get("checks") or []:
        value = check.get("value_ms", check.get("value"))
        limit = check.get("limit_ms", check.get("limit"))
        if check.get("kind") == "stat":
            shown = "-" if value is None else f"{value:.2f} ms"
            bound = f"<= {limit:g} ms"
        else:
            shown = "-" if value is None else f"{value:.1%}"
            bound = (">= " if check.get("kind") == "good_share" else "<= ") + f"{limit:.0%}"
        verdict = "pass" if check.get("passed") else "FAIL"
        lines.append(f"{check['slo']:<28} {shown:>12} {bound:>14}  {verdict}")
    early = block.get("early_stop")
    if isinstance(early, dict):
        lines.append(f"Stopped early (already failed): {early.get('reason')}")
    lines.append("Point: " + ("meets every SLO" if slo.get("passed") else "FAILS"))
    return lines


class ConsoleReporter:
    """The terminal consumer of sweep events: a progress line per point on stderr and vLLM's
    result block after each point (stdout, or stderr when stdout carries events)."""

    wants_tokens = False

    def __init__(self, *, bar: bool, summary_stream: Any) -> None:
        self.bar = bar and sys.stderr.isatty()
        self.out = summary_stream
        self.burstiness = 1.0

    def run_started(
        self, points: Sequence[PointSpec], num_prompts: int, endpoint: dict[str, Any]
    ) -> None:
        print(
            f"Sweep: {len(points)} point(s) x {num_prompts} prompts -> {endpoint['url']} "
            f"(model {endpoint['model']})",
            file=sys.stderr,
        )

    def point_started(self, point: PointSpec) -> None:
        process = "Poisson process" if self.burstiness == 1.0 else "Gamma distribution"
        # vLLM's own preamble lines, so a log reads the same as theirs
        print(
            f"\nPoint {point.index + 1}\nTraffic request rate: {point.request_rate}\n"
            f"Burstiness factor: {self.burstiness} ({process})\n"
            f"Maximum request concurrency: {point.max_concurrency}",
            file=sys.stderr,
        )

    def tokens(self, point: int, t_s: Sequence[float], itl_ms: Sequence[float]) -> None:
        pass

    def progress(
        self,
        point: int,
        completed: int,
        failed: int,
        total: int,
        in_flight: int,
        elapsed_s: float,
        output_tok_s: float,
    ) -> None:
        if not self.bar:
            return
        done = completed + failed
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
            f"failed {failed} in flight {in_flight} {elapsed_s:6.1f}s "
            f"{output_tok_s:8.1f} tok/s "
        )
        sys.stderr.flush()

    def request(self, **_: Any) -> None:
        pass

    def point_finished(self, point: int, path: Path | None, result: dict[str, Any]) -> None:
        if self.bar:
            sys.stderr.write("\n")
        print(format_summary(result), file=self.out, flush=True)
        print(f"saved {path}", file=sys.stderr)

    def run_finished(self, cancelled: bool, paths: Sequence[Path], csv: Path | None) -> None:
        if cancelled:
            print("Cancelled: finished points are saved.", file=sys.stderr)
        if csv:
            print(f"summary {csv}", file=sys.stderr)

    def error(self, message: str) -> None:
        print(f"tpotbench sweep: error: {message}", file=sys.stderr)


MAX_WORKERS = 256


def _workers(count: int | None, ray_address: str | None) -> int:
    """--workers (already in 1..MAX_WORKERS) with its --ray default, and Ray importable."""
    if count is None:
        count = 2 if ray_address else 1
    if ray_address is not None:
        if not ray_address.strip():
            raise UsageError("--ray needs an address: auto, or the cluster's host:port")
        if importlib.util.find_spec("ray") is None:
            raise UsageError("--ray needs Ray: pip install 'tpotbench[distributed]'")
    return count


def _build_config(args: argparse.Namespace) -> tuple[SweepConfig, list[str]]:
    """Flags -> a SweepConfig without the model (resolved later); UsageError on bad input."""
    rates = _rates(args.request_rate)
    concurrencies = _concurrencies(args.max_concurrency)
    if args.result_filename and len(rates) * len(concurrencies) > 1:
        raise UsageError(
            "--result-filename names one file but the sweep has "
            f"{len(rates) * len(concurrencies)} points; use --label instead"
        )
    if args.dataset_name == "random":
        held = args.num_prompts * args.random_input_len
        if held > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {args.num_prompts:,} x --random-input-len "
                f"{args.random_input_len:,} is {held:,} prompt tokens held in memory; keep it "
                f"under {_MAX_PROMPT_TOKENS:,} by lowering one of them"
            )
    timeout_s = args.timeout
    request_timeout_s = request_limit(args.request_timeout)
    if args.dataset_name == "prefix":
        per = args.prefix_repetition_prefix_len + args.prefix_repetition_suffix_len
        if args.num_prompts * per > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {args.num_prompts:,} x (prefix + suffix length {per:,}) is over "
                f"{_MAX_PROMPT_TOKENS:,} prompt tokens held in memory; lower one of them"
            )
    try:
        percentiles = parse_percentiles(args.metric_percentiles)
        percentile_metrics = parse_percentile_metrics(args.percentile_metrics)
        goodput = parse_goodput(args.goodput) if args.goodput else None
        slos = parse_slos(args.slo, args.goodput, args.good_share)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    headers = parse_headers(args.header)
    base_url, api, model, verify, profile_name = args.base_url, args.backend, args.model, True, None
    ray_address = args.ray
    roofline = None
    if args.profile:
        from app.profiles import ProfileStore

        profile = ProfileStore().get(args.profile)
        if profile is None:
            raise UsageError(f"--profile: no profile named '{args.profile}'")
        profile_name = profile.name
        base_url = base_url or profile.base_url or None
        api = api or profile.api
        model = model or profile.model or None
        verify = profile.verify_tls
        roofline = profile.roofline
        headers = check_headers({**profile.headers, **headers})
        ray_address = ray_address or profile.ray_address or None
        if not base_url:
            raise UsageError(f"--profile: '{args.profile}' has no base URL; pass --base-url")
    roofline, roofline_notes = _roofline(args, roofline, model)
    workers = _workers(args.workers, ray_address)
    base_url = base_url or f"http://{args.host}:{args.port}"
    try:
        resolved = resolve_endpoint(base_url, args.endpoint, api, model)
    except EndpointError as exc:
        raise UsageError(str(exc)) from None
    counter: Any = _EstimateCounter()
    tokenizer = None
    if args.tokenizer:
        try:
            tokenizer = counter = TokenCounter(args.tokenizer)
        except TokenizerError as exc:
            raise UsageError(f"--tokenizer: {exc}") from None
    options = DatasetOptions(
        name=args.dataset_name,
        path=Path(args.dataset_path) if args.dataset_path else None,
        num_prompts=args.num_prompts,
        seed=args.seed,
        output_len=args.output_len,
        sharegpt_output_len=args.sharegpt_output_len,
        random_input_len=args.random_input_len,
        prefix_len=args.prefix_repetition_prefix_len,
        suffix_len=args.prefix_repetition_suffix_len,
        num_prefixes=args.prefix_repetition_num_prefixes,
        prefix_output_len=args.prefix_repetition_output_len,
        random_output_len=args.random_output_len,
        random_range_ratio=args.random_range_ratio,
    )
    vocab = None
    if tokenizer is not None and args.dataset_name in ("random", "prefix"):
        vocab = HFVocab(tokenizer.path)
    try:
        samples = get_samples(options, counter, vocab)
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    extra_body = dict(args.extra_body or {})
    if args.temperature is not None:
        extra_body["temperature"] = args.temperature
    config = SweepConfig(
        resolved=resolved,
        model=model or "",
        backend="openai-chat" if resolved.api == "chat" else "openai",
        samples=samples,
        rates=rates,
        concurrencies=concurrencies,
        result_dir=Path(args.result_dir),
        label=args.label,
        result_filename=args.result_filename,
        burstiness=args.burstiness,
        seed=args.seed,
        num_warmups=args.num_warmups,
        # vLLM ignores EOS for the random dataset so replies run to the requested length.
        ignore_eos=args.ignore_eos or args.dataset_name == "random",
        goodput=goodput,
        percentile_metrics=percentile_metrics,
        percentiles=percentiles,
        save_detailed=args.save_detailed,
        extra_body=extra_body or None,
        extra_headers=headers or None,
        api_key=require_api_key(args.api_key_env, profile_name),
        tokenizer=tokenizer,
        tokenizer_id=args.tokenizer,
        dataset_name=args.dataset_name,
        dataset_path=str(options.path) if options.path else None,
        profile=profile_name,
        grace_s=args.grace_period,
        verify_tls=verify and not args.insecure,
        workers=workers,
        ray_address=ray_address,
        roofline=roofline,
        server_metrics=args.server_metrics,
        overwrite=args.overwrite,
        timeout_s=timeout_s,
        request_timeout_s=request_timeout_s,
        slos=slos or None,
        reset_prefix_cache=args.reset_prefix_cache,
    )
    # The statistics the SLOs read must be computed (tpot:p95 with percentiles 50,90,99).
    wanted = {q for q in (slo.quantile for slo in slos.limits) if q is not None}
    config.percentiles = tuple(sorted(set(config.percentiles) | wanted))
    return config, list(resolved.notes) + roofline_notes


def _roofline(
    args: argparse.Namespace, saved: dict[str, Any] | None, model: str | None
) -> tuple[dict[str, Any] | None, list[str]]:
    """The roofline context of the run: the profile's, with any roofline flag overriding its
    part; (None, notes) when neither gives a GPU. UsageError for a bad id in a flag."""
    flags = {
        "gpu_id": args.gpu,
        "model_id": args.roofline_model,
        "fmt": args.dtype,
        "kv_dtype": args.kv_dtype,
        "context": args.roofline_context,
    }
    given = {k: v for k, v in flags.items() if v is not None}
    names = {
        "gpu_id": "--gpu",
        "model_id": "--roofline-model",
        "fmt": "--dtype",
        "kv_dtype": "--kv-dtype",
        "context": "--roofline-context",
    }
    if not given:
        if not saved:
            return None, []
        try:
            return check_roofline(saved), []
        except ValueError as exc:  # a profile saved before a catalogue change: run without it
            return None, [f"the profile's roofline context is not used: {exc}"]
    context = {**(saved or {}), **given}
    context.setdefault("fmt", "bf16")
    context.setdefault("kv_dtype", "fp16")
    guessed = not context.get("model_id") and bool(model)
    if guessed:
        context["model_id"] = model
    if not context.get("gpu_id"):
        flags_given = ", ".join(names[k] for k in given)
        raise UsageError(f"{flags_given}: the roofline also needs --gpu (e.g. --gpu rtx3090)")
    if not context.get("model_id"):
        # Filled in from /v1/models once the server has named its model (see _run).
        return context, []
    try:
        return check_roofline(context), []
    except ValueError as exc:
        hint = "; name the architecture with --roofline-model" if guessed else ""
        raise UsageError(f"roofline: {exc}{hint}") from None


def _watch_stdin(loop: asyncio.AbstractEventLoop, cancel: asyncio.Event) -> None:
    def reader() -> None:
        for line in sys.stdin:
            if line.strip() == "cancel":
                loop.call_soon_threadsafe(cancel.set)
                return

    threading.Thread(target=reader, name="cancel-reader", daemon=True).start()


async def _main(
    args: argparse.Namespace,
    config: SweepConfig,
    observers: list[Any],
    search: SearchSettings | None = None,
) -> int:
    loop = asyncio.get_running_loop()
    cancel = asyncio.Event()

    def on_signal() -> None:
        if cancel.is_set():
            os._exit(130)  # a second Ctrl-C: finished points are already on disk
        cancel.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    if args.events:
        _watch_stdin(loop, cancel)

        def reader_gone() -> None:  # on the writer's thread; the loop may be over by then
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(cancel.set)

        for obs in observers:
            if isinstance(obs, EventWriter):
                obs.on_broken = reader_gone
    first = await fetch_first_model(
        config.resolved,
        config.api_key,
        config.extra_headers,
        config.verify_tls,
        timeout_s=min(60.0, config.timeout_s or 60.0),
        request_timeout_s=min(60.0, config.request_timeout_s or 60.0),
    )
    if not config.model:
        if first is None:
            raise UnreachableError(f"no model list at {config.resolved.models_url}; pass --model")
        config.model = first
    if config.roofline is not None and not config.roofline.get("model_id"):
        try:
            config.roofline = check_roofline({**config.roofline, "model_id": config.model})
        except ValueError as exc:
            print(
                f"note: no roofline for this run: {exc}; name the architecture with "
                "--roofline-model",
                file=sys.stderr,
            )
            config.roofline = None
    if search is not None:
        from app.bench.capacity.search_run import run_search

        found, _, _ = await run_search(config, search, observers, cancel)
        return 130 if found.cancelled and not args.events else 0
    outcome = await run_sweep(config, observers, cancel)
    if outcome.cancelled and not args.events:
        return 130
    empty = outcome.empty_points
    if empty:
        print(
            f"tpotbench sweep: no request succeeded in {len(empty)} of {len(outcome.results)} "
            "point(s); their latency figures are left empty (see the failures above)",
            file=sys.stderr,
        )
    return 1 if empty or outcome.write_errors else 0


def run(args: argparse.Namespace) -> int:
    return run_with(args)


def run_with(
    args: argparse.Namespace,
    search: SearchSettings | None = None,
    search_console: Any | None = None,
) -> int:
    """`sweep`, or with `search` settings the capacity search (same flags, same files)."""
    # Written from its own thread: a GUI that reads slowly must not hold up token timestamps.
    events = EventWriter(sys.stdout, background=True) if args.events else None
    try:
        return _run(args, events, search, search_console)
    finally:
        if events is not None:
            events.close()  # everything queued, run_finished last, is written before exit


def _run(
    args: argparse.Namespace,
    events: EventWriter | None,
    search: SearchSettings | None = None,
    search_console: Any | None = None,
) -> int:
    command = "search" if search is not None else "sweep"
    try:
        if search is not None:
            args.num_prompts = search.num_prompts
        config, notes = _build_config(args)
    except UsageError as exc:
        if events:
            events.error(str(exc))
        print(f"tpotbench {command}: error: {exc}", file=sys.stderr)
        return 2
    try:
        ensure_writable_dir(config.result_dir)
        targets = set(config.plan_targets())
        others = [p for p in result_files(config.result_dir) if p not in targets]
        summary = config.result_dir / "search.json"
        if search is not None and summary.exists() and not config.overwrite:
            raise ResultExistsError(
                f"{summary} exists (an earlier search); pass --overwrite to replace it, or "
                "choose another --result-dir"
            )
    except OSError as exc:  # checked before any request, so no load runs for nothing
        message = (
            str(exc)
            if isinstance(exc, ResultExistsError)
            else f"--result-dir: cannot write in {config.result_dir} ({exc.strerror or exc})"
        )
        if events:
            events.error(message)
        print(f"tpotbench {command}: error: {message}", file=sys.stderr)
        return 2
    if others:  # never read: they cannot stop this run, and sweep.csv will not mix them in
        notes.append(
            f"{config.result_dir} holds {len(others)} other result file(s) (e.g. "
            f"{others[0].name}); they are left as they are and sweep.csv lists this run only"
        )
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if warning := cleartext_warning(config.resolved.url, config.api_key):
        print(warning, file=sys.stderr)
    console = ConsoleReporter(
        bar=not args.disable_tqdm,
        summary_stream=sys.stderr if events or search is not None else sys.stdout,
    )
    console.burstiness = config.burstiness
    observers: list[Any] = [console] + ([events] if events else [])
    if search_console is not None:
        if events:  # stdout carries the events; the table goes to stderr
            search_console.out = sys.stderr
        observers.append(search_console)
    from app.bench.http.client import run as run_async

    try:
        return run_async(_main(args, config, observers, search))
    except (UnreachableError, WorkerError) as exc:
        # Points finished before this are on disk already.
        if events:
            events.error(str(exc))
        print(f"tpotbench {command}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the result folder cannot be written, for instance
        if events:
            events.error(str(exc))
        print(f"tpotbench {command}: error: {exc}", file=sys.stderr)
        return 1
