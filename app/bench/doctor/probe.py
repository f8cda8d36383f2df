"""The doctor's requests and how it reads their answers, with the API key kept out of both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from app.bench.doctor.report import DoctorTarget, Msg, msg
from app.bench.http.auth import auth_headers, redact
from app.bench.http.body import IDENTITY, MAX_MODELS_BODY_BYTES, BodyError, get_small
from app.bench.http.models import model_ids
from app.bench.schema.codec import to_json_obj, wire

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
            message = holder.get(key) if isinstance(holder, dict) else None
            if isinstance(message, str):
                return message
    return resp.text


def mentions_model(resp: httpx.Response) -> bool:
    """Whether an error says the model is unknown (a 404 that is not a wrong path)."""
    msg = error_message(resp).lower()
    return "model" in msg and any(
        w in msg for w in ("not exist", "not found", "unknown", "no such")
    )


def served_ids(resp: httpx.Response | None) -> list[str] | None:
    """The model ids a /v1/models answer lists; None when it is not such a list."""
    return model_ids(json_body(resp) if resp is not None and resp.status_code == 200 else None)


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


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str


@dataclass(frozen=True)
class StreamOptions:
    include_usage: bool


_LEFT_OUT = wire(omit="none")


@dataclass(frozen=True)
class ProbeBody:
    """A short, deterministic generation request: `messages` for chat, `prompt` for
    completions; the keys a request does not use are left out."""

    max_tokens: int = 8
    temperature: int = 0
    model: str | None = field(default=None, metadata=_LEFT_OUT)
    messages: list[ChatMessage] | None = field(default=None, metadata=_LEFT_OUT)
    prompt: str | None = field(default=None, metadata=_LEFT_OUT)
    stream: Literal[True] | None = field(default=None, metadata=_LEFT_OUT)
    stream_options: StreamOptions | None = field(default=None, metadata=_LEFT_OUT)


def payload(api: str, model: str | None, stream: bool) -> ProbeBody:
    """The doctor's generation request in the chat or completions shape."""
    chat = api == "chat"
    return ProbeBody(
        model=model or None,
        messages=[ChatMessage("user", PROBE_TEXT)] if chat else None,
        prompt=None if chat else PROBE_TEXT,
        stream=True if stream else None,
        stream_options=StreamOptions(include_usage=True) if stream else None,
    )


