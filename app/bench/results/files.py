"""Result files: per-point JSON (a superset of `vllm bench serve --save-result`), sweep.csv,
and reading back ours, vLLM's and the older benchmark_serving.py's into one PointResult."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app import __version__, jsonfile
from app.bench.http.failures import fix_for, title_for
from app.bench.metrics.point import PointMetrics, Stats
from app.bench.metrics.workload import cache_figures, reasoning_figures
from app.bench.results.request_block import itl_block, requests_block
from app.roofline.scenario import point_fields

SCHEMA_VERSION = 1
# vLLM drops these per-request arrays unless --save-detailed (latencies/queue_times it keeps).
DETAILED_KEYS = (
    "input_lens",
    "output_lens",
    "start_times",
    "ttfts",
    "itls",
    "generated_texts",
    "errors",
)
# Files a run writes beside its points that are not points (a capacity search's summary).
NOT_POINT_FILES = frozenset({"search.json"})
_STAT_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_([a-z0-9_]+)_ms$")


class ResultFileError(ValueError):
    """A result file that cannot be read; the message names the file and the problem."""


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


def rate_value(rate: float) -> float | str:
    """Request rate as vLLM writes it: a number, or the string "inf"."""
    return "inf" if math.isinf(rate) else rate


def rate_label(rate: float) -> str:
    """4.0 -> '4', 0.5 -> '0.5', inf -> 'inf' (the field guide's file names)."""
    if math.isinf(rate):
        return "inf"
    return str(int(rate)) if rate == int(rate) else repr(rate)


def point_filename(label: str, rate: float, max_concurrency: int | None) -> str:
    """`{label}_rate{rate}_conc{conc}.json`, e.g. expA_rate4_conc32.json."""
    conc = "none" if max_concurrency is None else str(max_concurrency)
    return f"{label}_rate{rate_label(rate)}_conc{conc}.json"


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
    roofline: dict[str, Any] | None = None,
    server_metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON document for one point: vLLM's keys and units first, then our `tpotbench` block."""
    started_at = started_at or datetime.now(UTC)
    result: dict[str, Any] = {
        "date": started_at.astimezone().strftime("%Y%m%d-%H%M%S"),
        "endpoint_type": info.backend,
        "backend": info.backend,
        "label": info.label,
        "model_id": info.model_id,
        "tokenizer_id": info.tokenizer_id,
        "num_prompts": info.num_prompts,
        "request_rate": rate_value(info.request_rate),
        "burstiness": info.burstiness,
        "max_concurrency": info.max_concurrency,
        "duration": metrics.duration_s,
        "completed": metrics.completed,
        "failed": metrics.failed,
        "total_input_tokens": metrics.total_input,
        "total_output_tokens": metrics.total_output,
        "request_throughput": metrics.request_throughput,
        "request_goodput": metrics.request_goodput,
        "output_throughput": metrics.output_throughput,
        "total_token_throughput": metrics.total_token_throughput,
    }
    if save_detailed:
        result.update(
            input_lens=metrics.input_lens,
            output_lens=metrics.output_lens,
            ttfts=metrics.ttfts,
            itls=metrics.itls,
            start_times=metrics.start_times,
            generated_texts=metrics.generated_texts,
            errors=metrics.errors,
        )
    result.update(
        latencies=metrics.latencies,
        queue_times=metrics.queue_times,
        max_output_tokens_per_s=metrics.max_output_tokens_per_s,
        max_concurrent_requests=metrics.max_concurrent_requests,
        rtfx=0.0,
    )
    known = metrics.completed > 0
    for name in info.percentile_metrics:
        stats = metrics.stats.get(name)
        if stats is None or (name == "client_queue_time" and info.max_concurrency is None):
            continue
        for stat, value in _stats_dict(stats, known).items():
            result[f"{stat}_{name}_ms"] = value
    block: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "app_version": __version__,
        "run_id": info.run_id,
        "started_at": started_at.astimezone(UTC).isoformat(timespec="seconds"),
        "profile": info.profile,
        "endpoint": {"url": info.endpoint_url, "api": info.api, "model": info.model_id},
        "point": {
            "index": info.point_index,
            "request_rate": rate_value(info.request_rate),
            "max_concurrency": info.max_concurrency,
        },
        "dataset": {"name": info.dataset_name, "path": info.dataset_path, "seed": info.seed},
        "num_warmups": info.num_warmups,
        "percentiles": list(info.percentiles),
        "goodput_slos_ms": info.goodput,
        "duration_definition": "first send to last completion",
        "cancelled": cancelled,
        "aborted": aborted,
        "not_sent": not_sent,
        "slot_wait_ms": _stats_dict(metrics.stats["client_queue_time"], known),
        "ttft_first_content_ms": _stats_dict(metrics.stats["ttft_first_content"], known),
        "tokens_per_chunk": {
            "mean": metrics.tokens_per_chunk_mean,
            "max": metrics.tokens_per_chunk_max,
            "multi_token_share": metrics.multi_token_chunk_share,
        },
        # TTFO and the answer phase's TPOT: null when no reply had visible answer text
        "ttfo_ms": _stats_dict(metrics.stats["ttfo"], any(t is not None for t in metrics.ttfos)),
        "tpot_answer_ms": _stats_dict(
            metrics.stats["tpot_answer"], any(t is not None for t in metrics.ttfos)
        ),
        "reasoning_tokens": (
            None
            if metrics.reasoning_tokens_total is None
            else {
                "total": metrics.reasoning_tokens_total,
                "mean": metrics.reasoning_tokens_total / max(metrics.completed, 1),
                "source": metrics.reasoning_tokens_source,
            }
        ),
        "prefix_cache_client": (
            None
            if metrics.cached_tokens_total is None
            else {
                "cached_tokens": metrics.cached_tokens_total,
                "prompt_tokens": metrics.prompt_tokens_with_cache_info,
                "hit_rate": metrics.client_prefix_hit_rate,
            }
        ),
        "peak_output_tokens_per_s_weighted": metrics.peak_output_tokens_per_s_weighted,
        "output_tokens_source": metrics.output_tokens_source,
        # sent again on a new connection after the server closed a kept-alive one under it
        "retried_requests": metrics.retried,
        "failures": [
            {
                "kind": group.kind,
                "count": group.count,
                "title": title_for(group.kind),
                "fix": fix_for(group.kind),
                "example": group.example[:500],
            }
            for group in metrics.failures
        ],
        "roofline": roofline,
        "server_metrics": server_metrics,
        "requests": requests_block(metrics),
        "itl_histogram": itl_block(metrics),
    }
    if save_detailed:
        block["ttfos"] = metrics.ttfos
        block["reasoning_lens"] = metrics.reasoning_lens
        block["cached_lens"] = metrics.cached_lens
        block["chunk_counts"] = metrics.chunk_counts
        block["error_kinds"] = metrics.error_kinds
        block["retried"] = metrics.retried_flags
    result["tpotbench"] = block
    return result


