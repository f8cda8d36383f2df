"""The command lines the window runs: `tpotbench probe`/`sweep`/`search --events jsonl` for an
endpoint (a Target) and the sweep form (a SweepSpec). Qt-free, so the CLI's own parser can check
what the window sends (tests/commands/test_argv.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.commands.connection import header_args
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
    extra_args: list[str] = field(default_factory=list)
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


def _rate_text(rate: float) -> str:
    return "inf" if math.isinf(rate) else f"{rate:g}"


def _load_args(spec: SweepSpec) -> list[str]:
    """The load flags: a grid of rates x concurrencies, or a search's start and cap."""
    if spec.search is not None:
        return [
            "--request-rate",
            _rate_text(spec.request_rates[0]),
            "--start",
            f"{spec.search['start']:g}",
            "--max",
            f"{spec.search['max']:g}",
        ]
    load = [
        "--request-rate",
        ",".join(_rate_text(r) for r in spec.request_rates),
        "--max-concurrency",
        ",".join(str(c) for c in spec.max_concurrencies),
    ]
    if spec.dataset == "mooncake":  # the trace's timestamps replace the request rate
        return load[2:]
    return load


def dataset_args(spec: SweepSpec) -> list[str]:
    """The form's dataset as the CLI's --dataset-name and its own flags."""
    if spec.dataset == "random":
        return [
            "--dataset-name",
            "random",
            "--random-input-len",
            str(spec.random_input_len),
            "--random-output-len",
            str(spec.random_output_len),
        ]
    if spec.dataset == "prefix":
        return [
            "--dataset-name",
            "prefix",
            "--prefix-repetition-prefix-len",
            str(spec.prefix_len),
            "--prefix-repetition-suffix-len",
            str(spec.suffix_len),
            "--prefix-repetition-num-prefixes",
            str(spec.num_prefixes),
            "--prefix-repetition-output-len",
            str(spec.prefix_output_len),
        ]
    if spec.dataset == "mooncake":  # no file: the shipped synthetic trace
        path = ["--dataset-path", spec.dataset_path] if spec.dataset_path else []
        return ["--dataset-name", "mooncake", *path, "--trace-speedup", f"{spec.trace_speedup:g}"]
    if spec.dataset == "prompts":
        return ["--dataset-name", "prompts", "--dataset-path", spec.dataset_path]
    if spec.dataset == "conversations":  # no file: the shipped multi-turn file
        return ["--dataset-name", "sharegpt", "--multi-turn", *_conversation_args(spec)]
    if spec.dataset == "sharegpt":
        return ["--dataset-name", "sharegpt", "--dataset-path", spec.dataset_path]
    return ["--dataset-name", "sharegpt"]


def _conversation_args(spec: SweepSpec) -> list[str]:
    """Sessions (the form's count), the file if one is chosen, turns and think time if set."""
    argv = ["--num-sessions", str(spec.num_prompts)]
    if spec.dataset_path:
        argv += ["--dataset-path", spec.dataset_path]
    if spec.max_turns:
        argv += ["--max-turns", str(spec.max_turns)]
    if spec.think_time_s:
        argv += ["--think-time", f"{spec.think_time_s:g}"]
    if spec.think_stddev_s:
        argv += ["--think-time-stddev", f"{spec.think_stddev_s:g}"]
    return argv


def build_sweep_argv(spec: SweepSpec, target: Target) -> list[str]:
    """`tpotbench sweep` (or `search`) --events jsonl for the sweep form and this target;
    never contains the API key (only the variable's name)."""
    if spec.dataset not in DATASETS:
        raise ValueError(f"Unknown dataset {spec.dataset!r}: use one of {', '.join(DATASETS)}.")
    argv = [
        *cli_command(),  # a frozen bundle runs itself, not `python -m app`
        "search" if spec.search is not None else "sweep",
        *target_args(target),
        *_load_args(spec),
        # Conversations are counted in sessions (--num-sessions below); the CLI refuses both.
        *([] if spec.dataset == "conversations" else ["--num-prompts", str(spec.num_prompts)]),
        "--seed",
        str(spec.seed),
        "--label",
        spec.label,
        "--result-dir",
        spec.result_dir,
        "--save-result",
        "--events",
        "jsonl",
    ]
    if target.ray_address:
        argv += ["--ray", target.ray_address]
    argv += dataset_args(spec)
    if spec.ignore_eos:
        argv.append("--ignore-eos")
    if spec.slos:
        argv += ["--slo", *spec.slos]
    return argv + list(spec.extra_args)
