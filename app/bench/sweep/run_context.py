"""A sweep's settings (RunContext) and the file names its points are saved under."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.bench.capacity.slo import SLOSet
from app.bench.datasets.prompts import SampleRequest
from app.bench.http import client as client_mod
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.tokens import TokenCounter
from app.bench.load.arrivals import DEFAULT_GRACE_S
from app.bench.load.schedule import ArrivalPlan
from app.bench.metrics.options import DEFAULT_PERCENTILES
from app.bench.results.naming import point_filename
from app.bench.results.point_result import PointResult
from app.bench.schema.point_blocks import TraceBlock
from app.bench.selftest.store import SavedCeiling
from app.bench.sweep.contract import EndpointInfo
from app.bench.sweep.conversation_point import ConversationLoad
from app.bench.sweep.plan import PointSpec, plan_points
from app.bench.sweep.prefix_cache import PrefixCacheReset, is_loopback
from app.roofline.context import RooflineContext

CSV_NAME = "sweep.csv"


class ResultExistsError(FileExistsError):
    """A named result file is already there and --overwrite was not given (exit code 2)."""


def new_run_id(now: datetime | None = None) -> str:
    """Local date-time of the run (like vLLM's default file names) and 4 random hex digits."""
    stamp = (now or datetime.now(UTC)).astimezone().strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:4]}"


@dataclass(frozen=True)
class ResultPlan:
    """The result files of a run, decided once before it sends anything: the label its file
    names start with and each point's file, in plan order."""

    label: str
    targets: tuple[Path, ...]


