"""A point's result document (a superset of `vllm bench serve --save-result`) and writing it
to disk atomically."""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Any

from app import __version__, jsonfile
from app.bench.http.failures import fix_for, title_for
from app.bench.metrics.point import PointMetrics, Stats
from app.bench.results.naming import rate_to_file
from app.bench.results.per_request import VLLM_DETAILED_KEYS
from app.bench.results.request_block import itl_block, requests_block
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_blocks import (
    ClientPrefixCache,
    DatasetBlock,
    EndpointBlock,
    FailureGroup,
    PointBlocks,
    PointPlace,
    ReasoningTokens,
    RooflineBlock,
    ServerMetricsBlock,
    StampingEntry,
    TokensPerChunk,
)
from app.bench.schema.point_doc import PointDoc, VllmKeys, point_json, read_point_doc
from app.bench.schema.request_arrays import RequestArrays
from app.roofline.context import RooflineContext

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class PointInfo:
    """How a point was run: everything a result file records besides the measurements."""

    backend: str
    model_id: str
    endpoint_url: str
    api: str
    num_prompts: int
    request_rate: float
    max_concurrency: int | None
    burstiness: float = 1.0
    label: str | None = None
    tokenizer_id: str | None = None
    point_index: int = 0
    percentile_metrics: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
    percentiles: tuple[float, ...] = (50.0, 90.0, 95.0, 99.0)
    goodput: dict[str, float] | None = None
    num_warmups: int = 0
    seed: int = 0
    dataset_name: str = "sharegpt"
    dataset_path: str | None = None
    profile: str | None = None
    run_id: str | None = None  # the same for every point of one sweep


def _stats_dict(stats: Stats, known: bool = True) -> dict[str, float | None]:
    """A statistic's figures; all None when `known` is False (no request succeeded, so a 0
    would be a made-up number)."""
    out = {"mean": stats.mean, "median": stats.median, "std": stats.std}
    out.update({f"p{word}": value for word, value in stats.percentiles.items()})
    return {key: (value if known else None) for key, value in out.items()}


def build_result(
    info: PointInfo,
    metrics: PointMetrics,
    *,
    save_detailed: bool = False,
    cancelled: bool = False,
    aborted: int = 0,
    not_sent: int = 0,
    started_at: datetime | None = None,
    roofline: RooflineBlock | None = None,
    server_metrics: ServerMetricsBlock | None = None,
) -> PointDoc:
    """The document of one point's measurements: vLLM's keys and units, the statistics, then
    our `tpotbench` block with what every point records (the blocks a run adds, the caller
    adds with `dataclasses.replace`)."""
    started_at = started_at or datetime.now(UTC)
    known = metrics.completed > 0
    answered = any(t is not None for t in metrics.ttfos)  # TTFO: null without answer text
    blocks = PointBlocks(
        schema_version=SCHEMA_VERSION,
        app_version=__version__,
        run_id=info.run_id,
        started_at=started_at.astimezone(UTC).isoformat(timespec="seconds"),
        profile=info.profile,
        endpoint=EndpointBlock(info.endpoint_url, info.api, info.model_id),
        point=PointPlace(info.point_index, rate_to_file(info.request_rate), info.max_concurrency),
        dataset=DatasetBlock(info.dataset_name, info.dataset_path, info.seed),
        num_warmups=info.num_warmups,
        percentiles=tuple(info.percentiles),
        goodput_slos_ms=info.goodput,
        duration_definition="first send to last completion",
        cancelled=cancelled,
        aborted=aborted,
        not_sent=not_sent,
        slot_wait_ms=_stats_dict(metrics.stats["client_queue_time"], known),
        ttft_first_content_ms=_stats_dict(metrics.stats["ttft_first_content"], known),
        tokens_per_chunk=TokensPerChunk(
            metrics.tokens_per_chunk_mean,
            metrics.tokens_per_chunk_max,
            metrics.multi_token_chunk_share,
        ),
        ttfo_ms=_stats_dict(metrics.stats["ttfo"], answered),
        tpot_answer_ms=_stats_dict(metrics.stats["tpot_answer"], answered),
        reasoning_tokens=(
            None
            if metrics.reasoning_tokens_total is None
            else ReasoningTokens(
                metrics.reasoning_tokens_total,
                metrics.reasoning_tokens_total / max(metrics.completed, 1),
                metrics.reasoning_tokens_source,
            )
        ),
        prefix_cache_client=(
            None
            if metrics.cached_tokens_total is None
            else ClientPrefixCache(
                metrics.cached_tokens_total,
                metrics.prompt_tokens_with_cache_info,
                metrics.client_prefix_hit_rate,
            )
        ),
        peak_output_tokens_per_s_weighted=metrics.peak_output_tokens_per_s_weighted,
        output_tokens_source=metrics.output_tokens_source,
        # sent again on a new connection after the server closed a kept-alive one under it
        retried_requests=metrics.retried,
        # how the chunk times were stamped ("kernel", "loop", "tls-record") and why, per kind
        stamping=tuple(
            StampingEntry(kind, n, metrics.stamping_why.get(kind, ""))
            for kind, n in sorted(metrics.stamping.items(), key=lambda item: -item[1])
        ),
        failures=tuple(
            FailureGroup(
                group.kind,
                group.count,
                title_for(group.kind),
                fix_for(group.kind),
                group.example[:500],
            )
            for group in metrics.failures
        ),
        roofline=roofline,
        server_metrics=server_metrics,
        itl_histogram=itl_block(metrics),
    )
    arrays = RequestArrays(requests_block(metrics))
    if save_detailed:
        arrays = replace(
            arrays,
            ttfos=metrics.ttfos,
            reasoning_lens=metrics.reasoning_lens,
            cached_lens=metrics.cached_lens,
            chunk_counts=metrics.chunk_counts,
            itl_tokens=metrics.itl_tokens,
            error_kinds=metrics.error_kinds,
            retried=metrics.retried_flags,
        )
    stats = _statistics(info, metrics)
    head = _vllm_keys(info, metrics, started_at, save_detailed)
    return PointDoc(head, stats, blocks, to_json_obj(arrays))


