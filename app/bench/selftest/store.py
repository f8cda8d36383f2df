"""The client's ceiling saved per machine (a JSON file in the user's config folder, with the date
and the machine's facts), read back before a sweep to warn and to record how close it ran."""

from __future__ import annotations

import json
import math
import os
import platform
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.bench.results.write import atomic_write_text
from app.bench.schema.codec import SchemaError, from_json_obj, to_json_obj
from app.bench.schema.point_blocks import ClientCeilingBlock
from app.bench.selftest.decide import Ceiling, CeilingDoc
from app.paths import config_dir

SCHEMA = 1
FILE_NAME = "client_ceiling.json"


def ceiling_path() -> Path:
    return config_dir() / FILE_NAME


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass(frozen=True)
class MachineFacts:
    """What the figures depend on: the host, its CPUs, the OS and Python."""

    hostname: str
    cpu_model: str
    cpu_count: int | None
    system: str
    python: str


def machine_facts() -> MachineFacts:
    return MachineFacts(
        hostname=socket.gethostname(),
        cpu_model=_cpu_model(),
        cpu_count=os.cpu_count(),
        system=f"{platform.system()} {platform.release()}",
        python=platform.python_version(),
    )


@dataclass(frozen=True)
class SavedCeilingDoc(CeilingDoc):
    """One mode's ceiling in the file: the decision and when it was measured."""

    date: str = ""


@dataclass(frozen=True)
class CeilingFile:
    """The file: this machine's facts and each mode's ceiling, keyed by its workers ("0": in
    process)."""

    schema: int
    machine: MachineFacts
    results: dict[str, SavedCeilingDoc]


def save_ceiling(workers: int, ceiling: Ceiling, path: Path | None = None) -> Path:
    """Store the ceiling measured with `workers` load workers (0: in process) beside the other
    modes' figures already in the file; the date and machine facts are refreshed."""
    target = path or ceiling_path()
    kept = read_ceiling_file(target)
    d = ceiling.document()
    date = datetime.now(UTC).isoformat(timespec="seconds")
    entry = SavedCeilingDoc(
        d.streams, d.at_least, d.cpu_ms_per_1k, d.stopped, d.why, d.limits, d.steps, date
    )
    results = {**(kept.results if kept is not None else {}), str(workers): entry}
    doc = CeilingFile(SCHEMA, machine_facts(), results)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(plain(to_json_obj(doc)), indent=2) + "\n")
    return target


def plain(value: Any) -> Any:
    """NaN and infinity as null: the file stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def read_ceiling_file(path: Path) -> CeilingFile | None:
    """The file as written (by this version or an earlier one: the format has not changed);
    None when missing, not JSON, of another schema or not of this shape."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        return None
    try:
        return from_json_obj(CeilingFile, doc, where="client_ceiling")
    except SchemaError:
        return None


@dataclass(frozen=True)
class SavedCeiling:
    """The ceiling this machine measured for one way of running (workers 0: in process):
    streams in total, over all the client's processes."""

    workers: int
    streams: int
    at_least: bool
    date: str


def load_ceiling(workers: int, path: Path | None = None) -> SavedCeiling | None:
    """This machine's saved ceiling for `workers` (None when never measured, or the file is
    unreadable or from another machine)."""
    doc = read_ceiling_file(path or ceiling_path())
    if doc is None:
        return None
    if doc.machine.hostname != socket.gethostname():
        return None  # a copied config folder: another machine's figures do not apply
    entry = doc.results.get(str(workers))
    if entry is None:
        return None
    return SavedCeiling(workers, entry.streams, entry.at_least, entry.date)


def point_streams(max_concurrency: int | None, num_requests: int) -> int:
    """The most streams a point runs at once: its concurrency, or every request without one."""
    return min(max_concurrency, num_requests) if max_concurrency else num_requests


def mode_of(workers: int) -> int:
    """The saved mode a sweep runs in: 0 for in process (--workers 1 runs in process too)."""
    return workers if workers > 1 else 0


def ceiling_warning(
    concurrencies: list[int | None], num_requests: int, workers: int, saved: SavedCeiling
) -> str | None:
    """One sentence when the largest point asks for more streams than this machine's ceiling
    for the same number of workers; None otherwise. A ceiling that is only a lower bound warns
    too: nothing above it was shown to be faithful."""
    worst = max(point_streams(c, num_requests) for c in concurrencies)
    if worst <= saved.streams:
        return None
    where = f"with --workers {workers}" if workers > 1 else "in one process"
    bound = "at least " if saved.at_least else ""
    return (
        f"this sweep runs up to {worst} streams, past this machine's client ceiling of "
        f"{bound}{saved.streams} streams {where} (tpotbench selftest, {saved.date[:10]}): "
        "figures above it may include the client's own delays; add --workers, or measure "
        "again with tpotbench selftest"
    )


def point_block(saved: SavedCeiling | None, streams: int) -> ClientCeilingBlock | None:
    """tpotbench.client_ceiling of a point: its streams, the ceiling and their ratio."""
    if saved is None:
        return None
    return ClientCeilingBlock(
        streams=streams,
        ceiling=saved.streams,
        ceiling_at_least=saved.at_least,
        ratio=round(streams / saved.streams, 3) if saved.streams else None,
        workers=saved.workers,
        measured=saved.date,
    )
