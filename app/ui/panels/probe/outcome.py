"""A probe's outcome in the panel's units, its failure message, and its live token series."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QCoreApplication

from app.bench.http.failures import fix_for, title_for
from app.bench.schema.probe_summary import ProbeSummary
from app.bench.sweep.contract import Tokens
from app.ui.panels.doctor.messages import translate_template

# The engine's one line when nothing answered (app.bench.sweep.runner.fetch_first_model).
_UNREACHABLE = re.compile(r"^cannot reach (?P<url>\S+) \((?P<kind>[\w-]+): (?P<detail>.*)\)$", re.S)


@dataclass
class ProbeOutcome:
    """A finished probe in the units the panel shows (ms), plus its per-chunk gaps."""

    ok: bool
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    tok_s: float | None = None
    e2el_ms: float = 0.0
    output_tokens: int = 0
    tokens_source: str = "usage"
    t_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    itl_ms: np.ndarray = field(default_factory=lambda: np.empty(0))
    text: str = ""
    error_kind: str | None = None
    message: str = ""


def outcome_from_summary(
    summary: ProbeSummary, t_s: np.ndarray, itl_ms: np.ndarray
) -> ProbeOutcome:
    """The probe worker's point_finished summary as an outcome."""
    outcome = ProbeOutcome(
        ok=summary.ok,
        ttft_ms=summary.ttft_ms,
        tpot_ms=summary.tpot_ms,
        tok_s=summary.output_tok_s,
        e2el_ms=summary.e2el_ms or 0.0,
        output_tokens=summary.output_tokens or 0,
        tokens_source=summary.output_tokens_source or "usage",
        t_s=t_s,
        itl_ms=itl_ms,
        text=summary.generated_text or "",
        error_kind=summary.error_kind,
    )
    if not summary.ok:
        outcome.message = failure_message(outcome.error_kind or "", summary.error or "")
    return outcome


def failure_message(kind: str, detail: str) -> str:
    """What happened, then what to do: two short lines in the UI language, never a traceback.

    The engine's own detail (the server's or the OS's words) is kept as it is.
    """
    if kind == "http_401":
        fix = QCoreApplication.translate(
            "ProbePanel", "Enter a valid API key for this endpoint in the editor on the left."
        )
    elif kind:
        fix = translate_template(fix_for(kind))
    else:
        fix = ""
    title = translate_template(title_for(kind))
    what = (
        QCoreApplication.translate("ProbePanel", "{title}: {detail}").format(
            title=title, detail=detail
        )
        if kind
        else detail
    )
    return f"{what}\n{fix}".strip()


def worker_error_message(message: str) -> str:
    """A worker's error line in the UI language where the engine's wording is known."""
    match = _UNREACHABLE.match(message.strip())
    if match is None:
        return message
    return QCoreApplication.translate("ProbePanel", "Cannot reach {url}. {problem}").format(
        url=match["url"], problem=failure_message(match["kind"], match["detail"])
    )


@dataclass
class ProbeHistoryEntry:
    """A finished probe kept for this session (never written to disk from here)."""

    when: str
    profile: str
    outcome: ProbeOutcome


class LiveSeries:
    """What a running probe has streamed so far (batched by the worker), read at redraw time:
    the gaps between token chunks, the first chunk's arrival and the text."""

    def __init__(self, capacity: int = 512) -> None:
        self._x = np.empty(capacity)
        self._y = np.empty(capacity)
        self.count = 0
        self.text = ""
        self.first_token_s: float | None = None
        self.dirty = False

    def extend(
        self, t_s: Sequence[float] | np.ndarray, itl_ms: Sequence[float] | np.ndarray
    ) -> None:
        n = len(t_s)
        while self.count + n > len(self._x):
            self._x = np.concatenate([self._x, np.empty(len(self._x))])
            self._y = np.concatenate([self._y, np.empty(len(self._y))])
        self._x[self.count : self.count + n] = t_s
        self._y[self.count : self.count + n] = itl_ms
        self.count += n
        self.dirty = True

    def add_event(self, event: Tokens) -> None:
        """A `tokens` event of the probe: gaps, and (when sent) the first chunk and new text."""
        self.extend(event.t_s, event.itl_ms)
        if event.first_token_s is not None and self.first_token_s is None:
            self.first_token_s = float(event.first_token_s)
            self.dirty = True
        if event.text:
            self.text += event.text
            self.dirty = True

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(seconds since the request was sent at each gap's end, gap in ms)."""
        return self._x[: self.count], self._y[: self.count]

    def so_far(self) -> tuple[float | None, float | None, float | None, int]:
        """(TTFT ms, TPOT ms, tok/s, chunks) from what arrived so far.

        Until the server's usage arrives with the last chunk, tokens are counted as chunks
        (one token each for most servers); the panel marks these figures as provisional.
        """
        if self.first_token_s is None:
            return None, None, None, 0
        chunks = 1 + self.count
        ttft_ms = self.first_token_s * 1e3
        if not self.count:
            return ttft_ms, None, None, chunks
        last_s = float(self._x[self.count - 1])
        tpot_ms = (last_s - self.first_token_s) * 1e3 / self.count
        tok_s = chunks / last_s if last_s > 0 else None
        return ttft_ms, tpot_ms, tok_s, chunks
