"""The report's per-request charts: CDFs of TTFT, TPOT, ITL and E2EL overlaid across points, and
per point the histograms and the TTFT-vs-prompt / E2EL-vs-output scatters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.report.histogram import binned_cdf_points, cdf_points, histogram_chart
from app.report.model import ReportPoint
from app.report.svg import Axis, Line, color, line_chart
from app.report.text import text

DIST_METRICS = ("ttft", "tpot", "itl", "e2el")
_MAX_SCATTER = 1500  # circles per scatter: enough to see the shape, small enough to open fast


def _log_wanted(values: Sequence[float]) -> bool:
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) / min(positive) > 20


def cdf_charts(points: Sequence[ReportPoint], lang: str) -> list[str]:
    """One chart per metric that any point has samples of; a line per point."""
    charts = []
    for metric in DIST_METRICS:
        lines = []
        every: list[float] = []
        for i, rp in enumerate(points):
            values = rp.samples.values(metric)
            if values:
                pts = cdf_points(values)
            elif metric == "itl" and any(rp.samples.itl_counts):
                # Our files keep every gap only with --save-detailed; always a log-binned count.
                pts = binned_cdf_points(rp.samples.itl_edges_ms, rp.samples.itl_counts)
            else:
                continue
            every += [x for x, _ in pts]
            lines.append(Line(rp.short, pts, color(i), markers=False, step=True))
        if not lines:
            continue
        y_label = text(lang, "cdf_y_itl" if metric == "itl" else "cdf_y")
        charts.append(
            line_chart(
                f"cdf-{metric}",
                text(lang, "cdf_title", metric=metric.upper()),
                lines,
                Axis(text(lang, f"y_{metric}"), _log_wanted(every), include_zero=False),
                Axis(y_label, lo=0.0, hi=1.0, ticks=[(k / 4, f"{k * 25}%") for k in range(5)]),
            )
        )
    return charts


@dataclass
class PointPanel:
    index: int
    name: str
    caption: str
    charts: list[str]


def _thin(pairs: list[tuple[int, float]]) -> list[tuple[int, float]]:
    stride = max(1, len(pairs) // _MAX_SCATTER)
    return pairs[::stride]


def point_panels(points: Sequence[ReportPoint], lang: str) -> list[PointPanel]:
    """Histograms and scatters of each point that has per-request data."""
    panels = []
    for i, rp in enumerate(points):
        s = rp.samples
        if not s.has_any:
            continue
        charts = []
        for metric in ("ttft", "tpot", "itl"):
            values = s.values(metric)
            binned = None
            if not values and metric == "itl" and any(s.itl_counts):
                binned = (s.itl_edges_ms, s.itl_counts)
            elif not values:
                continue
            y_label = text(lang, "hist_y_itl" if metric == "itl" else "hist_y")
            log = True if binned else _log_wanted(values)
            charts.append(
                histogram_chart(
                    f"hist-{i}-{metric}",
                    text(lang, "hist_title", metric=metric.upper(), point=rp.short),
                    values,
                    Axis(text(lang, f"y_{metric}"), log, include_zero=False),
                    y_label,
                    fill=color(i),
                    binned=binned,
                )
            )
        for pairs, failed, title_key, x_key, y_key in (
            (s.ttft_by_prompt, s.failed_by_prompt, "scatter_ttft", "x_prompt", "y_ttft"),
            (s.e2el_by_output, s.failed_by_output, "scatter_e2el", "x_output", "y_e2el"),
        ):
            if not pairs and not failed:
                continue
            pts = [(float(n), v) for n, v in _thin(pairs)]
            tips = [f"{int(n)} tok, {v:.1f} ms" for n, v in pts]
            name = text(lang, "ok_requests") if failed else ""  # a legend only to tell apart
            lines = [Line(name, pts, color(i), connect=False, tips=tips)]
            if failed:
                bad = [(float(n), v) for n, v in _thin(failed)]
                bad_tips = [f"{text(lang, 'failed_at')}: {int(n)} tok, {v:.1f} ms" for n, v in bad]
                lines.append(
                    Line(text(lang, "failed_at"), bad, "#b00020", connect=False, tips=bad_tips)
                )
            charts.append(
                line_chart(
                    f"scatter-{i}-{x_key}",
                    text(lang, title_key, point=rp.short),
                    lines,
                    Axis(text(lang, x_key)),
                    Axis(text(lang, y_key)),
                )
            )
        key = "dist_caption_failed" if s.failed_by_prompt or s.failed_by_output else "dist_caption"
        caption = text(lang, key, ok=sum(s.ok), n=len(s.ok))
        panels.append(PointPanel(i, rp.short, caption, charts))
    return panels
