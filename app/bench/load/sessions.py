"""Load as conversations: sessions that start on vLLM's arrival schedule and then send their
turns one after another, each with the whole history, under the point's concurrency limit.

The open-loop schedule of `arrivals` fixes every send time in advance; a conversation cannot:
its next turn exists only once the previous reply has arrived (its text is part of the next
prompt) and the user has thought about it. So the point's two settings mean (AIPerf's
semantics for multi-turn):
- the request rate is the rate at which *sessions start* (gamma gaps with the burstiness, as
  vLLM spaces requests; inf starts every session at once);
- the concurrency limit caps *requests in flight*, as in every other point: a turn that is ready
  while all slots are busy waits (that wait is its slot wait, not part of its TTFT), so sessions
  interleave turn by turn in the order their turns became ready.
A session's first turn has no think time; before each later turn the user thinks for a time
drawn from a normal distribution (mean, stddev; AIPerf's turn delay) clipped at 0, seeded per
session so it does not depend on how sessions interleave. A failed turn ends its session (its
history would be missing a reply); the turns it did not send count as not sent.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.bench.datasets.conversations import Conversation
from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import (
    DEFAULT_GRACE_S,
    Clock,
    LoadOutcome,
    LoadState,
    SendFn,
    Slots,
    arrival_offsets,
    sleep_or_cancel,
)

Messages = list[dict[str, str]]
# (messages, estimated prompt tokens, max_tokens, request id suffix) -> what `send` takes
SpecFn = Callable[[Messages, int, int, str], Any]


@dataclass(frozen=True)
class ThinkTime:
    """The user's pause before each turn after the first, in seconds."""

    mean_s: float = 0.0
    stddev_s: float = 0.0

    def __post_init__(self) -> None:
        for name, value in (("mean", self.mean_s), ("stddev", self.stddev_s)):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"think time {name} must be a finite number >= 0, got {value}")

    def draws(self, seed: int, session: int) -> Callable[[], float]:
        """This session's successive think times (independent of every other session's)."""
        rng = random.Random(seed * 1_000_003 + session)

        def draw() -> float:
            if self.stddev_s == 0:
                return self.mean_s
            return max(0.0, rng.gauss(self.mean_s, self.stddev_s))

        return draw


def total_turns(conversations: Sequence[Conversation]) -> int:
    return sum(c.num_turns for c in conversations)


# Whole on purpose: a third of it is signature and docstring; the two closures share the
# point's slots, cancel and clock.
async def run_sessions(
    send: SendFn,
    conversations: Sequence[Conversation],
    make_spec: SpecFn,
    *,
    session_rate: float = math.inf,
    burstiness: float = 1.0,
    seed: int = 0,
    max_concurrency: int | None = None,
    think_time: ThinkTime | None = None,
    cancel: asyncio.Event | None = None,
    grace_s: float = DEFAULT_GRACE_S,
    on_record: Callable[[int, RequestRecord], None] | None = None,
    state: LoadState | None = None,
    clock: Clock = time.perf_counter_ns,
) -> LoadOutcome:
    """Run every conversation as a session; records come back in send order, each tagged with
    its `session` (index in `conversations`) and `turn` (from 0).

    A turn's `slot_wait_ns` is from the moment it was ready (the session's start for the
    first turn, the previous reply's end plus the think time after that) to its send. When
    `cancel` is set no new turn is sent, in-flight turns get `grace_s`, then are aborted.
    """
    cancel = cancel or asyncio.Event()
    think = think_time or ThinkTime()
    offsets = arrival_offsets(len(conversations), session_rate, burstiness, seed)
    slots = Slots(send, max_concurrency, cancel, state or LoadState(), clock, on_record)
    order = itertools.count()
    slots.state.total = total_turns(conversations)
    origin = slots.state.origin_ns = clock()

    async def turn_of(
        session: int, number: int, messages: Messages, prompt_len: int, max_tokens: int
    ) -> RequestRecord | None:
        ready_ns = clock()
        async with slots.held():
            if cancel.is_set():
                return None
            index = next(order)
            spec = make_spec(list(messages), prompt_len, max_tokens, f"s{session}-t{number}")
            record = await slots.send(spec, ready_ns)
            record.session, record.turn = session, number
            slots.keep(index, record)
            return record

    async def session_of(session: int, conversation: Conversation) -> None:
        await sleep_or_cancel(cancel, origin / 1e9 + offsets[session] - clock() / 1e9)
        draw = think.draws(seed, session)
        messages: Messages = []
        history_tokens = 0
        if conversation.system is not None:
            messages.append({"role": "system", "content": conversation.system})
        for number, turn in enumerate(conversation.turns):
            if number > 0:
                await sleep_or_cancel(cancel, draw())
            if cancel.is_set():
                return
            messages.append({"role": "user", "content": turn.user})
            prompt_len = history_tokens + turn.user_len
            record = await turn_of(session, number, messages, prompt_len, turn.output_len)
            if record is None or not record.ok:
                return
            # The reply the server returned is the history, not the dataset's answer: a prefix
            # cache can only hit on what was actually sent before.
            messages.append({"role": "assistant", "content": record.generated_text})
            history_tokens = prompt_len + record.output_tokens

    tasks = [asyncio.create_task(session_of(i, c)) for i, c in enumerate(conversations) if c.turns]
    await slots.finish(tasks, grace_s)
    return slots.outcome(origin, slots.state.total)
