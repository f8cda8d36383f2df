"""The simulated vLLM engine: continuous batching with chunked prefill, KV blocks, preemption.

One asyncio task runs steps back to back. A step is planned at its start (which sequences
decode, which prompts prefill, how many KV blocks that takes), its duration comes from the
roofline cost model, and every token it produces is handed to its request's sink exactly at
the step's end, an absolute deadline measured from a monotonic base so errors never add up.
Within a step the tokens go out `frontend_ns` apart, in batch order, as a real server's front
end writes them one request after another; each request keeps its place in the batch, so
this shifts its tokens but not the gaps between them.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from app.sim.textgen import WordStream
from app.sim.timing import StepWork

# Event-loop timers fire on millisecond ticks; sleep until this close to a deadline, then spin.
DEFAULT_SPIN_NS = 3_000_000
# After a stall this long (a suspended laptop, a stopped process), restart the clock instead
# of replaying every missed step in a burst.
_RESYNC_NS = 200_000_000
_RECORD_MAX = 200_000


class TokenSink(Protocol):
    """Where a request's tokens go: `prepare` before the deadline, `flush` at it."""

    def prepare(self, text: str, finish_reason: str | None) -> None: ...

    def flush(self, deadline_ns: int) -> None: ...

    def aborted(self, reason: str) -> None: ...


@dataclass(eq=False)
class SimRequest:
    """One request inside the engine (prompt already counted, reply length already drawn)."""

    request_id: str
    prompt_tokens: int
    target_tokens: int
    final_reason: str
    sink: TokenSink
    seed: int
    arrival_ns: int = field(default_factory=time.monotonic_ns)
    generated: int = 0
    num_computed: int = 0
    blocks: int = 0
    scheduled_ns: int | None = None
    first_token_ns: int | None = None
    last_token_ns: int | None = None
    due_ns: int = 0  # when its token of the current step is due (step end + its turn)
    finished: bool = False
    words: WordStream | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.generated


class EngineObserver(Protocol):
    """What the engine tells the metrics layer."""

    def on_step(self, running: int, waiting: int, kv_usage: float) -> None: ...

    def on_preemption(self) -> None: ...

    def on_first_token(self, req: SimRequest) -> None: ...

    def on_token(self, req: SimRequest, itl_s: float) -> None: ...

    def on_finished(self, req: SimRequest) -> None: ...

    def on_aborted(self, req: SimRequest) -> None: ...

    def on_scheduled(self, req: SimRequest) -> None: ...


