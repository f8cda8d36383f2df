"""The why on servers whose limiting cause is fixed by construction (tests/why_scenarios.py):
each runs one real point and the why must name the cause it was built with, on two GPU
speeds and at more than one SLO; it abstains, saying what is missing, without /metrics, on a
short point and on an early-stopped fragment; and it never names a cause the roofline rules
out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.bench.capacity.why import RULED_OUT, render, why_block
from app.bench.capacity.why import explain as explain_doc
from app.bench.schema.point_blocks import WhyBlock, WhyItem
from app.bench.schema.point_doc import read_point_doc
from tests.why_scenarios import SCENARIOS, measure

CAUSED_BY = {"prefill_stalls": "chunked_prefill"}


def explain(result: dict[str, Any], failed: list[str] | None) -> WhyBlock:
    """The why of a scenario's point, given as its file's JSON."""
    return explain_doc(read_point_doc(result, strict=False), failed)


def named(result: dict[str, Any], failed: list[str] | None = None) -> Any:
    block = result["tpotbench"]["slo"]
    why = explain(result, failed or block["failed"])
    # Never a cause the roofline ruled out in the same breath.
    assert why.cause not in {item.key for item in why.ruled_out}, why.text
    return why


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("slots", {}),
        ("slots", {"gpu": "rtx4090", "slo": "ttft:p90:500"}),
        ("slots", {"sim_args": ("--max-num-seqs", "4"), "slo": "e2el:p99:1500"}),
        ("kv_full", {}),
        ("kv_full", {"slo": "ttft:p99:1000"}),
        ("bandwidth", {}),
        ("bandwidth", {"gpu": "rtx4090", "slo": "tpot:p50:16"}),
        ("prefill_stalls", {}),
        ("prefill_stalls", {"slo": "itl:p99:100"}),
        ("prefill", {}),
        ("prefill", {"gpu": "rtx4090", "slo": "ttft:p99:150"}),
        ("unexplained", {}),
        ("unexplained", {"gpu": "rtx4090", "slo": "ttft:p90:100"}),
    ],
)
def test_the_cause_as_built(name: str, changes: dict[str, Any], tmp_path: Path) -> None:
    scenario = SCENARIOS[name].at(**changes)
    result = measure(scenario, tmp_path)
    assert result["tpotbench"]["slo"]["passed"] is False  # each is built to fail its SLO
    why = named(result)
    assert why.cause == scenario.cause, why.text
    assert why.confidence in ("high", "medium"), why.text
    assert why.evidence["metrics_samples"] >= 10  # the gauges sampled through the point
    assert render(why, "zh_CN") != why.text  # said in Chinese too


def test_a_queue_is_read_from_the_servers_own_queue_time(tmp_path: Path) -> None:
    why = named(measure(SCENARIOS["slots"], tmp_path))
    # The histogram deltas bracket the point: most of the TTFT was spent waiting for a slot.
    assert why.params["queue_ms"] >= 0.5 * why.params["ttft_ms"], why.text
    assert why.params["waiting"] >= 1 and why.params["running"] <= 2.5
    assert why.params["service_steps"] >= 0.5  # the client sees TTFT step up by decodes


def test_kv_names_its_preemptions(tmp_path: Path) -> None:
    result = measure(SCENARIOS["kv_full"], tmp_path)
    why = named(result)
    assert why.cause == "kv" and why.params["preemptions"] > 0, why.text
    # The failing point's own file carries its why and evidence; the console prints it.
    from app.bench.schema.point_blocks import point_blocks
    from app.commands.sweep_console import slo_lines

    assert result["tpotbench"]["why"]["cause"] == "kv"
    assert result["tpotbench"]["why"]["evidence"]["preemptions"] > 0
    assert slo_lines(point_blocks(result["tpotbench"]))[-1].startswith("Why: The KV cache is full")


def test_bandwidth_gives_the_roofline_estimate(tmp_path: Path) -> None:
    why = named(measure(SCENARIOS["bandwidth"], tmp_path))
    assert why.cause == "bandwidth" and 1.0 <= why.params["ratio"] <= 1.6, why.text
    assert why.estimate is not None and why.estimate.new_floor < why.estimate.floor / 2
    assert "Estimate from the roofline, not a measurement" in why.text


def test_nothing_explains_it_and_prefill_is_ruled_out(tmp_path: Path) -> None:
    why = named(measure(SCENARIOS["unexplained"], tmp_path))
    assert why.cause == "unknown", why.text
    assert "prefill" in {item.key for item in why.ruled_out}, why.text
    assert "Ruled out by the roofline: prefill" in why.text


def test_a_saturated_client(tmp_path: Path) -> None:
    result = measure(SCENARIOS["client"], tmp_path)
    # A stalled loop reads buffered chunks in bursts, so the client's own TPOT figures can
    # land anywhere: the verdict is not asserted, the cause is.
    why = explain(result, [SCENARIOS["client"].slo])
    assert why.cause == "client", why.text
    assert why.params["lag"] >= 20 or why.params["cpu"] >= 0.9


def test_abstains_without_metrics(tmp_path: Path) -> None:
    result = measure(SCENARIOS["slots"], tmp_path, metrics=False)
    why = named(result)
    assert why.cause == "abstain" and why.confidence == "none", why.text
    assert [item.key for item in why.missing] == ["metrics"]
    assert "--scrape-metrics" in why.text and "/metrics" in render(why, "zh_CN")


def test_abstains_on_a_short_point(tmp_path: Path) -> None:
    result = measure(SCENARIOS["slots"].at(requests=4, concurrency=4), tmp_path)
    why = explain(result, ["ttft:p99:1"])
    assert why.cause == "abstain" and [item.key for item in why.missing] == ["short"], why.text
    assert "finished requests" in why.text


def test_abstains_on_an_early_stopped_fragment(tmp_path: Path) -> None:
    result = measure(SCENARIOS["slots"], tmp_path, early_stop=True)
    block = result["tpotbench"]
    assert block["early_stop"] is not None and result["completed"] < 32
    # Even a fragment's /metrics are bracketed: scraped before its first request and after
    # it stopped, so its counters and histograms cover exactly its window.
    server = block["server_metrics"]
    assert server["bracket_s"][0] <= 0.0 <= result["duration"] <= server["bracket_s"][1]
    assert server["server_queue_ms"]["count"] >= 1
    why = explain(result, block["slo"]["failed"])
    assert why.cause == "abstain" and [item.key for item in why.missing] == ["early_stop"], why.text
    assert f"after {result['completed']} of 32 requests" in why.text


def test_without_the_roofline_the_cause_is_less_sure(tmp_path: Path) -> None:
    why = named(measure(SCENARIOS["prefill_stalls"], tmp_path, gpu=False))
    assert why.cause == "chunked_prefill" and why.confidence == "low", why.text
    assert "--gpu" in why.text


def _issue_point(samples: int) -> dict[str, Any]:
    """The issue's case: 32-token prompts, TTFT p99 383 ms, no queue seen, RTX 3090."""
    return {
        "completed": 48,
        "num_prompts": 48,
        "duration": 6.0,
        "total_input_tokens": 48 * 32,
        "median_ttft_ms": 120.0,
        "mean_ttft_ms": 150.0,
        "p99_ttft_ms": 383.0,
        "median_tpot_ms": 20.0,
        "median_itl_ms": 20.0,
        "p99_itl_ms": 30.0,
        "tpotbench": {
            "server_metrics": {
                "samples": samples,
                "waiting": {"mean": 0.0, "max": 0.0},
                "running": {"mean": 4.0, "max": 4.0},
                "kv_cache_usage": {"mean": 0.01, "max": 0.02},
            },
            "roofline": {
                "gpu_id": "rtx3090",
                "model_id": "qwen2.5-7b",
                "fmt": "bf16",
                "kv_dtype": "bf16",
                "context": 64,
                "batch": 4,
                "floor_tpot_ms": 15.2,
            },
        },
    }


