"""SLO parsing and verdicts, and the early-stop rule's guarantee against numpy's percentile."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bench.capacity.slo import SLO, SLOSet, evaluate, parse_slo, parse_slos
from app.bench.sweep.contract import RequestDone
from app.bench.sweep.early_stop import EarlyStop, over_needed


def test_parse_slo_forms() -> None:
    assert parse_slo("tpot:p99:50") == SLO("tpot", "p99", 50.0)
    assert parse_slo("TTFT:median:2000") == SLO("ttft", "median", 2000.0)
    assert parse_slo("itl:p99.9:80").stat == "p99.9"
    assert parse_slo("e2el:mean:5000").quantile is None
    for bad in ("tpot:50", "tput:p99:50", "tpot:p101:50", "tpot:p99:-1", "tpot:max:5"):
        with pytest.raises(ValueError, match="--slo"):
            parse_slo(bad)


def test_goodput_is_vllms_per_request_meaning() -> None:
    slos = parse_slos(None, ["ttft:2000", "tpot:50"])
    assert slos.per_request == {"ttft": 2000.0, "tpot": 50.0}
    # 98 good of 100 at good_share 0.99 fails; 99 passes.
    stats: dict = {}
    assert not evaluate(slos, stats, completed=100, failed=0, good_requests=98).passed
    assert evaluate(slos, stats, completed=100, failed=0, good_requests=99).passed
    # Statistic SLOs lend their limits to goodput when --goodput is not given.
    both = parse_slos(["ttft:p99:2000", "tpot:p99:50", "tpot:mean:30", "itl:p99:80"])
    assert both.goodput_limits() == {"ttft": 2000.0, "tpot": 30.0}


def test_verdict_per_slo_and_failed_requests() -> None:
    slos = parse_slos(["ttft:p99:2000", "tpot:p99:50"])
    stats = {"ttft": {"p99": 1500.0}, "tpot": {"p99": 51.0}}
    verdict = evaluate(slos, stats, completed=100, failed=0)
    assert not verdict.passed and verdict.failed_labels == ["tpot:p99:50"]
    stats["tpot"]["p99"] = 49.0
    assert evaluate(slos, stats, completed=100, failed=0).passed
    # Dropping 2 % of requests fails the point even though the survivors were fast.
    assert evaluate(slos, stats, completed=98, failed=2).failed_labels == ["failed_requests"]
    # A statistic nothing produced is not shown to meet its limit.
    assert not evaluate(slos, {}, completed=0, failed=0).passed


@settings(max_examples=150, deadline=None)
@given(
    total=st.integers(1, 400),
    quantile=st.sampled_from([50.0, 90.0, 95.0, 99.0, 99.9]),
    seed=st.integers(0, 2**32 - 1),
)
def test_over_needed_is_the_least_count_that_proves_a_fail(
    total: int, quantile: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    need = over_needed(total, quantile)
    limit = 1.0
    # `need` values over the limit: whatever the others are (at most the limit), pNN is over.
    over = list(rng.uniform(1.0001, 100, need))
    rest = list(rng.uniform(0, 1.0, total - need))
    assert np.percentile(over + rest, quantile) > limit
    # One fewer, just over the limit, the rest at 0: the percentile can still meet it, so
    # stopping earlier would not be a proof.
    if need > 1:
        fewer = [limit + 1e-9] * (need - 1) + [0.0] * (total - need + 1)
        assert np.percentile(fewer, quantile) <= limit + 1e-9


def test_early_stop_fires_on_proof_only() -> None:
    slos = SLOSet((SLO("tpot", "p99", 50.0),))
    stop = EarlyStop(slos, total=100)
    assert over_needed(100, 99) == 2
    stop.request(RequestDone(0, True, 100.0, 60.0, 2000.0, 30, None, 11))
    assert not stop.event.is_set()
    stop.request(RequestDone(0, True, 100.0, 40.0, 2000.0, 30, None, 11))
    assert not stop.event.is_set()
    stop.request(RequestDone(0, True, 100.0, 70.0, 2000.0, 30, None, 11))
    assert stop.event.is_set() and "tpot:p99:50" in (stop.reason or "")
    # Means: stops once the sum seen already exceeds limit x total.
    mean = EarlyStop(SLOSet((SLO("ttft", "mean", 100.0),)), total=4)
    for _ in range(3):
        mean.request(RequestDone(0, True, 130.0, None, 1000.0, 1, None, 11))
    assert not mean.event.is_set()
    mean.request(RequestDone(0, True, 20.0, None, 1000.0, 1, None, 11))
    assert mean.event.is_set()
    # Failures beyond 1 % stop it too.
    failing = EarlyStop(SLOSet((SLO("tpot", "p99", 50.0),)), total=100)
    failing.request(RequestDone(0, False, None, None, None, 0, "http_500", None))
    assert not failing.event.is_set()
    failing.request(RequestDone(0, False, None, None, None, 0, "http_500", None))
    assert failing.event.is_set()
