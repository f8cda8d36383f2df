"""Kneedle on curves whose corner is known: flat, then rising steeply on the log2 load axis."""

from __future__ import annotations

import math

import pytest

from app.bench.capacity.knee import find_knee

LOADS = [1, 2, 4, 8, 16, 32, 64, 128]


def hockey(corner: float, flat: float = 20.0, rise: float = 100.0) -> list[float]:
    """Flat at `flat` up to `corner`, then `rise` ms per doubling: normalised, the rising part
    is steeper than the diagonal, so x_n - y_n peaks exactly at the corner."""
    return [flat + max(0.0, math.log2(x / corner)) * rise for x in LOADS]


@pytest.mark.parametrize("corner", [4, 8, 16, 32, 64])
def test_corner_found(corner: int) -> None:
    knee = find_knee(LOADS, hockey(corner))
    assert knee is not None and knee.load == corner


def test_noise_in_the_flat_part_does_not_move_it() -> None:
    values = hockey(16)
    values[1] += 1.5
    values[3] -= 1.0
    knee = find_knee(LOADS, values)
    assert knee is not None and knee.load == 16


def test_field_guide_experiment_b() -> None:
    # TPOT p99 over concurrency 1..128 as the field guide reports it (≈60 ms at 32, 165 at 64):
    # by maximum distance below the chord the bend is at 32, the last load before the climb.
    knee = find_knee(LOADS, [20.5, 21.5, 24, 29, 38, 60, 165, 420])
    assert knee is not None and knee.load == 32


def test_no_flat_regime_no_knee() -> None:
    assert find_knee(LOADS[:6], [1, 2, 3, 4, 5, 6]) is None  # straight on the log axis
    assert find_knee(LOADS[:6], [1, 10, 14, 16, 17, 17.5]) is None  # concave: saturating
    assert find_knee(LOADS[:2], [1, 5]) is None
    assert find_knee(LOADS[:6], [5] * 6) is None


def test_order_and_index_refer_to_the_input() -> None:
    order = [5, 0, 4, 2, 7, 3, 1, 6]
    values = hockey(16)
    knee = find_knee([LOADS[i] for i in order], [values[i] for i in order])
    assert knee is not None and knee.load == 16 and order[knee.index] == 4


def test_an_early_stopped_point_never_reaches_a_knee(tmp_path) -> None:
    from app.bench.capacity.knee import sweep_knees
    from app.bench.results.read import load_results
    from tests.point_docs import write_curve

    # With the fragment at 32 (1 of 4 requests ran, 300 ms) the curve would bend at 16;
    # without it, at 4.
    write_curve(tmp_path)
    points = load_results([tmp_path])
    assert find_knee([1, 2, 4, 8, 16, 32], [10, 10, 10, 11, 12, 300]).load == 16
    knees = sweep_knees(points)
    assert knees["tpot"] is not None and knees["tpot"].load == 4


def test_a_point_run_at_fewer_streams_never_reaches_a_knee(tmp_path) -> None:
    from app.bench.capacity.knee import sweep_knees
    from app.bench.results.read import load_results
    from app.bench.results.write import write_point_json
    from tests.point_docs import point_doc

    # 1..16 bend at 4; at 32 only 4 prompts ran (never more than 4 in flight), 300 ms.
    for conc, tpot in ((1, 10.0), (2, 10.0), (4, 10.0), (8, 11.0), (16, 12.0)):
        write_point_json(tmp_path / f"r_rateinf_conc{conc}.json", point_doc(conc, tpot))
    write_point_json(tmp_path / "r_rateinf_conc32.json", point_doc(32, 300.0, planned=4))
    points = load_results([tmp_path])
    assert [p.on_the_curve for p in points if p.max_concurrency == 32] == [False]
    knees = sweep_knees(points)
    assert knees["tpot"] is not None and knees["tpot"].load == 4
