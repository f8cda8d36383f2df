"""What a report shows, read from result files: run metadata, one row per point, the per-request
samples. Figures a file does not hold stay None (shown as "–"), never guessed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from app.bench.results.completeness import CANCELLED, COMPLETE, EARLY_STOPPED
from app.bench.results.naming import rate_label
from app.bench.results.point_result import PointResult
from app.bench.results.request_samples import RequestSamples, request_samples
from app.bench.schema.point_blocks import RooflineBlock, ServerMetricsBlock
from app.report.text import text
from app.roofline.catalog import CatalogError, get_gpu

_SECRET_PARAM = re.compile(r"key|token|secret|sig|auth|pass|credential", re.IGNORECASE)


def redact_url(url: str) -> str:
    """The URL without user:password and with secret-looking query values replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    query = urlencode(
        [
            (k, "***" if _SECRET_PARAM.search(k) else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="*",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


@dataclass
class ReportPoint:
    point: PointResult
    name: str  # unique within the report, no longer than needed: "conc 4", "expA rate 2"
    short: str  # the same words (kept apart should a longer table name come back)
    samples: RequestSamples = field(default_factory=RequestSamples)

    @property
    def cancelled(self) -> bool:
        """A fragment: early-stopped, cancelled or partial (never drawn as a measurement)."""
        return not self.point.completeness.complete

    @property
    def off_curve(self) -> bool:
        """Drawn apart from the curves and left out of knees: a fragment, or a point run at
        another load than it names."""
        return not self.point.on_the_curve

    @property
    def failed(self) -> int:
        return self.point.failed or 0

    def status(self) -> tuple[str, int]:
        """('st_early'|'st_cancelled'|'st_partial'|'st_all_failed'|'st_failures'|'st_ok',
        failed count)."""
        state = self.point.completeness.state
        if state != COMPLETE:
            return {EARLY_STOPPED: "st_early", CANCELLED: "st_cancelled"}.get(
                state, "st_partial"
            ), self.failed
        if self.point.completed == 0 and self.failed:
            return "st_all_failed", self.failed
        if self.failed:
            return "st_failures", self.failed
        return "st_ok", 0

    def metric(self, name: str, stat: str) -> float | None:
        """A latency statistic, None when no request succeeded: files (ours and vLLM's) write
        0.0 then, which is not a measurement."""
        if self.point.completed <= 0:
            return None
        return self.point.metric(name, stat)

    def roofline(self) -> RooflineBlock | None:
        return self.point.blocks.roofline

    def server(self) -> ServerMetricsBlock | None:
        return self.point.blocks.server_metrics


def _file_stem(point: PointResult) -> str:
    if point.path is None:
        return "result"
    name = point.path.name
    for suffix in (".partial.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(name).stem


def report_points(points: Sequence[PointResult], lang: str = "en") -> list[ReportPoint]:
    """Names that tell points apart with as few words as the set of points needs."""

    def rate_word(p: PointResult) -> str:
        return text(lang, "w_rate", value=rate_label(p.request_rate))

    def conc_word(p: PointResult) -> str:
        conc = "none" if p.max_concurrency is None else str(p.max_concurrency)
        return text(lang, "w_conc", value=conc)

    labels = {p.label for p in points}
    rates = {p.request_rate for p in points}
    concs = {p.max_concurrency for p in points}
    out: list[ReportPoint] = []
    seen: dict[str, int] = {}
    for p in points:
        words = []
        if len(labels) > 1:
            words.append(p.label or _file_stem(p))
        if len(rates) > 1:
            words.append(rate_word(p))
        if len(concs) > 1 or not words:
            words.append(conc_word(p))
        short = " ".join(words)
        count = seen.get(short, 0)
        seen[short] = count + 1
        if count:  # the same point twice (two runs of one grid): the file tells them apart
            short = f"{short} ({_file_stem(p)})"
        out.append(ReportPoint(p, short, short, request_samples(p.doc, p.itl_set_aside)))
    return out


@dataclass
class RunMeta:
    endpoints: list[str]
    apis: list[str]
    models: list[str]
    gpus: list[str]
    formats: list[str]
    servers: list[str]
    writers: list[str]
    dates: list[str]
    datasets: list[str]
    prompts: list[int]
    files: list[str]
    vllm_files: int
    run_ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


def _unique(values: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in (None, "") and v not in out:
            out.append(v)
    return out


def _date(point: PointResult) -> str | None:
    started = point.blocks.started_at
    if isinstance(started, str) and started:
        return started.replace("T", " ").replace("+00:00", " UTC")
    date = point.date
    if isinstance(date, str) and re.fullmatch(r"\d{8}-\d{6}", date):
        # vLLM writes local time without a zone: shown as written
        return f"{date[:4]}-{date[4:6]}-{date[6:8]} {date[9:11]}:{date[11:13]}:{date[13:15]}"
    return date if isinstance(date, str) else None


def _gpu_name(gpu_id: str) -> str:
    try:
        gpu = get_gpu(gpu_id)
    except (CatalogError, KeyError, ValueError, OSError):
        return gpu_id
    return f"{gpu.name} ({gpu.id})" if gpu.name != gpu.id else gpu.id


def run_meta(points: Sequence[ReportPoint]) -> RunMeta:
    ps = [rp.point for rp in points]
    endpoints = _unique([e.url for p in ps if (e := p.blocks.endpoint) is not None])
    rooflines = [r for rp in points if (r := rp.roofline()) is not None]
    dataset_words = []
    for p in ps:
        ds = p.blocks.dataset
        if ds is not None and ds.name:
            words = ds.name + (f" ({Path(ds.path).name})" if ds.path else "")
            dataset_words.append(words + f", seed {ds.seed or 0}")
    dates = sorted(_unique([_date(p) for p in ps]))
    writers = []
    for p in ps:
        version = p.blocks.app_version
        writers.append(f"TPOT Bench {version}" if version else "vllm bench serve")
    return RunMeta(
        endpoints=[redact_url(str(u)) for u in endpoints],
        apis=_unique([(e.api if (e := p.blocks.endpoint) else None) or p.backend for p in ps]),
        models=_unique([p.model_id for p in ps]),
        gpus=_unique([_gpu_name(r.gpu_id) for r in rooflines if r.gpu_id]),
        formats=_unique([f"{r.fmt} / {r.kv_dtype}" for r in rooflines if r.fmt and r.kv_dtype]),
        servers=_unique([s.server for rp in points if (s := rp.server()) is not None]),
        writers=_unique(writers),
        dates=[dates[0], dates[-1]] if len(dates) > 1 else dates,
        datasets=_unique(dataset_words),
        prompts=_unique([p.num_prompts for p in ps]),
        files=[p.path.name for p in ps if p.path is not None],
        vllm_files=sum(1 for p in ps if p.source != "tpotbench"),
        labels=_unique([p.label for p in ps]),
        run_ids=_unique([p.blocks.run_id for p in ps]),
    )
