"""A preallocated numpy ring buffer: the bounded store behind every live chart."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class RingBuffer:
    """A preallocated numpy ring of rows with `width` float columns; the oldest rows drop off."""

    def __init__(self, capacity: int, width: int = 2) -> None:
        if capacity < 1 or width < 1:
            raise ValueError("capacity and width must be at least 1")
        self._data = np.full((capacity, width), np.nan, dtype=np.float64)
        self._capacity = capacity
        self._start = 0
        self._size = 0
        self.total_added = 0

    def __len__(self) -> int:
        return self._size

    @property
    def capacity(self) -> int:
        return self._capacity

    def clear(self) -> None:
        self._start = 0
        self._size = 0
        self.total_added = 0

    def append(self, *values: float) -> None:
        self.extend(np.asarray(values, dtype=np.float64).reshape(1, -1))

    def extend(self, rows: np.ndarray | Sequence[Sequence[float]]) -> None:
        block = np.asarray(rows, dtype=np.float64)
        if block.ndim == 1:
            block = block.reshape(-1, self._data.shape[1])
        n = block.shape[0]
        if n == 0:
            return
        self.total_added += n
        if n >= self._capacity:  # only the newest `capacity` rows survive
            self._data[:] = block[-self._capacity :]
            self._start, self._size = 0, self._capacity
            return
        end = (self._start + self._size) % self._capacity
        first = min(n, self._capacity - end)
        self._data[end : end + first] = block[:first]
        self._data[: n - first] = block[first:]
        overflow = max(0, self._size + n - self._capacity)
        self._size = min(self._capacity, self._size + n)
        self._start = (self._start + overflow) % self._capacity

    def view(self) -> np.ndarray:
        """The rows oldest-first, as a new (size, width) array."""
        if self._start + self._size <= self._capacity:
            return self._data[self._start : self._start + self._size].copy()
        head = self._data[self._start :]
        return np.concatenate([head, self._data[: self._size - len(head)]])

    def tail(self, n: int) -> np.ndarray:
        """The newest `n` rows oldest-first, as a new array; copies only those rows (the
        scatter takes its few hundred new tokens from a ring of 200 000 ten times a second)."""
        n = max(0, min(n, self._size))
        end = (self._start + self._size) % self._capacity or self._capacity
        if n <= end:
            return self._data[end - n : end].copy()
        return np.concatenate([self._data[self._capacity - (n - end) :], self._data[:end]])