def no_success_note(failures: Sequence[dict[str, Any]]) -> str:
    """The line a point with no successful request shows instead of latency figures, e.g.
    "no request succeeded: 60 × HTTP 404 not found (fix: The path or model is wrong ...)"."""
    if not failures:
        return "no request succeeded (none finished before the point ended)"
    parts = [
        f"{f.get('count')} × {f.get('title') or title_for(str(f.get('kind')))}" for f in failures
    ]
    fix = failures[0].get("fix") or fix_for(str(failures[0].get("kind")))
    return f"no request succeeded: {', '.join(parts)} (fix: {fix})"


def roofline_block(
    context: dict[str, Any], batch: float, batch_source: str, tpot_p50_ms: float | None
) -> dict[str, Any]:
    """tpotbench.roofline of a point: the chosen context, the decode floor at the point's batch
    (rounded to whole sequences) and the MBU of its TPOT p50 (None without a TPOT).

    `batch_source` says where the batch came from: 'server_running' (mean of the server's
    running-requests gauge), 'concurrency' (the slot limit of an unlimited-rate point) or
    'mean_in_flight' (busy request time / duration, for rate-limited points).
    """
    fields = point_fields(context, batch, tpot_p50_ms)
    return {
        "gpu_id": str(context["gpu_id"]),
        "model_id": str(context["model_id"]),
        "fmt": str(context["fmt"]),
        "kv_dtype": str(context["kv_dtype"]),
        "context": fields["roofline_context"],
        "batch": round(float(batch), 3),
        "batch_source": batch_source,
        "tpot_p50_ms": tpot_p50_ms if tpot_p50_ms and tpot_p50_ms > 0 else None,
        "floor_tpot_ms": fields["floor_tpot_ms"],
        "bytes_per_step": fields["bytes_per_step"],
        "mbu": fields["mbu"],
    }


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


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file in the same folder + fsync + os.replace: readers and a crash
    see either the old file or the whole new one, never a torn one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_point_json(path: Path, result: dict[str, Any]) -> Path:
    text = json.dumps(jsonfile.finite(result), indent=2, allow_nan=False) + "\n"
    atomic_write_text(Path(path), text)
    return Path(path)


