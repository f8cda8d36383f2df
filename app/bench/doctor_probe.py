"""The doctor's requests and how it reads their answers, with the API key kept out of both."""

from __future__ import annotations

from typing import Any

import httpx

from app.bench.doctor_report import DoctorTarget
from app.bench.endpoint import auth_headers, redact

PROBE_TEXT = "Reply with the word OK."


def refused(exc: BaseException | None) -> bool:
    """Whether a connection refusal is anywhere in the exception's cause chain."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ConnectionRefusedError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def shorten(text: str, limit: int = 200) -> str:
    """The text on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def json_body(resp: httpx.Response | None) -> Any:
    """The response parsed as JSON, or None when there is none or it is not JSON."""
    try:
        return resp.json() if resp is not None else None
    except (ValueError, UnicodeDecodeError):
        return None


def error_message(resp: httpx.Response) -> str:
    """The server's error message from an OpenAI-style error body, else the raw text."""
    body = json_body(resp)
    if isinstance(body, dict):
        err = body.get("error", body)
        for holder, key in ((err, "message"), (body, "message"), (body, "detail")):
            if isinstance(holder, dict) and isinstance(holder.get(key), str):
                return holder[key]
    return resp.text


def mentions_model(resp: httpx.Response) -> bool:
    """Whether an error says the model is unknown (a 404 that is not a wrong path)."""
    msg = error_message(resp).lower()
    return "model" in msg and any(
        w in msg for w in ("not exist", "not found", "unknown", "no such")
    )


def served_ids(resp: httpx.Response | None) -> list[str] | None:
    """The model ids a /v1/models answer lists; None when it is not such a list."""
    body = json_body(resp) if resp is not None and resp.status_code == 200 else None
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        return [str(m.get("id")) for m in body["data"] if isinstance(m, dict) and m.get("id")]
    return None


def listed_max_model_len(resp: httpx.Response, model: str | None) -> int | None:
    """The context length /v1/models gives for the model, as vLLM lists it."""
    body = json_body(resp) if resp.status_code == 200 else None
    entries = body.get("data") if isinstance(body, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and (not model or entry.get("id") == model):
            value = entry.get("max_model_len")
            return value if isinstance(value, int) and value > 0 else None
    return None


def has_choices(resp: httpx.Response | None) -> bool:
    """Whether the response is an HTTP 200 completion with at least one choice."""
    body = json_body(resp) if resp is not None and resp.status_code == 200 else None
    return (
        isinstance(body, dict) and isinstance(body.get("choices"), list) and bool(body["choices"])
    )


def payload(api: str, model: str | None, stream: bool) -> dict[str, Any]:
    """A short, deterministic generation request in the chat or completions shape."""
    body: dict[str, Any] = {"max_tokens": 8, "temperature": 0}
    if model:
        body["model"] = model
    if api == "chat":
        body["messages"] = [{"role": "user", "content": PROBE_TEXT}]
    else:
        body["prompt"] = PROBE_TEXT
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    return body


class Probe:
    """The requests behind the checks, with the key kept out of every message."""

    def __init__(self, client: httpx.AsyncClient, target: DoctorTarget, api: str) -> None:
        self.client = client
        self.target = target
        self.api = api  # the flavour the user asked for (may not match the URL)
        self.headers = auth_headers(target.api_key, target.headers)
        self.max_model_len: int | None = None  # from /v1/models, as vLLM lists it

    def scrub(self, text: str) -> str:
        return redact(text, self.target.api_key)

    async def get(self, url: str) -> httpx.Response:
        return await self.client.get(url, headers=self.headers)

    @property
    def generation_timeout(self) -> httpx.Timeout:
        # Generating 8 tokens behind a busy queue can take longer than a GET: twice the budget.
        budget = self.client.timeout.connect or 5.0
        return httpx.Timeout(budget, read=2 * budget)

    async def post(self, url: str, body: dict[str, Any]) -> httpx.Response:
        return await self.client.post(
            url, headers=self.headers, json=body, timeout=self.generation_timeout
        )
