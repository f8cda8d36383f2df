"""The document `tpotbench compare --json` prints: each matched point's figures with their
change, interval and verdict, the points only one side has, and the --fail-on checks.

Declared once here and written through the schema codec (app.bench.schema.codec): the keys'
order is the fields' order, a rate of "inf" is the string vLLM writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.bench.schema.codec import wire


@dataclass(frozen=True)
class CompareFigure:
    """One figure of one matched point: base and candidate, the change (candidate − base),
    its interval, and the verdict (better | worse | same | unknown) with why when unknown."""

    figure: str
    unit: str
    lower_is_better: bool
    base: float | None
    candidate: float | None
    delta: float | None
    delta_relative: float | None
    interval: tuple[float | None, float | None] | None
    verdict: str
    why_unknown: str | None = None


@dataclass(frozen=True)
class ComparePoint:
    """One point both sides ran: its files, how its intervals were found, its figures."""

    point: str
    request_rate: float = field(metadata=wire(inf_as_text=True))
    max_concurrency: int | None
    dataset: str | None
    base_files: tuple[str, ...]
    candidate_files: tuple[str, ...]
    method: str  # "bootstrap" | "repeats" | "none"
    interval_level_each: float
    resamples: int
    notes: tuple[str, ...]
    figures: tuple[CompareFigure, ...]


@dataclass(frozen=True)
class OnlyOneSide:
    """A point one side ran and the other did not, with its files."""

    point: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class FailOnCheck:
    """One --fail-on threshold at one point: regression | ok | unknown."""

    spec: str
    point: str
    status: str


@dataclass(frozen=True)
class CompareDoc:
    """`tpotbench compare --json`."""

    confidence: float
    interval_scope: str
    seed: int
    min_effect: float
    points: tuple[ComparePoint, ...]
    only_in_base: tuple[OnlyOneSide, ...]
    only_in_candidate: tuple[OnlyOneSide, ...]
    skipped: tuple[str, ...]
    fail_on: tuple[FailOnCheck, ...] = ()
