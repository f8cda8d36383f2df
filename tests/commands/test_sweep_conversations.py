"""`tpotbench sweep --multi-turn` against the simulator: the shipped conversations, first- vs
later-turn TTFT with prefix caching on and off, session and turn per request, report and
sweep.csv columns, and the flags that do not go with conversations."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from tests.documents import document


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=600
    )


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))


def _sweep(base_url: str, out: Path, *extra: str) -> tuple[dict, str]:
    proc = _run(
        "sweep",
        "--base-url",
        base_url,
        "--result-dir",
        str(out),
        "--disable-tqdm",
        "--server-metrics",
        "--multi-turn",
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("*.json")
    return document(path), proc.stdout


def test_later_turns_are_faster_with_prefix_caching_on_than_off(make_sim, tmp_path: Path) -> None:
    # Six sessions of the shipped file, 3 turns each (the first question is the long one, so a
    # later turn without the cache prefills it all again), replies cut to 8 tokens to keep the
    # run short; two sessions in flight so turns of different sessions share steps.
    flags = ("--num-sessions", "6", "--max-turns", "3", "--output-len", "8")
    flags += ("--max-concurrency", "2", "--seed", "3")
    on, stdout = _sweep(make_sim().base_url, tmp_path / "on", *flags)
    off, _ = _sweep(make_sim(enable_prefix_caching=False).base_url, tmp_path / "off", *flags)
    for raw in (on, off):
        conv = raw["tpotbench"]["conversations"]
        assert conv["sessions"] == 6 and conv["turns_completed"] == 18 == raw["completed"]
        assert conv["first_turns"] == 6 and conv["later_turns"] == 12
        assert raw["tpotbench"]["dataset"]["path"].endswith("sharegpt_multiturn_synthetic.json")
        requests = raw["tpotbench"]["requests"]
        assert sorted(requests["turn"]) == [0] * 6 + [1] * 6 + [2] * 6
        assert sorted(requests["session"]) == sorted(list(range(6)) * 3)
    c_on, c_off = on["tpotbench"]["conversations"], off["tpotbench"]["conversations"]
    # The same sessions and prompts: with the cache, later turns skip the history's prefill.
    assert c_on["prefix_cache_hit_rate_later_turns"] > 0.6
    assert on["tpotbench"]["server_metrics"]["prefix_cache"]["hit_rate"] > 0.4
    assert not c_off["prefix_cache_hit_rate_later_turns"]
    later_on = c_on["ttft_later_turns_ms"]["mean"]
    later_off = c_off["ttft_later_turns_ms"]["mean"]
    # the simulator's cost model: hundreds of history tokens of prefill saved per later turn
    assert later_on < later_off
    assert "Mean TTFT, later turns (ms):" in stdout and "Prompt cached, later turns:" in stdout
    report = _run("report", str(tmp_path / "on"), "--csv", str(tmp_path / "rows.csv"))
    head, row = report.stdout.splitlines()[:2]
    assert "TTFT 1st turn" in head and "TTFT later" in head
    assert f"{later_on:.1f}" in row
    (rows,) = _csv(tmp_path / "rows.csv")
    assert float(rows["ttft_later_turns_ms"]) == later_on
    (sweep_row,) = _csv(tmp_path / "on" / "sweep.csv")
    assert float(sweep_row["ttft_first_turn_ms"]) == c_on["ttft_first_turn_ms"]["mean"]


def test_conversations_refuse_what_they_cannot_do(tmp_path: Path) -> None:
    base = ("sweep", "--base-url", "http://127.0.0.1:9", "--multi-turn", "--result-dir")
    cases = [
        (("--backend", "openai"), "chat API"),
        (("--dataset-name", "random"), "--dataset-name sharegpt"),
        (("--workers", "2"), "--workers"),
        (("--num-warmups", "1"), "--num-warmups"),
        (("--num-sessions", "500"), "ask for at most 100"),
        (("--max-turns", "1"), "at least 2"),
        # a count of requests would be silently ignored: sessions are counted, not prompts
        (("--num-prompts", "8"), "--num-sessions"),
        (("--num-prompts", "8", "--num-sessions", "2"), "--num-prompts does not apply"),
    ]
    for extra, words in cases:
        proc = _run(*base, str(tmp_path), *extra)
        assert proc.returncode == 2, (extra, proc.stderr)
        assert words in proc.stderr, (extra, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = _run("sweep", "--base-url", "http://127.0.0.1:9", "--num-sessions", "3")
    assert proc.returncode == 2 and "--multi-turn" in proc.stderr
