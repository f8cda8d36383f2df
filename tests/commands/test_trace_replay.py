"""`tpotbench sweep --dataset-name mooncake`: a trace replayed against the simulator (hit
rates where the hash ids say, lateness recorded per send, the trace's facts in the file)
and the flags a trace contradicts refused with one line, exit 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.datasets.mooncake import default_trace_path, load_trace, predicted_hit_tokens
from app.bench.schema.point_blocks import point_blocks
from app.cli import main
from app.commands.credentials import UsageError
from app.sim.config import SimConfig
from tests.documents import document


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _head(tmp_path: Path, lines: int) -> Path:
    text = default_trace_path().read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "head.jsonl"
    path.write_text("".join(text[:lines]), encoding="utf-8")
    return path


TRACE_GOLDEN = (
    '{"format": "mooncake", "path": "TRACE", "requests": 30, "span_s": 11.032, "speedup": 20.0, '
    '"replay_span_s": 0.552, "block_size": 512, "predicted_hit_rate": 0.5462}'
)


def test_a_replay_hits_the_cache_where_the_trace_says_and_records_every_send(
    sim, tmp_path: Path
) -> None:
    # The trace's first 30 requests at 20x, one at a time (a cap only delays sends), on
    # /completions: each request's cached tokens are the ones its hash ids predict, in
    # whole 16-token KV blocks less the last token (recomputed by vLLM).
    trace = _head(tmp_path, 30)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "app", "sweep", "--base-url", sim.base_url, "--backend"]
    cmd += ["openai", "--dataset-name", "mooncake", "--dataset-path", str(trace)]
    cmd += ["--trace-speedup", "20", "--max-concurrency", "1", "--output-len", "2"]
    cmd += ["--server-metrics", "--save-detailed", "--disable-tqdm", "--result-dir", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("*.json")
    raw = document(path)
    entries = load_trace(trace)
    assert raw["completed"] == 30 and raw["num_prompts"] == 30
    assert raw["tpotbench"]["dataset"]["name"] == "mooncake"
    block = raw["tpotbench"]
    blocks = point_blocks(block, strict=True)  # the typed blocks hold everything written
    assert blocks.trace is not None and blocks.trace.requests == 30
    kv = SimConfig().block_size
    expected = [
        min(hit // kv, (e.input_length - 1) // kv) * kv
        for e, hit in zip(entries, predicted_hit_tokens(entries), strict=True)
    ]
    assert [c or 0 for c in block["cached_lens"]] == expected
    assert raw["input_lens"] == [e.input_length for e in entries]
    # The trace block as the dict-built code wrote it for this trace (its path aside).
    assert json.dumps({**block["trace"], "path": "TRACE"}) == TRACE_GOLDEN
    assert block["trace"]["path"] == str(trace)
    span = (entries[-1].timestamp_ms - entries[0].timestamp_ms) / 1000
    assert block["trace"]["requests"] == 30 and block["trace"]["speedup"] == 20
    assert block["trace"]["replay_span_s"] == pytest.approx(span / 20, abs=1e-3)
    assert raw["request_rate"] == pytest.approx(29 / (span / 20), rel=1e-3)
    predicted = block["trace"]["predicted_hit_rate"]
    assert block["prefix_cache_client"]["hit_rate"] == pytest.approx(predicted, abs=0.02)
    assert block["prefix_cache"]["warning"] is None  # the trace's own sharing is not stale
    late = block["schedule_lateness_ms"]
    assert late["count"] == 30 and late["max_ms"] >= late["p99_ms"] >= late["median_ms"]
    assert "Trace replay speed-up:" in proc.stdout and "20x" in proc.stdout
    assert "Prefix cache hit rate, trace:" in proc.stdout
    assert "Arrivals: the trace's timestamps at 20x (the replay sends over" in proc.stderr


URL = f"http://127.0.0.1:{_closed_port()}"
SWEEP = ["sweep", "--base-url", URL, "--model", "m"]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--trace-speedup", "2"], "--trace-speedup replays a trace faster; add --dataset-name"),
        (["--dataset-name", "mooncake", "--request-rate", "4"], "--request-rate: a trace"),
        (["--dataset-name", "mooncake", "--burstiness", "0.5"], "--burstiness: a trace"),
    ],
)
def test_flags_a_trace_contradicts_are_one_line_exit_2(
    extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*SWEEP, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1


def test_a_bad_trace_file_is_one_line_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"timestamp": 10, "input_length": 5, "output_length": 5}\n'
        '{"timestamp": 5, "input_length": 5, "output_length": 5}\n',
        encoding="utf-8",
    )
    assert main([*SWEEP, "--dataset-name", "mooncake", "--dataset-path", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert f'{bad}: line 2: "timestamp" 5 is before line 1' in err
    assert len(err.splitlines()) == 1


def test_search_refuses_a_trace(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["search", "--base-url", URL, "--model", "m", "--slo", "tpot:p99:50"]
    assert main([*argv, "--dataset-name", "mooncake"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no load to search" in err and len(err.splitlines()) == 1


def test_num_prompts_replays_the_first_lines_of_the_trace(
    sim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sweep", "--base-url", sim.base_url, "--backend", "openai", "--disable-tqdm"]
    argv += ["--dataset-name", "mooncake", "--num-prompts", "3", "--trace-speedup", "1000"]
    argv += ["--output-len", "1", "--save-detailed", "--result-dir", str(tmp_path)]
    assert main(argv) == 0
    (path,) = tmp_path.glob("*.json")
    raw = document(path)
    entries = load_trace(default_trace_path(), limit=3)
    assert raw["num_prompts"] == 3 and raw["tpotbench"]["trace"]["requests"] == 3
    assert raw["input_lens"] == [e.input_length for e in entries]


def _trace(tmp_path: Path, *lines: tuple[float, int, int]) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text(
        "".join(
            f'{{"timestamp": {t}, "input_length": {i}, "output_length": {o}}}\n'
            for t, i, o in lines
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("lines", "extra", "says"),
    [
        # one line's prompt alone would be gigabytes of text built up front
        ([(0, 100_000_000, 5)], [], '"input_length" must be a whole number from 1 to 2,000,000'),
        ([(0, 5, 100_000_000)], [], '"output_length" must be a whole number from 1 to'),
        # a speed-up whose replay cannot end (it overflowed to a traceback)
        ([(0, 5, 5), (1000, 5, 5)], ["--trace-speedup", "1e-300"], "longer than the age of"),
        # a day at most, and the speed-up that fits it
        ([(0, 5, 5), (1000, 5, 5)], ["--trace-speedup", "0.00001"], "would take 27.8 h"),
        # a trace whose clock spans years
        ([(0, 5, 5), (3 * 365 * 86_400_000, 5, 5)], [], "would take 3 years"),
        ([(0, 5, 5), (1e300, 5, 5)], [], "longer than the age of the universe"),
    ],
)
def test_traces_that_would_exhaust_memory_or_never_end_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines, extra, says
) -> None:
    trace = _trace(tmp_path, *lines)
    argv = [*SWEEP, "--dataset-name", "mooncake", "--dataset-path", str(trace), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err
    if "would take" in says:
        assert "use --trace-speedup" in err


def test_the_speedup_named_as_enough_is_accepted(tmp_path: Path) -> None:
    from app.commands.trace_flags import MAX_REPLAY_S, check_replay_length

    span = 3 * 365 * 86_400.0
    with pytest.raises(UsageError, match=r"use --trace-speedup [0-9.e+-]+ or more") as refused:
        check_replay_length(span, 1.0, 2)
    least = float(str(refused.value).split("use --trace-speedup ")[1].split()[0])
    check_replay_length(span / least, least, 2)  # no error at the speed-up it names
    assert span / least <= MAX_REPLAY_S


def test_a_slow_replay_keeps_a_rate_above_zero() -> None:
    from app.bench.load.schedule import trace_plan
    from app.commands.trace_flags import TraceLoad

    plan = trace_plan([0.0, 20 * 3_600_000.0])  # two requests 20 h apart: 1.4e-5 req/s
    rate = TraceLoad([], plan, {}).rate
    assert rate == pytest.approx(1 / 72_000, rel=1e-3) and rate > 0
