"""Property-based tests: whatever a server or a file holds, each reader raises only its
documented error type (or returns a value that the next step can use without raising)."""

from __future__ import annotations

import contextlib
import json
import math
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app import jsonfile
from app.bench.datasets.prompts import DatasetError, load_prompts_file, sample_prompts_file
from app.bench.datasets.sharegpt import sample_sharegpt
from app.bench.http.record import RequestRecord
from app.bench.metrics.point import compute_point_metrics
from app.bench.results.read import ResultFileError, point_from_dict, read_points
from app.bench.results.sweep_csv import sweep_csv_text
from app.bench.results.write import PointInfo, build_result
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_doc import point_json
from app.bench.serverstats.parse import MetricsParseError, parse_metrics
from app.bench.serverstats.snapshot import MetricsSample
from app.bench.serverstats.summary import summarize
from app.commands.report import format_table
from app.commands.sweep_console import format_summary
from app.profiles import Profile, ProfileError, ProfileStore
from app.roofline import catalog
from app.roofline.arch import arch_from_config, load_hf_config
from app.roofline.catalog import CatalogError

# Busy shared machine: no per-example deadline; enough examples to find the odd cases.
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

ODD_TEXT = st.sampled_from(
    ["+Inf", "-Inf", "NaN", "abc", "0.1", "1e400", "-100000", "16", "", "0", "-1", "1" * 40]
)
NUMBERS = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.integers(-(10**40), 10**40)
    | st.sampled_from([0, 1, -1, 2**63])
)
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


# Texts that broke the readers before: deep nesting, huge integers, non-standard numbers.
HOSTILE_TEXT = st.sampled_from(
    [
        "[" * 5000 + "]" * 5000,
        '{"a": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"a": ' + "9" * 5000 + "}",
        '[{"conversations": [{"value": "a b c d"}, {"value": ' + "7" * 5000 + "}]}]",
        '{"a": NaN}',
        '{"a": Infinity, "b": -Infinity}',
        '{"a": 1e400}',
        "\ufeff{}",
    ]
)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


# ------------------------------------------------------------------------------ /metrics

METRIC_NAMES = [
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",
    "vllm:num_preemptions_total",
    "vllm:generation_tokens_total",
    "vllm:time_to_first_token_seconds_bucket",
    "vllm:time_to_first_token_seconds_sum",
    "vllm:time_to_first_token_seconds_count",
    "vllm:inter_token_latency_seconds_bucket",
    "vllm:e2e_request_latency_seconds_bucket",
    "vllm:e2e_request_latency_seconds_count",
    "vllm:cache_config_info",
    "sglang:max_total_num_tokens",
    "sglang:token_usage",
    "llamacpp:requests_processing",
    "tgi_queue_size",
    "other_metric",
]
LABEL_KEYS = st.sampled_from(["le", "block_size", "num_gpu_blocks", "model_name", "engine"])


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@st.composite
def metric_line(draw: Any) -> str:
    name = draw(st.sampled_from(METRIC_NAMES))
    labels = draw(st.dictionaries(LABEL_KEYS, ODD_TEXT | st.text(max_size=6), max_size=3))
    value = draw(NUMBERS)
    body = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
    return f"{name}{{{body}}} {value}" if labels else f"{name} {value}"


PAGES = st.lists(metric_line(), max_size=25).map("\n".join) | st.text(max_size=200)


CAPACITY = 'vllm:cache_config_info{block_size="16",num_gpu_blocks="100"} 1\n'


@FUZZ
@given(first=PAGES, last=PAGES, context=st.none() | st.integers(-5, 10**7))
@example(first=CAPACITY, last=CAPACITY, context=-5)
@example(first="vllm:num_requests_waiting " + "9" * 400, last="", context=None)
@example(
    first='a_bucket{le="x"} 1', last='vllm:e2e_request_latency_seconds_bucket{le="x"} 1', context=1
)
def test_metrics_parser_and_summary_raise_only_parse_errors(
    first: str, last: str, context: int | None
) -> None:
    snaps = []
    for page in (first, last):
        try:
            snaps.append(parse_metrics(page))
        except MetricsParseError:
            return
    samples = [
        MetricsSample(float(i), s.kv_cache_usage, s.running, s.waiting, None)
        for i, s in enumerate(snaps)
    ]
    summary = to_json_obj(
        summarize([(0.0, snaps[0]), (1.0, snaps[1])], samples, context_len=context)
    )
    json.dumps(summary, allow_nan=False)  # a result file stays standard JSON


# ------------------------------------------------------------------------------ results


def _real_result() -> dict[str, Any]:
    ok = RequestRecord(
        send_ns=0,
        first_token_ns=5_000_000,
        chunk_ns=[5_000_000, 9_000_000],
        end_ns=9_000_000,
        ok=True,
        prompt_len=4,
        output_tokens=2,
    )
    bad = RequestRecord(send_ns=0, end_ns=1, ok=False, error_kind="http_404", error="404")
    info = PointInfo("openai-chat", "m", "http://h/v1/x", "chat", 2, 4.0, 8, run_id="r")
    return point_json(build_result(info, compute_point_metrics([ok, bad], 0.1), save_detailed=True))


REAL = _real_result()


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:3]):
            out += _paths(value, (*prefix, i))
    return out


REAL_PATHS = _paths(REAL)


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def _use(point: Any) -> None:
    """What report, sweep.csv and the console do with an accepted point."""
    point.summary_row()
    format_summary(point)
    format_table([point])
    sweep_csv_text([point])


@FUZZ
@given(path=st.sampled_from(REAL_PATHS), value=JSON)
def test_a_result_with_any_field_changed_is_read_or_refused(path: tuple, value: Any) -> None:
    doc = _replace(REAL, path, value)
    try:
        point = point_from_dict(doc)
    except ResultFileError:
        return
    _use(point)