def test_a_32_token_prefill_never_explains_383_ms() -> None:
    two = explain(_issue_point(2), ["ttft:p99:300"])  # sampled twice: abstain
    assert two.cause == "abstain" and "2 /metrics samples" in two.text, two.text
    seen = explain(_issue_point(40), ["ttft:p99:300"])
    assert seen.cause == "unknown", seen.text
    key, params = seen.ruled_out[0].key, seen.ruled_out[0].params
    assert key == "prefill" and params["roof"] < 30 and params["seen"] > 300


def test_every_ruled_out_sentence_renders() -> None:
    params = {"prompt": 32.0, "roof": 2.0, "seen": 380.0, "tpot": 40.0, "floor": 15.0}
    params["ratio"] = 40.0 / 15.0
    for key in RULED_OUT:
        why = why_block("abstain", {"failed": "ttft:p99:300"}, {}, ruled_out=[WhyItem(key, params)])
        assert "Ruled out by the roofline" in render(why, "en"), key
        assert "屋顶线排除" in render(why, "zh_CN"), key


def test_a_long_queue_tail_is_not_called_ttft_outside_the_queue() -> None:
    # A 4-slot simulator at 5 streams (figures of a real run): waits of 346 ms on average
    # with a p99 of 1.76 s. Taking the mean as the queue's tail left 1.27 s of the p99 TTFT
    # "outside the queue" and ruled prefill out with it; the histogram's p99 is the tail.
    point = _issue_point(173)
    point.update(
        median_ttft_ms=129.7,
        mean_ttft_ms=428.5,
        p99_ttft_ms=1613.6,
        median_tpot_ms=21.2,
        total_input_tokens=12624,
        duration=17.2,
    )
    point["tpotbench"]["server_metrics"].update(
        waiting={"mean": 1.0, "max": 5.0},
        running={"mean": 3.7, "max": 4.0},
        server_queue_ms={"count": 48, "mean": 345.9, "p50": 194.6, "p90": 1310.0, "p99": 1760.0},
        server_prefill_ms={"count": 48, "mean": 80.7, "p50": 150.0, "p90": 270.0, "p99": 297.0},
    )
    why = explain(point, ["ttft:p99:800"])
    assert why.cause == "queue", why.text
    assert not [r for r in why.ruled_out if r.key == "prefill" and r.params["seen"] > 300], why.text


