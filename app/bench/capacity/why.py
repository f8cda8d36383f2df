"""Why a load is the limit: the cause, the evidence that names it, how sure, and what else fits.

Read from one point's result file: the client's own health (CPU, event-loop lag, send
lateness), the server's /metrics over the point (gauges sampled ~10 times a second; queue,
prefill and decode times and preemptions as exact deltas between the scrapes that bracket the
point), the roofline (decode floor at the point's batch, prefill time at the compute roof) and
the latency statistics, per request too.

Every cause that fits is scored; the strongest is named with a confidence, and a second one
that also fits is the runner-up. Physics first: with a GPU and model known, a cause the
roofline rules out is never named ("prefill" for a TTFT far beyond what a prompt of that
length takes at the compute roof; "bandwidth" when TPOT is nowhere near the floor; a prefill
stall larger than the prompts' prefill can make). With thin evidence the why abstains and
says what is missing: a point stopped early or cancelled is a fragment (never evidence), a
point without /metrics or too short to sample says so.

Each result is a `WhyBlock` (app.bench.schema.point_blocks: the one declaration of what a
point file, search.json and the event stream hold, written with the codec): a cause and its
template parameters; the sentence is rendered in English or Chinese from them (`render`), so
the console, the window and the report say the same thing.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from app.bench.results.request_block import block_column
from app.bench.results.send_lateness import client_send_lateness_ms
from app.bench.schema.point_blocks import (
    ClientBlock,
    Params,
    PointBlocks,
    RooflineBlock,
    ServerMetricsBlock,
    Spread,
    WhyBlock,
    WhyEstimate,
    WhyItem,
)
from app.bench.schema.point_doc import PointDoc, VllmKeys

if TYPE_CHECKING:
    from app.roofline.scenario import Scenario

CLIENT_CPU_SHARE = 0.9  # of one core: a Python client near this cannot keep up
CLIENT_LOOP_LAG_MS = 20.0  # median lateness of the client's 100 ms tick
CLIENT_SEND_LATE_MS = 100.0  # p99 of scheduled sends this late: the arrivals did not happen
KV_FULL = 0.95
QUEUE_MEAN = 0.5  # requests waiting in the server, on average over the point
QUEUE_SHARE = 0.5  # of the mean TTFT spent waiting for a slot in the server
# vLLM's queue-time histogram starts with a 0.3 s bucket: its p99 of all-zero waits reads ~297 ms.
QUEUE_FIRST_BUCKET_MS = 300.0
NEAR_FLOOR = 1.6  # TPOT p50 within this factor of the roofline floor: the hardware's limit
BELOW_FLOOR = 0.8  # TPOT this far under the floor: the roofline's GPU or model is not this one
ITL_SPIKE = 3.0  # ITL p99 / median at or above this: steps stretched by prefill chunks
# The slowest a real prefill runs against the compute roof (small GEMMs, attention, launch
# gaps); with a step's overhead and one decode step around it, a TTFT or ITL spike beyond
# that is not prefill.
MIN_PREFILL_EFFICIENCY = 0.25
STEP_SLACK_MS = 25.0
# Evidence enough to name a cause: finished requests and /metrics samples in the point.
MIN_REQUESTS = 8
MIN_SAMPLES = 5
SOLID_REQUESTS = 16
SOLID_SAMPLES = 10
RUNNER_UP_GAP = 0.25  # a second cause this close in strength is named as the runner-up

# key: (English, 简体中文); placeholders are str.format names filled from `params`.
TEMPLATES: dict[str, tuple[str, str]] = {
    "client": (
        "The client is the limit, not the server: TPOT Bench used {cpu:.0%} of a CPU core, "
        "its event loop ran {lag:.0f} ms late (median) and sends were {late:.0f} ms late "
        "(p99), so its timestamps and its load are at risk; use a faster machine or fewer "
        "concurrent streams per process (--workers).",
        "瓶颈在客户端而不是服务端：TPOT Bench 占用了 {cpu:.0%} 个 CPU 核心，事件循环延迟 "
        "{lag:.0f} ms（中位数），请求发送延迟 {late:.0f} ms（p99），其时间戳和负载都不可信；"
        "请换更快的机器，或减少每个进程的并发流（--workers）。",
    ),
    "kv": (
        "The KV cache is full: usage peaked at {kv:.0%} with {preemptions:g} preemptions in "
        "this point, so the server evicts and recomputes requests; more KV memory (FP8 KV "
        "cache, higher --gpu-memory-utilization) or shorter contexts move the limit.",
        "KV 缓存已满：使用率峰值 {kv:.0%}，本测试点内发生 {preemptions:g} 次抢占，服务端"
        "不断驱逐并重算请求；增加 KV 显存（FP8 KV 缓存、提高 --gpu-memory-utilization）"
        "或缩短上下文才能移动这个极限。",
    ),
    "queue": (
        "Requests queue inside the server: {queue_ms:.0f} ms of the {ttft_ms:.0f} ms mean "
        "TTFT was spent waiting for a slot ({waiting:.1f} waiting on average, peak {peak:g}, "
        "while {running:.0f} ran); the scheduler's limit ({limit}) or the KV cache "
        "caps the batch.",
        "请求在服务端排队：平均 TTFT {ttft_ms:.0f} ms 中有 {queue_ms:.0f} ms 在等待调度槽位"
        "（平均 {waiting:.1f} 个在等待，峰值 {peak:g}，同时 {running:.0f} 个在运行）；调度器"
        "上限（{limit}）或 KV 缓存限制了批大小。",
    ),
    "bandwidth": (
        "Decode is bandwidth-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is "
        "×{ratio:.2f} the roofline floor of {floor:.1f} ms (MBU {mbu:.0%}); only faster memory "
        "or fewer bytes per step (smaller weights, FP8 KV) move it.",
        "解码受显存带宽限制：批大小 {batch:.0f} 时 TPOT p50 {tpot:.1f} ms，是屋顶线下限 "
        "{floor:.1f} ms 的 ×{ratio:.2f}（MBU {mbu:.0%}）；只有更快的显存或每步更少的字节"
        "（更小的权重、FP8 KV）能移动它。",
    ),
    "compute": (
        "Decode is compute-bound: TPOT p50 {tpot:.1f} ms at batch {batch:.0f} is ×{ratio:.2f} "
        "the roofline floor of {floor:.1f} ms, which the GPU's FLOP/s set at this batch; a "
        "smaller batch or a faster GPU moves it.",
        "解码受算力限制：批大小 {batch:.0f} 时 TPOT p50 {tpot:.1f} ms，是屋顶线下限 "
        "{floor:.1f} ms 的 ×{ratio:.2f}，该下限由 GPU 在此批大小下的 FLOP/s 决定；更小的批"
        "或更快的 GPU 能移动它。",
    ),
    "chunked_prefill": (
        "Decode steps are stalled by prefill: ITL p99 {itl_p99:.0f} ms is ×{ratio:.1f} the "
        "median {itl_p50:.1f} ms, as {prompt:.0f}-token prompts (prefill {roof:.0f} ms each at "
        "the compute roof) share steps with running decodes; a smaller "
        "--max-num-batched-tokens evens it out.",
        "解码步被预填充阻塞：ITL p99 {itl_p99:.0f} ms 是中位数 {itl_p50:.1f} ms 的 "
        "×{ratio:.1f}，因为 {prompt:.0f} token 的提示（按算力屋顶每个预填充 {roof:.0f} ms）"
        "与正在解码的请求共用步；减小 --max-num-batched-tokens 可以使其平稳。",
    ),
    "prefill": (
        "TTFT is spent in prefill: p50 {ttft_p50:.0f} ms (p99 {ttft_p99:.0f} ms) for "
        "{prompt:.0f}-token prompts, {roof:.0f} ms each at the compute roof, with {queue_ms:.0f} "
        "ms of queueing; shorter prompts, prefix caching or a faster GPU lower it.",
        "TTFT 花在预填充上：{prompt:.0f} token 的提示 p50 {ttft_p50:.0f} ms（p99 "
        "{ttft_p99:.0f} ms），按算力屋顶每个 {roof:.0f} ms，排队仅 {queue_ms:.0f} ms；更短的"
        "提示、前缀缓存或更快的 GPU 能降低它。",
    ),
    "unknown": (
        "Nothing in the evidence explains it: {failed} is over its limit, yet the server "
        "queued {queue_ms:.0f} ms of TTFT, the KV cache peaked at {kv:.0%} with {preemptions:g} "
        "preemptions, and ITL p99 is ×{spread:.1f} its median; look outside the engine "
        "(network, a proxy, the host) or measure again (--runs 3).",
        "现有证据都解释不了：{failed} 超出限制，但服务端排队仅占 TTFT {queue_ms:.0f} ms，"
        "KV 缓存峰值 {kv:.0%}、抢占 {preemptions:g} 次，ITL p99 为中位数的 ×{spread:.1f}；"
        "请检查引擎之外（网络、代理、主机），或再测几次（--runs 3）。",
    ),
    "abstain": (
        "Not enough evidence to say why {failed} fails: {missing}.",
        "证据不足，无法判断 {failed} 失败的原因：{missing}。",
    ),
}

# The setting that caps the running batch, per server (serverstats' kind, read from the
# /metrics names): vLLM's --max-num-seqs, SGLang's --max-running-requests, llama.cpp's slots
# (--parallel), TGI's --max-batch-size; an exporter not recognised gets no flag of another's.
BATCH_LIMITS: dict[str, tuple[str, str]] = {
    "vllm": ("--max-num-seqs", "--max-num-seqs"),
    "vllm-legacy": ("--max-num-seqs", "--max-num-seqs"),
    "sglang": ("--max-running-requests", "--max-running-requests"),
    "llamacpp": ("--parallel, its slots", "--parallel，即槽位数"),
    "tgi": ("--max-batch-size", "--max-batch-size"),
    "unknown": ("its limit on running requests", "其运行请求数上限"),
}

# What is missing when the why abstains, or what would make it surer.
MISSING: dict[str, tuple[str, str]] = {
    "metrics": (
        "the server's /metrics were not read (--scrape-metrics){error}",
        "未读取服务端 /metrics（--scrape-metrics）{error}",
    ),
    "short": (
        "this point ran {seconds:.1f} s with {completed:.0f} finished requests and {samples:.0f} "
        "/metrics samples; measure it longer (more requests: --num-prompts, or --min-prompts "
        "in a search)",
        "该测试点只运行了 {seconds:.1f} 秒，完成 {completed:.0f} 个请求，采到 {samples:.0f} 个 "
        "/metrics 样本；请测得更久（更多请求：--num-prompts，搜索时用 --min-prompts）",
    ),
    "early_stop": (
        "this point was stopped early after {completed:.0f} of {total:.0f} requests ({reason}); "
        "a fragment is not evidence, measure the load in full (--no-early-stop)",
        "该测试点在 {total:.0f} 个请求中完成 {completed:.0f} 个后被提前停止（{reason}）；"
        "片段不能作为证据，请完整测量该负载（--no-early-stop）",
    ),
    "cancelled": (
        "this point was cancelled after {completed:.0f} of {total:.0f} requests",
        "该测试点在 {total:.0f} 个请求中完成 {completed:.0f} 个后被取消",
    ),
    "no_success": (
        "no request succeeded, so there is no latency to explain",
        "没有请求成功，没有可解释的延迟",
    ),
    "gpu": (
        "set the roofline (--gpu, --roofline-model) to check the cause against physics",
        "设置屋顶线（--gpu、--roofline-model）以按物理规律核对原因",
    ),
}

CAUSE_NAMES: dict[str, tuple[str, str]] = {
    "client": ("the client", "客户端"),
    "kv": ("the KV cache", "KV 缓存"),
    "queue": ("the server's queue", "服务端排队"),
    "bandwidth": ("memory bandwidth", "显存带宽"),
    "compute": ("compute", "算力"),
    "chunked_prefill": ("prefill stalls", "预填充阻塞"),
    "prefill": ("prefill", "预填充"),
}

# Why the roofline rules a cause out, per cause.
RULED_OUT: dict[str, tuple[str, str]] = {
    "prefill": (
        "prefill (a {prompt:.0f}-token prompt takes {roof:.1f} ms at the compute roof; "
        "{seen:.0f} ms of TTFT outside the queue is not prefill)",
        "预填充（按算力屋顶，{prompt:.0f} token 的提示只需 {roof:.1f} ms；队列之外的 "
        "{seen:.0f} ms TTFT 不可能是预填充）",
    ),
    "chunked_prefill": (
        "prefill stalls ({prompt:.0f}-token prompts take {roof:.1f} ms at the compute roof, "
        "too little for {seen:.0f} ms spikes)",
        "预填充阻塞（{prompt:.0f} token 的提示按算力屋顶只需 {roof:.1f} ms，不足以造成 "
        "{seen:.0f} ms 的尖峰）",
    ),
    "decode_floor": (
        "the decode floor (TPOT p50 {tpot:.1f} ms is ×{ratio:.1f} the roofline's {floor:.1f} ms)",
        "解码下限（TPOT p50 {tpot:.1f} ms 是屋顶线 {floor:.1f} ms 的 ×{ratio:.1f}）",
    ),
    "below_floor": (
        "the roofline itself (TPOT p50 {tpot:.1f} ms is below its floor of {floor:.1f} ms: "
        "its GPU or model is not the server's)",
        "屋顶线本身（TPOT p50 {tpot:.1f} ms 低于其下限 {floor:.1f} ms：所选 GPU 或模型与"
        "服务端不符）",
    ),
}

FRAMES: dict[str, tuple[str, str]] = {
    "confidence": ("Confidence: {level}.", "置信度：{level}。"),
    "runner_up": ("Runner-up: {name}.", "次要原因：{name}。"),
    "ruled_out": ("Ruled out by the roofline: {items}.", "屋顶线排除：{items}。"),
    "surer": ("Surer with: {items}.", "补充以下证据会更确定：{items}。"),
    "estimate": (
        "Estimate from the roofline, not a measurement: {fmt} weights lower the floor at "
        "batch {batch:.0f} from {floor:.1f} to {new_floor:.1f} ms; the bandwidth-bound part "
        "of the limit would move by about ×{gain:.1f}.",
        "屋顶线估算而非实测：{fmt} 权重可把批大小 {batch:.0f} 时的下限从 {floor:.1f} ms "
        "降到 {new_floor:.1f} ms；受带宽限制的部分约可改善 ×{gain:.1f}。",
    ),
    # The floor the estimate starts from is the catalogue's at the same batch; a file whose
    # recorded floor differs (an older catalogue, a hand-made point) says both, not two
    # different "floors" one sentence apart.
    "estimate_recorded": (
        "Estimate from the roofline, not a measurement: at batch {batch:.0f} the catalogue's "
        "floor is {floor:.1f} ms (this point recorded {recorded:.1f} ms); {fmt} weights lower "
        "it to {new_floor:.1f} ms; the bandwidth-bound part of the limit would move by about "
        "×{gain:.1f}.",
        "屋顶线估算而非实测：批大小 {batch:.0f} 时目录中的下限为 {floor:.1f} ms（此测量点记录的是 "
        "{recorded:.1f} ms）；{fmt} 权重可把它降到 {new_floor:.1f} ms；受带宽限制的部分约可改善 "
        "×{gain:.1f}。",
    ),
}
LEVELS: dict[str, tuple[str, str]] = {
    "high": ("high", "高"),
    "medium": ("medium", "中"),
    "low": ("low", "低"),
    "none": ("none", "无"),
}
SEPARATOR = ("; ", "；")


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[1] if lang == "zh_CN" else pair[0]


def why_block(
    cause: str,
    params: Params,
    evidence: Params,
    estimate: WhyEstimate | None = None,
    confidence: str = "medium",
    runner_up: str | None = None,
    missing: Sequence[WhyItem] = (),
    ruled_out: Sequence[WhyItem] = (),
) -> WhyBlock:
    """A why with its sentence in English and Chinese (`text`, `text_zh`: what a reader of
    another version, or a tool that does not render, shows)."""
    why = WhyBlock(
        cause, confidence, runner_up, params, evidence, estimate, tuple(missing), tuple(ruled_out)
    )
    return replace(why, text=render(why, "en"), text_zh=render(why, "zh_CN"))


def _items(rows: Sequence[WhyItem], table: Mapping[str, tuple[str, str]], lang: str) -> list[str]:
    return [_pick(table[row.key], lang).format(**row.params) for row in rows if row.key in table]


def _estimate_sentence(estimate: WhyEstimate, recorded: object, lang: str) -> str:
    """The estimate's sentence; when the floor the cause named (the point's recorded one)
    does not read as the floor the estimate starts from, both are named as what they are."""
    figures = vars(estimate)
    if isinstance(recorded, int | float) and f"{recorded:.1f}" != f"{estimate.floor:.1f}":
        return _pick(FRAMES["estimate_recorded"], lang).format(**figures, recorded=recorded)
    return _pick(FRAMES["estimate"], lang).format(**figures)


def render(why: WhyBlock | None, lang: str = "en") -> str:
    """The sentence of a why (as result and search files hold it) in 'en' or 'zh_CN'; a file
    from another version falls back to its stored English."""
    if why is None:
        return ""
    key = why.cause
    try:
        if key not in TEMPLATES:
            raise KeyError(key)
        params = dict(why.params)
        sep = _pick(SEPARATOR, lang)
        if key == "abstain":
            params["missing"] = sep.join(_items(why.missing, MISSING, lang))
        if key == "queue":  # files written before the server's kind was kept are vLLM's
            server = params.get("server")
            limits = BATCH_LIMITS.get(server if isinstance(server, str) else "vllm")
            params["limit"] = _pick(limits or BATCH_LIMITS["unknown"], lang)
        parts = [_pick(TEMPLATES[key], lang).format(**params)]
        if why.estimate is not None:
            parts.append(_estimate_sentence(why.estimate, params.get("floor"), lang))
        level = why.confidence
        if key != "abstain" and level in LEVELS:
            parts.append(_pick(FRAMES["confidence"], lang).format(level=_pick(LEVELS[level], lang)))
        runner = why.runner_up
        if runner is not None and runner in CAUSE_NAMES:
            parts.append(
                _pick(FRAMES["runner_up"], lang).format(name=_pick(CAUSE_NAMES[runner], lang))
            )
        ruled = _items(why.ruled_out, RULED_OUT, lang)
        if ruled:
            parts.append(_pick(FRAMES["ruled_out"], lang).format(items=sep.join(ruled)))
        if key != "abstain":
            surer = _items(why.missing, MISSING, lang)
            if surer:
                parts.append(_pick(FRAMES["surer"], lang).format(items=sep.join(surer)))
    except (KeyError, ValueError, TypeError, IndexError):
        return why.text or ""
    return (" " if lang != "zh_CN" else "").join(parts)


# --- reading a result ------------------------------------------------------------------------


def _num(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _spread(item: Spread | None) -> tuple[float | None, float | None]:
    return (None, None) if item is None else (_num(item.mean), _num(item.max))


def _phase_mean(server: ServerMetricsBlock, key: str) -> float | None:
    item = server.phase(key)
    return _num(item.mean) if item is not None else None


def _scenario(roofline: RooflineBlock) -> tuple[Scenario, int]:
    """The point's roofline scenario and its batch, from a result's roofline block (KeyError
    when the block does not name a GPU, model and formats)."""
    from app.roofline.scenario import Scenario

    ids = roofline.ids
    if ids is None:
        raise KeyError("the roofline block names no GPU and model")
    return Scenario.from_ids(*ids), max(1, round(float(roofline.batch or 1)))


def prefill_roof_ms(roofline: RooflineBlock | None, prompt_tokens: float) -> float | None:
    """How long a prefill of `prompt_tokens` takes at the roofline (compute roof, or the
    weights' read for a short prompt); None without a GPU and model."""
    from app.roofline.decode_step import prefill_floor

    if roofline is None or prompt_tokens <= 0:
        return None
    with contextlib.suppress(Exception):  # a catalogue that no longer knows the ids
        scenario, _ = _scenario(roofline)
        floor = prefill_floor(scenario.gpu, scenario.model, scenario.fmt, round(prompt_tokens))
        return floor.seconds * 1e3
    return None


def prefill_compute_ms(roofline: RooflineBlock | None, prompt_tokens: float) -> float | None:
    """The FLOPs of a prefill of `prompt_tokens` at the GPU's peak: what those tokens add to a
    decode step they join (the weights are read for the step anyway)."""
    from app.roofline.decode_step import prefill_floor

    if roofline is None or prompt_tokens <= 0:
        return None
    with contextlib.suppress(Exception):
        scenario, _ = _scenario(roofline)
        floor = prefill_floor(scenario.gpu, scenario.model, scenario.fmt, round(prompt_tokens))
        return floor.compute_s * 1e3
    return None


def int4_estimate(roofline: RooflineBlock | None, fmt: str = "awq-int4") -> WhyEstimate | None:
    """The floor at the point's batch with INT4 weights instead (roofline only)."""
    from app.roofline.catalog import get_weight_format

    if roofline is None or roofline.fmt == fmt:
        return None
    with contextlib.suppress(Exception):  # a context the catalogue no longer knows
        scenario, batch = _scenario(roofline)
        floor = scenario.floor(batch).seconds * 1e3
        new = replace(scenario, fmt=get_weight_format(fmt)).floor(batch).seconds * 1e3
        return WhyEstimate("INT4 (AWQ)", batch, floor, new, floor / new)
    return None


def _bound(roofline: RooflineBlock | None) -> str:
    """'memory' or 'compute': which roof the floor at the point's batch sits on."""
    if roofline is None:
        return "memory"
    with contextlib.suppress(Exception):
        scenario, batch = _scenario(roofline)
        return scenario.floor(batch).bound
    return "memory"


@dataclass
class _Candidate:
    key: str
    strength: float  # 0..1: how squarely the evidence names it
    params: Params
    estimate: WhyEstimate | None = None


class _Steps(NamedTuple):
    """The client's view of a queue (`_Point.ttft_steps`)."""

    growth: float  # median TTFT over the lowest
    steps: float  # that gap in service times


_NO_SERVER = ServerMetricsBlock()


@dataclass
class _Point:
    """The figures of one result the rules read, each None when the document lacks it."""

    doc: PointDoc
    head: VllmKeys = field(init=False)
    blocks: PointBlocks = field(init=False)
    server: ServerMetricsBlock = field(init=False)  # empty without /metrics
    roofline: RooflineBlock | None = field(init=False)

    def __post_init__(self) -> None:
        self.head = self.doc.vllm
        self.blocks = self.doc.typed_blocks
        self.server = self.blocks.server_metrics or _NO_SERVER
        self.roofline = self.blocks.roofline

    def stat(self, metric: str, which: str) -> float | None:
        key = {"p50": "median"}.get(which, which)
        return _num(self.doc.stats.get(f"{key}_{metric}_ms"))

    @property
    def completed(self) -> float:
        return _num(self.head.completed) or 0.0

    @property
    def total(self) -> float:
        return _num(self.head.num_prompts) or self.completed

    @property
    def prompt(self) -> float:
        return (_num(self.head.total_input_tokens) or 0.0) / max(1.0, self.completed)

    @property
    def seconds(self) -> float:
        return _num(self.head.duration) or 0.0

    @property
    def samples(self) -> float:
        return _num(self.server.samples) or 0.0

    @property
    def metrics_ok(self) -> bool:
        return self.server != _NO_SERVER and not self.server.error

    @property
    def gpu_known(self) -> bool:
        return bool(self.roofline and self.roofline.gpu_id and self.roofline.model_id)

    @property
    def queue_ms(self) -> float | None:
        """Mean time a request waited in the server for a slot, from the point's histogram
        delta; else from the waiting gauge by Little's law (waiting / request throughput)."""
        found = _phase_mean(self.server, "queue")
        if found is not None:
            return found
        wait_mean, _ = _spread(self.server.waiting)
        rate = _num(self.head.request_throughput)
        if wait_mean is not None and rate:
            return wait_mean / rate * 1e3
        return None

    def ttft_steps(self) -> _Steps | None:
        """The client's view of a queue: the median TTFT over the lowest (the first wave
        meets free slots) and how many service times (a request's decode) that gap is."""
        ttft_ms, e2el_ms = block_column(self.doc, "ttft_ms"), block_column(self.doc, "e2el_ms")
        if ttft_ms is None or e2el_ms is None:
            return None
        ttfts = [t for t in ttft_ms if t is not None]
        if len(ttfts) < MIN_REQUESTS or len(e2el_ms) != len(ttft_ms) or None in e2el_ms:
            return None
        pairs = [
            (t, e) for t, e in zip(ttft_ms, e2el_ms, strict=True) if t is not None and e is not None
        ]
        lowest, median = min(t for t, _ in pairs), statistics.median(t for t, _ in pairs)
        service = statistics.median(e - t for t, e in pairs)
        if lowest <= 0 or service <= 0:
            return None
        return _Steps(median / lowest, (median - lowest) / service)


def _client(p: _Point) -> _Candidate | None:
    client = p.blocks.client or ClientBlock()
    cpu = _num(client.cpu_share) or 0.0
    lag = _num(client.loop_lag_ms.median if client.loop_lag_ms else None) or 0.0
    late = client_send_lateness_ms(p.head.max_concurrency, p.blocks) or 0.0
    hits = (cpu >= CLIENT_CPU_SHARE) + (lag >= CLIENT_LOOP_LAG_MS) + (late >= CLIENT_SEND_LATE_MS)
    if not hits:
        return None
    return _Candidate(
        "client", 0.8 + 0.1 * min(2, hits - 1), {"cpu": cpu, "lag": lag, "late": late}
    )


def _kv(p: _Point) -> _Candidate | None:
    _, kv_peak = _spread(p.server.kv_cache_usage)
    preemptions = _num(p.server.preemptions) or 0.0
    if preemptions > 0 and (kv_peak or 0.0) >= 0.9:
        # Full and evicting: the queue that forms is the KV cache's, not the scheduler's.
        strength = 0.97
    elif preemptions > 0:
        strength = 0.7
    elif (kv_peak or 0.0) >= KV_FULL:
        strength = 0.6  # full but nothing evicted yet: it caps admissions, the queue shows it
    else:
        return None
    return _Candidate("kv", strength, {"kv": kv_peak or 0.0, "preemptions": preemptions})


def _queue(p: _Point) -> _Candidate | None:
    wait_mean, wait_peak = _spread(p.server.waiting)
    run_mean, _ = _spread(p.server.running)
    ttft_mean = p.stat("ttft", "mean")
    queue_ms = p.queue_ms
    share = queue_ms / ttft_mean if queue_ms is not None and ttft_mean else None
    steps = p.ttft_steps()
    strength = 0.0
    if share is not None and share < QUEUE_SHARE:
        # Requests waited, but the waits are not where the TTFT went: at most a runner-up.
        strength = 0.5 if (wait_mean or 0.0) >= QUEUE_MEAN else 0.0
    else:
        if share is not None:
            strength = 0.75
        if (wait_mean or 0.0) >= QUEUE_MEAN:
            strength = max(strength, 0.6) + 0.1
        if strength and steps is not None and steps.steps >= 0.5 and steps.growth >= 2:
            strength += 0.1  # the client sees the waves too: TTFT steps up by service times
    if not strength:
        return None
    params: Params = {
        "queue_ms": queue_ms or 0.0,
        "ttft_ms": ttft_mean or 0.0,
        "waiting": wait_mean or 0.0,
        "peak": wait_peak or 0.0,
        "running": run_mean or 0.0,
        "server": str(p.server.server or "unknown"),
    }
    if steps is not None:
        params["ttft_growth"], params["service_steps"] = steps.growth, steps.steps
    return _Candidate("queue", min(0.95, strength), params)


def _prefill(p: _Point, ruled: list[WhyItem]) -> _Candidate | None:
    """TTFT spent in prefill, if the prompts are long enough for it: the time outside the
    server's queue must fit what a prefill of those prompts (batched with the running ones,
    at the slowest real efficiency, plus a decode step) can take at the compute roof."""
    ttft50, ttft99 = p.stat("ttft", "p50"), p.stat("ttft", "p99")
    if ttft50 is None or ttft99 is None:
        return None
    queue_ms = p.queue_ms or 0.0
    # The tail is what fails an SLO: the p99 TTFT outside the server's p99 queue wait. The
    # histogram's p99 is used only when the mean shows waits of its order (its first bucket
    # is 300 ms: all-zero waits interpolate to ~297 ms). Without a usable p99 (no histogram,
    # a queue from the waiting gauge; or only a +Inf bucket, a p99 under the mean) the waits'
    # tail is taken to stretch as TTFT's does: the most of the p99 a queue could hold.
    queue = p.server.phase("queue")
    queue_tail = _num(queue.p99) if queue is not None else None
    if queue_tail is None or queue_tail < queue_ms:
        queue_tail = queue_ms * (ttft99 / ttft50) if ttft50 > 0 else queue_ms
    elif queue_tail <= QUEUE_FIRST_BUCKET_MS and queue_ms < 0.3 * queue_tail:
        # Only inside the first bucket: a real queue's tail is often several times its mean
        # (mean 346 ms, p99 ~1.3 s at 4 slots), and taking the mean then called 1.27 s of
        # queueing "TTFT outside the queue".
        queue_tail = queue_ms
    seen = max(ttft50 - queue_ms, ttft99 - queue_tail, 0.0)
    params = {"ttft_p50": ttft50, "ttft_p99": ttft99, "prompt": p.prompt, "queue_ms": queue_ms}
    roof = prefill_roof_ms(p.roofline, p.prompt)
    if roof is None:
        # Unchecked against physics: named only weakly, and only with no queue to explain it.
        return _Candidate("prefill", 0.3, {**params, "roof": 0.0}) if queue_ms < seen else None
    run_mean, _ = _spread(p.server.running)
    together = prefill_roof_ms(p.roofline, p.prompt * max(1.0, run_mean or 1.0)) or roof
    step = p.stat("tpot", "p50") or 0.0
    most = together / MIN_PREFILL_EFFICIENCY + step + STEP_SLACK_MS
    if seen > most:
        ruled.append(WhyItem("prefill", {"prompt": p.prompt, "roof": roof, "seen": seen}))
        return None
    prefill_ms = _phase_mean(p.server, "prefill")
    mean = p.stat("ttft", "mean") or ttft50
    if prefill_ms is not None:
        if not mean or prefill_ms / mean < 0.5:
            return None  # the server timed its prefills: they are not where TTFT went
        strength = 0.8
    elif queue_ms < seen and roof >= 0.2 * ttft50:
        strength = 0.55  # long prompts and no queue, though the server does not time prefill
    else:
        return None
    return _Candidate("prefill", strength, {**params, "roof": roof})


def _decode_floor(p: _Point, ruled: list[WhyItem]) -> _Candidate | None:
    tpot50 = p.stat("tpot", "p50")
    floor = _num(p.roofline.floor_tpot_ms) if p.roofline is not None else None
    if not tpot50 or not floor or p.roofline is None:
        return None
    ratio = tpot50 / floor
    params: Params = {"tpot": tpot50, "floor": floor, "ratio": ratio}
    if ratio < BELOW_FLOOR:
        ruled.append(WhyItem("below_floor", params))
        return None
    if ratio > NEAR_FLOOR:
        ruled.append(WhyItem("decode_floor", params))
        return None
    key = "bandwidth" if _bound(p.roofline) == "memory" else "compute"
    params = {
        **params,
        "batch": _num(p.roofline.batch) or 1.0,
        "mbu": _num(p.roofline.mbu) or 0.0,
    }
    estimate = int4_estimate(p.roofline) if key == "bandwidth" else None
    return _Candidate(key, 0.9 if ratio <= 1.3 else 0.7, params, estimate)


def _prefill_stall(p: _Point, ruled: list[WhyItem]) -> _Candidate | None:
    itl50, itl99 = p.stat("itl", "p50"), p.stat("itl", "p99")
    if not itl50 or not itl99 or itl99 < ITL_SPIKE * itl50:
        return None
    params = {"itl_p99": itl99, "itl_p50": itl50, "ratio": itl99 / itl50, "prompt": p.prompt}
    roof = prefill_compute_ms(p.roofline, p.prompt)
    if roof is None:
        return _Candidate("chunked_prefill", 0.4, {**params, "roof": 0.0})
    # A step a prefill joins grows by the prompt's FLOPs (its weights are read anyway): a
    # p99 spike comes from one or two prompts, at the slowest real efficiency.
    excess = itl99 - itl50
    if excess > 2 * roof / MIN_PREFILL_EFFICIENCY:
        ruled.append(WhyItem("chunked_prefill", {"prompt": p.prompt, "roof": roof, "seen": excess}))
        return None
    return _Candidate("chunked_prefill", 0.8, {**params, "roof": roof})


def _abstain(failed: str, missing: WhyItem, evidence: Params) -> WhyBlock:
    return why_block("abstain", {"failed": failed}, evidence, confidence="none", missing=[missing])


def _gate(p: _Point, failed: str, evidence: Params) -> WhyBlock | None:
    """An abstention when the point cannot carry a why: a fragment, nothing finished, or
    (with no client cause) too few requests or samples."""
    stop = p.blocks.early_stop
    counts: Params = {"completed": p.completed, "total": p.total}
    if stop is not None:
        reason = stop.reason or "an SLO already failed"
        return _abstain(failed, WhyItem("early_stop", {**counts, "reason": reason}), evidence)
    if p.blocks.cancelled:
        return _abstain(failed, WhyItem("cancelled", counts), evidence)
    if p.completed <= 0:
        return _abstain(failed, WhyItem("no_success"), evidence)
    return None


def explain(doc: PointDoc, failed: Sequence[str] | None = None) -> WhyBlock:
    """The cause of a point's latency, from its result document. `failed` names the SLO checks it
    failed ('tpot:p99:50' ...) and decides which causes can apply (a server queue delays the
    first token, not the decoding of running requests); without it TPOT then TTFT."""
    p = _Point(doc)
    failed_text = ", ".join(failed or []) or "latency"
    metrics = {label.split(":")[0] for label in failed or []} or {"tpot", "ttft"}
    evidence = _evidence(p)
    gated = _gate(p, failed_text, evidence)
    if gated is not None:
        return gated
    client = _client(p)  # its numbers are then at risk, so nothing else can be trusted
    if client is not None:
        return _named([client], [], [], evidence)
    missing: list[WhyItem] = []
    if not p.metrics_ok:
        error = p.server.error or ""
        error = f" ({error})" if error else ""
        return _abstain(failed_text, WhyItem("metrics", {"error": error}), evidence)
    if p.completed < MIN_REQUESTS or p.samples < MIN_SAMPLES:
        short: Params = {"seconds": p.seconds, "completed": p.completed, "samples": p.samples}
        return _abstain(failed_text, WhyItem("short", short), evidence)
    if not p.gpu_known:
        missing.append(WhyItem("gpu"))
    ruled: list[WhyItem] = []
    found: list[_Candidate | None] = [_kv(p)]
    if metrics & {"ttft", "e2el"}:
        found += [_queue(p), _prefill(p, ruled)]
    if metrics & {"tpot", "itl", "e2el"}:
        found += [_decode_floor(p, ruled), _prefill_stall(p, ruled)]
    candidates = sorted((c for c in found if c is not None), key=lambda c: -c.strength)
    if not candidates:
        _, kv_peak = _spread(p.server.kv_cache_usage)
        itl50, itl99 = p.stat("itl", "p50"), p.stat("itl", "p99")
        params: Params = {
            "failed": failed_text,
            "queue_ms": p.queue_ms or 0.0,
            "kv": kv_peak or 0.0,
            "preemptions": _num(p.server.preemptions) or 0.0,
            "spread": (itl99 / itl50) if itl50 and itl99 else 1.0,
        }
        level = "medium" if p.gpu_known else "low"
        return why_block("unknown", params, evidence, None, level, None, missing, ruled)
    return _named(candidates, ruled, missing, evidence, thin=_thin(p))


def _thin(p: _Point) -> bool:
    return p.completed < SOLID_REQUESTS or p.samples < SOLID_SAMPLES


def _named(
    candidates: list[_Candidate],
    ruled: list[WhyItem],
    missing: list[WhyItem],
    evidence: Params,
    thin: bool = False,
) -> WhyBlock:
    best = candidates[0]
    runner = next(
        (
            c
            for c in candidates[1:]
            if c.key != best.key and best.strength - c.strength <= RUNNER_UP_GAP
        ),
        None,
    )
    level = "high" if best.strength >= 0.8 else "medium" if best.strength >= 0.55 else "low"
    if runner is not None or thin or missing:
        level = {"high": "medium", "medium": "low"}.get(level, level)
    return why_block(
        best.key,
        best.params,
        {**evidence, **{f"{best.key}.{k}": v for k, v in best.params.items()}},
        best.estimate,
        level,
        runner.key if runner is not None else None,
        missing,
        ruled,
    )


def _evidence(p: _Point) -> Params:
    """The figures the rules read, flat, for the file and the report."""
    kv_mean, kv_peak = _spread(p.server.kv_cache_usage)
    wait_mean, wait_peak = _spread(p.server.waiting)
    run_mean, run_peak = _spread(p.server.running)
    client = p.blocks.client or ClientBlock()
    wait = p.blocks.slot_wait_ms or {}
    out: Params = {
        "completed": p.completed,
        "requests": p.total,
        "duration_s": p.seconds,
        "metrics_samples": p.samples if p.metrics_ok else None,
        "metrics_window_s": _num(p.server.window_s),
        "kv_peak": kv_peak,
        "kv_mean": kv_mean,
        "preemptions": _num(p.server.preemptions),
        "waiting_mean": wait_mean,
        "waiting_peak": wait_peak,
        "running_mean": run_mean,
        "running_peak": run_peak,
        "queue_ms_mean": p.queue_ms,
        "server_prefill_ms_mean": _phase_mean(p.server, "prefill"),
        "server_decode_ms_mean": _phase_mean(p.server, "decode"),
        "ttft_p50_ms": p.stat("ttft", "p50"),
        "ttft_p99_ms": p.stat("ttft", "p99"),
        "tpot_p50_ms": p.stat("tpot", "p50"),
        "itl_p50_ms": p.stat("itl", "p50"),
        "itl_p99_ms": p.stat("itl", "p99"),
        "prompt_tokens": round(p.prompt, 1),
        "floor_tpot_ms": _num(p.roofline.floor_tpot_ms) if p.roofline is not None else None,
        "client_cpu_share": _num(client.cpu_share),
        "client_loop_lag_ms": _num(client.loop_lag_ms.median) if client.loop_lag_ms else None,
        "send_lateness_p99_ms": client_send_lateness_ms(p.head.max_concurrency, p.blocks),
        "client_slot_wait_ms_mean": _num(wait.get("mean")),
    }
    steps = p.ttft_steps()
    if steps is not None:
        out["ttft_growth"], out["ttft_service_steps"] = steps.growth, steps.steps
    return {k: v for k, v in out.items() if v is not None}
