"""Every command refuses bad flags with one line and exit code 2, through the real entry point.

Each case is run by `app.cli.main` in this process: an exception escaping it is the traceback a
user would see. Cases that pass validation by mistake reach a closed local port (probe, sweep,
doctor) or the simulator's serving loop, replaced here by a stub that only records the call
(the one thing not run for real: it would serve until interrupted).
"""

from __future__ import annotations

import socket

import pytest

from app.cli import main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


URL = f"http://127.0.0.1:{_closed_port()}"
HUGE = "99999999999999999999"
DIGITS = "9" * 5000

PROBE = ["probe", "--base-url", URL, "--model", "m"]
SWEEP = ["sweep", "--base-url", URL, "--model", "m", "--num-prompts", "2"]
DOCTOR = ["doctor", "--base-url", URL]
ROOF = ["roofline"]
ADD_GPU = [
    "roofline", "--add-gpu", "mygpu", "--memory-gib", "24", "--bandwidth-gb-s", "936",
    "--bf16-tflops", "71", "--source", "datasheet",
]  # fmt: skip


def _with(base: list[str], flag: str, value: str) -> list[str]:
    """`base` with `flag` set to `value` (replacing the flag's value if base has it)."""
    out = list(base)
    if flag in out:
        out[out.index(flag) + 1] = value
        return out
    return [*out, flag, value]


BAD_URLS = [
    "http://[::1",
    "http://[::1]x",
    "http://[zz]",
    "http://[::1]:99999",
    "http://999.999.999.999",
    "http://256.0.0.1:8000",
    "http://1.2.3.400",
    "localhost:8000",
    "127.0.0.1:8000",
    "",
    "   ",
    "ftp://host",
    "http://",
    "http://:8000",
    "http://host:99999",
    "http://host:-1",
    "http://host:abc",
    "http://host:0",
    "http://a b",
    "http://user:pw@host",
    "http://host\x00",
    "http://ho\x07st",
    "http://host/v\n1",
    "http://host/v1\r\nX: y",
    "http://-host-",
    "http://ho_st..com",
    "http://" + "a" * 300,
    "http://[::1]:80:90",
    "http://xn--",
    "http://[fe80::1%eth0",
]

BAD_HEADERS = [
    "X-Note=café",
    "X-Note=日本",
    "X-Note=a\nb",
    "X-Note=a\rb",
    "X-Note=a\x00b",
    "X-Note=\x7f",
    "X-Nöte=v",
    "Bad Name=v",
    "=v",
    "novalue",
    # the canonical 'Name: value' form is checked the same way
    "X-Note: café",
    "X-Note: a\x00b",
    "Bad Name: v",
    ": v",
]

CASES: list[list[str]] = []
CASES += [_with(PROBE, "--base-url", u) for u in BAD_URLS]
CASES += [_with(DOCTOR, "--base-url", u) for u in BAD_URLS[:12]]
CASES += [_with(SWEEP, "--base-url", u) for u in BAD_URLS[:8]]
CASES += [[*PROBE, "--header", h] for h in BAD_HEADERS]
CASES += [[*SWEEP, "--header", h] for h in BAD_HEADERS[:6]]
CASES += [[*DOCTOR, "--header", h] for h in BAD_HEADERS[-4:]]
for flag, values in {
    "--max-tokens": ["0", "-1", HUGE, DIGITS, "1e3", "nan"],
    "--timeout": ["nan", "inf", "-inf", "-1", "0", "1e400", "1e12", "abc"],
    "--endpoint": ["http://x/v1/completions", "/v1/models", "/v1/chat/completions\x00"],
}.items():
    CASES += [_with(PROBE, flag, v) for v in values]
for flag, values in {
    "--num-prompts": [HUGE, "0", "-1", DIGITS, "1e6", "10000000"],
    "--random-input-len": ["-1", HUGE, "1000000000"],
    "--random-output-len": ["0", "-5", HUGE],
    "--random-range-ratio": ["nan", "inf", "-0.5", "1", "1.5"],
    "--sharegpt-output-len": ["0", HUGE],
    "--output-len": ["-1", HUGE],
    "--request-rate": ["nan", "-inf", "-1", "0", "abc", "", "1,x,2", "1,nan", "1,,2", "1,2,"],
    "--burstiness": ["nan", "inf", "-1", "0", "1e400"],
    "--max-concurrency": ["0", "-1", "1e3", HUGE, "", "abc", "1,,2", ";4"],
    "--seed": ["-1", HUGE, str(2**32), "1.5"],
    "--num-warmups": ["-1", HUGE],
    "--temperature": ["nan", "inf", "-1", "1e400"],
    "--extra-body": [
        "[1,2]",
        "1",
        '"s"',
        "null",
        "true",
        "{bad",
        "NaN",
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": 1e400}',
        "[" * 100_000,
        '{"a":' * 200 + "1" + "}" * 200,
    ],
    "--goodput": ["ttft:nan", "ttft:-1", "ttft:inf", "bad:1", "ttft"],
    "--percentile-metrics": ["foo", ""],
    "--metric-percentiles": ["nan", "101", "-1", "abc", "inf", ""],
    "--port": ["-1", "70000", HUGE, "0"],
    "--grace-period": ["nan", "inf", "-1", "1e400"],
    "--roofline-context": ["-1", HUGE],
}.items():
    CASES += [_with(SWEEP, flag, v) for v in values]
