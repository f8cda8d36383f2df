"""Per-point metrics on crafted records, checked against values worked out by hand."""

import pytest

from app.bench.http.record import RequestRecord
from app.bench.metrics.options import (
    parse_goodput,
    parse_percentile_metrics,
    parse_percentiles,
    percentile_word,
)
from app.bench.metrics.point import Stats, compute_point_metrics
from app.bench.metrics.request import vllm_timings

MS = 1_000_000  # nanoseconds per millisecond


def role_first_multi_token() -> RequestRecord:
    """Chat stream: role-only delta at 100 ms, then 3 content chunks carrying 7 tokens."""
    return RequestRecord(
        request_id="a",
        prompt_len=12,
        send_ns=0,
        first_choice_ns=100 * MS,
        first_token_ns=150 * MS,
        chunk_ns=[150 * MS, 170 * MS, 200 * MS],
        end_ns=200 * MS,
        ok=True,
        usage={"prompt_tokens": 10, "completion_tokens": 7},
        output_tokens=7,
        output_tokens_source="usage",
        generated_text="abc",
    )


def steady_five() -> RequestRecord:
    """Sent at 50 ms after a 10 ms slot wait; five 1-token chunks 20 ms apart from 110 ms."""
    chunks = [110 * MS, 130 * MS, 150 * MS, 170 * MS, 190 * MS]
    return RequestRecord(
        request_id="b",
        prompt_len=20,
        slot_wait_ns=10 * MS,
        send_ns=50 * MS,
        first_choice_ns=110 * MS,
        first_token_ns=110 * MS,
        chunk_ns=chunks,
        chunk_tokens=[1, 1, 1, 1, 1],
        end_ns=190 * MS,
        ok=True,
        usage={"prompt_tokens": 20, "completion_tokens": 5},
        output_tokens=5,
        output_tokens_source="usage",
    )


def single_token_late() -> RequestRecord:
    """One token, no usage (estimated), sent at 1.2 s: lands in the second one-second bucket."""
    return RequestRecord(
        request_id="e",
        prompt_len=7,
        send_ns=1200 * MS,
        first_choice_ns=1280 * MS,
        first_token_ns=1280 * MS,
        chunk_ns=[1280 * MS],
        end_ns=1280 * MS,
        ok=True,
        output_tokens=1,
        output_tokens_source="estimate",
    )


def failed(kind: str, error: str) -> RequestRecord:
    return RequestRecord(
        request_id=kind,
        prompt_len=5,
        send_ns=0,
        end_ns=10 * MS,
        ok=False,
        error_kind=kind,
        error=error,
    )


def records() -> list[RequestRecord]:
    return [
        role_first_multi_token(),
        failed("http_5xx", "HTTP 500: first"),
        steady_five(),
        failed("connect", "connection refused"),
        failed("http_5xx", "HTTP 500: second"),
        single_token_late(),
    ]


def test_vllm_timings_put_the_role_only_delta_back() -> None:
    ttft, itls, e2el, stamps = vllm_timings(role_first_multi_token())
    assert ttft == pytest.approx(0.100)
    assert itls == pytest.approx([0.050, 0.020, 0.030])
    assert e2el == pytest.approx(0.200)
    assert len(stamps) == 4


def test_point_metrics_match_hand_computed_values() -> None:
    m = compute_point_metrics(
        records(), 0.5, percentiles=(50, 90, 99), goodput={"ttft": 90, "tpot": 30}
    )
    assert (m.completed, m.failed) == (3, 3)
    assert m.total_input == 10 + 20 + 7  # usage's prompt_tokens replaces the dataset's 12
    assert m.total_output == 7 + 5 + 1
    assert m.request_throughput == pytest.approx(6.0)
    assert m.output_throughput == pytest.approx(26.0)
    assert m.total_token_throughput == pytest.approx(100.0)
    # goodput: A fails TTFT (100 > 90); B (60 ms, 20 ms) and E (80 ms, TPOT 0) pass.
    assert m.request_goodput == pytest.approx(4.0)

    ttft = m.stats["ttft"]  # 100, 60, 80 ms
    assert ttft.mean == pytest.approx(80.0)
    assert ttft.median == pytest.approx(80.0)
    assert ttft.std == pytest.approx((800 / 3) ** 0.5)
    assert ttft.percentiles == pytest.approx({"50": 80.0, "90": 96.0, "99": 99.6})

    tpot = m.stats["tpot"]  # A: (200-100)/6, B: (140-60)/4; E has one token: no TPOT
    assert tpot.mean == pytest.approx((100 / 6 + 20) / 2)
    assert tpot.percentiles["99"] == pytest.approx(100 / 6 + 0.99 * (20 - 100 / 6))

    itl = m.stats["itl"]  # pooled: 50, 20, 30 (A) and 20 x 4 (B); a 4-token chunk is one gap
    assert itl.mean == pytest.approx(180 / 7)
    assert itl.median == pytest.approx(20.0)
    assert itl.percentiles == pytest.approx({"50": 20.0, "90": 38.0, "99": 48.8})

    e2el = m.stats["e2el"]  # 200, 140, 80 ms
    assert e2el.mean == pytest.approx(140.0)
    assert m.stats["ttft_first_content"].mean == pytest.approx((150 + 60 + 80) / 3)
    assert m.stats["client_queue_time"].mean == pytest.approx(10 / 3)