def _queued_point(server: str) -> dict[str, Any]:
    """A 4-slot server with 3 requests waiting on average: most of the TTFT is its queue."""
    point = _issue_point(60)
    point["tpotbench"]["server_metrics"].update(
        server=server,
        waiting={"mean": 3.0, "max": 6.0},
        running={"mean": 4.0, "max": 4.0},
        server_queue_ms={"count": 48, "mean": 300.0, "p50": 250.0, "p90": 500.0, "p99": 700.0},
    )
    point.update(mean_ttft_ms=380.0, p99_ttft_ms=800.0)
    return point


@pytest.mark.parametrize(
    ("server", "flag"),
    [
        ("vllm", "--max-num-seqs"),
        ("sglang", "--max-running-requests"),
        ("llamacpp", "--parallel"),
        ("tgi", "--max-batch-size"),
    ],
)
def test_the_queue_names_the_batch_limit_of_the_server_it_read(server: str, flag: str) -> None:
    # The server's kind comes from its /metrics names (serverstats): a llama.cpp server's
    # slots are --parallel and SGLang's cap is --max-running-requests; neither has
    # --max-num-seqs, which only a vLLM server is told to change.
    why = explain(_queued_point(server), ["ttft:p99:500"])
    assert why.cause == "queue", why.text
    for lang in ("en", "zh_CN"):
        text = render(why, lang)
        assert flag in text, (lang, text)
        if server != "vllm":
            assert "--max-num-seqs" not in text, (lang, text)
    assert "槽位" in render(why, "zh_CN")


def test_an_unrecognised_exporter_gets_no_other_servers_flag() -> None:
    why = explain(_queued_point("unknown"), ["ttft:p99:500"])
    assert why.cause == "queue", why.text
    assert "--" not in why.text.split("caps the batch")[0].split("limit (")[1], why.text
    assert "its limit on running requests" in why.text
    assert "其运行请求数上限" in render(why, "zh_CN")
    # A file written before the kind was kept (no "server" in its params) was a vLLM one.
    params = {k: v for k, v in why.params.items() if k != "server"}
    old = replace(why, params=params, text=None, text_zh=None)
    assert "--max-num-seqs" in render(old, "en")


def _late_point(*, cap: int | None, slot_wait_p99_ms: float | None) -> dict[str, Any]:
    """A Poisson point whose sends went out 400 ms late at p99 (the file's own key names)."""
    point = _issue_point(40)
    point.update(request_rate=8.0, max_concurrency=cap)
    block = point["tpotbench"]
    block["schedule_lateness_ms"] = {"count": 48, "median_ms": 120.0, "p99_ms": 400.0, "late": 9}
    if slot_wait_p99_ms is not None:
        block["slot_wait_ms"] = {"mean": 200.0, "p99": slot_wait_p99_ms}
    return point


def test_late_sends_name_the_client_unless_the_cap_held_them() -> None:
    # The file writes the lateness's p99 as "p99_ms"; reading "p99" left the why blind to
    # late sends (always absent from its evidence).
    late = explain(_late_point(cap=None, slot_wait_p99_ms=None), ["ttft:p99:300"])
    assert late.cause == "client" and late.evidence["send_lateness_p99_ms"] == 400.0, late.text
    # Waiting for one of 4 slots made the same sends late: that is the cap, not the client.
    held = explain(_late_point(cap=4, slot_wait_p99_ms=390.0), ["ttft:p99:300"])
    assert held.cause != "client" and held.evidence["send_lateness_p99_ms"] == 0.0, held.text


def test_one_floor_per_batch_in_the_bandwidth_sentence() -> None:
    """A point whose recorded floor (15.2 ms) is not the catalogue's at its batch (15.1 ms,
    where the INT4 estimate starts) names both as what they are, in English and Chinese; a
    point whose figures agree keeps the short sentence."""
    why = explain(_issue_point(40), ["tpot:p99:10"])
    assert why.cause == "bandwidth" and why.estimate is not None, why.text
    assert (why.params["floor"], round(why.estimate.floor, 1), why.estimate.batch) == (
        15.2,
        15.1,
        4,
    )
    en, zh = render(why, "en"), render(why, "zh_CN")
    assert "the roofline floor of 15.2 ms" in en
    assert "at batch 4 the catalogue's floor is 15.1 ms (this point recorded 15.2 ms)" in en
    assert "from 15.1 to" not in en, en
    assert "批大小 4 时目录中的下限为 15.1 ms（此测量点记录的是 15.2 ms）" in zh, zh
    agreeing = replace(why, params={**why.params, "floor": why.estimate.floor})
    assert "lower the floor at batch 4 from 15.1 to 4.8 ms" in render(agreeing, "en")
