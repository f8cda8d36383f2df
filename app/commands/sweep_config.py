"""`sweep`/`search` flags -> the engine's SweepConfig: the load grid, the dataset, the endpoint
(flags over the profile), the workers and the roofline context; UsageError on bad input."""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.bench.capacity.slo import parse_slos
from app.bench.datasets.conversations import default_conversations_path
from app.bench.datasets.prompts import DatasetError, HFVocab, SampleRequest
from app.bench.datasets.sampling import DatasetOptions, get_samples
from app.bench.http.tokens import TokenCounter, TokenizerError, estimate_tokens
from app.bench.load.grid import GridError, empty_item, parse_concurrencies, parse_rates
from app.bench.load.workers.ray_address import RayAddressError, parse_ray_address
from app.bench.metrics.options import (
    parse_goodput,
    parse_percentile_metrics,
    parse_percentiles,
)
from app.bench.selftest.store import load_ceiling, mode_of
from app.bench.sweep.config import SweepConfig
from app.bench.sweep.conversation_point import ConversationLoad
from app.bench.sweep.roofline_point import check_roofline
from app.commands import conversation_flags, flags, trace_flags
from app.commands.connection import connection_from
from app.commands.credentials import UsageError, require_api_key
from app.commands.sweep_flags import ROOFLINE_FLAGS
from app.commands.timeouts import request_limit
from app.roofline.catalog import get_gpu, get_kv_dtype, get_weight_format

# A random-dataset point's prompts are built up front: ~6 bytes of filler text per token.
_MAX_PROMPT_TOKENS = 100_000_000


def _no_empty_item(flag: str, text: str) -> None:
    """'1,,2' or '1,2,' is a slip of the fingers, not a list of two: say so rather than guess."""
    if empty_item(text):
        raise UsageError(f"{flag}: {text!r} has an empty item; separate values with one comma")


def _rates(text: str) -> list[float]:
    _no_empty_item("--request-rate", text)
    try:
        return parse_rates(text)
    except GridError as exc:
        raise UsageError(f"--request-rate: {exc}") from None


def _concurrencies(text: str | None) -> list[int | None]:
    if text is None:
        return [None]
    _no_empty_item("--max-concurrency", text)
    try:
        return list(parse_concurrencies(text, flags.MAX_BATCH))
    except GridError as exc:
        raise UsageError(f"--max-concurrency: {exc}") from None


class _EstimateCounter:
    def count(self, text: str) -> int:
        return estimate_tokens(text)


def _workers(count: int | None, ray_address: str | None) -> int:
    """--workers (already in 1..MAX_WORKERS) with its --ray default, and Ray importable."""
    if count is None:
        count = 2 if ray_address else 1
    if ray_address is not None:
        if not ray_address.strip():
            raise UsageError("--ray needs an address: auto, or the cluster's host:port")
        try:
            parse_ray_address(ray_address)
        except RayAddressError as exc:
            raise UsageError(str(exc)) from None
        if importlib.util.find_spec("ray") is None:
            raise UsageError("--ray needs Ray: pip install 'tpotbench[distributed]'")
    return count


def _check_sizes(args: argparse.Namespace, points: int) -> None:
    """Refuse what would name one file for many points or hold too many prompt tokens."""
    if args.result_filename and points > 1:
        raise UsageError(
            f"--result-filename names one file but the sweep has {points} points; use --label "
            "instead"
        )
    if args.dataset_name == "random":
        held = args.num_prompts * args.random_input_len
        if held > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {args.num_prompts:,} x --random-input-len "
                f"{args.random_input_len:,} is {held:,} prompt tokens held in memory; keep it "
                f"under {_MAX_PROMPT_TOKENS:,} by lowering one of them"
            )
    if args.dataset_name == "prefix":
        per = args.prefix_repetition_prefix_len + args.prefix_repetition_suffix_len
        if args.num_prompts * per > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {args.num_prompts:,} x (prefix + suffix length {per:,}) is over "
                f"{_MAX_PROMPT_TOKENS:,} prompt tokens held in memory; lower one of them"
            )


def _token_counters(args: argparse.Namespace) -> tuple[Any, TokenCounter | None]:
    """(what counts prompt tokens, the --tokenizer if given): without one, an estimate."""
    if not args.tokenizer:
        return _EstimateCounter(), None
    try:
        tokenizer = TokenCounter(args.tokenizer)
    except TokenizerError as exc:
        raise UsageError(f"--tokenizer: {exc}") from None
    return tokenizer, tokenizer


