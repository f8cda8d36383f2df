"""Before a sweep: does the endpoint answer, and which model does it serve first."""

from __future__ import annotations

from app.bench.http.endpoint import ResolvedEndpoint
from app.bench.http.models import ModelsError, fetch_models


class UnreachableError(RuntimeError):
    """The endpoint did not answer at all before the sweep started (exit code 1)."""


def key_refused_message(status: int, url: str, api_key: str | None) -> str:
    """A 401/403 said as the key problem it is, before anything about paths or models."""
    if not (api_key or "").strip():
        return (
            f"HTTP {status} from {url}: the server wants an API key and none was sent; "
            "export OPENAI_API_KEY=... (or name your variable with --api-key-env)"
        )
    return (
        f"HTTP {status} from {url}: the server rejected the API key (a key for another "
        "endpoint, mistyped, or expired); check the key, or run 'tpotbench doctor'"
    )


async def fetch_first_model(
    resolved: ResolvedEndpoint,
    api_key: str | None,
    extra_headers: dict[str, str] | None,
    verify_tls: bool = True,
    *,
    timeout_s: float | None = 10.0,
    request_timeout_s: float | None = 60.0,
) -> str | None:
    """Check the server answers at all and return the first model id of /v1/models (as
    vLLM does without --model), or None if that list is not available there.
    Raises UnreachableError if nothing answers (or the answer is oversized or never ends):
    ``timeout_s`` is the longest silence, ``request_timeout_s`` the whole request."""
    url = resolved.models_url
    try:
        listing = await fetch_models(
            url,
            api_key=api_key,
            headers=extra_headers,
            verify_tls=verify_tls,
            timeout_s=timeout_s,
            request_timeout_s=request_timeout_s,
        )
    except ModelsError as exc:
        raise UnreachableError(str(exc)) from None
    if listing.status in (401, 403):
        raise UnreachableError(key_refused_message(listing.status, url, api_key))
    return listing.first() if listing.status == 200 else None
