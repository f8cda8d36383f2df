"""GET /v1/models, the one client for it: the default model of `probe` and `sweep`, the window's
"List models" button and the doctor's model check all read the list through here.

A server answers this before anything else is sent, so it is the first place a hostile or broken
one shows itself: the body is capped (MAX_MODELS_BODY_BYTES, raw and inflated), the whole request
has a deadline beside the silence timeout, and the key never appears in a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from app.bench.http.auth import auth_headers, redact
from app.bench.http.body import MAX_MODELS_BODY_BYTES, get_small
from app.bench.http.failures import classify_exception

MODELS_TIMEOUT_S = 10.0  # longest silence
MODELS_DEADLINE_S = 60.0  # the whole request: a server that drips its list is given up on
MAX_MODEL_ID = 512


class ModelsError(Exception):
    """/v1/models could not be read at all: one sentence naming the URL, never the key."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind  # a failure kind of app.bench.http.failures, or "timeout"


@dataclass(frozen=True)
class ModelList:
    url: str
    status: int
    ids: list[str] | None  # None: the answer is not a model list (an error page, not JSON)

    def first(self) -> str | None:
        """The first id, as vLLM picks a model without --model; None when there is no usable
        one (an id is a short printable name; anything else is not echoed anywhere)."""
        model = self.ids[0] if self.ids else None
        if model is None or not 0 < len(model) <= MAX_MODEL_ID or not model.isprintable():
            return None
        return model


def model_ids(body: Any) -> list[str] | None:
    """The ids an OpenAI-style model list holds ({"data": [{"id": ...}, ...]}); None when the
    body is not such a list."""
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        return [str(m.get("id")) for m in body["data"] if isinstance(m, dict) and m.get("id")]
    return None


async def fetch_models(
    url: str,
    *,
    api_key: str | None,
    headers: dict[str, str] | None = None,
    verify_tls: bool = True,
    timeout_s: float | None = MODELS_TIMEOUT_S,
    request_timeout_s: float | None = MODELS_DEADLINE_S,
) -> ModelList:
    """The model list at `url` and the HTTP status it came with. ModelsError when nothing
    usable answers: refused, silent past `timeout_s`, unfinished after `request_timeout_s`,
    or a body over MAX_MODELS_BODY_BYTES."""
    sent = auth_headers(api_key, headers)
    async with httpx.AsyncClient(
        verify=verify_tls, timeout=httpx.Timeout(timeout_s), trust_env=True
    ) as http:
        try:
            reply = await get_small(
                http,
                url,
                headers=sent,
                max_bytes=MAX_MODELS_BODY_BYTES,
                deadline_s=request_timeout_s,
                what=f"the answer of {url}",
            )
        except TimeoutError:
            limit = "" if request_timeout_s is None else f"{request_timeout_s:g} s"
            raise ModelsError(
                f"cannot reach {url} (timeout: no complete answer within --request-timeout "
                f"{limit})",
                "timeout",
            ) from None
        except Exception as exc:
            kind, message = classify_exception(exc, after_headers=False)
            message = redact(message, api_key)
            raise ModelsError(f"cannot reach {url} ({kind}: {message})", kind) from None
    ids = None
    if reply.status == 200:
        try:
            ids = model_ids(reply.json())
        except ValueError:  # not JSON (UnicodeDecodeError is one)
            ids = None
    return ModelList(url, reply.status, ids)
