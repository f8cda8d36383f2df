"""A capacity search's document (search.json) as typed, frozen dataclasses, written and read
through the one codec (app.bench.schema.codec).

The fields' order is the keys' order in the file (part of the format: keep new fields at the
end of their class). `SearchDoc` is the whole file; `SearchPoint` one load value's entry (the
`search_value` event carries one, `search_finished` the document without its points). A run's
checks and the SLOs are the point file's SLO types, the whys `WhyBlock`s, as in a point file
(app.bench.schema.point_blocks).

Strictness as for a point file's blocks (app.bench.schema.point_blocks): the event stream is
strict; a file is read tolerantly by `read_search_doc` (keys this version does not know are
dropped, a missing key takes its default; a why or a knee that does not decode is absent, as
a point file's why is), and one that still does not fit is not a search.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.bench.schema.codec import SchemaError, from_json_obj, wire
from app.bench.schema.point_blocks import SloCheck, SloTargets, WhyBlock, known_keys

SEARCH_SCHEMA = 1
_ROUND_S = wire(digits=3)  # a point's measuring time in the file: milliseconds


OVER = ("concurrency", "rate")


@dataclass(frozen=True)
class SearchSettings:
    over: str = "concurrency"
    start: float = 1.0
    maximum: float = 256.0
    growth: float = 2.0
    resolution: float = 1.0
    relative_resolution: bool = False  # resolution as a fraction of the highest pass
    runs: int = 1
    num_prompts: int = 200  # the most requests a point sends (experiment B's count)
    min_prompts: int = 64
    prompts_per_unit: float = 8.0  # requests per unit of load (rounds of the batch); 0 = fixed
    early_stop: bool = True
    check_above: bool = True

    def validate(self) -> None:
        """ValueError with a one-line message for an impossible setting."""
        if self.over not in OVER:
            raise ValueError(f"--over must be concurrency or rate, not {self.over!r}")
        if not self.start > 0 or not self.maximum >= self.start:
            raise ValueError("--start must be > 0 and no more than --max")
        if self.over == "concurrency" and (self.start != int(self.start) or self.maximum < 1):
            raise ValueError("--start and --max are whole numbers for --over concurrency")
        if not self.growth > 1:
            raise ValueError("--growth must be greater than 1")
        if not self.resolution > 0:
            raise ValueError("--resolution must be greater than 0")
        if self.runs < 1:
            raise ValueError("--runs must be at least 1")
        if self.num_prompts < 1 or self.min_prompts < 1 or self.prompts_per_unit < 0:
            raise ValueError("--num-prompts and --min-prompts must be >= 1")

    def requests_for(self, value: float) -> int:
        """Requests at one load value: `prompts_per_unit` per unit of load (so every point
        runs about as many batch rounds, or seconds of arrivals), within the min and the cap."""
        if self.prompts_per_unit <= 0:
            return self.num_prompts
        wanted = math.ceil(self.prompts_per_unit * value)
        return max(1, min(self.num_prompts, max(self.min_prompts, wanted)))

    def fill_limit(self) -> float | None:
        """The most streams a concurrency search's points can hold in flight: a point sends
        `requests_for(value)` requests, and fewer requests than streams never load the server
        with that many (None for a rate search, or when every value up to --max fills)."""
        if self.over != "concurrency":
            return None
        top = int(self.maximum)
        for value in range(top, int(self.start) - 1, -1):
            if self.requests_for(value) >= value:
                return None if value == top else float(value)
        return float(self.start)

    def width(self, low: float) -> float:
        return self.resolution * low if self.relative_resolution else self.resolution

    def norm(self, value: float) -> float:
        return float(round(value)) if self.over == "concurrency" else round(value, 6)


@dataclass(frozen=True, slots=True)
class SearchFigure:
    """One check's figure at one load over its runs (app.bench.capacity.repeats.Repeated)."""

    n: int
    mean: float
    ci95: tuple[float, float]
    cv: float | None


