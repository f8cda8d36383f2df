"""Reset the server's prefix cache between points, and spot a cache that was not reset.

Every point of a sweep replays the same prompts. With vLLM's automatic prefix caching the
second point then finds most prompts already cached and its TTFT and throughput look better
than any fresh traffic would (vLLM issues #54227 and #52884 report 2.3x and +86 %). vLLM
offers `POST /reset_prefix_cache` (on the server root, next to /metrics); we call it before
each point when asked, and by default for a server on this machine. A server without the
route (404/405, a gateway) is noted once and not asked again.
"""

from __future__ import annotations

import bisect
import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

import httpx

from app.bench.datasets.prompts import SampleRequest
from app.bench.http.auth import auth_headers, redact
from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.schema.point_blocks import ServerMetricsBlock, TraceBlock

# A dataset of distinct prompts shares little more than a chat template; above this share of
# prompt tokens served from the cache, the cache was most likely warmed by an earlier point.
STALE_HIT_RATE = 0.2
STALE_MARGIN = 0.05  # above what the workload itself shares (KV-block rounding is below it)
# Prompts read to measure what they share: the share settles within a few hundred, and a
# million-prompt dataset must not cost seconds at the end of every point.
SHARE_SAMPLE = 2_000


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def reset_url(resolved: ResolvedEndpoint) -> str:
    return resolved.root_url.rstrip("/") + "/reset_prefix_cache"


class PrefixCacheReset:
    """Calls POST /reset_prefix_cache before each point; remembers a server without it."""

    def __init__(
        self,
        resolved: ResolvedEndpoint,
        *,
        api_key: str | None = None,
        extra_headers: dict[str, str] | None = None,
        verify_tls: bool = True,
    ) -> None:
        self.url = reset_url(resolved)
        self._headers = auth_headers(api_key, extra_headers)
        self._api_key = api_key
        self._verify = verify_tls
        self.supported: bool | None = None  # None until the first call answers
        self.calls = 0

    def __repr__(self) -> str:  # the headers may carry a key
        return f"PrefixCacheReset(url={self.url!r}, supported={self.supported})"

    async def reset(self) -> str:
        """'reset', 'unsupported' (the server has no such route) or 'failed: <why>'."""
        if self.supported is False:
            return "unsupported"
        self.calls += 1
        try:
            # Loading the CA bundle costs tens of ms of loop time: only for https.
            verify = self._verify and self.url.startswith("https:")
            async with (
                httpx.AsyncClient(verify=verify, timeout=10.0) as http,
                # The status is all we need: never wait for (or buffer) a body.
                http.stream("POST", self.url, headers=self._headers) as response,
            ):
                pass
        except Exception as exc:  # the point still runs; the file says the reset failed
            return "failed: " + redact(f"{type(exc).__name__}: {exc}", self._api_key)[:200]
        if response.status_code in (404, 405, 501):
            self.supported = False
            return "unsupported"
        if 200 <= response.status_code < 300:
            self.supported = True
            return "reset"
        return f"failed: HTTP {response.status_code}"


def hit_rate(server_metrics: ServerMetricsBlock | None) -> float | None:
    """The share of prompt tokens the server's prefix cache served over the point."""
    block = server_metrics.prefix_cache if server_metrics is not None else None
    return block.hit_rate if block is not None else None


def stale_cache_warning(
    server_metrics: ServerMetricsBlock | None, reset: str | None, expected: float | None = None
) -> str | None:
    """A one-line warning when the point's prompt tokens were largely served from the prefix
    cache (a cache warmed by an earlier run inflates throughput), else None. `expected`:
    the share the workload's own prompts share (a trace's hash ids say), allowed on top."""
    rate = hit_rate(server_metrics)
    allowed = max(STALE_HIT_RATE, (expected or 0.0) + STALE_MARGIN)
    if not isinstance(rate, int | float) or rate <= allowed:
        return None
    advice = (
        "the reset between points did not clear it"
        if reset == "reset"
        else "reset it between points (--reset-prefix-cache) or restart the server"
    )
    return (
        f"{rate:.0%} of prompt tokens came from the server's prefix cache, more than the "
        f"prompts share: a cache warmed by an earlier point inflates TTFT and throughput; {advice}"
    )


def prompts_share(samples: Sequence[SampleRequest]) -> float:
    """The share of prompt text that repeats the start of an earlier prompt, in send order:
    what a cache keeping everything could serve from the prompts alone (the shared-prefix
    dataset is built to share most of it; a prompts file may repeat one system prompt).
    Characters stand in for tokens; the server caches whole KV blocks, so it serves a little
    less."""
    seen: list[str] = []  # sorted: the longest common prefix with a set is a sorted neighbour's
    shared = total = 0
    for sample in samples[:SHARE_SAMPLE]:
        text = sample.prompt
        at = bisect.bisect_left(seen, text)
        shared += max(
            (_common(text, seen[i]) for i in (at - 1, at) if 0 <= i < len(seen)), default=0
        )
        total += len(text)
        seen.insert(at, text)
    return shared / total if total else 0.0


def expected_share(samples: Sequence[SampleRequest], trace: TraceBlock | None) -> float:
    """What the point's own prompts let the cache serve: the larger of their shared text and
    a trace's predicted hit rate (from its hash ids)."""
    predicted = trace.predicted_hit_rate if trace is not None else None
    from_trace = predicted if predicted is not None else 0.0
    return max(from_trace, prompts_share(samples))


def _common(a: str, b: str) -> int:
    """Length of the common prefix, by bisection on slices (compared in C, not per character)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
