"""Match two runs' points and compare every figure: delta, interval, verdict.

Points match when rate, concurrency and dataset agree (the dataset only when both files name
it: vLLM's files do not). A point on one side only is listed by name, never paired with a
neighbour. Intervals hold for all the figures of one point together (Bonferroni: each figure's
interval at 1 − 0.05/k for k figures with an interval), so an A/A compare flags nothing in
≥ 95 % of cases rather than one figure in twenty.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.bench.compare.bootstrap import (
    MAX_GAPS,
    Side,
    metric_replicates,
    metric_values,
    needed,
    resamples_for,
    sample_size,
)
from app.bench.compare.figures import FIGURES, Figure
from app.bench.compare.repeats import welch_interval
from app.bench.results.naming import rate_label
from app.bench.results.point_result import PointResult
from app.bench.results.read import load_results_skipping
from app.bench.results.request_rows import request_rows
from app.bench.schema.compare_doc import (
    CompareDoc,
    CompareFigure,
    ComparePoint,
    FailOnCheck,
    OnlyOneSide,
)

FAMILY_ALPHA = 0.05
# A change smaller than this share of the base is "no significant change" even when its
# interval excludes 0: two runs of one setting draw different prompts (the dataset seed), and
# on the simulator that alone moved the median ITL by 0.9 % with a tight interval, since the
# requests of one batch share every step time. Repeats (2+ runs a side) measure that spread.
MIN_EFFECT = 0.02
Key = tuple[float, int | None, str | None]


@dataclass(frozen=True)
class FigureChange:
    """One figure of one matched point. `low`/`high` bound the change (candidate − base);
    None when unknown, `why_unknown` says why. verdict: better | worse | same | unknown."""

    figure: Figure
    base: float | None
    cand: float | None
    delta: float | None
    low: float | None
    high: float | None
    verdict: str
    why_unknown: str | None = None

    @property
    def relative(self) -> float | None:
        if self.delta is None or not self.base:
            return None
        return self.delta / abs(self.base)

    def to_doc(self) -> CompareFigure:
        return CompareFigure(
            figure=self.figure.key,
            unit=self.figure.unit,
            lower_is_better=self.figure.lower_is_better,
            base=self.base,
            candidate=self.cand,
            delta=self.delta,
            delta_relative=self.relative,
            interval=None if self.low is None else (self.low, self.high),
            verdict=self.verdict,
            why_unknown=self.why_unknown,
        )


@dataclass
class PointChange:
    key: Key
    base_files: list[str]
    cand_files: list[str]
    method: str  # "bootstrap" | "repeats" | "none"
    level_each: float  # each figure's interval level (Bonferroni share of 95 %)
    resamples: int
    figures: list[FigureChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return point_name(self.key)

    def to_doc(self) -> ComparePoint:
        rate, conc, dataset = self.key
        return ComparePoint(
            point=self.name,
            request_rate=rate,
            max_concurrency=conc,
            dataset=dataset,
            base_files=tuple(self.base_files),
            candidate_files=tuple(self.cand_files),
            method=self.method,
            interval_level_each=self.level_each,
            resamples=self.resamples,
            notes=tuple(self.notes),
            figures=tuple(f.to_doc() for f in self.figures),
        )


@dataclass
class Comparison:
    min_effect: float
    points: list[PointChange]
    only_base: list[tuple[str, list[str]]]  # (point name, files)
    only_cand: list[tuple[str, list[str]]]
    problems: list[str]
    seed: int

    def to_doc(self, fail_on: Sequence[FailOnCheck] = ()) -> CompareDoc:
        """The comparison as `tpotbench compare --json` prints it, with its --fail-on checks."""
        return CompareDoc(
            confidence=1 - FAMILY_ALPHA,
            interval_scope="all figures of one point together (Bonferroni)",
            seed=self.seed,
            min_effect=self.min_effect,
            points=tuple(p.to_doc() for p in self.points),
            only_in_base=tuple(OnlyOneSide(n, tuple(f)) for n, f in self.only_base),
            only_in_candidate=tuple(OnlyOneSide(n, tuple(f)) for n, f in self.only_cand),
            skipped=tuple(self.problems),
            fail_on=tuple(fail_on),
        )


def point_name(key: Key) -> str:
    rate, conc, dataset = key
    text = f"rate {rate_label(rate)}, conc {'-' if conc is None else conc}"
    return text + (f", {dataset}" if dataset else "")


def _dataset(point: PointResult) -> str | None:
    data = point.blocks.dataset
    if data is None or data.name is None:
        return None
    return data.name + (f":{Path(data.path).name}" if data.path else "")


def _key(point: PointResult) -> Key:
    return (point.request_rate, point.max_concurrency, _dataset(point))


def _file(point: PointResult) -> str:
    return point.path.name if point.path else "-"


def _group(points: Iterable[PointResult]) -> dict[Key, list[PointResult]]:
    groups: dict[Key, list[PointResult]] = {}
    for point in points:
        groups.setdefault(_key(point), []).append(point)
    return groups


def _pair(
    base: dict[Key, list[PointResult]], cand: dict[Key, list[PointResult]]
) -> tuple[list[tuple[Key, list[PointResult], list[PointResult]]], list[Key], list[Key]]:
    """Exact matches first; a key with no dataset (a vLLM file) then matches the one key of
    the other side at that rate and concurrency, if there is exactly one."""
    pairs = [(k, base[k], cand[k]) for k in base if k in cand]
    left = [k for k in base if k not in cand]
    right = [k for k in cand if k not in base]
    for k in list(left):
        options = [r for r in right if r[:2] == k[:2] and (k[2] is None or r[2] is None)]
        if len(options) == 1:
            pairs.append((k, base[k], cand[options[0]]))
            left.remove(k)
            right.remove(options[0])
    pairs.sort(key=lambda p: (p[0][1] or 0, p[0][0], p[0][2] or ""))
    return pairs, left, right


def _file_value(point: PointResult, figure: Figure) -> float | None:
    if figure.metric == "output_throughput":
        return point.output_throughput
    if figure.metric == "goodput":
        return point.request_goodput
    return point.metric(figure.metric, figure.stat or "mean")


def _verdict(figure: Figure, low: float, high: float, base: float, min_effect: float) -> str:
    if low <= 0 <= high or abs((low + high) / 2) < min_effect * abs(base):
        return "same"
    worse = low > 0 if figure.lower_is_better else high < 0
    return "worse" if worse else "better"


def _side(point: PointResult, rng: np.random.Generator) -> Side | str:
    rows = request_rows(point.doc)
    if rows is None:
        return "no per-request samples (vllm bench serve without --save-detailed)"
    return Side.of(rows, point.duration_s, point.blocks.goodput_slos_ms, rng)


def _compare_bootstrap(
    change: PointChange,
    base_point: PointResult,
    cand_point: PointResult,
    seed: int,
    min_effect: float,
) -> None:
    rng = np.random.default_rng(seed)
    a, b = _side(base_point, rng), _side(cand_point, rng)
    for side, name in ((a, "base"), (b, "candidate")):
        if isinstance(side, Side) and side.subsampled_from:
            change.notes.append(
                f"{name}: {side.subsampled_from} requests, bootstrap on a seeded random "
                f"{side.latency_rows.n} of them"
            )
        if isinstance(side, Side) and side.gap_rows is not None:
            change.notes.append(
                f"{name}: ITL bootstrap on a seeded random {side.gap_rows.n} of "
                f"{side.gap_requests_from} requests (at most {MAX_GAPS} gaps)"
            )
    if isinstance(a, Side) and isinstance(b, Side) and a.goodput_limits_ms != b.goodput_limits_ms:
        a = Side(a.rows, a.duration_s, None, a.subsampled_from)
        change.notes.append("goodput limits differ between the runs: goodput not compared")
    values: dict[str, tuple[dict[str | None, float], dict[str | None, float]]] = {}
    unknown: dict[Figure, str] = {}
    for metric in dict.fromkeys(f.metric for f in FIGURES):
        why = a if isinstance(a, str) else b if isinstance(b, str) else None
        if why is None:
            assert isinstance(a, Side) and isinstance(b, Side)
            va, vb = metric_values(a, metric), metric_values(b, metric)
            if isinstance(va, dict) and isinstance(vb, dict):
                values[metric] = (va, vb)
                continue
            why = va if isinstance(va, str) else str(vb)
        unknown.update({f: why for f in FIGURES if f.metric == metric})
    for metric in values:
        assert isinstance(a, Side) and isinstance(b, Side)
        n = min(sample_size(a, metric), sample_size(b, metric))
        for figure in (f for f in FIGURES if f.metric == metric and needed(f.stat) > n):
            unknown[figure] = (
                f"too few values for this statistic's interval ({n} < {needed(figure.stat)})"
            )
    k = sum(1 for f in FIGURES if f.metric in values and f not in unknown)
    alpha = FAMILY_ALPHA / max(1, k)
    n_boot = resamples_for(alpha)
    change.level_each, change.resamples = 1 - alpha, n_boot if values else 0
    change.method = "bootstrap" if values else "none"
    results: dict[Figure, FigureChange] = {}
    for metric, (va, vb) in values.items():
        assert isinstance(a, Side) and isinstance(b, Side)
        ra, rb = (
            metric_replicates(a, metric, n_boot, rng),
            metric_replicates(b, metric, n_boot, rng),
        )
        for figure in (f for f in FIGURES if f.metric == metric and f not in unknown):
            diff = rb[figure.stat] - ra[figure.stat]
            diff = diff[np.isfinite(diff)]
            low, high = (float(x) for x in np.quantile(diff, [alpha / 2, 1 - alpha / 2]))
            base, cand = va[figure.stat], vb[figure.stat]
            verdict = _verdict(figure, low, high, base, min_effect)
            results[figure] = FigureChange(figure, base, cand, cand - base, low, high, verdict)
    for figure, why in unknown.items():
        fa, fb = _file_value(base_point, figure), _file_value(cand_point, figure)
        delta = None if fa is None or fb is None else fb - fa
        results[figure] = FigureChange(figure, fa, fb, delta, None, None, "unknown", why)
    change.figures = [results[f] for f in FIGURES]


def _compare_repeats(
    change: PointChange, base: list[PointResult], cand: list[PointResult], min_effect: float
) -> None:
    values: list[tuple[Figure, list[float], list[float]]] = []
    unknown: list[Figure] = []
    for figure in FIGURES:
        va = [v for v in (_file_value(p, figure) for p in base) if v is not None]
        vb = [v for v in (_file_value(p, figure) for p in cand) if v is not None]
        (
            values.append((figure, va, vb))
            if len(va) >= 2 and len(vb) >= 2
            else unknown.append(figure)
        )
    alpha = FAMILY_ALPHA / max(1, len(values))
    change.method, change.level_each, change.resamples = "repeats", 1 - alpha, 0
    results: dict[Figure, FigureChange] = {}
    for figure, va, vb in values:
        interval = welch_interval(va, vb, alpha)
        assert interval is not None
        delta, low, high = interval
        results[figure] = FigureChange(
            figure,
            float(np.mean(va)),
            float(np.mean(vb)),
            delta,
            low,
            high,
            _verdict(figure, low, high, float(np.mean(va)), min_effect),
        )
    for figure in unknown:
        results[figure] = FigureChange(
            figure, None, None, None, None, None, "unknown", "not in 2 or more runs on each side"
        )
    change.figures = [results[f] for f in FIGURES]


def compare_points(
    base_points: Sequence[PointResult],
    cand_points: Sequence[PointResult],
    seed: int = 0,
    min_effect: float = MIN_EFFECT,
) -> Comparison:
    """Compare two sets of points (e.g. two sweep folders)."""
    base, cand = _group(base_points), _group(cand_points)
    pairs, left, right = _pair(base, cand)
    points = []
    for key, b_list, c_list in pairs:
        change = PointChange(
            key, [_file(p) for p in b_list], [_file(p) for p in c_list], "none", 0.0, 0
        )
        if len(b_list) >= 2 and len(c_list) >= 2:
            _compare_repeats(change, b_list, c_list, min_effect)
        else:
            if len(b_list) > 1 or len(c_list) > 1:
                change.notes.append(
                    "several files at this point on one side only: compared the last of each "
                    "(repeats need 2 or more runs on both sides)"
                )
            _compare_bootstrap(change, b_list[-1], c_list[-1], seed, min_effect)
        points.append(change)
    return Comparison(
        min_effect,
        points,
        [(point_name(k), [_file(p) for p in base[k]]) for k in left],
        [(point_name(k), [_file(p) for p in cand[k]]) for k in right],
        [],
        seed,
    )


def compare_paths(
    base: Sequence[str | Path],
    cand: Sequence[str | Path],
    seed: int = 0,
    min_effect: float = MIN_EFFECT,
) -> Comparison:
    """Compare result files or folders; unreadable files are listed in `problems`."""
    a, problems_a = load_results_skipping(base)
    b, problems_b = load_results_skipping(cand)
    result = compare_points(a, b, seed, min_effect)
    result.problems = problems_a + problems_b
    return result
