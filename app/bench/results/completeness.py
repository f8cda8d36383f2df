"""Whether a point ran all its requests: complete, early-stopped, cancelled or partial.

The one place that decides it. A fragment (a point cut short) is shown, but never as a
measurement of its load: tables say "early-stopped after 3 of 48", charts draw it apart from
the curves, and knees and curve fits leave it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.bench.schema.point_blocks import PointBlocks
from app.bench.schema.point_doc import VllmKeys

COMPLETE = "complete"
EARLY_STOPPED = "early_stopped"  # a capacity search stopped it once its SLO failure was proven
CANCELLED = "cancelled"  # the user stopped the sweep while it ran (saved as NAME.partial.json)
PARTIAL = "partial"  # fewer requests finished than were planned, for any other reason
STATES = (COMPLETE, EARLY_STOPPED, CANCELLED, PARTIAL)


@dataclass(frozen=True)
class Completeness:
    """How much of its plan a point ran: `ran` requests finished (ok or failed) of `planned`
    (None: the file does not say)."""

    state: str
    ran: int
    planned: int | None
    reason: str | None = None  # why an early stop stopped it

    @property
    def complete(self) -> bool:
        return self.state == COMPLETE

    @property
    def text(self) -> str:
        """English words for tables and the console, e.g. "early-stopped after 3 of 48"."""
        of = f"{self.ran} of {self.planned}" if self.planned is not None else f"{self.ran}"
        if self.state == EARLY_STOPPED:
            return f"early-stopped after {of}"
        if self.state == CANCELLED:
            return f"cancelled after {of}"
        if self.state == PARTIAL:
            return f"partial: {of} ran"
        return "complete"


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def completeness_of_doc(head: VllmKeys, blocks: PointBlocks, path: str = "") -> Completeness:
    """The completeness of a typed document (ours or vLLM's): its vLLM keys and blocks; `path`
    is its file (a *.partial.json was cut short by a cancel)."""
    return completeness_from(
        _count(head.num_prompts), _count(head.completed) or 0, _count(head.failed), path, blocks
    )


def completeness_from(
    planned: int | None, completed: int, failed: int | None, path: str, blocks: PointBlocks
) -> Completeness:
    """The completeness of a point that ran `completed` + `failed` of `planned` requests."""
    if failed is None:  # benchmark_serving.py wrote no failed count: the rest of the plan failed
        failed = max(0, (planned or 0) - completed)
    ran = completed + failed
    early = blocks.early_stop
    # An early stop that came after the last request finished dropped nothing: a whole point.
    if early is not None and (planned is None or ran < planned):
        return Completeness(EARLY_STOPPED, ran, planned, early.reason)
    if blocks.cancelled or path.endswith(".partial.json"):
        return Completeness(CANCELLED, ran, planned)
    if planned is not None and ran < planned:
        return Completeness(PARTIAL, ran, planned)
    return Completeness(COMPLETE, ran, planned)
