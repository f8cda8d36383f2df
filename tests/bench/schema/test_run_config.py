"""RunConfig through the one codec: every section round-trips, rates keep inf, nothing holds a
key, and a config written by a later schema is refused rather than misread."""

from __future__ import annotations

import json
import math
from dataclasses import FrozenInstanceError

import pytest

from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj
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

FULL = RunConfig(
    endpoint=EndpointConfig(
        base_url="https://gw.example.test/api",
        backend="openai-chat",
        model="qwen",
        profile="lab",
        api_key_env="TPOTBENCH_WORKER_API_KEY",
        headers=("X-Team: perf", "X-Time: 12:00=noon"),
        insecure=True,
        ray="auto",
    ),
    dataset=DatasetConfig(name="random", num_prompts=64, random_input_len=300, output_len=7),
    load=LoadConfig(
        request_rates=(1.0, 2.5, math.inf),
        max_concurrencies=(4, 32),
        burstiness=0.5,
        seed=7,
        workers=3,
        num_warmups=2,
    ),
    slo=SloConfig(slos=("tpot:p99:50", "ttft:p99:2000"), goodput=("ttft:500",), good_share=0.9),
    roofline=RooflineConfig(gpu="rtx3090", dtype="awq-int4", context=2048, tensor_parallel_size=2),
    options=RequestOptions(
        ignore_eos=True, temperature=0.0, extra_body={"top_p": 0.9, "stop": ["\n"]}
    ),
    output=OutputConfig(result_dir="/r/exp A", label="exp A", save_result=True, events=True),
    search=SearchConfig(over="rate", start=0.5, max=64.0, resolution="5%", lang="zh_CN"),
)


def test_a_full_config_round_trips_through_json_text() -> None:
    text = json.dumps(to_json_obj(FULL))
    obj = json.loads(text)
    assert obj["load"]["request_rates"] == [1.0, 2.5, "inf"]  # JSON has no infinity
    assert from_json_obj(RunConfig, obj, where="config") == FULL
    assert from_json_obj(RunConfig, {}, where="config") == RunConfig()  # every field defaulted


def test_the_schema_has_no_place_for_a_key() -> None:
    names = json.dumps(to_json_obj(FULL))
    assert 'api_key"' not in names and "TPOTBENCH_WORKER_API_KEY" in names  # its variable only
    with pytest.raises(SchemaError, match=r"config\.endpoint\.api_key: unknown field"):
        from_json_obj(RunConfig, {"endpoint": {"api_key": "sk-x"}}, where="config")


def test_wrong_kinds_are_refused_with_the_fields_path() -> None:
    with pytest.raises(SchemaError, match=r"config\.search\.over"):
        from_json_obj(RunConfig, {"search": {"over": "tokens"}}, where="config")
    with pytest.raises(SchemaError, match=r"config\.load\.max_concurrencies"):
        from_json_obj(RunConfig, {"load": {"max_concurrencies": ["8"]}}, where="config")


def test_a_config_is_never_changed_after_it_is_made() -> None:
    with pytest.raises(FrozenInstanceError):
        FULL.load.seed = 1  # type: ignore[misc]
    assert FULL.command == "search" and RunConfig().command == "sweep"