class Probe:
    """The requests behind the checks, with the key kept out of every message."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        target: DoctorTarget,
        api: str,
        deadline_s: float | None = None,
    ) -> None:
        self.client = client
        self.target = target
        self.api = api  # the flavour the user asked for (may not match the URL)
        self.headers = {**auth_headers(target.api_key, target.headers), **IDENTITY}
        self.max_model_len: int | None = None  # from /v1/models, as vLLM lists it
        # the whole of one request (--request-timeout), beside the client's silence timeout
        self.deadline_s = deadline_s

    def scrub(self, text: str) -> str:
        return redact(text, self.target.api_key)

    async def get(self, url: str) -> httpx.Response:
        """GET within the size cap and the deadline; every failure is an httpx error whose
        cause names the failure kind (oversized, timeout)."""
        try:
            return await self.get_answered(url)
        except ReplyProblem as exc:
            cause = exc.__cause__
            if isinstance(cause, BodyError):
                raise httpx.DecodingError(str(cause)) from cause
            if isinstance(cause, httpx.TimeoutException):
                raise self.in_words(cause, url) from cause
            raise httpx.ReadTimeout(self.timed_out(url)) from cause

    async def get_answered(self, url: str) -> httpx.Response:
        """As `get`, but a failure after the server's headers is ReplyProblem: it was reached
        and answered, and the reply was too large or too slow (before them: an httpx error,
        the server was not reached or did not answer)."""
        status: list[int] = []
        try:
            reply = await get_small(
                self.client,
                url,
                headers=self.headers,
                max_bytes=MAX_MODELS_BODY_BYTES,
                deadline_s=self.deadline_s,
                what=f"the answer of {url}",
                on_status=status.append,
            )
        except BodyError as exc:
            if status:
                raise ReplyProblem(status[0], _size_words(exc)) from exc
            raise httpx.DecodingError(str(exc)) from exc
        except TimeoutError as exc:  # the whole-request deadline (--request-timeout)
            if status:
                raise ReplyProblem(
                    status[0],
                    msg("did not finish within {s:g} s (--request-timeout)", s=self.deadline_s),
                ) from exc
            raise httpx.ReadTimeout(self.timed_out(url)) from exc
        except httpx.TimeoutException as exc:  # silence (--timeout); httpx's words are internal
            if status:
                silence = self.client.timeout.read or 0.0
                raise ReplyProblem(
                    status[0], msg("stalled: nothing arrived for {s:g} s (--timeout)", s=silence)
                ) from exc
            raise self.in_words(exc, url) from exc
        return _response(reply.status, reply.headers, reply.body, url)

    def in_words(self, exc: httpx.TimeoutException, url: str) -> httpx.TimeoutException:
        """The same timeout with a message a user can act on (the transport's own words
        can be an internal one, 'Cancelled via cancel scope ...')."""
        timeout = self.client.timeout
        if isinstance(exc, httpx.ConnectTimeout):
            text = f"could not connect to {url} within {timeout.connect or 0:g} s (--timeout)"
        else:
            text = f"{url} sent nothing for {timeout.read or 0:g} s (--timeout)"
        return type(exc)(text)

    def timed_out(self, url: str) -> str:
        return f"{url} did not answer completely within {self.deadline_s:g} s (--request-timeout)"

    @property
    def generation_timeout(self) -> httpx.Timeout:
        # Generating 8 tokens behind a busy queue can take longer than a GET: twice the budget.
        budget = self.client.timeout.connect or 5.0
        return httpx.Timeout(budget, read=2 * budget)

    async def post(self, url: str, body: ProbeBody | None) -> httpx.Response:
        """POST `body`; None sends an empty object (whether a route is there at all)."""
        import asyncio
        import json

        from app.bench.http.body import content_encoding, inflated, oversized

        limit = MAX_MODELS_BODY_BYTES
        try:
            async with asyncio.timeout(self.deadline_s):
                request = self.client.build_request(
                    "POST",
                    url,
                    headers=self.headers,
                    content=json.dumps({} if body is None else to_json_obj(body)).encode(),
                    timeout=self.generation_timeout,
                )
                request.headers["Content-Type"] = "application/json"
                resp = await self.client.send(request, stream=True)
                try:
                    encoding = content_encoding(resp)
                    raw = resp.aiter_raw()
                    pieces = inflated(raw, encoding, max_raw=limit, what=url) if encoding else raw
                    parts: list[bytes] = []
                    size = 0
                    async for piece in pieces:
                        size += len(piece)
                        if size > limit:
                            raise oversized(f"the answer of {url}", limit)
                        parts.append(piece)
                finally:
                    await resp.aclose()
        except BodyError as exc:
            raise httpx.DecodingError(str(exc)) from exc
        except TimeoutError as exc:
            raise httpx.ReadTimeout(self.timed_out(url)) from exc
        except httpx.TimeoutException as exc:
            raise self.in_words(exc, url) from exc
        return _response(resp.status_code, resp.headers, b"".join(parts), url)


class ReplyProblem(Exception):
    """The server answered (its status is here) but its reply could not be read whole: over
    the size cap, past the deadline, or stalled. `problem` completes "its reply ..."."""

    def __init__(self, status: int, problem: Msg) -> None:
        super().__init__(problem.render())
        self.status = status
        self.problem = problem


def _size_words(exc: BodyError) -> Msg:
    if exc.kind == "oversized":
        return msg("is larger than {mib} MiB", mib=MAX_MODELS_BODY_BYTES // (1024 * 1024))
    return msg("could not be read ({error})", error=str(exc))


def streams_anyway(resp: httpx.Response | None) -> bool:
    """Whether a reply to a request with "stream": false is a server-sent event stream."""
    if resp is None or resp.status_code != 200:
        return False
    ctype = resp.headers.get("content-type", "").lower()
    return ctype.startswith("text/event-stream") or resp.content.lstrip().startswith(b"data:")


def _response(status: int, headers: httpx.Headers, body: bytes, url: str) -> httpx.Response:
    """An httpx.Response holding a body already read (and decoded) within the limits."""
    kept = [(k, v) for k, v in headers.multi_items() if k not in _DROP]
    return httpx.Response(status, headers=kept, content=body, request=httpx.Request("GET", url))


_DROP = ("content-encoding", "content-length", "transfer-encoding")