class Engine:
    """Continuous batching in real time; `submit` from request handlers, `run` as one task."""

    def __init__(
        self,
        *,
        step_seconds: Callable[[StepWork], float],
        num_gpu_blocks: int,
        block_size: int,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        observer: EngineObserver | None = None,
        record_lateness: bool = False,
        spin_ns: int = DEFAULT_SPIN_NS,
        frontend_ns: int = 0,
    ) -> None:
        self.spin_ns = spin_ns
        self.frontend_ns = frontend_ns
        self._step_seconds = step_seconds
        self.num_gpu_blocks = num_gpu_blocks
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.free_blocks = num_gpu_blocks
        self.waiting: collections.deque[SimRequest] = collections.deque()
        self.running: list[SimRequest] = []
        self.observer = observer
        self.num_preemptions = 0
        self.steps = 0
        # Self-check records (bounded: the simulator may run for days).
        self.lateness_ns: collections.deque[int] | None = None
        self.wake_ns: collections.deque[int] | None = None
        self.write_cost_ns: collections.deque[int] | None = None
        if record_lateness:
            self.lateness_ns = collections.deque(maxlen=_RECORD_MAX)
            self.wake_ns = collections.deque(maxlen=_RECORD_MAX)
            self.write_cost_ns = collections.deque(maxlen=_RECORD_MAX)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # --- called from request handlers -------------------------------------------------
    def submit(self, req: SimRequest) -> None:
        req.words = WordStream(req.seed)
        self.waiting.append(req)
        self._wake.set()

    def abort(self, req: SimRequest) -> None:
        """The client went away: free what the request holds, as vLLM aborts it."""
        if req.finished:
            return
        req.finished = True
        if req in self.running:
            self.running.remove(req)
        elif req in self.waiting:
            self.waiting.remove(req)
        self.free_blocks += req.blocks
        req.blocks = 0
        if self.observer is not None:
            self.observer.on_aborted(req)
        self._report()

    @property
    def kv_usage(self) -> float:
        return 1.0 - self.free_blocks / self.num_gpu_blocks if self.num_gpu_blocks else 0.0

    # --- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run(), name="sim-engine")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for req in [*self.running, *self.waiting]:
            req.finished = True
            req.sink.aborted("server shutting down")
        self.running.clear()
        self.waiting.clear()

    async def run(self) -> None:
        t_start = time.monotonic_ns()
        while True:
            if not self.running and not self.waiting:
                self._report()
                self._wake.clear()
                await self._wake.wait()
                t_start = time.monotonic_ns()
            outputs, work = self._plan()
            seconds = self._step_seconds(work)
            self.steps += 1
            if not outputs and seconds == 0.0:
                # Nothing fits (cannot happen with validated limits); do not spin the CPU.
                self._wake.clear()
                await self._wake.wait()
                t_start = time.monotonic_ns()
                continue
            t_end = t_start + int(seconds * 1e9)
            await _sleep_until(t_end, self.spin_ns)
            self._deliver(outputs, t_end)
            self._report()
            now = time.monotonic_ns()
            t_start = now if now - t_end > _RESYNC_NS else t_end

    # --- one step ---------------------------------------------------------------------------
    def _blocks_for(self, tokens: int) -> int:
        return -(-tokens // self.block_size)

    def _preempt_last(self) -> SimRequest:
        victim = self.running.pop()
        self.free_blocks += victim.blocks
        victim.blocks = 0
        victim.num_computed = 0  # recompute: prompt + generated tokens are prefilled again
        self.waiting.appendleft(victim)
        self.num_preemptions += 1
        if self.observer is not None:
            self.observer.on_preemption()
        return victim

    def _plan(self) -> tuple[list[SimRequest], StepWork]:
        """Schedule one step like vLLM V1: running first (decode or next prefill chunk),
        then waiting prompts while the token budget, max_num_seqs and free blocks allow."""
        budget = self.max_num_batched_tokens
        scheduled: list[tuple[SimRequest, int]] = []
        preempted = False
        index = 0
        while index < len(self.running) and budget > 0:
            req = self.running[index]
            n = min(req.total_tokens - req.num_computed, budget)
            extra = self._blocks_for(req.num_computed + n) - req.blocks
            while extra > self.free_blocks and req in self.running:
                preempted = True
                self._preempt_last()
            if req not in self.running:
                break
            self.free_blocks -= extra
            req.blocks += extra
            scheduled.append((req, n))
            budget -= n
            index += 1
        if not preempted:
            while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
                req = self.waiting[0]
                n = min(req.total_tokens - req.num_computed, budget)
                need = self._blocks_for(n)
                if need > self.free_blocks:
                    break
                self.waiting.popleft()
                self.running.append(req)
                self.free_blocks -= need
                req.blocks += need
                if req.scheduled_ns is None:
                    req.scheduled_ns = time.monotonic_ns()
                    if self.observer is not None:
                        self.observer.on_scheduled(req)
                scheduled.append((req, n))
                budget -= n

        decode: list[int] = []
        prefill: list[tuple[int, int]] = []
        outputs: list[SimRequest] = []
        for req, n in scheduled:
            if n == 1 and req.generated > 0 and req.num_computed == req.total_tokens - 1:
                decode.append(req.num_computed)
            else:
                prefill.append((n, req.num_computed))
            req.num_computed += n
            if req.num_computed == req.total_tokens:
                self._sample(req)
                outputs.append(req)
        return outputs, StepWork(tuple(decode), tuple(prefill))

    def _sample(self, req: SimRequest) -> None:
        req.generated += 1
        assert req.words is not None
        done = req.generated >= req.target_tokens
        req.sink.prepare(req.words.next_token(), req.final_reason if done else None)
        if done:
            req.finished = True
            self.running.remove(req)
            self.free_blocks += req.blocks
            req.blocks = 0

    def _deliver(self, outputs: list[SimRequest], deadline_ns: int) -> None:
        lateness = self.lateness_ns
        observer = self.observer
        if self.wake_ns is not None:
            self.wake_ns.append(time.monotonic_ns() - deadline_ns)
        # a request aborted while the step ran is finished short of its target
        delivered = [r for r in outputs if not r.finished or r.generated >= r.target_tokens]
        gap = self.frontend_ns
        cost = self.write_cost_ns
        due = deadline_ns
        for req in delivered:
            while time.monotonic_ns() < due:  # its turn in the front end has not come yet
                pass
            started = time.monotonic_ns()
            req.sink.flush(due)
            if lateness is not None:
                done = time.monotonic_ns()
                lateness.append(done - due)
                if cost is not None:
                    cost.append(done - started)
            req.due_ns = due
            due += gap
        for req in delivered:
            due = req.due_ns
            previous = req.last_token_ns
            req.last_token_ns = due
            if previous is None:
                req.first_token_ns = due
                if observer is not None:
                    observer.on_first_token(req)
            elif observer is not None:
                observer.on_token(req, (due - previous) / 1e9)
            if observer is not None and req.generated >= req.target_tokens:
                observer.on_finished(req)

    def _report(self) -> None:
        if self.observer is not None:
            self.observer.on_step(len(self.running), len(self.waiting), self.kv_usage)


async def _sleep_until(deadline_ns: int, spin_ns: int) -> None:
    """Sleep on the event loop until just before the deadline, then spin the last stretch."""
    remaining = deadline_ns - time.monotonic_ns()
    if remaining > spin_ns:
        await asyncio.sleep((remaining - spin_ns) / 1e9)
    else:
        await asyncio.sleep(0)  # let request handlers run between back-to-back steps
    while time.monotonic_ns() < deadline_ns:
        pass
