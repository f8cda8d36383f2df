"""The simulated vLLM engine in real time: `app.sim.scheduler.Scheduler` (continuous batching
with chunked prefill, KV blocks, preemption, prefix caching, reasoning, speculative decoding)
driven by a clock, for the HTTP server.

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

from app.sim.scheduler import Scheduler
from app.sim.sequence import EngineObserver, SimRequest
from app.sim.timing import StepWork

# Event-loop timers fire on millisecond ticks; sleep until this close to a deadline, then spin.
DEFAULT_SPIN_NS = 3_000_000
# After a stall this long (a suspended laptop, a stopped process), restart the clock instead
# of replaying every missed step in a burst.
_RESYNC_NS = 200_000_000
_RECORD_MAX = 200_000


class Engine(Scheduler):
    """The scheduler in real time; `submit` from request handlers, `run` as one task."""

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
        enable_prefix_caching: bool = True,
        num_speculative_tokens: int = 0,
        spec_acceptance_rate: float = 0.0,
    ) -> None:
        super().__init__(
            num_gpu_blocks=num_gpu_blocks,
            block_size=block_size,
            max_num_seqs=max_num_seqs,
            max_num_batched_tokens=max_num_batched_tokens,
            observer=observer,
            enable_prefix_caching=enable_prefix_caching,
            num_speculative_tokens=num_speculative_tokens,
            spec_acceptance_rate=spec_acceptance_rate,
        )
        self.spin_ns = spin_ns
        self.frontend_ns = frontend_ns
        self._step_seconds = step_seconds
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

    def submit(self, req: SimRequest) -> None:
        super().submit(req)
        self._wake.set()

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
            outputs, work = self.plan()
            # Behind real time (a busy CPU, less than _RESYNC_NS) the step would begin at the
            # last one's deadline, in the past: a request that arrived since would then get its
            # first token before it arrived (a negative TTFT in /metrics, which drops the
            # histogram). A step cannot begin before a request it serves arrived.
            t_start = max(t_start, self._newest_admitted_ns)
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


async def _sleep_until(deadline_ns: int, spin_ns: int) -> None:
    """Sleep on the event loop until just before the deadline, then spin the last stretch."""
    remaining = deadline_ns - time.monotonic_ns()
    if remaining > spin_ns:
        await asyncio.sleep((remaining - spin_ns) / 1e9)
    else:
        await asyncio.sleep(0)  # let request handlers run between back-to-back steps
    while time.monotonic_ns() < deadline_ns:
        pass