def _dataset_options(args: argparse.Namespace) -> DatasetOptions:
    return DatasetOptions(
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


@dataclass
class _Workload:
    """What each point sends: sampled prompts, or conversations, or a trace (its own rate)."""

    samples: list[SampleRequest]
    rates: list[float]
    options: DatasetOptions
    conversations: ConversationLoad | None
    trace: trace_flags.TraceLoad | None


def _workload(
    args: argparse.Namespace, rates: list[float], api: str, workers: int
) -> tuple[_Workload, TokenCounter | None]:
    counter, tokenizer = _token_counters(args)
    options = _dataset_options(args)
    vocab = None
    if tokenizer is not None and args.dataset_name in ("random", "prefix", "mooncake"):
        vocab = HFVocab(tokenizer.path)
    conversations = conversation_flags.conversation_load(
        args, api=api, workers=workers, counter=counter
    )
    try:
        trace = trace_flags.trace_load(args, options, vocab)
        if trace is not None:
            samples, rates = trace.samples, [trace.rate]
        else:
            samples = get_samples(options, counter, vocab) if conversations is None else []
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    return _Workload(samples, rates, options, conversations, trace), tokenizer


# Long on purpose: after the checks and the parts above, one flat SweepConfig(...) of ~40 fields.
def build_config(args: argparse.Namespace) -> tuple[SweepConfig, list[str]]:
    """Flags -> a SweepConfig without the model (resolved later); UsageError on bad input."""
    conversation_flags.check(args)
    trace_flags.check(args)
    rates = _rates(args.request_rate)
    concurrencies = _concurrencies(args.max_concurrency)
    _check_sizes(args, len(rates) * len(concurrencies))
    try:
        percentiles = parse_percentiles(args.metric_percentiles)
        percentile_metrics = parse_percentile_metrics(args.percentile_metrics)
        goodput = parse_goodput(args.goodput) if args.goodput else None
        slos = parse_slos(args.slo, args.goodput, args.good_share)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    conn = connection_from(args)
    if conn.profile and not conn.base_url:
        raise UsageError(f"--profile: '{args.profile}' has no base URL; pass --base-url")
    roofline, roofline_notes = roofline_context(args, conn.roofline, conn.model)
    workers = _workers(args.workers, conn.ray_address)
    resolved = conn.resolve(conn.base_url or f"http://{args.host}:{args.port}")
    load, tokenizer = _workload(args, rates, resolved.api, workers)
    extra_body = dict(args.extra_body or {})
    if args.temperature is not None:
        extra_body["temperature"] = args.temperature
    config = SweepConfig(
        resolved=resolved,
        model=conn.model or "",
        backend="openai-chat" if resolved.api == "chat" else "openai",
        samples=load.samples,
        rates=load.rates,
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
        extra_headers=conn.headers or None,
        api_key=require_api_key(args.api_key_env, conn.profile),
        tokenizer=tokenizer,
        tokenizer_id=args.tokenizer,
        dataset_name=args.dataset_name,
        dataset_path=_dataset_path(load.options.path, load.conversations),
        profile=conn.profile,
        grace_s=args.grace_period,
        verify_tls=conn.verify_tls,
        workers=workers,
        ray_address=conn.ray_address,
        # A Ray cluster's actors run on other machines: this machine's ceiling says nothing.
        client_ceiling=None if conn.ray_address else load_ceiling(mode_of(workers)),
        roofline=roofline,
        server_metrics=args.server_metrics,
        overwrite=args.overwrite,
        timeout_s=args.timeout,
        request_timeout_s=request_limit(args.request_timeout),
        slos=slos or None,
        reset_prefix_cache=args.reset_prefix_cache,
        conversations=load.conversations,
        arrival_plan=load.trace.plan if load.trace else None,
        trace=load.trace.block if load.trace else None,
    )
    # The statistics the SLOs read must be computed (tpot:p95 with percentiles 50,90,99).
    wanted = {q for q in (slo.quantile for slo in slos.limits) if q is not None}
    config.percentiles = tuple(sorted(set(config.percentiles) | wanted))
    return config, list(resolved.notes) + roofline_notes


def _dataset_path(path: Path | None, conversations: Any) -> str | None:
    if path is None and conversations is not None:
        path = default_conversations_path()
    return str(path) if path else None


def roofline_context(
    args: argparse.Namespace, saved: dict[str, Any] | None, model: str | None
) -> tuple[dict[str, Any] | None, list[str]]:
    """The roofline context of the run: the profile's, with any roofline flag overriding its
    part; (None, notes) when neither gives a GPU. UsageError for a bad id in a flag."""
    given = {
        key: value
        for key, flag in ROOFLINE_FLAGS.items()
        if (value := getattr(args, flag.removeprefix("--").replace("-", "_"))) is not None
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
        flags_given = ", ".join(ROOFLINE_FLAGS[k] for k in given)
        raise UsageError(f"{flags_given}: the roofline also needs --gpu (e.g. --gpu rtx3090)")
    if not context.get("model_id"):
        # Filled in from /v1/models once the server has named its model (see _run); the ids
        # given are checked now, so a typo is a usage error before any load, not a note after.
        lookups: dict[str, Callable[[str], object]] = {
            "gpu_id": get_gpu,
            "fmt": get_weight_format,
            "kv_dtype": get_kv_dtype,
        }
        for key, lookup in lookups.items():
            try:
                lookup(str(context[key]))
            except ValueError as exc:
                raise UsageError(f"{ROOFLINE_FLAGS[key]}: {exc}") from None
        return context, []
    try:
        return check_roofline(context), []
    except ValueError as exc:
        hint = "; name the architecture with --roofline-model" if guessed else ""
        raise UsageError(f"roofline: {exc}{hint}") from None