def ensure_writable_dir(directory: Path) -> None:
    """Create `directory` if needed and prove a file can be made in it (OSError if not), so
    an unwritable folder is found before a point's load runs rather than after."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(directory / "write-check")
    os.close(fd)
    os.unlink(tmp)


# ---------------------------------------------------------------------------------------------
# Reading back


@dataclass
class PointResult:
    """One benchmark point, whichever tool wrote it. Times in ms, throughputs per second."""

    path: Path | None
    source: str  # 'tpotbench' | 'vllm' | 'benchmark_serving'
    label: str | None
    model_id: str | None
    backend: str | None
    date: str | None
    request_rate: float
    max_concurrency: int | None
    burstiness: float | None
    num_prompts: int | None
    completed: int
    failed: int | None
    duration_s: float
    total_input_tokens: int | None
    total_output_tokens: int | None
    request_throughput: float | None
    request_goodput: float | None
    output_throughput: float | None
    total_token_throughput: float | None
    max_output_tokens_per_s: float | None
    max_concurrent_requests: int | None
    stats: dict[str, dict[str, float]] = field(default_factory=dict)
    tpotbench: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        """A point cancelled before all its requests ran (saved as *.partial.json)."""
        name = self.path.name if self.path else ""
        return name.endswith(".partial.json") or (self.tpotbench or {}).get("cancelled") is True

    def metric(self, name: str, stat: str) -> float | None:
        """E.g. metric('tpot', 'p99') -> the P99 TPOT in ms, or None if the file has none."""
        return self.stats.get(name, {}).get(stat)

    def summary_row(self) -> dict[str, Any]:
        """One flat row for `tpotbench report`, sweep.csv and the GUI's results table."""
        wait = (self.tpotbench or {}).get("slot_wait_ms") or {}
        failures = (self.tpotbench or {}).get("failures") or []
        roofline = (self.tpotbench or {}).get("roofline")
        roofline = roofline if isinstance(roofline, dict) else {}
        block = self.tpotbench or {}
        row: dict[str, Any] = {
            "file": self.path.name if self.path else "",
            "source": self.source,
            "label": self.label,
            "model": self.model_id,
            "request_rate": rate_value(self.request_rate),
            "max_concurrency": self.max_concurrency,
            "completed": self.completed,
            "failed": self.failed,
            "duration_s": self.duration_s,
            "request_throughput": self.request_throughput,
            "output_throughput": self.output_throughput,
            "total_token_throughput": self.total_token_throughput,
            "request_goodput": self.request_goodput,
        }
        for name in ("ttft", "tpot", "itl", "e2el"):
            for stat in ("mean", "median", "p99"):
                row[f"{stat}_{name}_ms"] = self.metric(name, stat)
        row["max_output_tokens_per_s"] = self.max_output_tokens_per_s
        row["max_concurrent_requests"] = self.max_concurrent_requests
        row["mean_slot_wait_ms"] = wait.get("mean")
        row["failure_kinds"] = " ".join(f"{f['kind']}:{f['count']}" for f in failures)
        # Older files (and vLLM's) have no floor: the columns stay empty rather than guessed.
        row["roofline_batch"] = _finite_number(roofline.get("batch"))
        row["floor_tpot_ms"] = _finite_number(roofline.get("floor_tpot_ms"))
        row["mbu"] = _finite_number(roofline.get("mbu"))
        # Last, so columns read by position keep their place: which sweep wrote the point,
        # and whether it was cut short.
        row["run"] = block.get("run_id") if isinstance(block.get("run_id"), str) else None
        row["partial"] = self.partial
        # Reasoning, prefix caching, speculative decoding: empty for points that had none.
        row.update(reasoning_figures(block))
        row.update(cache_figures(block))
        return row


def _finite_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


SUMMARY_COLUMNS: tuple[str, ...] = tuple(
    PointResult(
        None,
        "",
        None,
        None,
        None,
        None,
        0.0,
        None,
        None,
        None,
        0,
        None,
        0.0,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ).summary_row()
)


