"""RunConfig: everything a `tpotbench sweep` or `search` run is asked to do, as frozen data.

One value describes a run whether it came from the command line (app/commands/run_args.py
builds it from the flags, and turns it back into them for "Copy as command") or from the window
(sent as JSON on the worker's stdin, `tpotbench sweep --config -`). It holds what the user chose,
not what was found out: the profile's settings, the key, the prompts, the tokenizer, the model the
server names and the result files' names are looked up when the run starts (the run context,
app/commands/sweep_config.py), so building, copying or sending a RunConfig touches nothing.

Never a key: only the name of the environment variable that holds one (`api_key_env`).
Fields left None take the default the run decides (e.g. `num_prompts`: 1000 prompts, all of a
trace's lines, or a search's 200), as the flags they mirror do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.bench.schema.codec import wire

SCHEMA_VERSION = 1

Over = Literal["concurrency", "rate"]


@dataclass(frozen=True)
class EndpointConfig:
    """The server (flags over the saved `profile`); `host`/`port` when no URL is given."""

    base_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    endpoint: str | None = None  # an API path such as /v1/chat/completions
    backend: str | None = None  # openai-chat / openai (chat / completions)
    model: str | None = None  # None: the server's first model
    profile: str | None = None
    api_key_env: str | None = None  # the variable holding the key, never the key
    headers: tuple[str, ...] = ()  # 'Name: value' items, as --header takes them
    insecure: bool = False
    ray: str | None = None  # a Ray cluster's address for the load workers


@dataclass(frozen=True)
class DatasetConfig:
    """What each request sends: a dataset, its lengths, conversations or a trace."""

    name: str = "sharegpt"
    path: str | None = None
    num_prompts: int | None = None
    tokenizer: str | None = None  # a folder with tokenizer.json
    random_input_len: int = 1024
    random_output_len: int = 128
    random_range_ratio: float = 0.0
    prefix_len: int = 256
    suffix_len: int = 256
    num_prefixes: int = 10
    prefix_output_len: int = 128
    sharegpt_output_len: int | None = None
    output_len: int | None = None
    trace_speedup: float | None = None
    multi_turn: bool = False
    num_sessions: int | None = None
    max_turns: int | None = None
    think_time_s: float = 0.0
    think_time_stddev_s: float = 0.0


@dataclass(frozen=True)
class LoadConfig:
    """The grid of request rates x concurrencies, the arrivals' shape and who sends them."""

    # None: the default (inf, all at once; a trace's own clock).
    request_rates: tuple[float, ...] | None = field(default=None, metadata=wire(inf_as_text=True))
    max_concurrencies: tuple[int, ...] | None = None  # None: no cap
    burstiness: float | None = None  # None: 1 (Poisson)
    seed: int = 0
    workers: int | None = None  # None: 1, or 2 with Ray
    num_warmups: int = 0
    grace_period_s: float = 5.0


@dataclass(frozen=True)
class SloConfig:
    """Latency goals: 'metric:stat:ms' on a point's statistics, vLLM's per-request goodput."""

    slos: tuple[str, ...] = ()
    goodput: tuple[str, ...] = ()
    good_share: float = 0.99


@dataclass(frozen=True)
class RooflineConfig:
    """The hardware for the roofline (over the profile's); ids from the catalogue."""

    gpu: str | None = None
    model: str | None = None  # the architecture (default: the served model)
    dtype: str | None = None
    kv_dtype: str | None = None
    context: int | None = None
    tensor_parallel_size: int | None = None


@dataclass(frozen=True)
class RequestOptions:
    """How each request is sent and how long it may take."""

    ignore_eos: bool = False
    temperature: float | None = None
    extra_body: dict[str, Any] | None = None
    reset_prefix_cache: bool | None = None  # None: only for a server on this machine
    server_metrics: bool = False
    timeout_s: float = 600.0  # longest silence
    request_timeout_s: float = 1800.0  # a whole request; 0 = no limit


@dataclass(frozen=True)
class OutputConfig:
    """Where the points are saved and what the run prints."""

    result_dir: str = "."
    result_filename: str | None = None
    label: str | None = None
    overwrite: bool = False
    save_result: bool = False  # vllm bench serve's flag: results are always saved
    save_detailed: bool = False
    percentile_metrics: str = "ttft,tpot,itl,e2el"
    metric_percentiles: str = "50,90,95,99"
    events: bool = False  # the JSON lines event stream on stdout (the window reads it)
    disable_tqdm: bool = False


@dataclass(frozen=True)
class SearchConfig:
    """A capacity search instead of a grid: the highest load that meets every SLO."""

    over: Over = "concurrency"
    start: float = 1.0
    max: float | None = None  # None: 256 streams or 256 req/s
    growth: float = 2.0
    resolution: str | None = None  # a number or a percentage such as '5%'
    runs: int = 1
    min_prompts: int = 64
    prompts_per_unit: float = 8.0
    early_stop: bool = True
    check_above: bool = True
    lang: Literal["en", "zh_CN"] = "en"


@dataclass(frozen=True)
class RunConfig:
    """A sweep (`search` None) or a capacity search, whole."""

    endpoint: EndpointConfig = EndpointConfig()
    dataset: DatasetConfig = DatasetConfig()
    load: LoadConfig = LoadConfig()
    slo: SloConfig = SloConfig()
    roofline: RooflineConfig = RooflineConfig()
    options: RequestOptions = RequestOptions()
    output: OutputConfig = OutputConfig()
    search: SearchConfig | None = None
    schema_version: int = SCHEMA_VERSION

    @property
    def command(self) -> Literal["sweep", "search"]:
        return "search" if self.search is not None else "sweep"
