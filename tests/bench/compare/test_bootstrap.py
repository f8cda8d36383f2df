"""The block bootstrap's statistics equal numpy's on the pooled resample they stand for (the
engine never builds the pooled values: it searches the sorted values by block counts)."""

from __future__ import annotations

import numpy as np

from app.bench.compare.bootstrap import _block_stats, blocks
from app.bench.results.request_rows import RequestRows


def test_block_statistics_match_numpy_on_the_pooled_values() -> None:
    for trial in range(40):
        rng = np.random.default_rng(trial)
        n, n_blocks = int(rng.integers(3, 60)), int(rng.integers(2, 9))
        values = rng.exponential(size=n)
        owner = rng.integers(0, n_blocks, size=n)  # some blocks may be empty
        got = _block_stats(values, owner, n_blocks, 40, np.random.default_rng(9))
        chosen = np.random.default_rng(9).integers(0, n_blocks, size=(40, n_blocks))
        for stat, q in (("mean", None), ("median", 0.5), ("p99", 0.99)):
            want = []
            for row in chosen:
                pooled = np.concatenate([values[owner == b] for b in row])
                if not pooled.size:
                    want.append(np.nan)
                else:
                    want.append(pooled.mean() if q is None else np.quantile(pooled, q))
            assert np.allclose(got[stat], want, equal_nan=True), (trial, stat)


def test_requests_are_blocked_by_send_time() -> None:
    start = np.asarray([0.0, 0.1, 0.2, 5.0, 5.1, 9.9, 10.0] * 4)
    rows = RequestRows(start, start, start, start, None, None, np.sort(start))
    owner, count = blocks(rows)
    assert count == 7  # 28 requests // 4, within 5..20
    assert owner.min() == 0 and owner.max() == count - 1
    assert list(owner) == sorted(owner)  # later sends, later windows
