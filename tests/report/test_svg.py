"""Chart arithmetic of the report's inline SVG: ticks, labels, bins, CDF thinning, escaping."""

from __future__ import annotations

import itertools

from app.report.histogram import cdf_points, histogram_bins, histogram_counts
from app.report.model import redact_url
from app.report.svg import (
    Axis,
    Line,
    exact_tick,
    fmt_tick,
    line_chart,
    nice_ticks,
    text_units,
    tick_labels,
)


def test_linear_ticks_are_round_steps_inside_the_range() -> None:
    assert nice_ticks(0, 100, False, 5) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(19.52, 19.66, False, 5) == [19.55, 19.6, 19.65]


def test_log_ticks_are_decades_or_1_2_5_when_the_range_is_short() -> None:
    assert nice_ticks(0.5, 2000, True) == [1, 10, 100, 1000]
    assert nice_ticks(15, 90, True) == [20, 50]


def test_tick_labels_use_just_enough_decimals_to_differ() -> None:
    assert tick_labels([19.55, 19.6, 19.65]) == ["19.55", "19.60", "19.65"]
    assert tick_labels([0, 500, 1000, 20000]) == ["0", "500", "1000", "20k"]


def test_histogram_counts_every_value_once_including_the_top_edge() -> None:
    edges = histogram_bins([1, 2, 3, 4], bins=3)
    assert edges == [1, 2, 3, 4]
    assert histogram_counts([1, 2, 2.5, 3, 4, 9], edges) == [1, 2, 2]  # 9 is outside


def test_log_bins_are_geometric() -> None:
    edges = histogram_bins([1, 1000], bins=3, log=True)
    assert [round(e, 6) for e in edges] == [1, 10, 100, 1000]


def test_cdf_is_thinned_but_keeps_both_ends() -> None:
    pts = cdf_points([float(v) for v in range(10_000, 0, -1)], max_points=100)
    assert pts[0] == (1.0, 1 / 10_000) and pts[-1] == (10_000.0, 1.0)
    assert 100 <= len(pts) <= 102
    assert all(a[0] <= b[0] and a[1] < b[1] for a, b in itertools.pairwise(pts))


def test_chart_text_is_escaped_and_non_positive_values_skip_a_log_axis() -> None:
    svg = line_chart(
        'c"1',
        "<b>t</b>",
        [Line("a<i>", [(0.0, 1.0), (1.0, 2.0), (10.0, 3.0)], tips=["x", "<script>", "z"])],
        Axis("x & y", log=True, include_zero=False),
        Axis("y"),
    )
    assert "<b>" not in svg and "<i>" not in svg and "<script>" not in svg
    assert "&lt;b&gt;t&lt;/b&gt;" in svg and 'id="c&quot;1"' in svg and "x &amp; y" in svg
    assert svg.count("<circle") == 2  # x = 0 has no place on a log axis


def test_cjk_text_counts_double_width_for_the_legend() -> None:
    assert text_units("P99") == 3 and text_units("屋顶线") == 6


def test_endpoint_urls_lose_credentials() -> None:
    assert redact_url("https://user:pw@gw.example:8443/v1?api-key=s3cret&api-version=2024") == (
        "https://gw.example:8443/v1?api-key=***&api-version=2024"
    )
    assert redact_url("http://127.0.0.1:8000/v1/chat/completions") == (
        "http://127.0.0.1:8000/v1/chat/completions"
    )


def test_a_long_legend_wraps_and_the_chart_grows_instead_of_overflowing() -> None:
    lines = [Line(f"expA rate {r} conc 32", [(1.0, 1.0)]) for r in range(12)]
    svg = line_chart("c", "t", lines, Axis("x"), Axis("y"))
    rows = {part.split(",")[1].split(")")[0] for part in svg.split('transform="translate(')[1:]}
    assert len(rows - {"0"}) >= 3  # legend rows at y = 24, 40, 56 ... (the y label rotates)
    assert 'viewBox="0 0 640 300"' not in svg  # taller than a one-row chart
    xs = [
        float(p.split(",")[0])
        for p in svg.split('class="legend-item"')[1:]
        for p in [p.split("translate(")[1]]
    ]
    assert max(xs) < 640 - 16 - 100  # every entry starts inside the frame


def test_large_ticks_take_the_next_scale_not_an_exponent() -> None:
    # 1e6 / 1000 printed with three figures was "1e+03k".
    assert [fmt_tick(v) for v in (12_345, 1e6, 999_999, 2.5e9)] == ["12.3k", "1M", "1M", "2.5G"]
    assert exact_tick(1e6) == "1M" and exact_tick(12_345) == "12345" and exact_tick(12_000) == "12k"