@FUZZ
@given(doc=JSON)
def test_any_json_document_is_read_or_refused(doc: Any) -> None:
    try:
        point = point_from_dict(doc)
    except ResultFileError:
        return
    _use(point)


@FUZZ
@given(text=st.text(max_size=300) | HOSTILE_TEXT)
def test_any_result_file_text_is_read_or_refused(folder: Path, text: str) -> None:
    path = folder / "point.json"
    path.write_text(text, encoding="utf-8")
    try:
        points = read_points(path)
    except ResultFileError:
        return
    for point in points:
        _use(point)


# ------------------------------------------------------------------------------ datasets


class Words:
    def count(self, text: str) -> int:
        return len(text.split())


SHAREGPT = st.recursive(
    JSON_SCALARS | st.just("value") | st.just("conversations"),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["conversations", "value", "from", "id"]), inner, max_size=3
        )
    ),
    max_leaves=15,
)


@FUZZ
@given(doc=SHAREGPT, text=st.text(max_size=120) | HOSTILE_TEXT, as_text=st.booleans())
def test_sharegpt_loader_raises_only_dataset_errors(
    folder: Path, doc: Any, text: str, as_text: bool
) -> None:
    path = folder / "sharegpt.json"
    path.write_text(text if as_text else json.dumps(doc), encoding="utf-8")
    try:
        samples = sample_sharegpt(path, 3, Words(), seed=1)
    except DatasetError:
        return
    assert len(samples) == 3


@FUZZ
@given(
    lines=st.lists(
        st.dictionaries(
            st.sampled_from(["prompt", "output_len"]),
            JSON | st.integers(-(10**12), 10**12),
            max_size=2,
        ).map(json.dumps)
        | st.text(max_size=30)
        | HOSTILE_TEXT,
        min_size=1,
        max_size=5,
    )
)
def test_prompts_loader_raises_only_dataset_errors(folder: Path, lines: list[str]) -> None:
    path = folder / "prompts.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        load_prompts_file(path)
        samples = sample_prompts_file(path, 2, Words())
    except DatasetError:
        return
    assert all(1 <= s.expected_output_len <= 10_000_000 for s in samples)


# ------------------------------------------------------------------------- config files

QWEN_CONFIG = {
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "vocab_size": 152064,
    "tie_word_embeddings": False,
}
CONFIG_KEYS = [
    *QWEN_CONFIG,
    "head_dim",
    "num_experts",
    "num_local_experts",
    "moe_intermediate_size",
    "num_experts_per_tok",
    "shared_expert_intermediate_size",
    "decoder_sparse_step",
    "mlp_only_layers",
    "attention_bias",
    "text_config",
    "params_reported_b",
]


@FUZZ
@given(
    changes=st.dictionaries(
        st.sampled_from(CONFIG_KEYS),
        JSON | NUMBERS.filter(lambda v: not isinstance(v, float) or math.isfinite(v)),
        max_size=4,
    )
)
def test_hf_config_loader_raises_only_catalog_errors(changes: dict[str, Any]) -> None:
    try:
        arch = arch_from_config({**QWEN_CONFIG, **changes}, "fuzzed", where="config.json")
    except CatalogError:
        return
    assert arch.params_total > 0 and arch.head_dim > 0


@FUZZ
@given(text=st.text(max_size=200) | JSON.map(json.dumps) | HOSTILE_TEXT)
def test_hf_config_file_raises_only_catalog_errors(folder: Path, text: str) -> None:
    path = folder / "config.json"
    path.write_text(text, encoding="utf-8")
    with contextlib.suppress(CatalogError):
        load_hf_config(path)


GPU_ENTRY = {
    "id": "card",
    "memory_gib": 24,
    "bandwidth_gb_s": 936,
    "bf16_tflops": 71,
    "source": "s",
}


@FUZZ
@given(
    changes=st.dictionaries(
        st.sampled_from([*GPU_ENTRY, "name", "fp8_tflops", "int8_tops"]),
        JSON | NUMBERS,
        max_size=3,
    ),
    drop=st.lists(st.sampled_from(list(GPU_ENTRY)), max_size=1),
)
def test_gpu_entries_raise_only_catalog_errors(changes: dict[str, Any], drop: list[str]) -> None:
    entry = {k: v for k, v in {**GPU_ENTRY, **changes}.items() if k not in drop}
    try:
        gpu = catalog._gpu_from_entry(entry, "gpus.json", custom=True)
    except CatalogError:
        return
    assert math.isfinite(gpu.bandwidth_bytes_per_s) and gpu.bandwidth_bytes_per_s > 0


@FUZZ
@given(
    doc=JSON,
    entry=st.dictionaries(
        st.sampled_from(
            ["name", "kind", "base_url", "api", "model", "verify_tls", "headers", "roofline"]
        ),
        JSON,
        max_size=5,
    ),
)
def test_profiles_file_never_stops_the_app(folder: Path, doc: Any, entry: dict[str, Any]) -> None:
    with contextlib.suppress(ProfileError):
        Profile.from_json(entry)
    for content in (doc, {"schema_version": 1, "profiles": [entry, doc]}):
        (folder / "profiles.json").write_text(json.dumps(content), encoding="utf-8")
        store = ProfileStore(folder)
        assert store.simulator() is not None
        (folder / "profiles.json.bad").unlink(missing_ok=True)


@FUZZ
@given(text=st.text(max_size=100) | JSON.map(json.dumps) | HOSTILE_TEXT)
def test_the_json_reader_raises_only_its_error(text: str) -> None:
    with contextlib.suppress(jsonfile.JSONProblem):
        jsonfile.loads(text)