CASES += [
    ["sweep", "--host", "a b", "--model", "m"],
    ["sweep", "--host", "[::1", "--model", "m"],
    ["sweep", "--host", "999.1.1.1", "--model", "m"],
    [*SWEEP, "--dataset-name", "random", "--random-input-len", "1000000", "--num-prompts", "1000"],
    [*SWEEP, "--goodput", "ttft:500", "ttft:400"],
    # Unknown roofline ids with the model still to come from /v1/models: refused up front.
    ["sweep", "--base-url", URL, "--num-prompts", "2", "--gpu", "nope"],
    ["sweep", "--base-url", URL, "--num-prompts", "2", "--gpu", "rtx3090", "--dtype", "nope"],
    ["sweep", "--base-url", URL, "--num-prompts", "2", "--gpu", "rtx3090", "--kv-dtype", "x"],
]
for value in ["nan", "inf", "-inf", "-1", "0", "1e400", "1e12", "x"]:
    CASES.append(_with(DOCTOR, "--timeout", value))
for flag, values in {
    "--batch": ["0", "-1", HUGE, DIGITS, "10" + "0" * 30],
    "--context": ["-1", HUGE, "10" + "0" * 30],
    "--num-gpu-blocks": ["-1", HUGE, "10" + "0" * 30],
    "--prompt-tokens": ["0", HUGE, "10" + "0" * 30],
    "--tpot-ms": ["nan", "inf", "-1", "0", "1e400"],
    "--gpu-memory-utilization": ["nan", "inf", "0", "1.5", "-0.5"],
    "--block-size": ["0", HUGE],
}.items():
    CASES += [_with(ROOF, flag, v) for v in values]
for flag, values in {
    "--memory-gib": ["inf", "nan", "1e400", "-24", "0", "1e30"],
    "--bandwidth-gb-s": ["inf", "nan", "1e400", "-1", "1e30"],
    "--bf16-tflops": ["inf", "nan", "0"],
    "--fp8-tflops": ["inf", "nan", "-1"],
    "--int8-tops": ["inf", "nan"],
}.items():
    CASES += [_with(ADD_GPU, flag, v) for v in values]
for flag, values in {
    "--port": ["-1", HUGE, "70000"],
    "--seed": ["-1", HUGE],
    "--gpu-memory-utilization": ["nan", "inf"],
    "--max-model-len": [HUGE, "-1"],
    "--max-num-seqs": [HUGE, "0"],
    "--max-num-batched-tokens": [HUGE],
    "--block-size": ["7"],
    "--bandwidth-efficiency": ["nan", "inf"],
    "--step-overhead-ms": ["nan", "inf", "-1"],
    "--engine-us-per-seq": ["nan", "inf", "-1"],
    "--spin-us": ["nan", "inf"],
    "--frontend-us-per-token": ["nan"],
    "--eos-median-tokens": ["nan", "inf"],
    "--eos-sigma": ["nan", "inf"],
    "--network-latency-ms": ["nan", "inf", "-1"],
    "--fault-rate": ["nan", "2"],
    "--fault-every": ["0", HUGE],
    "--retry-after": ["-1", HUGE],
    "--slow-first-byte-ms": ["nan", "inf"],
    "--reasoning-share": ["nan", "inf", "-0.1", "2"],
    "--num-speculative-tokens": ["-1", HUGE],
    "--spec-acceptance-rate": ["nan", "1", "-1"],
}.items():
    CASES += [["sim", flag, v] for v in values]
CASES += [["report", "/nonexistent/tpotbench/results"]]


def _id(argv: list[str]) -> str:
    text = " ".join(argv[:1] + argv[-2:])
    return text if len(text) < 60 else text[:57] + "..."


@pytest.fixture
def no_serving(monkeypatch):
    """The simulator's serving loop, replaced: a case that gets this far was not refused."""
    import uvicorn

    served: list[bool] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, *a, **k: served.append(True))
    return served


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    for name in ("OPENAI_API_KEY", "API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TPOTBENCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def run_cli(capsys, argv: list[str]) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    return code, capsys.readouterr().err


def test_there_are_at_least_150_cases():
    assert len(CASES) >= 150


@pytest.mark.parametrize("argv", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_is_one_line_and_exit_code_2(argv, capsys, no_serving):
    code, err = run_cli(capsys, argv)
    assert not no_serving, "the simulator started"
    assert code == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert len(err) < 500, err  # one line, not a dump (an unknown --gpu lists the known ones)


def test_an_infinite_gpu_figure_is_never_saved(capsys, tmp_path):
    for flag in ("--bandwidth-gb-s", "--memory-gib"):
        code, err = run_cli(capsys, _with(ADD_GPU, flag, "inf"))
        assert code == 2 and err.count("\n") == 1, err
        assert f"argument {flag}: must be a finite number" in err
    assert not (tmp_path / "config" / "gpus.json").exists()


@pytest.mark.parametrize("bandwidth", ["Infinity", "0", "-936", "1e999", '"fast"'])
def test_a_bad_saved_gpu_is_named_not_divided_by(capsys, tmp_path, bandwidth):
    """A gpus.json written by an older version (or by hand) with an impossible bandwidth."""
    folder = tmp_path / "config"
    folder.mkdir()
    entry = (
        '{"id": "mygpu", "memory_gib": 24, "bandwidth_gb_s": ' + bandwidth + ", "
        '"bf16_tflops": 71, "source": "datasheet"}'
    )
    text = '{"schema": 1, "gpus": [' + entry + "]}"
    (folder / "gpus.json").write_text(text, encoding="utf-8")
    code, err = run_cli(capsys, ["roofline", "--gpu", "mygpu"])
    assert code == 2 and err.count("\n") == 1, err
    assert "gpus.json" in err
    if bandwidth in ("0", "-936", '"fast"'):  # valid JSON: the entry and field are named
        assert "'mygpu'" in err and "bandwidth_gb_s" in err
