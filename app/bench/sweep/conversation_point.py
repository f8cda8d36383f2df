"""A sweep point whose load is conversations (`tpotbench sweep --multi-turn`): the sessions'
load, their turn requests, and what the point's result file adds for them."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.bench.datasets.conversations import Conversation
from app.bench.http.record import RequestRecord
from app.bench.http.request import RequestSpec
from app.bench.load.arrivals import LoadOutcome, LoadState, SendFn
from app.bench.load.sessions import ThinkTime, run_sessions, total_turns
from app.bench.metrics.conversations import conversation_block, session_columns
from app.bench.metrics.point import PointMetrics
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_doc import PointDoc


@dataclass
class ConversationLoad:
    """The sessions every point of a conversation sweep runs, and the users' think time."""

    conversations: list[Conversation]
    think_time: ThinkTime = field(default_factory=ThinkTime)

    @property
    def num_requests(self) -> int:
        return total_turns(self.conversations)

    def pool_size(self, max_concurrency: int | None) -> int:
        """Connections to keep: one per request that can be in flight."""
        sessions = len(self.conversations)
        return max(1, min(max_concurrency or sessions, sessions))

    def run(
        self,
        send: SendFn,
        *,
        request_rate: float,
        burstiness: float,
        seed: int,
        max_concurrency: int | None,
        make_spec: Callable[[list[dict[str, str]], int, int, str], RequestSpec],
        cancel: asyncio.Event,
        grace_s: float,
        on_record: Callable[[int, RequestRecord], None],
        state: LoadState,
    ) -> Coroutine[Any, Any, LoadOutcome]:
        """The point's load: sessions start at `request_rate` per second."""
        return run_sessions(
            send,
            self.conversations,
            make_spec,
            session_rate=request_rate,
            burstiness=burstiness,
            seed=seed,
            max_concurrency=max_concurrency,
            think_time=self.think_time,
            cancel=cancel,
            grace_s=grace_s,
            on_record=on_record,
            state=state,
        )

    def annotate(self, doc: PointDoc, outcome: LoadOutcome, metrics: PointMetrics) -> PointDoc:
        """The point's document with `tpotbench.conversations` and each request's session
        and turn."""
        blocks = doc.typed_blocks
        conv = conversation_block(
            outcome.records,
            metrics,
            sessions=len(self.conversations),
            turns_planned=self.num_requests,
            think_time_s=(self.think_time.mean_s, self.think_time.stddev_s),
            percentiles=_percentiles(blocks.percentiles),
        )
        # The two columns follow the entry's own (RequestEntries, then SessionColumns).
        requests = {**doc.block_rest["requests"], **to_json_obj(session_columns(outcome.records))}
        return replace(
            doc,
            blocks=replace(blocks, conversations=conv),
            block_rest={**doc.block_rest, "requests": requests},
        )


def _percentiles(values: Sequence[float]) -> tuple[float, ...]:
    return tuple(float(p) for p in values or [99.0] if math.isfinite(p))
