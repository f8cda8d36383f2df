"""The compare engine on synthetic points with known distributions: an A/A compare flags nothing
in >= 95 % of seeds, a real shift is found in the right direction, unmatched points are named,
files without samples say "unknown", repeats use the runs' spread."""

from __future__ import annotations

import json

import numpy as np

from app.bench.compare.compare import compare_points
from app.bench.results.read import point_from_dict
from app.bench.schema.codec import to_json_obj
from app.bench.schema.compare_doc import FailOnCheck
from tests.bench.compare.synthetic import point_doc


def _point(doc, name="x.json"):  # type: ignore[no-untyped-def]
    from pathlib import Path

    return point_from_dict(doc, Path(name))


def _verdicts(comparison) -> dict[str, str]:  # type: ignore[no-untyped-def]
    (point,) = comparison.points
    return {f.figure.key: f.verdict for f in point.figures}


def test_a_over_a_flags_nothing_in_at_least_95_percent_of_seeds() -> None:
    seeds = range(40)
    flagged = 0
    for seed in seeds:
        rng = np.random.default_rng(1000 + seed)
        base, cand = _point(point_doc(rng, 80, tokens=5)), _point(point_doc(rng, 80, tokens=5))
        verdicts = _verdicts(compare_points([base], [cand], seed=seed))
        flagged += any(v in ("better", "worse") for v in verdicts.values())
    assert flagged <= 0.05 * len(seeds), f"{flagged} of {len(seeds)} A/A compares flagged a change"


def test_a_slower_candidate_is_worse_in_every_latency_and_the_throughput() -> None:
    rng = np.random.default_rng(7)
    base, cand = _point(point_doc(rng)), _point(point_doc(rng, scale=1.3))
    verdicts = _verdicts(compare_points([base], [cand]))
    for key in ("ttft:mean", "ttft:p50", "tpot:mean", "tpot:p50", "itl:mean", "e2el:mean"):
        assert verdicts[key] == "worse", key
    # p99 of 150 requests has too few values beyond it for an interval
    assert verdicts["ttft:p99"] == "unknown"


def test_a_faster_candidate_is_better_lower_latency_higher_throughput() -> None:
    rng = np.random.default_rng(8)
    base, cand = _point(point_doc(rng, scale=1.3)), _point(point_doc(rng))
    comparison = compare_points([base], [cand])
    verdicts = _verdicts(comparison)
    assert verdicts["tpot:mean"] == "better"
    change = next(f for f in comparison.points[0].figures if f.figure.key == "tpot:mean")
    assert change.delta is not None and change.delta < 0 and change.high is not None
    assert change.high < 0


def test_points_that_do_not_match_are_named_not_paired() -> None:
    rng = np.random.default_rng(9)
    base = [_point(point_doc(rng, conc=8), "b8.json"), _point(point_doc(rng, conc=16), "b16.json")]
    cand = [
        _point(point_doc(rng, conc=16), "c16.json"),
        _point(point_doc(rng, conc=32), "c32.json"),
    ]
    comparison = compare_points(base, cand)
    assert [p.name for p in comparison.points] == ["rate inf, conc 16, random"]
    assert comparison.only_base == [("rate inf, conc 8, random", ["b8.json"])]
    assert comparison.only_cand == [("rate inf, conc 32, random", ["c32.json"])]
    other = compare_points([_point(point_doc(rng, dataset="sharegpt"))], [cand[0]])
    assert not other.points and other.only_base and other.only_cand


def test_without_per_request_samples_the_interval_is_unknown_and_says_why() -> None:
    rng = np.random.default_rng(10)
    vllm_doc = {  # vllm bench serve --save-result without --save-detailed
        "request_rate": "inf",
        "max_concurrency": 16,
        "completed": 100,
        "failed": 0,
        "duration": 5.0,
        "output_throughput": 140.0,
        "mean_ttft_ms": 120.0,
        "p99_tpot_ms": 30.0,
    }
    comparison = compare_points([_point(point_doc(rng))], [_point(vllm_doc)])
    (point,) = comparison.points
    assert point.method == "none"
    ttft = next(f for f in point.figures if f.figure.key == "ttft:mean")
    assert ttft.verdict == "unknown" and ttft.low is None
    assert "save-detailed" in (ttft.why_unknown or "")
    assert ttft.cand == 120.0 and ttft.delta is not None


def test_files_without_gaps_leave_only_itl_unknown() -> None:
    rng = np.random.default_rng(11)
    base, cand = _point(point_doc(rng, gaps=False)), _point(point_doc(rng, gaps=False))
    verdicts = _verdicts(compare_points([base], [cand]))
    assert verdicts["itl:mean"] == "unknown" and verdicts["ttft:mean"] != "unknown"


def test_repeated_runs_give_a_t_interval_over_the_runs() -> None:
    def run(value: float, name: str):  # type: ignore[no-untyped-def]
        doc = {"request_rate": 4, "max_concurrency": 32, "completed": 10, "duration": 2.0}
        doc["mean_tpot_ms"] = value
        return _point(doc, name)

    base = [run(v, f"b{i}.json") for i, v in enumerate((20.0, 20.2, 19.8))]
    cand = [run(v, f"c{i}.json") for i, v in enumerate((25.0, 25.3, 24.9))]
    (point,) = compare_points(base, cand).points
    assert point.method == "repeats"
    tpot = next(f for f in point.figures if f.figure.key == "tpot:mean")
    assert tpot.verdict == "worse"
    assert tpot.delta is not None and abs(tpot.delta - 5.0667) < 1e-3
    # Welch: var 0.04/3 + 0.0433/3, dof ~4, t(0.05/1 two-sided) = 2.776
    assert tpot.low is not None and abs(tpot.low - (5.0667 - 2.776 * (0.0833 / 3) ** 0.5)) < 0.02


def test_the_json_document_keeps_its_keys_order_and_the_inf_rate() -> None:
    rng = np.random.default_rng(11)
    base = [_point(point_doc(rng, conc=8), "b8.json"), _point(point_doc(rng, rate=4.0), "b4.json")]
    cand = [_point(point_doc(rng, conc=8), "c8.json")]
    comparison = compare_points(base, cand)
    check = FailOnCheck("tpot:p99:+5%", "rate inf, conc 8, random", "ok")
    doc = json.loads(json.dumps(to_json_obj(comparison.to_doc([check]))))
    assert list(doc) == [
        "confidence",
        "interval_scope",
        "seed",
        "min_effect",
        "points",
        "only_in_base",
        "only_in_candidate",
        "skipped",
        "fail_on",
    ]
    (point,) = doc["points"]
    assert point["request_rate"] == "inf" and point["max_concurrency"] == 8
    assert point["base_files"] == ["b8.json"] and point["candidate_files"] == ["c8.json"]
    tpot = next(f for f in point["figures"] if f["figure"] == "tpot:mean")
    assert list(tpot) == [
        "figure",
        "unit",
        "lower_is_better",
        "base",
        "candidate",
        "delta",
        "delta_relative",
        "interval",
        "verdict",
        "why_unknown",
    ]
    assert isinstance(tpot["interval"], list) and len(tpot["interval"]) == 2
    assert doc["only_in_base"] == [{"point": "rate 4, conc 16, random", "files": ["b4.json"]}]
    assert doc["fail_on"] == [
        {"spec": "tpot:p99:+5%", "point": "rate inf, conc 8, random", "status": "ok"}
    ]
