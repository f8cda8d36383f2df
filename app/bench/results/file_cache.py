"""Result files parsed once: points kept by path and the file's identity on disk, so a folder
read again costs one stat per file and a parse only for the files that changed.

A point can also come in without its file being read (`add`): a sweep's finished point is
announced with its path and its result less the per-request arrays. Such an entry stands for
the file until the file changes; `detailed` reads the file for its per-request data when
something asks for it (distributions, another tool's definitions, a comparison)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.bench.results.point_result import PointResult
from app.bench.results.read import ResultFileError, read_points

# (mtime_ns, size, inode): a file rewritten in place within one mtime tick keeps its mtime on
# some file systems, but our writer renames a new file over the old one (a new inode) and a
# rewrite of another length changes the size.
_Identity = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class _Entry:
    identity: _Identity
    value: list[PointResult] | ResultFileError
    detailed: bool  # parsed from the file (False: from a summary, per-request arrays absent)


def _identity(path: str) -> _Identity:
    st = os.stat(path)
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class PointFileCache:
    """`read(path)` returns the points of a result file, parsing it only when it changed.

    An unreadable file is remembered too (its error is raised again without reading it), so a
    broken file in a large folder costs no more than a good one. `forget_except(paths)` drops
    entries for files no longer listed, which keeps the cache as large as the folder, not as
    the session's history.

    Safe to share between threads (the window reads a folder on a thread of its own while a
    finished point may come in): each call holds the cache's lock, a parse included."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        # Keyed by the path's text: hashing and comparing Path objects was most of the cost of a
        # refresh over thousands of unchanged files.
        self._entries: dict[str, _Entry] = {}
        self.parsed = 0  # files actually read and parsed: what a test or benchmark counts

    def read(self, path: Path) -> list[PointResult]:
        with self._lock:
            return self._read(path)

    def _read(self, path: Path) -> list[PointResult]:
        key = os.fspath(path)
        try:
            identity = _identity(key)
        except OSError:
            # Gone or unreadable: the reader says which, in its own words.
            self._entries.pop(key, None)
            return read_points(Path(path))
        entry = self._entries.get(key)
        if entry is None or entry.identity != identity:
            entry = self._parse(key, identity)
        return _points(entry)

    def stored(self, path: Path) -> list[PointResult]:
        """The points kept for `path` without looking at the disk (read() when none are kept):
        what a finished point's arrival uses for the files around it, unchanged since the
        folder was last read."""
        with self._lock:
            return self._stored(path)

    def _stored(self, path: Path) -> list[PointResult]:
        entry = self._entries.get(os.fspath(path))
        return self._read(path) if entry is None else _points(entry)

    def add(self, path: Path, points: Sequence[PointResult]) -> bool:
        """Keep `points` as the content of the file at `path` as it is on disk now, without
        reading it (a finished point's event carries them); False when there is no such file.
        The next read() parses it only if it has changed since."""
        with self._lock:
            return self._add(path, points)

    def _add(self, path: Path, points: Sequence[PointResult]) -> bool:
        key = os.fspath(path)
        try:
            identity = _identity(key)
        except OSError:
            self._entries.pop(key, None)
            return False
        self._entries[key] = _Entry(identity, list(points), detailed=False)
        return True

    def detailed(self, point: PointResult) -> PointResult:
        """`point` with its per-request data: itself when it was read from its file, else
        the file's (read once, then kept). The point as given when the file no longer holds
        one readable result."""
        with self._lock:
            return self._detailed(point)

    def _detailed(self, point: PointResult) -> PointResult:
        if point.path is None:
            return point
        key = os.fspath(point.path)
        entry = self._entries.get(key)
        if entry is None or not entry.detailed:
            try:
                entry = self._parse(key, _identity(key))
            except OSError:
                return point
        if isinstance(entry.value, ResultFileError):
            return point
        if any(p is point for p in entry.value):
            return point
        # An entry made from a summary holds one point (one event, one file).
        return entry.value[0] if len(entry.value) == 1 else point

    def forget_except(self, paths: Iterable[Path]) -> None:
        with self._lock:
            self._forget_except(paths)

    def _forget_except(self, paths: Iterable[Path]) -> None:
        keep = {os.fspath(p) for p in paths}
        for path in [p for p in self._entries if p not in keep]:
            del self._entries[path]

    def __len__(self) -> int:
        return len(self._entries)

    def _parse(self, key: str, identity: _Identity) -> _Entry:
        self.parsed += 1
        try:
            value: list[PointResult] | ResultFileError = read_points(Path(key))
        except ResultFileError as exc:
            value = exc
        entry = _Entry(identity, value, detailed=True)
        self._entries[key] = entry
        return entry


def _points(entry: _Entry) -> list[PointResult]:
    if isinstance(entry.value, ResultFileError):
        raise entry.value
    return list(entry.value)
