"""Result files parsed once: points kept by path and the file's identity on disk, so a folder
read again costs one stat per file and a parse only for the files that changed."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from app.bench.results.point_result import PointResult
from app.bench.results.read import ResultFileError, read_points

# (mtime_ns, size, inode): a file rewritten in place within one mtime tick keeps its mtime on
# some file systems, but our writer renames a new file over the old one (a new inode) and a
# rewrite of another length changes the size.
_Identity = tuple[int, int, int]


class PointFileCache:
    """`read(path)` returns the points of a result file, parsing it only when it changed.

    An unreadable file is remembered too (its error is raised again without reading it), so a
    broken file in a large folder costs no more than a good one. `forget_except(paths)` drops
    entries for files no longer listed, which keeps the cache as large as the folder, not as
    the session's history."""

    def __init__(self) -> None:
        # Keyed by the path's text: hashing and comparing Path objects was most of the cost of a
        # refresh over thousands of unchanged files.
        self._entries: dict[str, tuple[_Identity, list[PointResult] | ResultFileError]] = {}
        self.parsed = 0  # files actually read and parsed: what a test or benchmark counts

    def read(self, path: Path) -> list[PointResult]:
        key = os.fspath(path)
        try:
            st = os.stat(key)
        except OSError:
            # Gone or unreadable: the reader says which, in its own words.
            self._entries.pop(key, None)
            return read_points(Path(path))
        identity = (st.st_mtime_ns, st.st_size, st.st_ino)
        entry = self._entries.get(key)
        if entry is None or entry[0] != identity:
            self.parsed += 1
            try:
                value: list[PointResult] | ResultFileError = read_points(Path(path))
            except ResultFileError as exc:
                value = exc
            entry = (identity, value)
            self._entries[key] = entry
        if isinstance(entry[1], ResultFileError):
            raise entry[1]
        return list(entry[1])

    def forget_except(self, paths: Iterable[Path]) -> None:
        keep = {os.fspath(p) for p in paths}
        for path in [p for p in self._entries if p not in keep]:
            del self._entries[path]

    def __len__(self) -> int:
        return len(self._entries)
