"""`tpotbench compare` end to end: two simulator runs with a changed --max-num-seqs are found
different, an A/A pair (same setting, other dataset seed) is not, and --fail-on's exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.commands.test_sweep import run, sweep_cmd


def _sweep(base_url: str, out: Path, seed: int) -> Path:
    cmd = sweep_cmd(base_url, out, "--num-prompts", "24", "--max-concurrency", "8")
    cmd += ["--request-rate", "inf", "--seed", str(seed), "--save-detailed", "--output-len", "12"]
    done = run(cmd, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def _compare(*args: str) -> tuple[int, str, str]:
    done = run([sys.executable, "-m", "app", "compare", *args])
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from app.sim.config import SimConfig
    from app.sim.embedded import start_sim_thread

    root = tmp_path_factory.mktemp("compare")
    with (
        start_sim_thread(SimConfig(max_num_seqs=8), port=0) as wide,
        start_sim_thread(SimConfig(max_num_seqs=2), port=0) as narrow,
    ):
        return {
            "a1": _sweep(wide.base_url, root / "a1", seed=1),
            "a2": _sweep(wide.base_url, root / "a2", seed=2),
            "narrow": _sweep(narrow.base_url, root / "narrow", seed=1),
        }


def _figures(stdout: str) -> dict[str, dict]:  # type: ignore[type-arg]
    doc = json.loads(stdout)
    (point,) = doc["points"]
    return {f["figure"]: f for f in point["figures"]}


def test_fewer_running_sequences_is_found_significantly_worse(runs: dict[str, Path]) -> None:
    code, out, err = _compare(str(runs["a1"]), str(runs["narrow"]), "--json")
    assert code == 0, err
    figures = _figures(out)
    # 8 streams on 2 sequence slots: requests queue, so TTFT and E2EL grow
    for key in ("ttft:mean", "ttft:p50", "e2el:mean"):
        assert figures[key]["verdict"] == "worse", (key, figures[key])
    low, high = figures["ttft:mean"]["interval"]
    assert 0 < low <= figures["ttft:mean"]["delta"] <= high
    assert json.loads(out)["points"][0]["method"] == "bootstrap"


def test_a_over_a_on_the_simulator_finds_no_significant_change(runs: dict[str, Path]) -> None:
    code, out, err = _compare(str(runs["a1"]), str(runs["a2"]), "--json")
    assert code == 0, err
    flagged = {k: f for k, f in _figures(out).items() if f["verdict"] in ("better", "worse")}
    assert not flagged


def test_the_table_names_method_verdicts_and_unknowns(runs: dict[str, Path]) -> None:
    code, out, _ = _compare(str(runs["a1"]), str(runs["narrow"]))
    assert code == 0
    assert "bootstrap over per-request samples" in out and "WORSE" in out
    assert "unknown: too few values" in out  # p99 of 24 requests
    code, md, _ = _compare(str(runs["a1"]), str(runs["narrow"]), "--markdown")
    assert code == 0 and "| figure | base |" in md and "**WORSE**" in md


def test_fail_on_exit_codes(runs: dict[str, Path], tmp_path: Path) -> None:
    base, bad = str(runs["a1"]), str(runs["narrow"])
    code, _, err = _compare(base, bad, "--fail-on", "ttft:mean:+10%")
    assert code == 1 and "REGRESSION: ttft:mean:+10%" in err
    code, _, err = _compare(base, str(runs["a2"]), "--fail-on", "ttft:mean:+10%", "throughput:-5%")
    assert code == 0, err
    # improvements never fail: the narrow run as base, the wide one as candidate
    code, _, _ = _compare(bad, base, "--fail-on", "ttft:mean:+10%")
    assert code == 0
    code, _, err = _compare(base, bad, "--fail-on", "tpot:p99:+5%")
    assert code == 3 and "cannot check tpot:p99:+5%" in err
    code, out, err = _compare(base, bad, "--fail-on", "tpot:p98:+5%")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "METRIC:STAT" in err


def test_unmatched_and_missing_inputs(runs: dict[str, Path], tmp_path: Path) -> None:
    code, _, err = _compare(str(runs["a1"]), str(tmp_path / "nope"))
    assert code == 2 and "no such file" in err
    other = tmp_path / "other"
    other.mkdir()
    src = next(runs["a1"].glob("*.json"))
    doc = json.loads(src.read_text())
    doc["max_concurrency"] = 64
    (other / "c64.json").write_text(json.dumps(doc))
    code, out, _ = _compare(str(runs["a1"]), str(other))
    assert code == 0
    assert "only in base (not compared): rate inf, conc 8" in out
    assert "only in candidate (not compared): rate inf, conc 64" in out


def test_html_page_opens_in_chromium_in_both_languages(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from tests.report.browser import dump_dom, external_references

    for lang, worse in (("en", "worse"), ("zh_CN", "更差")):
        page = tmp_path / f"compare_{lang}.html"
        code, _, err = _compare(
            str(runs["a1"]), str(runs["narrow"]), "--html", str(page), "--lang", lang
        )
        assert code == 0, err
        assert not external_references(page.read_text(encoding="utf-8"))
        dom = dump_dom(page, tmp_path / f"profile_{lang}")
        assert 'data-verdict="worse"' in dom and worse in dom
        assert "ttft:mean" in dom
        if lang == "zh_CN":
            assert "基于逐请求样本的自助法" in dom
