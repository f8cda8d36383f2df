"""`sweep`/`search` flags <-> RunConfig: the one place a flag is tied to its RunConfig field.

`config_from_args` is the only way the command line becomes a run (argparse parses, this builds
the frozen RunConfig); `config_argv` is its inverse, for "Copy as command" and for checking a
config that came as JSON by the flags' own rules (`checked`): every value a flag refuses, a JSON
config refuses too, in the same words.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, NoReturn

from app.bench.load.grid import GridError, empty_item, parse_concurrencies, parse_rates
from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj
from app.bench.schema.run_config import (
    SCHEMA_VERSION,
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
from app.commands import flags
from app.commands.credentials import UsageError

SEARCH_NUM_PROMPTS = 200  # `search` sizes its loads from this many prompts by default


@dataclass(frozen=True)
class Flag:
    """One flag: its option, the RunConfig section and field it fills, and its form.

    form: "value" (one argument), "true"/"false" (store_true/store_false), "bool" (--x and
    --no-x, None when neither), "items" (nargs, a tuple of strings), "json" (a JSON object)."""

    option: str
    section: str
    name: str
    dest: str
    form: str = "value"


def _flag(option: str, section: str, name: str, form: str = "value", dest: str = "") -> Flag:
    return Flag(option, section, name, dest or option.removeprefix("--").replace("-", "_"), form)


# Every flag of `sweep` (and `search`, which adds the search section) in --help order; the
# load grid's two lists are read by _grid and written by _grid_argv.
FLAGS: tuple[Flag, ...] = (
    _flag("--base-url", "endpoint", "base_url"),
    _flag("--host", "endpoint", "host"),
    _flag("--port", "endpoint", "port"),
    _flag("--endpoint", "endpoint", "endpoint"),
    _flag("--backend", "endpoint", "backend"),
    _flag("--model", "endpoint", "model"),
    _flag("--profile", "endpoint", "profile"),
    _flag("--api-key-env", "endpoint", "api_key_env"),
    _flag("--header", "endpoint", "headers", "items"),
    _flag("--insecure", "endpoint", "insecure", "true"),
    _flag("--tokenizer", "dataset", "tokenizer"),
    _flag("--dataset-name", "dataset", "name"),
    _flag("--dataset-path", "dataset", "path"),
    _flag("--num-prompts", "dataset", "num_prompts"),
    _flag("--trace-speedup", "dataset", "trace_speedup"),
    _flag("--random-input-len", "dataset", "random_input_len"),
    _flag("--random-output-len", "dataset", "random_output_len"),
    _flag("--random-range-ratio", "dataset", "random_range_ratio"),
    _flag("--prefix-repetition-prefix-len", "dataset", "prefix_len"),
    _flag("--prefix-repetition-suffix-len", "dataset", "suffix_len"),
    _flag("--prefix-repetition-num-prefixes", "dataset", "num_prefixes"),
    _flag("--prefix-repetition-output-len", "dataset", "prefix_output_len"),
    _flag("--sharegpt-output-len", "dataset", "sharegpt_output_len"),
    _flag("--output-len", "dataset", "output_len"),
    _flag("--burstiness", "load", "burstiness"),
    _flag("--seed", "load", "seed"),
    _flag("--multi-turn", "dataset", "multi_turn", "true"),
    _flag("--num-sessions", "dataset", "num_sessions"),
    _flag("--max-turns", "dataset", "max_turns"),
    _flag("--think-time", "dataset", "think_time_s"),
    _flag("--think-time-stddev", "dataset", "think_time_stddev_s"),
    _flag("--workers", "load", "workers"),
    _flag("--ray", "endpoint", "ray"),
    _flag("--num-warmups", "load", "num_warmups"),
    _flag("--ignore-eos", "options", "ignore_eos", "true"),
    _flag("--temperature", "options", "temperature"),
    _flag("--extra-body", "options", "extra_body", "json"),
    _flag("--goodput", "slo", "goodput", "items"),
    _flag("--slo", "slo", "slos", "items"),
    _flag("--good-share", "slo", "good_share"),
    _flag("--reset-prefix-cache", "options", "reset_prefix_cache", "bool"),
    _flag("--percentile-metrics", "output", "percentile_metrics"),
    _flag("--metric-percentiles", "output", "metric_percentiles"),
    _flag("--result-dir", "output", "result_dir"),
    _flag("--result-filename", "output", "result_filename"),
    _flag("--label", "output", "label"),
    _flag("--overwrite", "output", "overwrite", "true"),
    _flag("--save-result", "output", "save_result", "true"),
    _flag("--save-detailed", "output", "save_detailed", "true"),
    _flag("--events", "output", "events", "events"),
    _flag("--disable-tqdm", "output", "disable_tqdm", "true"),
    _flag("--server-metrics", "options", "server_metrics", "true"),
    _flag("--gpu", "roofline", "gpu"),
    _flag("--roofline-model", "roofline", "model"),
    _flag("--dtype", "roofline", "dtype"),
    _flag("--kv-dtype", "roofline", "kv_dtype"),
    _flag("--roofline-context", "roofline", "context"),
    _flag("--tensor-parallel-size", "roofline", "tensor_parallel_size"),
    _flag("--timeout", "options", "timeout_s"),
    _flag("--request-timeout", "options", "request_timeout_s"),
    _flag("--grace-period", "load", "grace_period_s"),
)

SEARCH_FLAGS: tuple[Flag, ...] = (
    _flag("--over", "search", "over"),
    _flag("--start", "search", "start"),
    _flag("--max", "search", "max"),
    _flag("--growth", "search", "growth"),
    _flag("--resolution", "search", "resolution"),
    _flag("--runs", "search", "runs"),
    _flag("--min-prompts", "search", "min_prompts"),
    _flag("--prompts-per-unit", "search", "prompts_per_unit"),
    _flag("--no-early-stop", "search", "early_stop", "false", dest="early_stop"),
    _flag("--no-check-above", "search", "check_above", "false", dest="check_above"),
    _flag("--lang", "search", "lang"),
)

_SECTIONS: dict[str, type[Any]] = {
    "endpoint": EndpointConfig,
    "dataset": DatasetConfig,
    "load": LoadConfig,
    "slo": SloConfig,
    "roofline": RooflineConfig,
    "options": RequestOptions,
    "output": OutputConfig,
    "search": SearchConfig,
}


def _no_empty_item(flag: str, text: str) -> None:
    """'1,,2' or '1,2,' is a slip of the fingers, not a list of two: say so rather than guess."""
    if empty_item(text):
        raise UsageError(f"{flag}: {text!r} has an empty item; separate values with one comma")


def _grid(args: argparse.Namespace) -> dict[str, Any]:
    """--request-rate and --max-concurrency as typed lists (None when not given)."""
    rates: tuple[float, ...] | None = None
    concs: tuple[int, ...] | None = None
    if args.request_rate is not None:
        _no_empty_item("--request-rate", args.request_rate)
        try:
            rates = tuple(parse_rates(args.request_rate))
        except GridError as exc:
            raise UsageError(f"--request-rate: {exc}") from None
    if args.max_concurrency is not None:
        _no_empty_item("--max-concurrency", args.max_concurrency)
        try:
            concs = tuple(parse_concurrencies(args.max_concurrency, flags.MAX_BATCH))
        except GridError as exc:
            raise UsageError(f"--max-concurrency: {exc}") from None
    return {"request_rates": rates, "max_concurrencies": concs}


def _read(flag: Flag, args: argparse.Namespace) -> Any:
    value = getattr(args, flag.dest)
    if flag.form == "items":
        return tuple(value or ())
    if flag.form == "events":
        return value is not None
    return value


def config_from_args(args: argparse.Namespace, command: str) -> RunConfig:
    """The parsed flags of `sweep` or `search` as a RunConfig; UsageError for a load list that
    does not parse (the flags' own types checked everything else)."""
    values: dict[str, dict[str, Any]] = {name: {} for name in _SECTIONS}
    for flag in FLAGS + (SEARCH_FLAGS if command == "search" else ()):
        values[flag.section][flag.name] = _read(flag, args)
    values["load"].update(_grid(args))
    sections = {name: _SECTIONS[name](**v) for name, v in values.items() if name != "search"}
    search = SearchConfig(**values["search"]) if command == "search" else None
    return RunConfig(**sections, search=search)


def number_text(value: float) -> str:
    """A number as a flag gives it: short (1, 0.5, inf), and exact (never rounded)."""
    if math.isinf(value):
        return "inf"
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def _text(value: Any) -> str:
    if isinstance(value, float):
        return number_text(value)
    return str(value)


def _default(section: str, name: str) -> Any:
    for f in fields(_SECTIONS[section]):
        if f.name == name:
            return f.default
    raise KeyError(name)


def _write(flag: Flag, value: Any) -> list[str]:
    """The arguments that give `value` to this flag; [] when it is the default."""
    if flag.section == "dataset" and flag.name == "num_prompts" and value is not None:
        return [flag.option, str(value)]
    if value == _default(flag.section, flag.name) and flag.form != "items":
        return []
    if flag.form == "true":
        return [flag.option] if value else []
    if flag.form == "false":
        return [] if value else [flag.option]
    if flag.form == "bool":
        return [flag.option if value else "--no-" + flag.option.removeprefix("--")]
    if flag.form == "events":
        return [flag.option, "jsonl"] if value else []
    if flag.form == "items":
        if not value:
            return []
        if flag.option == "--header":  # one flag per header, joined: it may start with '-'
            argv: list[str] = []
            for item in value:
                argv += [f"{flag.option}={item}"] if item.startswith("-") else [flag.option, item]
            return argv
        return [flag.option, *value]
    if flag.form == "json":
        return [flag.option, json.dumps(value, separators=(",", ":"), ensure_ascii=False)]
    text = _text(value)
    if text.startswith("-"):  # '--label -x' would read -x as a flag
        return [f"{flag.option}={text}"]
    return [flag.option, text]


def _grid_argv(load: LoadConfig) -> list[str]:
    argv: list[str] = []
    if load.request_rates is not None:
        argv += ["--request-rate", ",".join(number_text(r) for r in load.request_rates)]
    if load.max_concurrencies is not None:
        argv += ["--max-concurrency", ",".join(str(c) for c in load.max_concurrencies)]
    return argv


def config_argv(config: RunConfig) -> list[str]:
    """The `tpotbench` arguments (command first) that give this RunConfig; the inverse of
    config_from_args. Only the flags that differ from their defaults, in --help order."""
    argv: list[str] = [config.command]
    for flag in FLAGS:
        if flag.option == "--burstiness":  # the load grid, where --help lists it
            argv += _grid_argv(config.load)
        if (
            flag.name == "num_prompts"
            and config.search is not None
            and config.dataset.num_prompts == SEARCH_NUM_PROMPTS
        ):
            continue
        argv += _write(flag, getattr(getattr(config, flag.section), flag.name))
    if config.search is not None:
        for flag in SEARCH_FLAGS:
            argv += _write(flag, getattr(config.search, flag.name))
    return argv


class _RaisingParser(argparse.ArgumentParser):
    """The command's parser, with its one-line errors raised as UsageError (not exit)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def command_parser(command: str) -> argparse.ArgumentParser:
    from app.commands import search, sweep

    add: Callable[[argparse.ArgumentParser], None] = (
        search.add_arguments if command == "search" else sweep.add_arguments
    )
    parser = _RaisingParser(prog=f"tpotbench {command}", add_help=False)
    add(parser)
    return parser


def parse_config(argv: Sequence[str]) -> RunConfig:
    """`tpotbench` arguments (command first) as a RunConfig; UsageError naming the bad flag."""
    if not argv or argv[0] not in ("sweep", "search"):
        raise UsageError("give sweep or search first")
    args = command_parser(argv[0]).parse_args(list(argv[1:]))
    if getattr(args, "config", None) is not None:
        raise UsageError("--config: a config cannot name another config")
    return config_from_args(args, argv[0])


def checked(config: RunConfig) -> RunConfig:
    """A RunConfig that came as data (JSON), checked by the same rules as the flags: the
    config as the flags would give it, or UsageError in the flags' words."""
    again = parse_config(config_argv(config))
    if again != config:
        differs = [
            f"{section}.{f.name} {getattr(a, f.name)!r} would run as {getattr(b, f.name)!r}"
            for section in _SECTIONS
            if (a := getattr(config, section)) is not None and (b := getattr(again, section))
            for f in fields(a)
            if getattr(a, f.name) != getattr(b, f.name)
        ]
        raise UsageError(f"the config's {differs[0] if differs else 'values'}; give that instead")
    return config


# A config on stdin is one line; far beyond any real one (a few KB), short of exhausting memory.
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def _config_text(source: str) -> str:
    if source == "-":
        line = sys.stdin.readline(MAX_CONFIG_BYTES + 1)
        if len(line) > MAX_CONFIG_BYTES:
            raise UsageError(f"--config: the config is over {MAX_CONFIG_BYTES:,} characters")
        if not line.strip():
            raise UsageError("--config -: stdin gave no config (one line of JSON expected)")
        return line
    try:
        with open(source, encoding="utf-8") as file:
            text = file.read(MAX_CONFIG_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--config: cannot read {source} ({exc})") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise UsageError(f"--config: {source} is over {MAX_CONFIG_BYTES:,} characters")
    return text


def config_json(config: RunConfig) -> str:
    """The config as one line of JSON (what the window writes on the worker's stdin)."""
    return json.dumps(to_json_obj(config), ensure_ascii=False, separators=(",", ":"))


def config_from_json(text: str) -> RunConfig:
    """One JSON RunConfig, read strictly and checked as its flags would be; UsageError in one
    line naming what is wrong."""
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise UsageError(f"--config: not valid JSON ({exc})") from None
    if isinstance(obj, dict) and obj.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise UsageError(
            f"--config: schema_version {obj['schema_version']!r} is not {SCHEMA_VERSION} "
            "(written by another version of TPOT Bench)"
        )
    try:
        config = from_json_obj(RunConfig, obj, where="config")
    except SchemaError as exc:
        raise UsageError(f"--config: {exc}") from None
    if config.search is not None and config.dataset.num_prompts is None:
        config = replaced(config, "dataset", num_prompts=SEARCH_NUM_PROMPTS)  # as the flags do
    try:
        return checked(config)
    except UsageError as exc:
        raise UsageError(f"--config: {exc}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def read_config(source: str, command: str) -> RunConfig:
    """The RunConfig in a file ('-': stdin's first line) for `command`; UsageError if not."""
    config = config_from_json(_config_text(source))
    if config.command != command:
        raise UsageError(
            f"--config: the config describes a {config.command}; run tpotbench "
            f"{config.command} --config"
        )
    return config


def with_flags(config: RunConfig, extra: Sequence[str]) -> RunConfig:
    """The config with these `sweep` flags given on top (tests, benchmarks: flags the window's
    form does not offer); UsageError for a flag the command does not take."""
    return parse_config([*config_argv(config), *extra]) if extra else config


def replaced(config: RunConfig, section: str, **changes: Any) -> RunConfig:
    """The config with some fields of one section changed."""
    return replace(config, **{section: replace(getattr(config, section), **changes)})
