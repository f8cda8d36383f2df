"""The engine's timing model in virtual time: a benchmark run in milliseconds, no HTTP.

Feeds a workload through the same scheduler and cost model the server uses, with a client
like `vllm bench serve` (arrivals at a rate or all at once, a concurrency cap) and the same
per-request reply-length draws, and reports vLLM's per-request metrics. It shows what the
model itself predicts, apart from HTTP and machine noise; the calibration test uses it.
"""

from __future__ import annotations

import collections
import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.sim.config import SimConfig
from app.sim.scheduler import Scheduler
from app.sim.sequence import Emission, SimRequest
from app.sim.textgen import reply_length
from app.sim.timing import StepCostModel

# (prompt tokens, max_tokens, reply seed) or the same with the prompt's token ids, which
# the prefix cache hashes (without them a request neither hits nor fills the cache).
Workload = Sequence[tuple[int, int, int] | tuple[int, int, int, Sequence[int]]]


class _NullSink:
    def prepare(self, out: Emission) -> None:
        pass

    def flush(self, deadline_ns: int) -> None:
        pass

    def aborted(self, reason: str) -> None:
        pass


@dataclass
class ReplayResult:
    ttft_s: list[float] = field(default_factory=list)
    tpot_s: list[float] = field(default_factory=list)  # requests with more than one token
    output_tokens: list[int] = field(default_factory=list)
    cached_tokens: list[int] = field(default_factory=list)
    ttfo_s: list[float] = field(default_factory=list)  # first answer token (reasoning done)
    order: list[int] = field(default_factory=list)  # workload index of each entry above
    duration_s: float = 0.0
    preemptions: int = 0

    @property
    def request_throughput(self) -> float:
        return len(self.output_tokens) / self.duration_s

    @property
    def output_throughput(self) -> float:
        return sum(self.output_tokens) / self.duration_s


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks, as numpy's default."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def new_engine(config: SimConfig, cost: StepCostModel | None = None) -> Scheduler:
    """An idle engine (scheduler, KV pool, prefix cache) sized as the server sizes it."""
    blocks = (cost or StepCostModel(config)).num_gpu_blocks
    return Scheduler(
        num_gpu_blocks=blocks,
        block_size=config.block_size,
        max_num_seqs=config.max_num_seqs,
        max_num_batched_tokens=config.max_num_batched_tokens,
        enable_prefix_caching=config.enable_prefix_caching,
        num_speculative_tokens=config.num_speculative_tokens,
        spec_acceptance_rate=config.spec_acceptance_rate,
    )


# Long on purpose: one discrete-event loop in virtual time; sending, transit, the engine's
# step and delivery all read and move the same clock, queue and in-flight table.
def replay(
    config: SimConfig,
    workload: Workload,
    *,
    max_concurrency: int,
    request_rate: float = math.inf,
    seed: int = 0,
    transit_s: float = 0.0005,
    send_gap_s: float = 0.00001,
    engine: Scheduler | None = None,
) -> ReplayResult:
    """Run (prompt tokens, max_tokens, reply seed) requests in order, in virtual time.

    The reply seed is `textgen.request_seed(config.seed, prompt text)`, as the server draws it.
    A request reaches the engine `transit_s` after it is sent (client, HTTP and parsing), and
    requests sent together go out `send_gap_s` apart, as from a real client: the engine starts
    its first step with the first request alone, and a request sent when one finishes joins
    the step after next, as it does against the live server.

    `engine` (from `new_engine(config)`) carries one server's state across replays: a run
    after another on the same engine finds the earlier prompts in its prefix cache, as
    benchmark points run back to back against one server do.
    """
    cost = StepCostModel(config)
    frontend_s = config.frontend_us_per_token / 1e6  # the server's stagger within a step
    if engine is None:
        engine = new_engine(config, cost)
    preempted_before = engine.num_preemptions
    arrivals = [0.0] * len(workload)
    if math.isfinite(request_rate):
        rng = random.Random(seed)
        for i in range(1, len(workload)):
            arrivals[i] = arrivals[i - 1] + rng.expovariate(request_rate)
    result = ReplayResult()
    queue: collections.deque[int] = collections.deque()
    sent: dict[SimRequest, tuple[float, list[tuple[float, int]]]] = {}
    in_transit: list[tuple[float, int, SimRequest]] = []  # heap of (arrival at the engine, n, req)
    now, next_arrival, first_send, last_end = 0.0, 0, math.inf, 0.0
    while len(result.output_tokens) < len(workload):
        while next_arrival < len(workload) and arrivals[next_arrival] <= now:
            queue.append(next_arrival)
            next_arrival += 1
        burst = 0
        while queue and len(sent) < max_concurrency:
            index = queue.popleft()
            req = _request(config, workload[index], index)
            sent_at = now + burst * send_gap_s
            heapq.heappush(in_transit, (sent_at + transit_s, index, req))
            sent[req] = (sent_at, [])
            first_send = min(first_send, sent_at)
            burst += 1
        while in_transit and in_transit[0][0] <= now:
            engine.submit(heapq.heappop(in_transit)[2])
        if not engine.running and not engine.waiting:
            upcoming = [in_transit[0][0]] if in_transit else []
            if next_arrival < len(workload):
                upcoming.append(arrivals[next_arrival])
            now = max(now, min(upcoming))
            continue
        outputs, work = engine.plan()
        now += cost.step_seconds(work)
        for turn, req in enumerate(outputs):
            start, times = sent[req]
            times.append((now + turn * frontend_s, req.generated))
            if req.generated >= req.target_tokens:
                del sent[req]
                last_end = max(last_end, _record(result, req, start, times))
    result.duration_s = last_end - first_send
    result.preemptions = engine.num_preemptions - preempted_before
    return result


def _request(
    config: SimConfig,
    entry: tuple[int, int, int] | tuple[int, int, int, Sequence[int]],
    index: int,
) -> SimRequest:
    """The engine's request for one workload entry, its reply length drawn as the server
    draws it (same seed, same EOS model, the client's max_tokens)."""
    prompt, max_tokens, req_seed = entry[:3]
    ids = entry[3] if len(entry) > 3 else None
    target, reason = reply_length(
        random.Random(req_seed),
        max_tokens=max_tokens,
        min_tokens=0,
        ignore_eos=False,
        median=config.eos_median_tokens,
        sigma=config.eos_sigma,
    )
    return SimRequest(
        str(index),
        prompt,
        target,
        reason,
        _NullSink(),
        req_seed,
        prompt_ids=ids,
        reasoning_tokens=round(config.reasoning_share * target),
    )


def _record(
    result: ReplayResult, req: SimRequest, start: float, times: list[tuple[float, int]]
) -> float:
    """Add a finished request's metrics, from its send time and each step's (time, tokens so
    far), with vLLM's definitions; returns when its last token came."""
    first, last = times[0][0], times[-1][0]
    result.ttft_s.append(first - start)
    result.output_tokens.append(req.generated)
    result.order.append(int(req.request_id))
    result.cached_tokens.append(req.cached_tokens)
    answer = next(t for t, n in times if n > req.reasoning_tokens)
    result.ttfo_s.append(answer - start)
    if req.generated > 1:  # vLLM's TPOT: (latency - TTFT) / (tokens - 1)
        result.tpot_s.append((last - first) / (req.generated - 1))
    return last
