"""A RunConfig -> the engine's RunContext: the load grid with its defaults, the dataset's
prompts, the endpoint (the config over the profile) and its key, the workers and the roofline
context; UsageError on bad input. Everything here that reads a disk or the keyring runs once,
when a run starts."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.bench.capacity.slo import parse_slos
from app.bench.datasets.conversations import default_conversations_path
from app.bench.datasets.prompts import DatasetError, HFVocab, SampleRequest
from app.bench.datasets.sampling import DatasetOptions, get_samples
from app.bench.http.tokens import TokenCounter, TokenizerError, estimate_tokens
from app.bench.load.workers.ray_address import RayAddressError, parse_ray_address
from app.bench.metrics.options import (
    parse_goodput,
    parse_percentile_metrics,
    parse_percentiles,
)
from app.bench.schema.run_config import RooflineConfig, RunConfig
from app.bench.selftest.store import load_ceiling, mode_of
from app.bench.sweep.conversation_point import ConversationLoad
from app.bench.sweep.roofline_point import check_roofline, roofline_of
from app.bench.sweep.run_context import RunContext
from app.commands import conversation_flags, trace_flags
from app.commands.connection import connection_for
from app.commands.credentials import UsageError, require_api_key
from app.commands.sweep_flags import ROOFLINE_FLAGS
from app.commands.timeouts import request_limit
from app.roofline.catalog import get_gpu, get_kv_dtype, get_weight_format
from app.roofline.context import RooflineContext

# A random-dataset point's prompts are built up front: ~6 bytes of filler text per token.
_MAX_PROMPT_TOKENS = 100_000_000


def _concurrencies(values: tuple[int, ...] | None) -> list[int | None]:
    return [None] if values is None else list(values)


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


def _check_sizes(config: RunConfig, num_prompts: int, points: int) -> None:
    """Refuse what would name one file for many points or hold too many prompt tokens."""
    data = config.dataset
    if config.output.result_filename and points > 1:
        raise UsageError(
            f"--result-filename names one file but the sweep has {points} points; use --label "
            "instead"
        )
    if data.name == "random":
        held = num_prompts * data.random_input_len
        if held > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {num_prompts:,} x --random-input-len "
                f"{data.random_input_len:,} is {held:,} prompt tokens held in memory; keep it "
                f"under {_MAX_PROMPT_TOKENS:,} by lowering one of them"
            )
    if data.name == "prefix":
        per = data.prefix_len + data.suffix_len
        if num_prompts * per > _MAX_PROMPT_TOKENS:
            raise UsageError(
                f"--num-prompts {num_prompts:,} x (prefix + suffix length {per:,}) is over "
                f"{_MAX_PROMPT_TOKENS:,} prompt tokens held in memory; lower one of them"
            )


def _token_counters(tokenizer_dir: str | None) -> tuple[Any, TokenCounter | None]:
    """(what counts prompt tokens, the --tokenizer if given): without one, an estimate."""
    if not tokenizer_dir:
        return _EstimateCounter(), None
    try:
        tokenizer = TokenCounter(tokenizer_dir)
    except TokenizerError as exc:
        raise UsageError(f"--tokenizer: {exc}") from None
    return tokenizer, tokenizer


def _dataset_options(config: RunConfig, num_prompts: int) -> DatasetOptions:
    data = config.dataset
    return DatasetOptions(
        name=data.name,
        path=Path(data.path) if data.path else None,
        num_prompts=num_prompts,
        seed=config.load.seed,
        output_len=data.output_len,
        sharegpt_output_len=data.sharegpt_output_len,
        random_input_len=data.random_input_len,
        prefix_len=data.prefix_len,
        suffix_len=data.suffix_len,
        num_prefixes=data.num_prefixes,
        prefix_output_len=data.prefix_output_len,
        random_output_len=data.random_output_len,
        random_range_ratio=data.random_range_ratio,
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
    config: RunConfig, num_prompts: int, rates: list[float], api: str, workers: int
) -> tuple[_Workload, TokenCounter | None]:
    counter, tokenizer = _token_counters(config.dataset.tokenizer)
    options = _dataset_options(config, num_prompts)
    vocab = None
    if tokenizer is not None and config.dataset.name in ("random", "prefix", "mooncake"):
        vocab = HFVocab(tokenizer.path)
    conversations = conversation_flags.conversation_load(
        config, api=api, workers=workers, counter=counter
    )
    try:
        trace = trace_flags.trace_load(config, options, vocab)
        if trace is not None:
            samples, rates = trace.samples, [trace.rate]
        else:
            samples = get_samples(options, counter, vocab) if conversations is None else []
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    return _Workload(samples, rates, options, conversations, trace), tokenizer


# Long on purpose: after the checks and the parts above, one flat RunContext(...) of ~40 fields.
def open_context(config: RunConfig) -> tuple[RunContext, list[str]]:
    """A RunConfig -> a RunContext without the model (the server names it, see
    app/commands/sweep.py); UsageError on bad input."""
    conversation_flags.check(config)
    trace_flags.check(config)
    data, load, out, opts = config.dataset, config.load, config.output, config.options
    num_prompts = trace_flags.num_prompts(config)
    rates = list(load.request_rates or (math.inf,))
    concurrencies = _concurrencies(load.max_concurrencies)
    _check_sizes(config, num_prompts, len(rates) * len(concurrencies))
    try:
        percentiles = parse_percentiles(out.metric_percentiles)
        percentile_metrics = parse_percentile_metrics(out.percentile_metrics)
        goodput = parse_goodput(list(config.slo.goodput)) if config.slo.goodput else None
        slos = parse_slos(config.slo.slos, config.slo.goodput, config.slo.good_share)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    endpoint = config.endpoint
    conn = connection_for(endpoint)
    if conn.profile and not conn.base_url:
        raise UsageError(f"--profile: '{endpoint.profile}' has no base URL; pass --base-url")
    roofline, roofline_notes = roofline_context(config.roofline, conn.roofline, conn.model)
    workers = _workers(load.workers, conn.ray_address)
    resolved = conn.resolve(conn.base_url or f"http://{endpoint.host}:{endpoint.port}")
    work, tokenizer = _workload(config, num_prompts, rates, resolved.api, workers)
    extra_body = dict(opts.extra_body or {})
    if opts.temperature is not None:
        extra_body["temperature"] = opts.temperature
    # The statistics the SLOs read must be computed (tpot:p95 with percentiles 50,90,99).
    wanted = {q for q in (slo.quantile for slo in slos.limits) if q is not None}
    context = RunContext(
        resolved=resolved,
        model=conn.model or "",
        backend="openai-chat" if resolved.api == "chat" else "openai",
        samples=work.samples,
        rates=work.rates,
        concurrencies=concurrencies,
        result_dir=Path(out.result_dir),
        label=out.label,
        result_filename=out.result_filename,
        burstiness=1.0 if load.burstiness is None else load.burstiness,
        seed=load.seed,
        num_warmups=load.num_warmups,
        # vLLM ignores EOS for the random dataset so replies run to the requested length.
        ignore_eos=opts.ignore_eos or data.name == "random",
        goodput=goodput,
        percentile_metrics=percentile_metrics,
        percentiles=tuple(sorted(set(percentiles) | wanted)),
        save_detailed=out.save_detailed,
        extra_body=extra_body or None,
        extra_headers=conn.headers or None,
        api_key=require_api_key(endpoint.api_key_env, conn.profile),
        tokenizer=tokenizer,
        tokenizer_id=data.tokenizer,
        dataset_name=data.name,
        dataset_path=_dataset_path(work.options.path, work.conversations),
        profile=conn.profile,
        grace_s=load.grace_period_s,
        verify_tls=conn.verify_tls,
        workers=workers,
        ray_address=conn.ray_address,
        # A Ray cluster's actors run on other machines: this machine's ceiling says nothing.
        client_ceiling=None if conn.ray_address else load_ceiling(mode_of(workers)),
        roofline=roofline,
        server_metrics=opts.server_metrics,
        overwrite=out.overwrite,
        timeout_s=opts.timeout_s,
        request_timeout_s=request_limit(opts.request_timeout_s),
        slos=slos or None,
        reset_prefix_cache=opts.reset_prefix_cache,
        conversations=work.conversations,
        arrival_plan=work.trace.plan if work.trace else None,
        trace=work.trace.block if work.trace else None,
    )
    return context, list(resolved.notes) + roofline_notes


def _dataset_path(path: Path | None, conversations: Any) -> str | None:
    if path is None and conversations is not None:
        path = default_conversations_path()
    return str(path) if path else None


def roofline_context(
    flags_given: RooflineConfig, saved: Mapping[str, object] | None, model: str | None
) -> tuple[RooflineContext | None, list[str]]:
    """The roofline context of the run: the profile's, with any roofline flag overriding its
    part; (None, notes) when neither gives a GPU. UsageError for a bad id in a flag. Without
    a model id yet, the context waits for the server's model (model_id None; see _run)."""
    values = (
        flags_given.gpu,
        flags_given.model,
        flags_given.dtype,
        flags_given.kv_dtype,
        flags_given.context,
        flags_given.tensor_parallel_size,
    )
    given = {
        key: value for key, value in zip(ROOFLINE_FLAGS, values, strict=True) if value is not None
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
        named = ", ".join(ROOFLINE_FLAGS[k] for k in given)
        raise UsageError(f"{named}: the roofline also needs --gpu (e.g. --gpu rtx3090)")
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
        try:
            return roofline_of(context, model=False), []
        except ValueError as exc:  # a number the profile saved: the run goes without, as above
            return None, [f"no roofline for this run: {exc}"]
    try:
        return check_roofline(context), []
    except ValueError as exc:
        hint = "; name the architecture with --roofline-model" if guessed else ""
        raise UsageError(f"roofline: {exc}{hint}") from None