@dataclass(frozen=True, slots=True)
class SearchRun:
    """One run of one load value: its verdict, size, time, early stop, file and checks (as
    the point file's SLO block holds them)."""

    run: int
    passed: bool
    num_requests: int
    measuring_s: float = field(metadata=_ROUND_S)
    early_stop: str | None = None
    path: str | None = None
    checks: tuple[SloCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchPoint:
    """A load value over its runs: the decision ('pass' | 'fail' | 'marginal'), the failing
    checks and, per check, the repeated figure; `phase` is 'grow' | 'bisect' | 'check'."""

    value: float
    phase: str
    decision: str
    failed: tuple[str, ...]
    figures: dict[str, SearchFigure]
    runs: tuple[SearchRun, ...]

    @property
    def passed(self) -> bool:
        return self.decision == "pass"


@dataclass(frozen=True, slots=True)
class SearchBoundary:
    highest_pass: float | None
    lowest_fail: float | None
    interval: tuple[float | None, float | None] = (None, None)
    failed_slos: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Violation:
    """A pass measured above a fail: the monotonic assumption broken."""

    fail: float
    passed_at: float = field(metadata=wire(name="pass"))


@dataclass(frozen=True, slots=True)
class SearchEndpoint:
    url: str
    model: str | None
    api: str


@dataclass(frozen=True, slots=True)
class SearchFixed:
    """The load the search does not vary: a rate (None: all at once) or a concurrency."""

    request_rate: float | None
    max_concurrency: int | None


@dataclass(frozen=True, slots=True)
class BoundaryEvidence:
    """The lowest failing load measured to the end for its why (its search point stopped early)."""

    value: float
    num_requests: int
    measuring_s: float = field(metadata=_ROUND_S)
    path: str | None = None
    passed: bool = False


@dataclass(frozen=True, slots=True)
class SearchKnee:
    """The knee of one p99 curve over the search's full points (app.bench.capacity.knee), and
    the why read from the point there."""

    load: float
    value: float
    sharpness: float | None = field(default=None, metadata=wire(digits=4))  # the bend, 0..1
    why: WhyBlock | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchDoc:
    """search.json. `points` is empty in a `search_finished` event (the stream has sent each
    one as a `search_value`)."""

    tpotbench_search: int = SEARCH_SCHEMA
    endpoint: SearchEndpoint | None = None  # always written; None only in a hand-made file
    slos: SloTargets | None = None
    fixed: SearchFixed | None = None
    over: str = "concurrency"
    settings: SearchSettings = field(default_factory=SearchSettings)
    boundary: SearchBoundary
    stop_reason: str = ""
    fill_limit: float | None = None
    cancelled: bool = False
    monotonic: bool = True
    violations: tuple[Violation, ...] = ()
    measuring_s: float = field(default=0.0, metadata=_ROUND_S)
    points: tuple[SearchPoint, ...] = ()
    boundary_why: WhyBlock | None = None
    boundary_evidence: BoundaryEvidence | None = None
    knee: dict[str, SearchKnee | None] = field(default_factory=dict)  # 'tpot' / 'ttft'


def read_search_doc(obj: object, *, where: str = "search.json") -> SearchDoc:
    """A search.json's typed view, read tolerantly (keys this version does not know dropped,
    missing ones defaulted); SchemaError when it still does not fit."""
    if not isinstance(obj, Mapping):
        raise SchemaError(f"{where}: must be an object, got {type(obj).__name__}")
    try:
        return from_json_obj(SearchDoc, obj, where=where)
    except SchemaError:
        return from_json_obj(
            SearchDoc, _readable_conclusions(known_keys(SearchDoc, obj)), where=where
        )


def _readable_conclusions(obj: Mapping[str, object]) -> dict[str, object]:
    """`obj` with a why or a knee that does not decode left out: one odd conclusion (a file
    edited by hand, a newer writer's) must not hide the search's measurements."""
    out = dict(obj)
    if "boundary_why" in out and not _decodes(WhyBlock, out["boundary_why"]):
        out["boundary_why"] = None
    knees = out.get("knee")
    if isinstance(knees, Mapping):
        out["knee"] = {k: v if _decodes(SearchKnee, v) else None for k, v in knees.items()}
    elif "knee" in out:
        del out["knee"]
    return out


def _decodes(cls: type[Any], value: object) -> bool:
    try:
        return value is None or bool(from_json_obj(cls, value))
    except SchemaError:
        return False