def test_peaks_tokens_per_chunk_and_failures() -> None:
    m = compute_point_metrics(records(), 0.5)
    # vLLM counts one per streamed message with choices: second 0 has A's 4 and B's 5.
    assert m.max_output_tokens_per_s == 9.0
    # weighted by tokens: A's 7 (role delta 0) + B's 5 in second 0
    assert m.peak_output_tokens_per_s_weighted == pytest.approx(12.0)
    assert m.max_concurrent_requests == 2
    assert m.tokens_per_chunk_mean == pytest.approx(13 / 9)
    assert m.tokens_per_chunk_max == 1
    assert m.multi_token_chunk_share == 0.0
    assert [(g.kind, g.count, g.example) for g in m.failures] == [
        ("http_5xx", 2, "HTTP 500: first"),
        ("connect", 1, "connection refused"),
    ]
    assert m.output_tokens_source == {"usage": 2, "estimate": 1}
    # per-request arrays in request order, zeros for failures (as vLLM writes them)
    assert m.output_lens == [7, 0, 5, 0, 0, 1]
    assert m.ttfts == pytest.approx([0.1, 0.0, 0.06, 0.0, 0.0, 0.08])
    assert m.itls[1] == []
    assert m.start_times == pytest.approx([0.0, 0.0, 0.05, 0.0, 0.0, 1.2])
    assert m.errors[3] == "connection refused"


def test_back_to_back_requests_do_not_overlap() -> None:
    first = steady_five()
    second = steady_five()
    shift = first.end_ns - first.send_ns  # second starts exactly when the first ends
    second.send_ns += shift
    second.first_choice_ns += shift
    second.first_token_ns += shift
    second.chunk_ns = [t + shift for t in second.chunk_ns]
    m = compute_point_metrics([first, second], 1.0)
    assert m.max_concurrent_requests == 1


def test_no_successful_request_summarises_as_zero_like_vllm() -> None:
    m = compute_point_metrics([failed("timeout", "timed out")], 2.0, goodput={"e2el": 1000})
    assert (m.completed, m.failed, m.request_goodput) == (0, 1, 0.0)
    assert m.stats["ttft"] == Stats(0.0, 0.0, 0.0, {"50": 0.0, "90": 0.0, "95": 0.0, "99": 0.0})
    assert m.max_output_tokens_per_s == 0.0


def test_flag_parsers() -> None:
    assert parse_goodput(["ttft:500", "tpot:50"]) == {"ttft": 500.0, "tpot": 50.0}
    assert parse_percentiles("50, 99.9") == (50.0, 99.9)
    assert percentile_word(99.9) == "99.9" and percentile_word(99.0) == "99"
    assert parse_percentile_metrics("ttft,e2el") == ("ttft", "e2el")
    with pytest.raises(ValueError, match="KEY:MILLISECONDS"):
        parse_goodput(["ttft=500"])
    with pytest.raises(ValueError, match="unknown metric 'itl'"):
        parse_goodput(["itl:5"])
    with pytest.raises(ValueError, match=r"outside 0\.\.100"):
        parse_percentiles("150")
    with pytest.raises(ValueError, match="unknown metric 'ttfb'"):
        parse_percentile_metrics("ttfb")


@pytest.mark.parametrize("tokens", [-5, 10**30, 2.5, "7", True])
def test_an_impossible_token_count_is_a_failure_never_a_throughput(tokens: object) -> None:
    # The stream reader should have failed such a request; if one slips through, the sums
    # stay sane: no negative or absurd throughput, the request counted as malformed_usage.
    odd = steady_five()
    odd.output_tokens = tokens  # type: ignore[assignment]
    m = compute_point_metrics([odd, role_first_multi_token()], 1.0)
    assert (m.completed, m.failed) == (1, 1)
    assert m.total_output == 7 and m.output_throughput == pytest.approx(7.0)
    assert [(g.kind, g.count) for g in m.failures] == [("malformed_usage", 1)]
    assert "impossible output token count" in m.failures[0].example
    assert m.error_kinds == ["malformed_usage", None]


def test_an_impossible_prompt_count_falls_back_to_the_dataset_length() -> None:
    odd = role_first_multi_token()
    odd.usage = {"prompt_tokens": -100_000, "completion_tokens": 7}
    m = compute_point_metrics([odd], 1.0)
    assert m.total_input == 12 and m.total_token_throughput == pytest.approx(19.0)
