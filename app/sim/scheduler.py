"""vLLM V1's scheduler in the simulator: continuous batching with chunked prefill, KV blocks,
preemption by recompute, automatic prefix caching, a reasoning phase and speculative decoding.

`Scheduler.plan()` makes one step: which sequences decode, which prompts prefill (and how
far), how many KV blocks that takes, the tokens it samples, and the `StepWork` the cost model
prices. It keeps no clock: `app.sim.engine.Engine` runs it in real time for the server and
`app.sim.replay` in virtual time.
"""

from __future__ import annotations

import collections
import functools
import random
import time

from app.sim.prefix_cache import BlockPool, block_hashes
from app.sim.sequence import Emission, EngineObserver, SimRequest
from app.sim.textgen import WordStream, token_ids
from app.sim.timing import StepWork


# The scheduler's one state (running, waiting, the token budget, the KV pool) is read and
# changed by admission, preemption and sampling alike, as in vLLM's Scheduler.
class Scheduler:
    """Running and waiting requests, the KV pool, and one step's plan at a time."""

    def __init__(
        self,
        *,
        num_gpu_blocks: int,
        block_size: int,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        observer: EngineObserver | None = None,
        enable_prefix_caching: bool = True,
        num_speculative_tokens: int = 0,
        spec_acceptance_rate: float = 0.0,
    ) -> None:
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
        # The newest arrival among the requests admitted so far: no step begins before it.
        self._newest_admitted_ns = 0

    def submit(self, req: SimRequest) -> None:
        req.words = WordStream(req.seed)
        if req.prompt_ids is not None and self.pool.enable_caching:
            req.token_ids = list(req.prompt_ids)
        if self.num_speculative_tokens:
            req.spec_rng = random.Random(req.seed ^ 0x5BD1E995)
        self.waiting.append(req)

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

    def plan(self) -> tuple[list[SimRequest], StepWork]:
        """One step: what it schedules, then what that computes and samples; the requests
        that get tokens at its end, and its work for the cost model."""
        return self._run_step(self._schedule())

    def _schedule(self) -> list[tuple[SimRequest, int]]:
        """Schedule one step like vLLM V1: running first (decode or next prefill chunk),
        then waiting prompts while the token budget, max_num_seqs and free blocks allow.
        Returns each scheduled request with its number of tokens."""
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
        return scheduled

    def _run_step(
        self, scheduled: list[tuple[SimRequest, int]]
    ) -> tuple[list[SimRequest], StepWork]:
        """Advance the scheduled requests: prefill chunks, decodes (verifying speculative
        drafts), a sampled token for each sequence that completes a position."""
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

    def _report(self) -> None:
        if self.observer is not None:
            self.observer.on_step(len(self.running), len(self.waiting), self.kv_usage)


@functools.lru_cache(maxsize=4096)
def _ids_of(text: str) -> tuple[int, ...]:
    """Token ids of one generated token's text (a few hundred distinct ones: cached)."""
    return tuple(token_ids(text))
