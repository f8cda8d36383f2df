"""The simulated vLLM engine: continuous batching with chunked prefill, KV blocks, preemption,
automatic prefix caching, a reasoning phase, and optional speculative decoding.

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
import functools
import random
import time
from collections.abc import Callable

from app.sim.prefix_cache import BlockPool, block_hashes
from app.sim.sequence import Emission, EngineObserver, SimRequest
from app.sim.textgen import WordStream, token_ids
from app.sim.timing import StepWork

# Event-loop timers fire on millisecond ticks; sleep until this close to a deadline, then spin.
DEFAULT_SPIN_NS = 3_000_000
# After a stall this long (a suspended laptop, a stopped process), restart the clock instead
# of replaying every missed step in a burst.
_RESYNC_NS = 200_000_000
_RECORD_MAX = 200_000


# Long on purpose (~360 lines): the scheduler's one state (running, waiting, the token budget)
# is read and changed by admission, preemption, sampling and delivery alike, as in vLLM's
# Scheduler; the KV pool and the prefix cache are already classes of their own.
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
        enable_prefix_caching: bool = True,
        num_speculative_tokens: int = 0,
        spec_acceptance_rate: float = 0.0,
    ) -> None:
        self.spin_ns = spin_ns
        self.frontend_ns = frontend_ns
        self._step_seconds = step_seconds
        self.num_gpu_blocks = num_gpu_blocks
        self.block_size = block_size
        self.max_num_seqs = max_num_seqs
        self.max_num_batched_tokens = max_num_batched_tokens
        self.pool = BlockPool(num_gpu_blocks, enable_caching=enable_prefix_caching)
        self.num_speculative_tokens = num_speculative_tokens
        self.spec_acceptance_rate = spec_acceptance_rate
        self.waiting: collections.deque[SimRequest] = collections.deque()
        self.running: list[SimRequest] = []
        self.observer = observer
        self.num_preemptions = 0
        self.steps = 0
        # The newest arrival among the requests admitted so far: no step begins before it.
        self._newest_admitted_ns = 0
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
        if req.prompt_ids is not None and self.pool.enable_caching:
            req.token_ids = list(req.prompt_ids)
        if self.num_speculative_tokens:
            req.spec_rng = random.Random(req.seed ^ 0x5BD1E995)
        self.waiting.append(req)
        self._wake.set()

    def reset_prefix_cache(self) -> None:
        """Forget every cached block, as vLLM's /reset_prefix_cache; running requests keep
        the blocks they hold (as private ones), later prompts find nothing cached."""
        for req in self.running:
            req.cached = []
            req.caching = False
        self.pool.reset()

    def abort(self, req: SimRequest) -> None:
        """The client went away: free what the request holds, as vLLM aborts it."""
        if req.finished:
            return
        req.finished = True
        if req in self.running:
            self.running.remove(req)
        elif req in self.waiting:
            self.waiting.remove(req)
        self._free(req)
        if self.observer is not None:
            self.observer.on_aborted(req)
        self._report()

    @property
    def kv_usage(self) -> float:
        return 1.0 - self.pool.free / self.num_gpu_blocks if self.num_gpu_blocks else 0.0

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

    # --- one step ---------------------------------------------------------------------------
    def _blocks_for(self, tokens: int) -> int:
        return -(-tokens // self.block_size)

    def _free(self, req: SimRequest) -> None:
        self.pool.release(req.cached, req.blocks - len(req.cached))
        req.blocks = 0
        req.cached = []
        req.caching = True

    def _preempt_last(self) -> SimRequest:
        victim = self.running.pop()
        self._free(victim)
        victim.num_computed = 0  # recompute: prompt + generated tokens are prefilled again
        self.waiting.appendleft(victim)
        self.num_preemptions += 1
        if self.observer is not None:
            self.observer.on_preemption()
        return victim

    def _hashes_upto(self, req: SimRequest, tokens: int) -> list[int]:
        """The request's block hashes for its first `tokens` tokens' full blocks."""
        ids = req.token_ids
        assert ids is not None
        full = min(tokens, len(ids)) // self.block_size
        have = len(req.hashes)
        if full > have:
            parent = req.hashes[-1] if have else 0
            end = full * self.block_size
            req.hashes += block_hashes(ids[:end], self.block_size, have, parent)
        return req.hashes

    def _cache_blocks(self, req: SimRequest, tokens: int) -> None:
        """Offer the request's full blocks up to `tokens` to the cache, as vLLM does when it
        schedules them: a prompt later in the same step may already reuse them, because a
        step writes every scheduled token's KV before any attention reads it."""
        if req.token_ids is None or not req.caching:
            return
        hashes = self._hashes_upto(req, tokens)
        for h in hashes[len(req.cached) :]:
            if not self.pool.register(h):
                req.caching = False
                return
            req.cached.append(h)

    def _wanted(self, req: SimRequest, budget: int) -> int:
        """Tokens to schedule for a running request: its next prefill chunk, or 1 decode
        token plus the speculative drafts to verify."""
        n = req.total_tokens - req.num_computed
        if self._decoding(req, n):
            n += self.num_speculative_tokens
        return min(n, budget)

    @staticmethod
    def _decoding(req: SimRequest, n: int) -> bool:
        return n == 1 and req.generated > 0

    def _admit(self, req: SimRequest, budget: int) -> int:
        """Schedule a waiting request (new or preempted) if its blocks fit; 0 if they do not.

        Its leading full blocks found in the prefix cache are computed already; at least its
        last token is computed again, since sampling needs that position's logits.
        """
        hit = 0
        hashes: list[int] = []
        if req.token_ids is not None:
            hashes = self._hashes_upto(req, req.total_tokens)
            hit = self.pool.longest_hit(hashes, (req.total_tokens - 1) // self.block_size)
        computed = hit * self.block_size
        n = min(req.total_tokens - computed, budget)
        need = self._blocks_for(computed + n) - hit
        if need + self.pool.evictable_among(hashes[:hit]) > self.pool.free:
            return 0
        self.pool.hold(hashes[:hit])
        req.cached = hashes[:hit]
        self.pool.allocate(need)
        req.blocks = hit + need
        req.num_computed = computed
        if req.scheduled_ns is None:
            req.cached_tokens = computed
        if req.token_ids is not None and self.observer is not None:
            self.observer.on_prefix_lookup(req.total_tokens, computed)
        self._cache_blocks(req, computed + n)
        return n

    # Long on purpose: one pass of vLLM V1's schedule() (running, then waiting) under one
    # budget; split, each half would need the other's locals.
    def _plan(self) -> tuple[list[SimRequest], StepWork]:
        """Schedule one step like vLLM V1: running first (decode or next prefill chunk),
        then waiting prompts while the token budget, max_num_seqs and free blocks allow."""
        budget = self.max_num_batched_tokens
        scheduled: list[tuple[SimRequest, int]] = []
        preempted = False
        index = 0
        pool = self.pool
        while index < len(self.running) and budget > 0:
            req = self.running[index]
            n = self._wanted(req, budget)
            extra = self._blocks_for(req.num_computed + n) - req.blocks
            while extra > pool.free and req in self.running:
                preempted = True
                self._preempt_last()
            if req not in self.running:
                break
            pool.allocate(extra)
            req.blocks += extra
            self._cache_blocks(req, req.num_computed + n)
            scheduled.append((req, n))
            budget -= n
            index += 1
        if not preempted:
            while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
                req = self.waiting[0]
                n = self._admit(req, budget)
                if n == 0:
                    break
                self.waiting.popleft()
                self.running.append(req)
                if req.scheduled_ns is None:
                    req.scheduled_ns = time.monotonic_ns()
                    self._newest_admitted_ns = max(self._newest_admitted_ns, req.arrival_ns)
                    if self.observer is not None:
                        self.observer.on_scheduled(req)
                scheduled.append((req, n))
                budget -= n

        decode: list[int] = []
        queries: list[int] = []
        prefill: list[tuple[int, int]] = []
        outputs: list[SimRequest] = []
        k = self.num_speculative_tokens
        accepted_per_pos = [0] * k
        drafts = draft_tokens = 0
        for req, n in scheduled:
            if req.generated > 0 and req.num_computed == req.total_tokens - 1:
                decode.append(req.num_computed)
                queries.append(n)
                new = 1
                if n > 1:  # verify n - 1 drafts: the leading accepted ones become output
                    accepted = self._accepted(req, n - 1)
                    drafts += 1
                    draft_tokens += n - 1
                    for pos in range(accepted):
                        accepted_per_pos[pos] += 1
                    new = min(1 + accepted, req.target_tokens - req.generated)
                # the accepted drafts' KV was computed while verifying them
                req.num_computed += new
                self._sample(req, new)
            else:
                prefill.append((n, req.num_computed))
                req.num_computed += n
                if req.num_computed != req.total_tokens:
                    continue
                self._sample(req, 1)
            outputs.append(req)
        if drafts and self.observer is not None:
            self.observer.on_spec_decode(drafts, draft_tokens, accepted_per_pos)
        work = StepWork(
            tuple(decode),
            tuple(prefill),
            tuple(queries) if k else (),
            k if drafts else 0,
            len(outputs),
        )
        return outputs, work

    def _accepted(self, req: SimRequest, drafts: int) -> int:
        """Drafts accepted: each position independently with probability alpha, counting up to
        the first rejection (the standard model of speculative sampling's acceptance)."""
        rng = req.spec_rng
        assert rng is not None
        alpha = self.spec_acceptance_rate
        accepted = 0
        while accepted < drafts and rng.random() < alpha:
            accepted += 1
        return accepted

    def _sample(self, req: SimRequest, count: int) -> None:
        assert req.words is not None
        reasoning: list[str] = []
        content: list[str] = []
        ids = req.token_ids
        for _ in range(count):
            req.generated += 1
            text = req.words.next_token()
            (reasoning if req.generated <= req.reasoning_tokens else content).append(text)
            if ids is not None:
                ids.extend(_ids_of(text))
        req.step_tokens = count
        done = req.generated >= req.target_tokens
        req.sink.prepare(
            Emission(
                "".join(reasoning),
                "".join(content),
                count,
                req.final_reason if done else None,
                req.cached_tokens,
                min(req.generated, req.reasoning_tokens),
            )
        )
        if done:
            req.finished = True
            self.running.remove(req)
            self._free(req)

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


@functools.lru_cache(maxsize=4096)
def _ids_of(text: str) -> tuple[int, ...]:
    """Token ids of one generated token's text (a few hundred distinct ones: cached)."""
    return tuple(token_ids(text))


async def _sleep_until(deadline_ns: int, spin_ns: int) -> None:
    """Sleep on the event loop until just before the deadline, then spin the last stretch."""
    remaining = deadline_ns - time.monotonic_ns()
    if remaining > spin_ns:
        await asyncio.sleep((remaining - spin_ns) / 1e9)
    else:
        await asyncio.sleep(0)  # let request handlers run between back-to-back steps
    while time.monotonic_ns() < deadline_ns:
        pass