def _number(data: dict[str, Any], key: str, path: Path | None) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ResultFileError(f"{path}: '{key}' is {_excerpt(value)}, expected a number")
    number = float(value)  # an integer beyond a float's range raises OverflowError here
    if not math.isfinite(number):
        raise ResultFileError(f"{path}: '{key}' is {value!r}, expected a finite number")
    return number


def _count(data: dict[str, Any], key: str, path: Path | None) -> int | None:
    value = _number(data, key, path)
    if value is not None and value < 0:
        raise ResultFileError(f"{path}: '{key}' is {data[key]!r}, expected a count (0 or more)")
    return None if value is None else int(value)


def _excerpt(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text(data: dict[str, Any], key: str, path: Path | None) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ResultFileError(f"{path}: '{key}' is {_excerpt(value)}, expected a string")


def _check_block(block: dict[str, Any], path: Path | None) -> None:
    """The parts of our `tpotbench` block that summaries read must have their written types."""
    where = f"{path}: tpotbench"
    for key in ("slot_wait_ms", "ttft_first_content_ms", "tokens_per_chunk", "roofline"):
        value = block.get(key)
        if value is not None and not isinstance(value, dict):
            raise ResultFileError(f"{where}.{key} is {_excerpt(value)}, expected an object")
        for stat, number in (value or {}).items() if key != "roofline" else ():
            if number is not None and (
                isinstance(number, bool)
                or not isinstance(number, int | float)
                or not math.isfinite(number)
            ):
                raise ResultFileError(f"{where}.{key}.{stat} is {_excerpt(number)}, not a number")
    failures = block.get("failures")
    if failures is None:
        return
    if not isinstance(failures, list):
        raise ResultFileError(f"{where}.failures is {_excerpt(failures)}, expected a list")
    for i, entry in enumerate(failures):
        if not isinstance(entry, dict):
            raise ResultFileError(f"{where}.failures[{i}] is {_excerpt(entry)}, not an object")
        kind, count = entry.get("kind"), entry.get("count")
        if not isinstance(kind, str):
            raise ResultFileError(f"{where}.failures[{i}] has no 'kind' string")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ResultFileError(f"{where}.failures[{i}].count is {_excerpt(count)}, not a count")
        for key in ("example", "fix", "title"):
            if not isinstance(entry.get(key, ""), str):
                raise ResultFileError(f"{where}.failures[{i}].{key} is not a string")


def _parse_rate(value: Any, path: Path | None) -> float:
    rate: float | None = None
    if value is None:
        return math.inf
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            rate = float(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):
            rate = float(value)
    # "inf" (unlimited) is vLLM's own spelling; NaN or a negative rate is no rate at all.
    if rate is None or not rate > 0:
        raise ResultFileError(f"{path}: request_rate {_excerpt(value)} is not a rate")
    return rate


def point_from_dict(data: Any, path: Path | None = None) -> PointResult:
    """Interpret one result document (ours, vllm bench serve's, or benchmark_serving.py's)."""
    if not isinstance(data, dict):
        raise ResultFileError(f"{path}: expected a JSON object, found {type(data).__name__}")
    if "completed" not in data or "duration" not in data:
        raise ResultFileError(
            f"{path}: not a benchmark result (no 'completed'/'duration'; is this a "
            "vllm bench serve --save-result or tpotbench file?)"
        )
    try:
        return _point_from_dict(data, path)
    except OverflowError:  # an integer too large for a float, e.g. "duration": 1e400 as digits
        raise ResultFileError(f"{path}: a number is too large to be a measurement") from None


def _point_from_dict(data: dict[str, Any], path: Path | None) -> PointResult:
    block = data.get("tpotbench")
    if isinstance(block, dict):
        _check_block(block, path)
        source = "tpotbench"
    elif "failed" in data or "max_concurrent_requests" in data or "endpoint_type" in data:
        source = "vllm"
    else:
        source = "benchmark_serving"
    goodput_key = "request_goodput" if "request_goodput" in data else "request_goodput:"
    completed = _count(data, "completed", path) or 0
    failed = _count(data, "failed", path)
    num_prompts = _count(data, "num_prompts", path)
    if failed is None and num_prompts is not None:
        failed = max(0, num_prompts - completed)  # benchmark_serving.py did not write it
    stats: dict[str, dict[str, float]] = {}
    for key, value in data.items():
        match = _STAT_KEY.match(key)
        # A null figure (no request succeeded) or a foreign value is left out, never guessed.
        if (
            match
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
        ):
            stats.setdefault(match.group(2), {})[match.group(1)] = float(value)
    return PointResult(
        path=path,
        source=source,
        label=data.get("label") if isinstance(data.get("label"), str) else None,
        model_id=_text(data, "model_id", path),
        backend=_text(data, "backend", path) or _text(data, "endpoint_type", path),
        date=_text(data, "date", path),
        request_rate=_parse_rate(data.get("request_rate"), path),
        max_concurrency=_count(data, "max_concurrency", path),
        burstiness=_number(data, "burstiness", path),
        num_prompts=num_prompts,
        completed=completed,
        failed=failed,
        duration_s=_number(data, "duration", path) or 0.0,
        total_input_tokens=_count(data, "total_input_tokens", path),
        total_output_tokens=_count(data, "total_output_tokens", path),
        request_throughput=_number(data, "request_throughput", path),
        request_goodput=_number(data, goodput_key, path),
        output_throughput=_number(data, "output_throughput", path),
        total_token_throughput=_number(data, "total_token_throughput", path),
        max_output_tokens_per_s=_number(data, "max_output_tokens_per_s", path),
        max_concurrent_requests=_count(data, "max_concurrent_requests", path),
        stats=stats,
        tpotbench=block if isinstance(block, dict) else None,
        raw=data,
    )


def _documents(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ResultFileError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as exc:
        raise ResultFileError(f"{path}: cannot read ({exc.strerror})") from None
    decoder = jsonfile.decoder()
    docs: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ResultFileError(
                f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "the file is truncated or corrupt"
            ) from None
        except RecursionError:
            raise ResultFileError(f"{path}: JSON nested too deeply to be a result") from None
        except ValueError as exc:  # NaN/Infinity/1e400, or an integer of thousands of digits
            raise ResultFileError(f"{path}: {str(exc)[:200]}, not a result") from None
        docs.append(doc)
    if not docs:
        raise ResultFileError(f"{path}: the file is empty")
    return docs


def read_points(path: Path) -> list[PointResult]:
    """All results in one file (vLLM's --append-result puts several in one file)."""
    path = Path(path)
    return [point_from_dict(doc, path) for doc in _documents(path)]


def load_result(path: str | Path) -> PointResult:
    points = read_points(Path(path))
    if len(points) != 1:
        raise ResultFileError(
            f"{path}: holds {len(points)} results (written with --append-result); "
            "read it with load_results"
        )
    return points[0]


def _natural_key(path: Path) -> list[Any]:
    # expB_rateinf_conc8 before expB_rateinf_conc16, as a person would list them
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", path.name)]


def result_files(folder: Path) -> list[Path]:
    """A folder's result files in natural name order: *.json without our hidden temp files
    and vLLM's *.pytorch.json side files."""
    return sorted(
        (
            p
            for p in folder.glob("*.json")
            if not p.name.startswith(".")
            and not p.name.endswith(".pytorch.json")
            and p.name not in NOT_POINT_FILES
        ),
        key=_natural_key,
    )


def load_results_skipping(paths: Iterable[str | Path]) -> tuple[list[PointResult], list[str]]:
    """Results from files and folders, and one line per file that could not be read (each
    names the file): one bad file never hides the others."""
    points: list[PointResult] = []
    problems: list[str] = []
    for item in paths:
        item = Path(item)
        if item.is_dir():
            files = result_files(item)
        elif item.exists():
            files = [item]
        else:
            problems.append(f"{item}: no such file or folder")
            continue
        for file in files:
            try:
                points.extend(read_points(file))
            except ResultFileError as exc:
                problems.append(str(exc))
    return points, problems


def load_results(paths: Iterable[str | Path]) -> list[PointResult]:
    """Results from files and folders (a folder: its *.json files in natural name order);
    ResultFileError for the first file that cannot be read."""
    points, problems = load_results_skipping(paths)
    if problems:
        raise ResultFileError(problems[0])
    return points


def sweep_csv_text(points: Sequence[PointResult]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(SUMMARY_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for point in points:
        writer.writerow({k: ("" if v is None else v) for k, v in point.summary_row().items()})
    return buffer.getvalue()


def write_sweep_csv(path: str | Path, points: Sequence[PointResult]) -> Path:
    """sweep.csv: one summary row per point, rewritten atomically after every point."""
    atomic_write_text(Path(path), sweep_csv_text(points))
    return Path(path)
