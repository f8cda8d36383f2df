"""The catalogue files, lookups with clear errors, config.json loading and custom GPUs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.roofline import catalog
from app.roofline.arch import load_hf_config
from app.roofline.catalog import (
    CatalogError,
    add_custom_gpu,
    get_gpu,
    get_kv_dtype,
    get_model,
    get_weight_format,
    list_gpus,
    list_models,
    list_weight_formats,
)


def test_catalogue_sizes_and_sources():
    gpus, models = list_gpus(), list_models()
    assert len(gpus) >= 25
    assert len(models) >= 15
    for item in [*gpus, *models, *list_weight_formats()]:
        assert len(item.source) > 20, item.id
    assert {f.id for f in list_weight_formats()} == {
        "bf16",
        "fp16",
        "fp8",
        "int8",
        "awq-int4",
        "gptq-int4",
        "q8_0",
        "q4_k_m",
    }


def test_datasheet_numbers():
    g = get_gpu("rtx3090")
    assert g.memory_bytes == 24 * 1024**3
    assert g.bandwidth_bytes_per_s == 936e9
    assert g.flops_dense_bf16 == 71e12
    assert g.flops_dense_fp8 is None
    h = get_gpu("H100 SXM")
    assert (h.bandwidth_bytes_per_s, h.flops_dense_bf16) == (3.35e12, 989.4e12)
    assert get_gpu("a100-80gb-sxm").bandwidth_bytes_per_s == 2039e9
    assert get_gpu("RTX 4090").flops_dense_bf16 == 165.2e12


def test_param_counts_match_model_cards():
    for m in list_models():  # model cards round to 2-3 digits
        assert m.params_total / 1e9 == pytest.approx(m.params_reported_b, rel=0.015), m.id
        if m.params_active_reported_b:
            assert m.params_active / 1e9 == pytest.approx(m.params_active_reported_b, rel=0.03)
        else:
            assert m.params_active == m.params_total


def test_lookup_by_alias_and_hf_repo():
    assert get_model("Qwen/Qwen2.5-7B-Instruct").id == "qwen2.5-7b"
    assert get_weight_format("AWQ").id == "awq-int4"
    assert get_kv_dtype("auto").id == "fp16"


def test_unknown_ids_name_close_matches():
    with pytest.raises(CatalogError, match=r"unknown GPU 'rtx3099'; did you mean rtx3090"):
        get_gpu("rtx3099")
    with pytest.raises(CatalogError, match=r"unknown model 'qwen2.5-8b'.*qwen2.5-7b"):
        get_model("qwen2.5-8b")
    with pytest.raises(CatalogError, match="unknown weight format 'int3'"):
        get_weight_format("int3")


QWEN7_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "tie_word_embeddings": False,
    "vocab_size": 152064,
}


def test_load_hf_config_from_disk(tmp_path):
    folder = tmp_path / "My-Qwen"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(QWEN7_CONFIG))
    arch = load_hf_config(folder)
    assert arch.params_total == 7_615_616_512  # head_dim derived 3584/28 = 128, qwen2 biases
    assert arch.head_dim == 128
    assert get_model(str(folder / "config.json")).params_total == 7_615_616_512


def test_malformed_config_json_messages(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"hidden_size": 3584,,}')
    with pytest.raises(CatalogError, match=r": not valid JSON \(line 1, column 22"):
        load_hf_config(bad)
    bad.write_text(json.dumps({"model_type": "bert", "hidden_size": 768}))
    with pytest.raises(CatalogError, match="missing num_hidden_layers, num_attention_heads"):
        load_hf_config(bad)
    bad.write_text(json.dumps({**QWEN7_CONFIG, "num_hidden_layers": "28"}))
    with pytest.raises(CatalogError, match="'num_hidden_layers' must be a positive integer"):
        load_hf_config(bad)
    with pytest.raises(CatalogError, match="cannot read"):
        load_hf_config(tmp_path / "absent" / "config.json")


def test_custom_gpu_is_saved_and_found(tmp_path, monkeypatch):
    path = tmp_path / "cfg" / "gpus.json"
    monkeypatch.setattr(catalog, "user_gpu_file", lambda: path)
    gpu = add_custom_gpu("My Card", "My Card 48G", 48, 1200, 150, "vendor sheet, page 2")
    assert gpu.id == "my-card"
    found = get_gpu("my card")
    assert found.bandwidth_bytes_per_s == 1.2e12 and found.custom
    assert json.loads(path.read_text())["schema"] == 1
    assert "my-card" in {g.id for g in list_gpus()}
    path.write_text('{"schema": 1, "gpus": [{"id": "x"}]}')
    with pytest.raises(CatalogError, match="GPU entry 'x': 'source' must be a non-empty text"):
        get_gpu("x")


def test_roofline_package_imports_without_qt():
    code = (
        "import sys; import app.roofline.kv_capacity, app.roofline.decode_step; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'qasync')]; "
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_experts": "8"}, "'num_experts' must be a whole number, 0 or more, got '8'"),
        ({"head_dim": 12.5}, "'head_dim' must be a positive integer, got 12.5"),
        ({"hidden_size": 10**12}, "'hidden_size' must be a positive integer"),
        ({"tie_word_embeddings": "no"}, "'tie_word_embeddings' must be true or false"),
        ({"attention_bias": 1}, "'attention_bias' must be true or false"),
        ({"model_type": ["qwen2"]}, "'model_type' must be a string"),
        ({"params_reported_b": "7B"}, "'params_reported_b' must be a number of billions"),
        ({"num_attention_heads": 4096, "hidden_size": 128}, "is larger than 'hidden_size'"),
        ({"shared_expert_intermediate_size": -1}, "'shared_expert_intermediate_size' must be"),
    ],
)
def test_config_json_with_wrong_types_names_the_file_and_field(
    tmp_path: Path, change: dict, message: str
) -> None:
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({**QWEN7_CONFIG, **change}))
    with pytest.raises(CatalogError) as info:
        load_hf_config(bad)
    assert str(info.value).startswith(f"{bad}: ") and message in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"hidden_size": ' + "9" * 5000 + "}", "an integer of 5000 digits at line 1"),
        ('{"hidden_size": NaN}', "NaN is not a JSON number"),
        ('{"hidden_size": 1e400}', "1e400 is too large"),
    ],
)
def test_hostile_config_json_is_one_error(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "config.json"
    bad.write_text(text)
    with pytest.raises(CatalogError, match=message):
        load_hf_config(bad)


GOOD_GPU = {
    "id": "card",
    "memory_gib": 24,
    "bandwidth_gb_s": 900,
    "bf16_tflops": 70,
    "source": "sheet",
}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({**GOOD_GPU, "memory_gib": "24"}, "GPU 'card': 'memory_gib' must be a positive number"),
        ({**GOOD_GPU, "bandwidth_gb_s": 1e308 * 10}, "'bandwidth_gb_s' must be a positive number"),
        ({**GOOD_GPU, "bf16_tflops": -1}, "'bf16_tflops' must be a positive number, got -1"),
        ({**GOOD_GPU, "fp8_tflops": [1]}, "'fp8_tflops' must be a positive number, got [1]"),
        ({**GOOD_GPU, "id": 5}, "GPU entry 5: 'id' must be a non-empty text"),
        ({**GOOD_GPU, "name": {"a": 1}}, "GPU 'card': 'name' must be a text"),
        ("rtx", "a GPU entry is 'rtx', expected an object"),
    ],
)
def test_custom_gpus_json_with_wrong_types_names_the_file_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: object, message: str
) -> None:
    path = tmp_path / "gpus.json"
    # json.dumps writes an infinite float as Infinity; the reader refuses that too.
    path.write_text(json.dumps({"schema": 1, "gpus": [entry]}).replace("Infinity", "1e999"))
    monkeypatch.setattr(catalog, "user_gpu_file", lambda: path)
    with pytest.raises(CatalogError) as info:
        catalog.list_gpus()
    text = str(info.value)
    if "1e999" in path.read_text():
        assert text == f"{path}: 1e999 is too large for a number"
    else:
        assert text.startswith(f"{path}: ") and message in text, text


def test_a_custom_gpu_with_infinite_figures_is_refused(tmp_path, monkeypatch) -> None:
    path = tmp_path / "gpus.json"
    monkeypatch.setattr(catalog, "user_gpu_file", lambda: path)
    with pytest.raises(CatalogError, match="'memory_gib' must be a positive number, got inf"):
        add_custom_gpu("x", "X", float("inf"), 900, 70, "sheet")
    with pytest.raises(CatalogError, match="'bandwidth_gb_s' must be a positive number, got nan"):
        add_custom_gpu("x", "X", 24, float("nan"), 70, "sheet")
    assert not path.exists()