@dataclass(frozen=True)
class RunContext:
    """A run as the engine runs it: built once from a RunConfig when the run starts
    (app/commands/sweep_config.py open_context), then the model the server names and the
    planned result files added as new contexts, never by editing this one."""

    resolved: ResolvedEndpoint
    model: str
    backend: str
    samples: list[SampleRequest]
    rates: list[float]
    concurrencies: list[int | None]
    result_dir: Path
    label: str | None = None
    result_filename: str | None = None
    burstiness: float = 1.0
    seed: int = 0
    num_warmups: int = 0
    ignore_eos: bool = False
    goodput: dict[str, float] | None = None
    percentile_metrics: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
    percentiles: tuple[float, ...] = DEFAULT_PERCENTILES
    save_detailed: bool = False
    extra_body: dict[str, Any] | None = None
    extra_headers: dict[str, str] | None = None
    api_key: str | None = field(default=None, repr=False)
    tokenizer: TokenCounter | None = None
    tokenizer_id: str | None = None
    dataset_name: str = "sharegpt"
    dataset_path: str | None = None
    profile: str | None = None
    grace_s: float = DEFAULT_GRACE_S
    verify_tls: bool = True
    transport: client_mod.Transport = "native"
    write_csv: bool = True
    # The roofline panel's GPU/model/format/KV dtype/context (checked: check_roofline): each
    # point's file gets it with the floor at the point's batch and the MBU of its TPOT p50.
    roofline: RooflineContext | None = None
    server_metrics: bool = False  # scrape /metrics during each point (on its own thread)
    run_id: str = field(default_factory=new_run_id)
    overwrite: bool = False  # replace result files of the same name from an earlier run
    # Load workers (app/bench/load/workers): processes on this machine, or Ray actors when a Ray
    # address is set; 1 without Ray runs the point in this process.
    workers: int = 1
    ray_address: str | None = None
    # This machine's client ceiling for the run's mode (tpotbench selftest), if measured:
    # every point records how close it ran to it (tpotbench.client_ceiling).
    client_ceiling: SavedCeiling | None = None
    # The result files, from plan_results() (None: not planned yet; the run plans them).
    plan: ResultPlan | None = None
    timeout_s: float | None = client_mod.DEFAULT_READ_TIMEOUT_S  # longest silence
    request_timeout_s: float | None = client_mod.DEFAULT_REQUEST_TIMEOUT_S  # whole request
    slos: SLOSet | None = None  # judged per point (tpotbench.slo); goodput counted with them
    # POST /reset_prefix_cache before each point; None = only for a server on this machine.
    reset_prefix_cache: bool | None = None
    # --multi-turn: every point runs these sessions instead of `samples`.
    conversations: ConversationLoad | None = None
    # A trace replay: every point sends on the trace's own clock (its offsets, in sample
    # order) instead of vLLM's arrival process, and records `trace` in its tpotbench block.
    arrival_plan: ArrivalPlan | None = None
    trace: TraceBlock | None = None
    # Holds state across points (a server without the route is asked once): made here, once.
    _resetter: PrefixCacheReset | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.resets_prefix_cache:
            resetter = PrefixCacheReset(
                self.resolved,
                api_key=self.api_key,
                extra_headers=self.extra_headers,
                verify_tls=self.verify_tls,
            )
            object.__setattr__(self, "_resetter", resetter)  # frozen: set once, at birth

    @property
    def endpoint_info(self) -> EndpointInfo:
        """The endpoint as run_started reports it."""
        return EndpointInfo(self.resolved.url, self.model, self.resolved.api)

    @property
    def points(self) -> list[PointSpec]:
        return plan_points(self.rates, self.concurrencies)

    @property
    def num_requests(self) -> int:
        """Requests per point: the prompts, or every turn of every conversation."""
        if self.conversations is not None:
            return self.conversations.num_requests
        return len(self.samples)

    @property
    def resets_prefix_cache(self) -> bool:
        if self.reset_prefix_cache is None:
            return is_loopback(self.resolved.url)
        return self.reset_prefix_cache

    @property
    def effective_goodput(self) -> dict[str, float] | None:
        """vLLM's --goodput limits, else per-request limits taken from the SLOs."""
        if self.goodput:
            return self.goodput
        return (self.slos.goodput_limits() or None) if self.slos else None

    async def reset_cache(self) -> str | None:
        """Reset the server's prefix cache if this run does; the outcome, None if not asked."""
        if self._resetter is None:
            return None
        return await self._resetter.reset()

    @property
    def file_label(self) -> str:
        """What each point's file name starts with: --label, else the planned default."""
        if self.label:
            return self.label
        if self.plan is not None:
            return self.plan.label
        return f"{self.backend}-{self.run_id[:15]}"

    def path_for(self, point: PointSpec) -> Path:
        if self.result_filename:
            return self.result_dir / self.result_filename
        return self.result_dir / point_filename(
            self.file_label, point.request_rate, point.max_concurrency
        )

    def targets(self, label: str | None = None) -> list[Path]:
        """Each point's file, in plan order; the same (rate, concurrency) twice keeps both."""
        ctx = self if label is None else replace(self, plan=ResultPlan(label, ()))
        paths: list[Path] = []
        for point in self.points:
            target = ctx.path_for(point)
            if target in paths:
                target = target.with_name(f"{target.stem}_{point.index}{target.suffix}")
            paths.append(target)
        return paths

    def plan_results(self) -> ResultPlan:
        """The files this run will write (reads the folder, changes nothing). A default
        (date-time) name never replaces an earlier run's file: it gets a -2, -3 ... suffix. A
        name the user chose (--label, --result-filename) that exists raises ResultExistsError
        unless `overwrite` is set."""
        if self.label or self.result_filename or self.overwrite:
            paths = self.targets()
            if not self.overwrite:
                taken = [p for p in paths if p.exists() or partial_path(p).exists()]
                if taken:
                    raise ResultExistsError(
                        f"{taken[0]} exists (an earlier run); pass --overwrite to replace it, "
                        "or choose another --label or --result-dir"
                    )
            return ResultPlan(self.file_label, tuple(paths))
        base = f"{self.backend}-{self.run_id[:15]}"
        for n in range(1, 1000):
            label = base if n == 1 else f"{base}-{n}"
            paths = self.targets(label)
            if not any(p.exists() or partial_path(p).exists() for p in paths):
                return ResultPlan(label, tuple(paths))
        raise ResultExistsError(f"{self.result_dir}: no free file name for {base}")

    def planned(self) -> RunContext:
        """This context with its result files planned (once: a planned context is kept)."""
        return self if self.plan is not None else replace(self, plan=self.plan_results())


def partial_path(path: Path) -> Path:
    """Where a cancelled point is saved: never over a complete file of the same name."""
    return path.with_name(path.stem + ".partial.json")


def csv_sort_key(point: PointResult) -> tuple[str, float, float]:
    conc = point.max_concurrency if point.max_concurrency is not None else math.inf
    return (point.label or "", conc, point.request_rate)
