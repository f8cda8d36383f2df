"""The value the window passes to each sweep: the roofline context, the /metrics scrape, extra
flags, as the fields of the run's SweepSpec."""

from __future__ import annotations

from app.bench.schema.run_config import RooflineConfig
from app.roofline.context import RooflineContext
from app.ui.run_extras import RunExtras


def test_nothing_given_sets_nothing() -> None:
    assert RunExtras().spec_fields() == {
        "roofline": RooflineConfig(),
        "server_metrics": False,
        "flags": (),
    }


def test_the_docks_context_becomes_the_runs_roofline() -> None:
    context = RooflineContext("h20", "qwen2.5-7b", "awq-int4", "fp8", 2048)
    fields = RunExtras(roofline=context, server_metrics=True).spec_fields()
    assert fields["roofline"] == RooflineConfig("h20", "qwen2.5-7b", "awq-int4", "fp8", 2048, 1)
    assert fields["server_metrics"] is True


def test_an_empty_model_is_left_out_and_extra_flags_kept() -> None:
    extras = RunExtras(roofline=RooflineContext("rtx3090", ""), flags=("--save-detailed",))
    assert extras.spec_fields()["roofline"] == RooflineConfig(
        gpu="rtx3090", dtype="bf16", kv_dtype="fp16", context=512, tensor_parallel_size=1
    )
    assert extras.spec_fields()["flags"] == ("--save-detailed",)
