"""The live charts' ring buffer: the newest rows, oldest first, whatever the batches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.ui.plots.ring import RingBuffer


def test_ring_buffer_keeps_the_newest_rows_in_order() -> None:
    ring = RingBuffer(4, 2)
    ring.extend([[1, 10], [2, 20], [3, 30]])
    ring.append(4, 40)
    ring.extend([[5, 50], [6, 60]])
    assert ring.view()[:, 0].tolist() == [3, 4, 5, 6]
    assert ring.total_added == 6
    ring.extend([[i, i] for i in range(10, 20)])
    assert ring.view()[:, 0].tolist() == [16, 17, 18, 19]
    assert ring.tail(2)[:, 1].tolist() == [18, 19]


@settings(max_examples=200, deadline=None)
@given(
    capacity=st.integers(1, 9),
    batches=st.lists(st.integers(0, 12), max_size=8),
    n=st.integers(0, 12),
)
def test_ring_tail_is_the_newest_rows_of_the_view(
    capacity: int, batches: list[int], n: int
) -> None:
    ring = RingBuffer(capacity, 2)
    counter = 0
    for size in batches:
        ring.extend([[counter + i, -(counter + i)] for i in range(size)])
        counter += size
    view = ring.view()
    expected = view[len(view) - min(n, len(view)) :]
    assert ring.tail(n).tolist() == expected.tolist()
    assert ring.tail(n).shape == (len(expected), 2)
