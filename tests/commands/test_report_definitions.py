"""`tpotbench report DIR --definitions TOOL|all` end to end: a simulator run with speculative
decoding (chunks of several tokens) read back under every tool's definitions, in the terminal,
as JSON and in the HTML report; a vLLM file without per-request arrays says what it needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.commands.test_sweep import run, sweep_cmd


@pytest.fixture(scope="module")
def spec_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from app.sim.config import SimConfig
    from app.sim.embedded import start_sim_thread

    out = tmp_path_factory.mktemp("definitions")
    with start_sim_thread(SimConfig(num_speculative_tokens=3), port=0) as sim:
        cmd = sweep_cmd(sim.base_url, out, "--num-prompts", "6", "--max-concurrency", "3")
        cmd += ["--output-len", "24", "--dataset-name", "random", "--random-input-len", "32"]
        done = run([*cmd, "--save-detailed"], timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def _report(*args: str) -> tuple[int, str, str]:
    done = run([sys.executable, "-m", "app", "report", *args])
    return done.returncode, done.stdout, done.stderr


def test_every_tool_in_the_terminal_and_json(spec_run: Path) -> None:
    code, out, err = _report(str(spec_run), "--definitions", "all")
    assert code == 0, err
    for name in ("time_per_output_token_ms", "inter_token_latency", "Average time per output"):
        assert name in out
    code, out, _ = _report(str(spec_run), "--definitions", "all", "--json")
    (row,) = json.loads(out)
    figures = {(f["tool"], f["key"]): f for f in row["definitions"]}
    raw = json.loads(next(spec_run.glob("*.json")).read_text())
    # speculative decoding: chunks of several tokens (fewer gaps than tokens − 1)
    assert sum(len(g) for g in raw["itls"]) < sum(n - 1 for n in raw["output_lens"])
    vllm_itl = figures[("vllm", "itl")]["values"]["mean"]
    assert vllm_itl == pytest.approx(raw["mean_itl_ms"], rel=1e-6)
    # no per-chunk token counts over the OpenAI API: SGLang's OpenAI backends keep one per chunk
    assert "itl_tokens" in raw["tpotbench"]
    sglang = figures[("sglang", "itl")]
    assert sglang["weighting"] == "per chunk gap"
    assert sglang["values"]["mean"] == pytest.approx(vllm_itl)
    # AIPerf's and GuideLLM's "ITL" is vLLM's TPOT, far above the per-chunk gap here
    assert figures[("aiperf", "itl")]["values"]["mean"] < vllm_itl
    assert figures[("aiperf", "itl")]["values"]["mean"] == pytest.approx(raw["mean_tpot_ms"])
    guidellm = figures[("guidellm", "tpot")]["values"]["mean"]
    assert guidellm > raw["mean_tpot_ms"]  # TTFT included


def test_one_tool_only_and_a_bad_choice(spec_run: Path) -> None:
    code, out, _ = _report(str(spec_run), "--definitions", "sglang")
    assert code == 0 and "SGLang" in out and "GuideLLM" not in out
    code, out, err = _report(str(spec_run), "--definitions", "llmperf")
    assert code == 2 and not out and "invalid choice" in err


def test_a_vllm_file_without_detailed_arrays_says_what_it_needs(tmp_path: Path) -> None:
    doc = {"completed": 3, "failed": 0, "duration": 1.0, "request_rate": "inf"}
    doc.update({"mean_tpot_ms": 20.0, "latencies": [0.2, 0.3, 0.4]})
    (tmp_path / "vllm.json").write_text(json.dumps(doc))
    code, out, _ = _report(str(tmp_path), "--definitions", "guidellm")
    assert code == 0
    assert out.count("needs --save-detailed") == 4


def test_html_report_has_the_switch(spec_run: Path, tmp_path: Path) -> None:
    from tests.report.browser import dump_dom

    for lang, title in (("en", "Every tool's definitions"), ("zh_CN", "各工具的指标定义")):
        page = tmp_path / f"r_{lang}.html"
        code, _, err = _report(
            str(spec_run), "--definitions", "all", "--html", str(page), "--lang", lang
        )
        assert code == 0, err
        dom = dump_dom(page, tmp_path / f"p_{lang}")
        assert title in dom and 'id="definitions-tool"' in dom
        for tool in ("vllm", "guidellm", "aiperf", "sglang", "evalscope"):
            assert f'data-tool="{tool}"' in dom
        assert 'data-tool="guidellm" style="display:none"' in dom.replace(
            "display: none", "display:none"
        )
