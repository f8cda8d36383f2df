"""One point from many workers' records: the same LoadOutcome a single process returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from app.bench.http.record import RequestRecord
from app.bench.load.arrivals import LoadOutcome, cut_short
from app.bench.load.workers.messages import WorkerFinished

WORKER_LOST = "worker_lost"


def shift_record(record: RequestRecord, shift_ns: int) -> RequestRecord:
    """The record with every clock reading moved by `shift_ns` (durations unchanged)."""
    if shift_ns == 0:
        return record

    def moved(t: int | None) -> int | None:
        return None if t is None else t + shift_ns

    return dataclasses.replace(
        record,
        send_ns=record.send_ns + shift_ns,
        submit_ns=record.submit_ns + shift_ns,
        end_ns=record.end_ns + shift_ns,
        first_token_ns=moved(record.first_token_ns),
        first_choice_ns=moved(record.first_choice_ns),
        first_output_ns=moved(record.first_output_ns),
        chunk_ns=[t + shift_ns for t in record.chunk_ns],
    )


def lost_record(spec: Any, reason: str, now_ns: int) -> RequestRecord:
    """A request whose worker was lost before it reported back."""
    return RequestRecord(
        request_id=str(getattr(spec, "request_id", "")),
        prompt_len=int(getattr(spec, "prompt_len", 0)),
        output_len_requested=int(getattr(spec, "max_tokens", 0)),
        send_ns=now_ns,
        end_ns=now_ns,
        ok=False,
        error_kind=WORKER_LOST,
        error=f"load worker lost: {reason}"[:300],
    )


def merge_outcome(
    origin_ns: int,
    records: Mapping[int, RequestRecord],
    finished: Iterable[WorkerFinished],
    *,
    cancelled: bool,
) -> LoadOutcome:
    """Records in request order; duration from the first send to the last completion over
    all workers (on the driver's clock); aborted and unsent counts added up. Lost-worker
    records count as failures but not towards the point's time span."""
    order = sorted(records)
    merged = [records[i] for i in order]
    timed = [r for r in merged if r.error_kind != WORKER_LOST]
    done = list(finished)
    aborted = sum(f.aborted for f in done)
    not_sent = sum(f.not_sent for f in done)
    return LoadOutcome(
        records=merged,
        origin_ns=origin_ns,
        first_send_ns=min((r.send_ns for r in timed), default=None),
        last_end_ns=max((r.end_ns for r in timed), default=None),
        cancelled=cut_short(cancelled or any(f.cancelled for f in done), aborted, not_sent),
        aborted=aborted,
        not_sent=not_sent,
        indices=order,
    )