def _vllm_keys(
    info: PointInfo, metrics: PointMetrics, started_at: datetime, save_detailed: bool
) -> VllmKeys:
    """What `vllm bench serve --save-result` writes, in its order and units."""
    detailed = {key: getattr(metrics, key) for key in VLLM_DETAILED_KEYS} if save_detailed else {}
    return VllmKeys(
        date=started_at.astimezone().strftime("%Y%m%d-%H%M%S"),
        endpoint_type=info.backend,
        backend=info.backend,
        label=info.label,
        model_id=info.model_id,
        tokenizer_id=info.tokenizer_id,
        num_prompts=info.num_prompts,
        request_rate=rate_to_file(info.request_rate),
        burstiness=info.burstiness,
        max_concurrency=info.max_concurrency,
        duration=metrics.duration_s,
        completed=metrics.completed,
        failed=metrics.failed,
        total_input_tokens=metrics.total_input,
        total_output_tokens=metrics.total_output,
        request_throughput=metrics.request_throughput,
        request_goodput=metrics.request_goodput,
        output_throughput=metrics.output_throughput,
        total_token_throughput=metrics.total_token_throughput,
        **detailed,
        latencies=metrics.latencies,
        queue_times=metrics.queue_times,
        max_output_tokens_per_s=metrics.max_output_tokens_per_s,
        max_concurrent_requests=metrics.max_concurrent_requests,
        rtfx=0.0,
    )


def _statistics(info: PointInfo, metrics: PointMetrics) -> dict[str, float | None]:
    """vLLM's `{stat}_{metric}_ms` keys of the chosen metrics, in its order."""
    known = metrics.completed > 0
    out: dict[str, float | None] = {}
    for name in info.percentile_metrics:
        stats = metrics.stats.get(name)
        if stats is None or (name == "client_queue_time" and info.max_concurrency is None):
            continue
        for stat, value in _stats_dict(stats, known).items():
            out[f"{stat}_{name}_ms"] = value
    return out


def no_success_note(failures: Sequence[FailureGroup]) -> str:
    """The line a point with no successful request shows instead of latency figures, e.g.
    "no request succeeded: 60 × HTTP 404 not found (fix: The path or model is wrong ...)"."""
    if not failures:
        return "no request succeeded (none finished before the point ended)"
    parts = [f"{f.count} × {f.title or title_for(f.kind)}" for f in failures]
    fix = failures[0].fix or fix_for(failures[0].kind)
    return f"no request succeeded: {', '.join(parts)} (fix: {fix})"


