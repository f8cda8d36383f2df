"""One sequence inside the simulated engine, what a step gives it, and who is told.

`SimRequest` is the engine's view of a request (prompt, reply length, KV blocks, prefix-cache
state); `Emission` is one step's output for it; a `TokenSink` writes emissions to the client
and an `EngineObserver` (the /metrics layer) hears about scheduling, tokens and caching.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.sim.textgen import WordStream


@dataclass(slots=True)
class Emission:
    """What one step gives one request: one token, or several with speculative decoding.

    The text is split where the reasoning phase ends: `reasoning` streams as vLLM's
    `delta.reasoning_content`, `content` as `delta.content`. The totals are for `usage`.
    """

    reasoning: str
    content: str
    tokens: int
    finish_reason: str | None
    cached_tokens: int = 0
    reasoning_tokens: int = 0  # of the whole reply so far


class TokenSink(Protocol):
    """Where a request's tokens go: `prepare` before the deadline, `flush` at it."""

    def prepare(self, out: Emission) -> None: ...

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
    # The prompt's token ids (None: never looked up in or added to the prefix cache).
    prompt_ids: Sequence[int] | None = None
    reasoning_tokens: int = 0  # the first this many tokens of the reply are reasoning
    generated: int = 0
    num_computed: int = 0
    blocks: int = 0
    scheduled_ns: int | None = None
    first_token_ns: int | None = None
    last_token_ns: int | None = None
    due_ns: int = 0  # when its token of the current step is due (step end + its turn)
    finished: bool = False
    words: WordStream | None = None
    cached_tokens: int = 0  # prompt tokens found in the prefix cache when first scheduled
    step_tokens: int = 0  # tokens the current step gives it (more than 1 with spec decoding)
    token_ids: list[int] | None = None  # prompt + generated ids, when prompt_ids is set
    hashes: list[int] = field(default_factory=list)  # chained hashes of its full blocks
    cached: list[int] = field(default_factory=list)  # its leading blocks held from the cache
    caching: bool = True  # False once a block of it was already cached by someone else
    spec_rng: random.Random | None = None

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

    def on_prefix_lookup(self, queried_tokens: int, hit_tokens: int) -> None: ...

    def on_spec_decode(
        self, drafts: int, draft_tokens: int, accepted_per_pos: list[int]
    ) -> None: ...
