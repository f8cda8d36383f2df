"""A comparison as terminal lines or Markdown (English; the HTML page and the window localise)."""

from __future__ import annotations

from app.bench.compare.compare import Comparison, FigureChange, PointChange

HEADERS = ("figure", "base", "candidate", "delta", "delta %", "95 % interval", "verdict")
VERDICT_WORDS = {
    "better": "better",
    "worse": "WORSE",
    "same": "no significant change",
    "unknown": "unknown",
}


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if unit == "ms" or abs(value) < 100 else f"{value:.1f}"


def figure_cells(change: FigureChange) -> list[str]:
    unit = change.figure.unit
    rel = change.relative
    if change.low is None:
        interval = "unknown: " + (change.why_unknown or "no samples")
    else:
        interval = f"[{change.low:+.2f}, {change.high:+.2f}] {unit}"
    delta = "-" if change.delta is None else f"{change.delta:+.2f}"
    return [
        f"{change.figure.key} ({unit})",
        _num(change.base, unit),
        _num(change.cand, unit),
        delta,
        "-" if rel is None else f"{rel:+.1%}",
        interval,
        VERDICT_WORDS[change.verdict],
    ]


def method_line(point: PointChange) -> str:
    files = f"{', '.join(point.base_files)} -> {', '.join(point.cand_files)}"
    if point.method == "bootstrap":
        how = (
            f"bootstrap over per-request samples, {point.resamples} resamples; each interval "
            f"{point.level_each:.2%} so the point's intervals hold together at 95 %"
        )
    elif point.method == "repeats":
        how = (
            f"Welch t interval over repeated runs ({len(point.base_files)} vs "
            f"{len(point.cand_files)}); each interval {point.level_each:.2%}, 95 % together"
        )
    else:
        how = "no per-request samples on one side: intervals unknown"
    return f"{point.name}  [{files}]  {how}"


def summary_line(comparison: Comparison) -> str:
    counts = {"better": 0, "worse": 0, "same": 0, "unknown": 0}
    for point in comparison.points:
        for change in point.figures:
            counts[change.verdict] += 1
    return (
        f"{counts['better']} better, {counts['worse']} worse, {counts['same']} no significant "
        f"change, {counts['unknown']} unknown"
    )


def unmatched_lines(comparison: Comparison) -> list[str]:
    lines = [f"only in base (not compared): {n} [{', '.join(f)}]" for n, f in comparison.only_base]
    lines += [
        f"only in candidate (not compared): {n} [{', '.join(f)}]" for n, f in comparison.only_cand
    ]
    return lines


def markdown(comparison: Comparison) -> str:
    out: list[str] = []
    for point in comparison.points:
        out.append(f"### {point.name}")
        out.append("")
        out.append(method_line(point).split("]  ", 1)[-1].capitalize() + ".")
        out.append("")
        out.append("| " + " | ".join(HEADERS) + " |")
        out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(HEADERS))) + "|")
        for change in point.figures:
            cells = figure_cells(change)
            if change.verdict in ("better", "worse"):
                cells[-1] = f"**{cells[-1]}**"
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out += [f"\n_{n}_" for n in point.notes]
        out.append("")
    out += [f"- {line}" for line in unmatched_lines(comparison)]
    out.append("")
    out.append(summary_line(comparison) + ".")
    return "\n".join(out) + "\n"
