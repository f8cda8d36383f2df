"""Result documents of hand-made points (built by the engine's own writer from hand-made
request records), for tests that need a known curve with a fragment on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.bench.http.record import RequestRecord
from app.bench.metrics.point import compute_point_metrics
from app.bench.results.write import PointInfo, build_result, write_point_json
from app.bench.schema.point_doc import point_json

MS = 1_000_000


def record(tpot_ms: float, ttft_ms: float = 50.0) -> RequestRecord:
    """A successful two-token request: TTFT `ttft_ms`, TPOT (the one gap) `tpot_ms`."""
    first = int(ttft_ms * MS)
    end = first + int(tpot_ms * MS)
    return RequestRecord(
        send_ns=0,
        first_choice_ns=first,
        first_token_ns=first,
        chunk_ns=[first, end],
        end_ns=end,
        ok=True,
        prompt_len=8,
        output_tokens=2,
    )


def point_doc(
    conc: int,
    tpot_ms: float,
    *,
    planned: int | None = None,
    ran: int | None = None,
    early: bool = False,
    label: str | None = None,
) -> dict[str, Any]:
    """A closed-loop point at concurrency `conc` whose `ran` requests (default all `planned`,
    default as many as streams) each had TPOT `tpot_ms`; `early`: a capacity search stopped
    it early."""
    planned = max(4, conc) if planned is None else planned
    info = PointInfo(
        "openai-chat", "m", "http://h/v1/x", "chat", planned, float("inf"), conc, label=label
    )
    ran = planned if ran is None else ran
    metrics = compute_point_metrics([record(tpot_ms) for _ in range(ran)], 1.0)
    doc = point_json(build_result(info, metrics, not_sent=planned - ran))
    # The peak a real point reaches: as many in flight as its concurrency allows.
    doc["max_concurrent_requests"] = min(conc, ran)
    if early:
        doc["tpotbench"]["early_stop"] = {
            "reason": "tpot:p99:50: 1 of 4 over",
            "server_drain": None,
        }
    return doc


def write_curve(folder: Path) -> None:
    """Concurrency 1..16 flat then bending at 4 (TPOT p99 10, 10, 10, 11, 12 ms), and an
    early-stopped fragment at 32 (3 requests of 48, 300 ms) that would move the knee to 16."""
    for conc, tpot in ((1, 10.0), (2, 10.0), (4, 10.0), (8, 11.0), (16, 12.0)):
        write_point_json(folder / f"run_rateinf_conc{conc}.json", point_doc(conc, tpot))
    fragment = point_doc(32, 300.0, planned=48, ran=3, early=True)
    write_point_json(folder / "run_rateinf_conc32.json", fragment)
