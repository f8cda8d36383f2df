"""Whose lateness a point's late sends are: the client's, or the concurrency cap's (a request
waiting for a free slot is sent late by design). The load warnings and the why read it here."""

from __future__ import annotations

from app.bench.schema.point_blocks import PointBlocks


def held_by_cap(max_concurrency: int | None, blocks: PointBlocks, late_p99_ms: float) -> bool:
    """Whether the concurrency cap, not the client, made the sends late: the point had a cap
    and waiting for a slot accounts for most of the lateness."""
    wait_p99 = (blocks.slot_wait_ms or {}).get("p99")  # a file's number: finite (app.jsonfile)
    if not isinstance(wait_p99, int | float) or isinstance(wait_p99, bool):
        return False
    return isinstance(max_concurrency, int) and wait_p99 >= 0.5 * late_p99_ms


def client_send_lateness_ms(max_concurrency: int | None, blocks: PointBlocks) -> float | None:
    """The p99 send lateness the client itself caused (ms): None without a schedule's
    lateness, 0 when the concurrency cap held the sends back (held_by_cap)."""
    late = blocks.schedule_lateness_ms
    p99 = late.p99_ms if late is not None else None
    if p99 is None:
        return None
    return 0.0 if held_by_cap(max_concurrency, blocks, p99) else p99
