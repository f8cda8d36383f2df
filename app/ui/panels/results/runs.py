"""Result folders as runs: which files make a run, and each run's summary rows, curves series,
model, GPUs, date and caption (the Results tab shows them)."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from app.bench.results.point_result import PointResult
from app.bench.results.read import NOT_POINT_FILES, ResultFileError
from app.bench.schema.search_doc import SearchDoc, read_search_doc
from app.roofline.catalog import CatalogError, get_gpu
from app.ui.plots.sweep_curves import Series

_POINT_NAME = re.compile(r"^(?P<label>.+?)_rate[^_]+_conc[^_]+$")
MAX_DEPTH = 2  # the results root, its run folders, and one level below


@dataclass
class Run:
    """A group of points read from one folder that belong together (one label or model)."""

    name: str
    folder: Path
    points: list[PointResult] = field(default_factory=list)

    @property
    def source(self) -> str:
        return ", ".join(sorted({p.source for p in self.points}))

    @property
    def model(self) -> str:
        return ", ".join(sorted({p.model_id or "?" for p in self.points}))

    @property
    def gpus(self) -> list[str]:
        """The GPUs the run's roofline was computed for (names when the catalogue knows them)."""
        names: set[str] = set()
        for p in self.points:
            roofline = p.blocks.roofline
            gpu_id = roofline.gpu_id if roofline is not None else None
            if gpu_id:
                try:
                    names.add(get_gpu(str(gpu_id)).name)
                except CatalogError:
                    names.add(str(gpu_id))
        return sorted(names)

    @property
    def date(self) -> str:
        """When the run started: its first point's date, as YYYY-MM-DD HH:MM when readable."""
        dates = sorted(p.date for p in self.points if p.date)
        return _readable_date(dates[0]) if dates else ""

    def series(self) -> Series:
        """Points ordered by concurrency, then rate (file names sort 16 before 8)."""
        ordered = sorted(
            self.points,
            key=lambda p: (
                math.inf if p.max_concurrency is None else p.max_concurrency,
                p.request_rate,
            ),
        )
        # Each point's row is built once per point object (PointResult.row; the file cache keeps
        # a file's points, the very objects, until the file changes): the shown run is drawn
        # again at every point that joins it.
        return Series(self.name, [p.row for p in ordered])


def _readable_date(date: str) -> str:
    match = re.match(r"^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})", date)
    if match:
        y, mo, d, h, mi = match.groups()
        return f"{y}-{mo}-{d} {h}:{mi}"
    return date[:16].replace("T", " ")


def runs_caption(runs: Sequence[Run]) -> str:
    """What an exported chart shows: run(s), model(s), GPU(s), date(s), one line."""
    parts = [
        ", ".join(r.name for r in runs),
        ", ".join(sorted({r.model for r in runs})),
        ", ".join(sorted({g for r in runs for g in r.gpus})),
        ", ".join(sorted({r.date for r in runs if r.date})),
    ]
    return " · ".join(p for p in parts if p)


def _group_key(point: PointResult) -> str:
    if point.label:
        return point.label
    stem = point.path.stem if point.path else ""
    match = _POINT_NAME.match(stem)
    if match:
        return match.group("label")
    return point.model_id or stem or "?"


def search_doc(folder: Path) -> SearchDoc | None:
    """The capacity search summary a run folder holds (search.json), if readable (a file
    that is not a search, SchemaError included, is no search)."""
    try:
        return read_search_doc(json.loads((folder / "search.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def is_point_file(name: str) -> bool:
    """Whether a file name in a results folder is a result file (not ours hidden temp files,
    vLLM's *.pytorch.json side files or a search's summary)."""
    return (
        name.endswith(".json")
        and not name.startswith(".")
        and not name.endswith(".pytorch.json")
        and name not in NOT_POINT_FILES
    )


def _listing(folder: Path) -> tuple[list[Path], list[Path]]:
    """A folder's sub-folders and result files, from one scandir: glob + is_file/is_dir cost a
    system call per file on top."""
    folders: list[str] = []
    files: list[str] = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_dir():
                folders.append(e.name)
            elif is_point_file(e.name) and e.is_file():
                files.append(e.name)
    return [folder / n for n in sorted(folders)], [folder / n for n in sorted(files)]


def _scan_key(root: Path, folder: Path) -> tuple[int, tuple[str, ...]]:
    """A folder's place in the scan: breadth first, each level by name (what _listing's
    sorted sub-folders give, level by level)."""
    parts = folder.relative_to(root).parts
    return (len(parts), parts)


@dataclass
class FolderListing:
    """Which result files a results root holds, folder by folder in scan order, as last
    listed; `add` puts in a file the window knows was written since, without listing again."""

    root: Path
    folders: dict[Path, list[Path]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    unlisted: set[Path] = field(default_factory=set)  # folders that could not be listed

    @classmethod
    def scan(cls, root: Path) -> FolderListing:
        """List `root`, its run folders and one level below (MAX_DEPTH)."""
        listing = cls(root)
        level: list[Path] = [root]
        for depth in range(MAX_DEPTH + 1):
            below: list[Path] = []
            for folder in level:
                try:
                    sub, files = _listing(folder)
                except OSError as exc:
                    listing.unlisted.add(folder)
                    listing.errors.append(
                        QCoreApplication.translate("ResultsPanel", "{0}: cannot list ({1})").format(
                            folder, exc.strerror
                        )
                    )
                    continue
                listing.folders[folder] = files
                if depth < MAX_DEPTH:
                    below += sub
            level = below
        return listing

    def files(self) -> list[Path]:
        return [file for files in self.folders.values() for file in files]

    def add(self, path: Path) -> bool:
        """Put in a result file written since the listing (True), where a new listing would
        find it; False when a listing of this root would not list it (another folder, too
        deep, not a result file's name) or its folder could not be listed."""
        folder = path.parent
        if folder != self.root and self.root not in folder.parents:
            return False
        depth = len(folder.relative_to(self.root).parts)
        if depth > MAX_DEPTH or not is_point_file(path.name):
            return False
        chain = [folder, *list(folder.parents)[:depth]]  # the folder up to the root
        if any(f in self.unlisted for f in chain):
            return False  # a listing could not read it: neither can a new one, probably
        new = [f for f in chain if f not in self.folders]
        if new:  # a run folder made since (a sweep's first point): put in scan order
            for f in new:
                self.folders[f] = []
            order = sorted(self.folders, key=lambda f: _scan_key(self.root, f))
            self.folders = {f: self.folders[f] for f in order}
        files = self.folders[folder]
        if path not in files:
            files.append(path)
            files.sort(key=lambda p: p.name)
        return True


def folder_runs(
    listing: FolderListing, folder: Path, read: Callable[[Path], list[PointResult]]
) -> tuple[list[Run], list[str]]:
    """A folder's runs (its points grouped by label) and one message per unreadable file;
    `read` gives a file's points."""
    runs: list[Run] = []
    errors: list[str] = []
    root = listing.root
    groups: dict[str, list[PointResult]] = {}
    for file in listing.folders[folder]:
        try:
            points = read(file)
        except ResultFileError as exc:
            errors.append(str(exc))
            continue
        for point in points:
            groups.setdefault(_group_key(point), []).append(point)
    rel = folder.relative_to(root).as_posix() if folder != root else ""
    for key, points in groups.items():
        # A run folder with one label is named by the folder; else folder/label.
        name = (rel if len(groups) == 1 else f"{rel}/{key}") if rel else key
        runs.append(Run(name=name, folder=folder, points=points))
    return runs, errors