def roofline_block(
    context: RooflineContext, batch: float, batch_source: str, tpot_p50_ms: float | None
) -> RooflineBlock:
    """tpotbench.roofline of a point: the chosen context, the decode floor at the point's batch
    (rounded to whole sequences) and the MBU of its TPOT p50 (None without a TPOT); ValueError
    (CatalogError) when the context is not in the catalogue.

    `batch_source` says where the batch came from: 'server_running' (mean of the server's
    running-requests gauge), 'concurrency' (the slot limit of an unlimited-rate point) or
    'mean_in_flight' (busy request time / duration, for rate-limited points).
    """
    scenario = context.scenario()
    sequences = max(1, round(batch))
    measured = tpot_p50_ms if tpot_p50_ms and tpot_p50_ms > 0 else None
    return replace(
        context_block(context),
        context=scenario.context,
        batch=round(float(batch), 3),
        batch_source=batch_source,
        tpot_p50_ms=measured,
        floor_tpot_ms=scenario.floor(sequences).seconds * 1e3,
        # As computed (a whole number of bytes stays one in the file)
        bytes_per_step=scenario.step(sequences).total_bytes,
        mbu=None if measured is None else scenario.mbu(sequences, measured),
    )


def context_block(context: RooflineContext) -> RooflineBlock:
    """tpotbench.roofline of a point whose batch was not found: the run's context alone."""
    return RooflineBlock(
        gpu_id=context.gpu_id,
        model_id=context.model_id,
        fmt=context.fmt,
        kv_dtype=context.kv_dtype,
        context=context.context,
        tensor_parallel=context.tensor_parallel,
    )


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a folder be opened
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _create_temp(path: Path) -> tuple[int, str]:
    """A new hidden temp file beside `path`, created with mode 0666 so the process umask
    decides who may read it, as for any file the user makes (mkstemp would force 0600; results
    hold no secret and a shared results folder must stay readable)."""
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temp file name for {path.name}")


class NotRegularFile(OSError):
    """A write target that exists and is not a regular file (a folder, FIFO, socket or
    device): renaming a temp file over it would replace it with a file."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            errno.EINVAL, "not a regular file (a folder, FIFO or device); name a file", str(path)
        )


def write_target(path: Path) -> Path:
    """The file a write to `path` must land in: a symlink's final target (written through,
    so the link stays a link and its target gets the text); NotRegularFile if what is
    there is not a regular file."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if not S_ISREG(mode):
        raise NotRegularFile(path)
    return target


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file in the same folder + fsync + os.replace: readers and a crash
    see either the old file or the whole new one, never a torn one. A symlink is written
    through; a FIFO, device or folder is refused (NotRegularFile), never replaced."""
    _atomic_write(path, text, "w")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """atomic_write_text for bytes (an image): the same temp file, fsync, rename and rules."""
    _atomic_write(path, data, "wb")


def _atomic_write(path: Path, content: str | bytes, mode: str) -> None:
    path = write_target(Path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path)
    try:
        # Text is written as it is (no encoded copy of a large report held beside it).
        text_args: dict[str, Any] = {"encoding": "utf-8", "newline": ""} if mode == "w" else {}
        with os.fdopen(fd, mode, **text_args) as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def point_text(doc: PointDoc) -> str:
    """A point's file as text: the typed document's one writer (app.bench.schema.point_doc)."""
    return json.dumps(jsonfile.finite(point_json(doc)), indent=2, allow_nan=False) + "\n"


def write_point_doc(path: Path, doc: PointDoc) -> Path:
    atomic_write_text(Path(path), point_text(doc))
    return Path(path)


def write_point_json(path: Path, document: Mapping[str, Any]) -> Path:
    """A document given as JSON objects (a hand-made or edited file) written through its typed
    form, read as a file is (an odd part absent)."""
    return write_point_doc(path, read_point_doc(document, strict=False))


def ensure_writable_dir(directory: Path) -> None:
    """Create `directory` if needed and prove a file can be made in it (OSError if not), so
    an unwritable folder is found before a point's load runs rather than after."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(directory / "write-check")
    os.close(fd)
    os.unlink(tmp)


def missing_dirs(directory: Path) -> list[Path]:
    """The folders of `directory`'s path that do not exist yet, deepest first: what a run
    that writes there will create."""
    missing = []
    folder = Path(directory).absolute()
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_empty_dirs(folders: Sequence[Path]) -> None:
    """Remove `folders` (deepest first) while they are empty; a folder holding anything, or
    one that cannot be removed, is left with its parents."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return
