"""The typed event contract: one encode and one strict decode for every event kind.

The golden lines below were written by the dict-based writer this contract replaced; the
`--events jsonl` stream is a file format, so every key, order and number format must stay.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import __version__
from app.bench.results.per_request import REQUEST_ENTRY_KEYS
from app.bench.schema.point_blocks import ItlHistogram, PointBlocks, PointPlace, StatCheck
from app.bench.schema.point_doc import PointDoc, VllmKeys, read_point_doc
from app.bench.schema.search_doc import (
    SearchBoundary,
    SearchDoc,
    SearchEndpoint,
    SearchFigure,
    SearchFixed,
    SearchPoint,
    SearchRun,
    SearchSettings,
)
from app.bench.sweep.contract import (
    EVENT_CLASSES,
    EVENT_TYPES,
    EndpointInfo,
    Event,
    EventError,
    PointFinished,
    PointStarted,
    Progress,
    RequestDone,
    RunError,
    RunFinished,
    RunStarted,
    SearchFinished,
    SearchValue,
    ServerMetrics,
    Tokens,
    encode,
    summary_of,
)
from app.bench.sweep.event_decode import decode
from app.bench.sweep.plan import PointSpec, plan_points

ENDPOINT = EndpointInfo("http://h/v1/chat/completions", "m", "chat")

# (an event at full precision, the exact line the stream has always carried for it)

# A search's load value (an infinite figure in a check: null on the stream) and its document
# (the stream leaves the points out: each went as a search_value).
_POINT = SearchPoint(
    4.0,
    "grow",
    "pass",
    (),
    {"tpot:p99:50": SearchFigure(1, 12.5, (12.5, 12.5), None)},
    (
        SearchRun(
            1,
            True,
            32,
            1.23456,
            None,
            "c4.json",
            (StatCheck("tpot:p99:50", "stat", math.inf, 50.0, False),),
        ),
    ),
)
_DOC = SearchDoc(
    endpoint=SearchEndpoint("http://h/v1", "m", "completions"),
    fixed=SearchFixed(None, None),
    settings=SearchSettings(maximum=8),
    boundary=SearchBoundary(4.0, None, (4.0, None)),
    stop_reason="every load up to --max 8 met the SLOs",
    measuring_s=2.34567,
    points=(_POINT,),
    knee={"tpot": None},
)

GOLDEN: list[tuple[Event, str]] = [
    (
        RunStarted(
            points=tuple(plan_points([math.inf, 2.5], [4, None])), num_prompts=10, endpoint=ENDPOINT
        ),
        '{"type":"run_started","schema":1,"app_version":"' + __version__ + '","points":['
        '{"index":0,"request_rate":"inf","max_concurrency":4},'
        '{"index":1,"request_rate":"inf","max_concurrency":null},'
        '{"index":2,"request_rate":2.5,"max_concurrency":4},'
        '{"index":3,"request_rate":2.5,"max_concurrency":null}],"num_prompts":10,'
        '"endpoint":{"url":"http://h/v1/chat/completions","model":"m","api":"chat"}}',
    ),
    (
        PointStarted.of(PointSpec(0, math.inf, None)),
        '{"type":"point_started","point":0,"request_rate":"inf","max_concurrency":null}',
    ),
    (
        Tokens(1, [0.1234567891, 2.0], [19.87654321, 3]),
        '{"type":"tokens","point":1,"t_s":[0.123457,2.0],"itl_ms":[19.8765,3]}',
    ),
    (
        Tokens(0, [], [], first_token_s=0.01234567, text="héllo\n"),
        '{"type":"tokens","point":0,"t_s":[],"itl_ms":[],"first_token_s":0.012346,'
        '"text":"h\\u00e9llo\\n"}',
    ),
    (
        Progress(0, 3, 1, 10, 2, 1.23456, 99.999),
        '{"type":"progress","point":0,"completed":3,"failed":1,"total":10,"in_flight":2,'
        '"elapsed_s":1.235,"output_tok_s":100.0}',
    ),
    (
        RequestDone(0, True, 0.0412345678 * 1000, 0.0197 * 1000, 0.5 * 1000, 24, None, 128),
        '{"type":"request","point":0,"ok":true,"ttft_ms":41.2346,"tpot_ms":19.7,'
        '"e2el_ms":500.0,"output_tokens":24,"error_kind":null,"prompt_tokens":128}',
    ),
    (
        RequestDone(2, False, None, None, 1.25 * 1000, 3, "http_500", None),
        '{"type":"request","point":2,"ok":false,"ttft_ms":null,"tpot_ms":null,'
        '"e2el_ms":1250.0,"output_tokens":3,"error_kind":"http_500","prompt_tokens":null}',
    ),
    (
        PointFinished(
            0,
            None,
            PointDoc(
                VllmKeys(request_rate="inf", completed=3, ttfts=[0.1], latencies=[1.0]),
                {"mean_ttft_ms": float("nan"), "p99_ttft_ms": 41.5},
                PointBlocks(point=PointPlace(0), cancelled=True),
                {"chunk_counts": [1], "requests": {"ok": [True]}},
            ),
        ),
        '{"type":"point_finished","point":0,"path":null,"summary":{"date":null,'
        '"endpoint_type":null,"backend":null,"label":null,"model_id":null,'
        '"tokenizer_id":null,"num_prompts":null,"request_rate":"inf","burstiness":null,'
        '"max_concurrency":null,"duration":null,"completed":3,"failed":null,'
        '"total_input_tokens":null,"total_output_tokens":null,"request_throughput":null,'
        '"request_goodput":null,"output_throughput":null,"total_token_throughput":null,'
        '"max_output_tokens_per_s":null,"max_concurrent_requests":null,"rtfx":null,'
        '"mean_ttft_ms":null,"p99_ttft_ms":41.5,"tpotbench":{"schema_version":null,'
        '"app_version":null,"run_id":null,"started_at":null,"profile":null,"endpoint":null,'
        '"point":{"index":0,"request_rate":null,"max_concurrency":null},"dataset":null,'
        '"num_warmups":null,"percentiles":[],'
        '"goodput_slos_ms":null,"cancelled":true,"aborted":null,"not_sent":null,'
        '"slot_wait_ms":null,"ttft_first_content_ms":null,"tokens_per_chunk":null,'
        '"ttfo_ms":null,"tpot_answer_ms":null,"reasoning_tokens":null,'
        '"prefix_cache_client":null,"output_tokens_source":null,"retried_requests":null,'
        '"stamping":[],"failures":[],"roofline":null,"server_metrics":null,"client":null,'
        '"prefix_cache":null,"schedule_lateness_ms":null,"load_warnings":null}}}',
    ),
    (
        ServerMetrics(1.5, 0.25, 3.0, None, 0.0),
        '{"type":"server_metrics","t_s":1.5,"kv_cache_usage":0.25,"running":3.0,'
        '"waiting":null,"preemptions":0.0}',
    ),
    (
        RunFinished(True, ("/r/a.json",), "/r/sweep.csv"),
        '{"type":"run_finished","cancelled":true,"paths":["/r/a.json"],"csv":"/r/sweep.csv"}',
    ),
    (RunError("boom"), '{"type":"error","message":"boom"}'),
    (
        SearchValue(_POINT, 4.0, None),
        '{"type":"search_value","value":{"value":4.0,"phase":"grow","decision":"pass",'
        '"failed":[],"figures":{"tpot:p99:50":{"n":1,"mean":12.5,"ci95":[12.5,12.5],"cv":null}},'
        '"runs":[{"run":1,"passed":true,"num_requests":32,"measuring_s":1.235,"early_stop":null,'
        '"path":"c4.json","checks":[{"slo":"tpot:p99:50","kind":"stat","value_ms":null,'
        '"limit_ms":50.0,"passed":false}]}]},'
        '"highest_pass":4.0,"lowest_fail":null}',
    ),
    (
        SearchFinished("/r/search.json", _DOC),
        '{"type":"search_finished","path":"/r/search.json","search":{"tpotbench_search":1,'
        '"endpoint":{"url":"http://h/v1","model":"m","api":"completions"},"slos":null,'
        '"fixed":{"request_rate":null,"max_concurrency":null},"over":"concurrency",'
        '"settings":{"over":"concurrency","start":1.0,"maximum":8,"growth":2.0,'
        '"resolution":1.0,"relative_resolution":false,"runs":1,"num_prompts":200,'
        '"min_prompts":64,"prompts_per_unit":8.0,"early_stop":true,"check_above":true},'
        '"boundary":{"highest_pass":4.0,"lowest_fail":null,"interval":[4.0,null],'
        '"failed_slos":[]},"stop_reason":"every load up to --max 8 met the SLOs",'
        '"fill_limit":null,"cancelled":false,"monotonic":true,"violations":[],'
        '"measuring_s":2.346,"boundary_why":null,"boundary_evidence":null,'
        '"knee":{"tpot":null}}}',
    ),
]


def test_every_kind_has_a_golden_line() -> None:
    assert {type(event) for event, _ in GOLDEN} == set(EVENT_CLASSES)
    assert tuple(cls.kind for cls in EVENT_CLASSES) == EVENT_TYPES
    assert len(set(EVENT_TYPES)) == len(EVENT_TYPES)


@pytest.mark.parametrize(("event", "line"), GOLDEN, ids=[e.kind for e, _ in GOLDEN])
def test_encode_writes_the_streams_exact_line(event: Event, line: str) -> None:
    assert encode(event) == line + "\n"


@pytest.mark.parametrize(("event", "line"), GOLDEN, ids=[e.kind for e, _ in GOLDEN])
def test_decode_then_encode_gives_the_same_line(event: Event, line: str) -> None:
    decoded = decode(line)
    assert type(decoded) is type(event)
    assert encode(decoded) == line + "\n"
    assert decode(line.encode()) == decoded  # bytes as the worker's pipe delivers them


def test_decode_gives_the_objects_values() -> None:
    started = decode(GOLDEN[0][1])
    assert isinstance(started, RunStarted)
    assert started.points[0] == PointSpec(0, math.inf, 4)
    assert started.points[3] == PointSpec(3, 2.5, None)
    assert started.endpoint == ENDPOINT and started.schema == 1
    request = decode(GOLDEN[5][1])
    assert request == RequestDone(0, True, 41.2346, 19.7, 500.0, 24, None, 128)
    tokens = decode(GOLDEN[3][1])
    assert isinstance(tokens, Tokens)
    assert (tokens.first_token_s, tokens.text, tokens.plain) == (0.012346, "héllo\n", False)
    assert decode(GOLDEN[2][1]) == Tokens(1, [0.123457, 2.0], [19.8765, 3])
    finished = decode(GOLDEN[7][1])
    assert isinstance(finished, PointFinished)
    assert isinstance(finished.summary, PointDoc)
    assert finished.summary.vllm.completed == 3 and finished.summary.vllm.ttfts is None
    assert finished.summary.stats == {"mean_ttft_ms": None, "p99_ttft_ms": 41.5}
    assert finished.summary.typed_blocks.cancelled is True
    assert finished.summary.block_rest == {}  # the per-request parts are left out
    assert finished.summary.typed_blocks.point == PointPlace(0)


def test_the_request_event_and_the_files_request_block_name_a_figure_alike() -> None:
    fields = {f.name for f in dataclasses.fields(RequestDone)}
    assert fields - {"point"} == set(REQUEST_ENTRY_KEYS) - {"start_s"}


def test_summary_leaves_out_every_per_request_array() -> None:
    result: dict[str, Any] = {
        "completed": 1,
        "input_lens": [1],
        "output_lens": [2],
        "ttfts": [0.1],
        "itls": [[0.01]],
        "start_times": [0.0],
        "generated_texts": ["x"],
        "errors": [""],
        "latencies": [0.2],
        "queue_times": [0.0],
        "mean_ttft_ms": 100.0,
        "tpotbench": {
            "requests": {"ok": [True]},
            "ttfos": [None],
            "reasoning_lens": [None],
            "cached_lens": [None],
            "chunk_counts": [2],
            "error_kinds": [None],
            "retried": [False],
            "itl_histogram": {"edges_ms": [1.0, 2.0], "counts": [1]},
        },
    }
    doc = read_point_doc(result, strict=True)
    summary = summary_of(doc)
    assert summary.vllm == VllmKeys(completed=1)
    assert summary.stats == {"mean_ttft_ms": 100.0}
    assert summary.block_rest == {}  # the histogram is a typed block and stays
    assert summary.typed_blocks.itl_histogram == ItlHistogram((1.0, 2.0), [1])
    assert doc.vllm.ttfts == [0.1] and "ttfos" in doc.block_rest  # the caller's is not touched


_numbers = st.floats(allow_nan=False, allow_infinity=False, width=64) | st.integers(-(10**9), 10**9)
_maybe = st.none() | _numbers


@given(
    t_s=st.lists(_numbers, max_size=20),
    point=st.integers(0, 10_000),
    first=_maybe,
    text=st.none() | st.text(max_size=20),
)
def test_any_token_batch_survives_the_stream(
    t_s: list[float], point: int, first: float | None, text: str | None
) -> None:
    line = encode(Tokens(point, t_s, list(reversed(t_s)), first_token_s=first, text=text))
    assert encode(decode(line)) == line


@given(
    values=st.tuples(_maybe, _maybe, _maybe),
    ok=st.booleans(),
    counts=st.tuples(st.integers(0, 10**6), st.none() | st.integers(0, 10**6)),
    kind=st.none() | st.text(max_size=10),
)
def test_any_request_survives_the_stream(
    values: tuple[float | None, ...], ok: bool, counts: tuple[int, int | None], kind: str | None
) -> None:
    line = encode(RequestDone(3, ok, *values, counts[0], kind, counts[1]))
    again = decode(line)
    assert isinstance(again, RequestDone) and encode(again) == line
    assert (again.ok, again.output_tokens, again.prompt_tokens, again.error_kind) == (
        ok,
        counts[0],
        counts[1],
        kind,
    )


# ---- strict decode: every bad line is one EventError that says what is wrong --------------


def _request(**changes: Any) -> str:
    obj = json.loads(GOLDEN[5][1])
    obj.update(changes)
    return json.dumps({k: v for k, v in obj.items() if v is not _DROP})


_DROP = object()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("cancel", "not JSON"),
        ("", "not JSON"),
        ("[1, 2]", "not an event"),
        ('{"point": 0}', "not an event"),
        ('{"type": "surprise"}', "not an event"),
        ('{"type": 7}', "not an event"),
        (_request(ok=_DROP), "request.ok: missing"),
        (_request(extra=1), "request.extra: unknown field"),
        (_request(ok=1), "request.ok: must be true or false, got 1"),
        (_request(ttft_ms="fast"), "request.ttft_ms: must be a number or null, got 'fast'"),
        (_request(output_tokens=True), "request.output_tokens: must be a whole number, got True"),
        (_request(output_tokens=2.5), "request.output_tokens: must be a whole number"),
        (_request(point=None), "request.point: must be a whole number, got None"),
        (_request(error_kind=5), "request.error_kind: must be a string or null, got 5"),
        ('{"type":"request","point":0,"ok":true,"ttft_ms":NaN}', "not JSON"),
        ('{"type":"error","message":' + "9" * 5000 + "}", "not JSON"),
        ('{"type":"error","message":' + "[" * 100_000 + "]" * 100_000 + "}", "not JSON"),
        (
            '{"type":"tokens","point":0,"t_s":[0.5],"itl_ms":[]}',
            "tokens: t_s has 1 values but itl_ms 0",
        ),
        (
            '{"type":"tokens","point":0,"t_s":[0.5,"x"],"itl_ms":[1,2]}',
            "tokens.t_s[1]: must be a number, got 'x'",
        ),
        (
            '{"type":"tokens","point":0,"t_s":[true],"itl_ms":[1]}',
            "tokens.t_s[0]: must be a number",
        ),
        (
            '{"type":"tokens","point":0,"t_s":[],"itl_ms":[],"text":3}',
            "tokens.text: must be a string",
        ),
        (
            '{"type":"point_started","point":0,"request_rate":"fast","max_concurrency":1}',
            "point_started.request_rate: must be a number or \"inf\", got 'fast'",
        ),
        (
            GOLDEN[0][1].replace('"index":1,', ""),
            "run_started.points[1].index: missing",
        ),
        (
            GOLDEN[0][1].replace('"model":"m",', '"model":"m","key":"k",'),
            "run_started.endpoint.key: unknown field",
        ),
        (
            GOLDEN[0][1].replace('"points":[', '"points":[3,'),
            "run_started.points[0]: must be an object, got 3",
        ),
        (
            '{"type":"point_finished","point":0,"path":null,"summary":[]}',
            "point_finished.summary: must be an object, got []",
        ),
        (
            GOLDEN[7][1].replace('"roofline":null', '"roofline":{"batch":"x"}'),
            "point_finished.summary.tpotbench.roofline.batch: must be a number or null, got 'x'",
        ),
        (
            GOLDEN[7][1].replace('"rtfx":null', '"rtfx":null,"x":1'),
            "point_finished.summary.x: unknown field",
        ),
        (
            GOLDEN[7][1].replace('"completed":3', '"completed":"3"'),
            "point_finished.summary.completed: must be a whole number or null, got '3'",
        ),
        (
            '{"type":"run_finished","cancelled":false,"paths":[1],"csv":null}',
            "run_finished.paths[0]: must be a string, got 1",
        ),
        ('{"type":"error"}', "error.message: missing"),
        (
            GOLDEN[-2][1].replace('"phase":"grow",', ""),
            "search_value.value.phase: missing",
        ),
        (
            GOLDEN[-1][1].replace('"monotonic":true', '"monotonic":"yes"'),
            "search_finished.search.monotonic: must be true or false, got 'yes'",
        ),
    ],
)
def test_decode_refuses_a_bad_line_with_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(EventError) as caught:
        decode(line)
    assert message in str(caught.value)
    assert len(str(caught.value)) < 300  # one readable line, never the whole input


def test_decode_refuses_undecodable_bytes_as_not_json() -> None:
    with pytest.raises(EventError, match="not JSON"):
        decode(b"\xff\xfe{")


def test_an_event_the_codec_cannot_write_becomes_an_error_line_not_a_dead_writer() -> None:
    doc = PointDoc(blocks=PointBlocks(goodput_slos_ms={1: 5.0}))  # type: ignore[dict-item]
    line = encode(PointFinished(0, None, doc))
    assert decode(line) == RunError(
        "a point_finished event was lost: an object key must be a string, got 1"
    )
