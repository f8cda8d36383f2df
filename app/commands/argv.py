"""What the window runs: the RunConfig of the sweep form (a SweepSpec) for an endpoint (a
Target), sent to `tpotbench sweep|search --config -` as JSON; a probe's command line. Qt-free, so
the CLI's own parser can check what the window sends (tests/commands/test_argv.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from app.bench.schema.run_config import (
    DatasetConfig,
    EndpointConfig,
    LoadConfig,
    OutputConfig,
    RequestOptions,
    RooflineConfig,
    RunConfig,
    SearchConfig,
    SloConfig,
)
from app.commands.connection import header_args
from app.commands.run_args import checked, with_flags
from app.paths import cli_command
from app.profiles import Target

# The key reaches the worker only through this variable (the engine reads --api-key-env NAME).
KEY_ENV = "TPOTBENCH_WORKER_API_KEY"
DATASETS = ("synthetic", "conversations", "prefix", "mooncake", "sharegpt", "random", "prompts")


@dataclass
class SweepSpec:
    """What the user asked for in the sweep form (the endpoint comes from the Target)."""

    request_rates: list[float] = field(default_factory=lambda: [math.inf])
    max_concurrencies: list[int] = field(default_factory=lambda: [8])
    dataset: str = "synthetic"
    dataset_path: str = ""
    random_input_len: int = 256
    random_output_len: int = 64
    # The shared-prefix dataset (vLLM's --prefix-repetition-* flags and defaults).
    prefix_len: int = 256
    suffix_len: int = 256
    num_prefixes: int = 10
    prefix_output_len: int = 128
    # Mooncake trace replay: the trace's own clock this many times faster (--trace-speedup).
    trace_speedup: float = 1.0
    # Conversations: user turns per session (0: all), think time before each later turn.
    max_turns: int = 0
    think_time_s: float = 0.0
    think_stddev_s: float = 0.0
    num_prompts: int = 64
    seed: int = 0
    ignore_eos: bool = False
    label: str = "sweep"
    result_dir: str = ""
    # The advanced settings (None / 0: the engine's default).
    burstiness: float | None = None
    num_warmups: int = 0
    temperature: float | None = None
    workers: int | None = None
    request_timeout_s: float | None = None
    # What the window adds: the Roofline dock's context, the /metrics scrape.
    roofline: RooflineConfig = field(default_factory=RooflineConfig)
    server_metrics: bool = False
    # `tpotbench sweep` flags the form does not offer (tests and benchmarks, e.g. --output-len).
    flags: tuple[str, ...] = ()
    # Latency goals as "metric:stat:ms" (tpotbench sweep/search --slo): each point is judged.
    slos: list[str] = field(default_factory=list)
    # A capacity search instead of a grid: {"start": 1, "max": 256} over concurrency at the
    # first request rate (tpotbench search).
    search: dict[str, float] | None = None

    @property
    def num_points(self) -> int:
        return len(self.request_rates) * len(self.max_concurrencies)


def target_args(target: Target) -> list[str]:
    """The endpoint flags for a Target, the same for every command; the key itself never
    appears, only KEY_ENV, the variable the worker process is given it in."""
    argv = [
        "--base-url",
        target.base_url,
        "--backend",
        "openai-chat" if target.api == "chat" else "openai",
    ]
    if target.model:
        argv += ["--model", target.model]
    if target.api_key:  # the engine refuses --api-key-env naming an unset variable
        argv += ["--api-key-env", KEY_ENV]
    if not target.verify_tls:
        argv.append("--insecure")
    return argv + header_args(target.headers)


def probe_argv(target: Target, prompt: str, max_tokens: int) -> list[str]:
    """`tpotbench probe --events jsonl` for this target; the key travels only in KEY_ENV."""
    return [
        *cli_command(),  # a frozen bundle runs itself, not `python -m app`
        "probe",
        "--events",
        "jsonl",
        *target_args(target),
        "--prompt",
        prompt,
        "--max-tokens",
        str(max_tokens),
    ]


def _endpoint(target: Target) -> EndpointConfig:
    """The endpoint of a Target; the key itself never appears, only KEY_ENV, the variable the
    worker process is given it in."""
    return EndpointConfig(
        base_url=target.base_url,
        backend="openai-chat" if target.api == "chat" else "openai",
        model=target.model or None,
        # the engine refuses --api-key-env naming an unset variable
        api_key_env=KEY_ENV if target.api_key else None,
        headers=tuple(f"{name}: {value}" for name, value in target.headers.items()),
        insecure=not target.verify_tls,
        ray=target.ray_address or None,
    )


def _load(spec: SweepSpec) -> LoadConfig:
    """The load: a grid of rates x concurrencies, a search's one rate, or a trace's cap."""
    rates: tuple[float, ...] | None = tuple(spec.request_rates)
    concs: tuple[int, ...] | None = tuple(spec.max_concurrencies)
    if spec.search is not None:  # the search sets the concurrency from its start and max
        rates, concs = rates[:1] if rates else None, None
    elif spec.dataset == "mooncake":  # the trace's timestamps replace the request rate
        rates = None
    return LoadConfig(
        request_rates=rates,
        max_concurrencies=concs,
        burstiness=spec.burstiness,
        seed=spec.seed,
        workers=spec.workers,
        num_warmups=spec.num_warmups,
    )


def dataset_config(spec: SweepSpec) -> DatasetConfig:
    """The form's dataset as the CLI's --dataset-name and its own settings."""
    # Conversations are counted in sessions (num_sessions); the CLI refuses both.
    count = None if spec.dataset == "conversations" else spec.num_prompts
    base = DatasetConfig(num_prompts=count)
    path = spec.dataset_path or None
    if spec.dataset == "random":
        return replace(
            base,
            name="random",
            random_input_len=spec.random_input_len,
            random_output_len=spec.random_output_len,
        )
    if spec.dataset == "prefix":
        return replace(
            base,
            name="prefix",
            prefix_len=spec.prefix_len,
            suffix_len=spec.suffix_len,
            num_prefixes=spec.num_prefixes,
            prefix_output_len=spec.prefix_output_len,
        )
    if spec.dataset == "mooncake":  # no file: the shipped synthetic trace
        return replace(base, name="mooncake", path=path, trace_speedup=spec.trace_speedup)
    if spec.dataset == "prompts":
        return replace(base, name="prompts", path=spec.dataset_path)
    if spec.dataset == "conversations":  # no file: the shipped multi-turn file
        return replace(
            base,
            multi_turn=True,
            num_sessions=spec.num_prompts,
            path=path,
            max_turns=spec.max_turns or None,
            think_time_s=spec.think_time_s,
            think_time_stddev_s=spec.think_stddev_s,
        )
    if spec.dataset == "sharegpt":
        return replace(base, path=spec.dataset_path)
    return base  # synthetic: the shipped ShareGPT file


def build_run_config(spec: SweepSpec, target: Target) -> RunConfig:
    """The RunConfig of `tpotbench sweep` (or `search`) for the sweep form and this target,
    with the event stream on; never holds the API key (only the variable's name). ValueError
    for what the CLI would refuse (a form field is wrong, or one of `spec.flags`)."""
    if spec.dataset not in DATASETS:
        raise ValueError(f"Unknown dataset {spec.dataset!r}: use one of {', '.join(DATASETS)}.")
    search = None
    if spec.search is not None:
        search = SearchConfig(start=spec.search["start"], max=spec.search["max"])
    options = RequestOptions(
        ignore_eos=spec.ignore_eos, temperature=spec.temperature, server_metrics=spec.server_metrics
    )
    if spec.request_timeout_s is not None:
        options = replace(options, request_timeout_s=spec.request_timeout_s)
    config = RunConfig(
        endpoint=_endpoint(target),
        dataset=dataset_config(spec),
        load=_load(spec),
        slo=SloConfig(slos=tuple(spec.slos)),
        roofline=spec.roofline,
        options=options,
        output=OutputConfig(
            result_dir=spec.result_dir, label=spec.label, save_result=True, events=True
        ),
        search=search,
    )
    return checked(with_flags(config, spec.flags))


def sweep_command(config: RunConfig) -> list[str]:
    """The worker's command line: the config itself goes on its stdin (config_json)."""
    return [*cli_command(), config.command, "--config", "-"]
