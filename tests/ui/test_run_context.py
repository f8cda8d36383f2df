"""The value the window passes to each sweep: roofline flags, the /metrics scrape, extra flags."""

from __future__ import annotations

from app.ui.run_context import RunContext


def test_nothing_given_adds_no_flag() -> None:
    assert RunContext().argv() == []


def test_the_docks_context_becomes_one_flag_per_key_in_a_fixed_order() -> None:
    context = {"fmt": "awq-int4", "gpu_id": "h20", "model_id": "qwen2.5-7b", "kv_dtype": "fp8"}
    argv = RunContext(roofline={**context, "context": 2048}, server_metrics=True).argv()
    assert argv == [
        "--gpu", "h20",
        "--roofline-model", "qwen2.5-7b",
        "--dtype", "awq-int4",
        "--kv-dtype", "fp8",
        "--roofline-context", "2048",
        "--server-metrics",
    ]  # fmt: skip


def test_empty_keys_are_left_out_and_extra_flags_come_last() -> None:
    argv = RunContext(roofline={"gpu_id": "rtx3090", "model_id": ""}, flags=("--save-detailed",))
    assert argv.argv() == ["--gpu", "rtx3090", "--save-detailed"]
