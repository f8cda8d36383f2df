"""Ordered endpoint diagnostics: reachable, auth, path, model, body, streaming, metrics."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.bench import failures
from app.bench.endpoint import (
    EndpointError,
    ResolvedEndpoint,
    auth_headers,
    normalize_api,
    redact,
    resolve_endpoint,
)
from app.bench.serverstats import SERVER_LABELS, MetricsParseError, parse_metrics
from app.bench.sse import SSEDecoder

CHECK_IDS = ("reachable", "auth", "path", "model", "body", "streaming", "metrics")
STATUSES = ("ok", "warn", "fail", "skip")
PROBE_TEXT = "Reply with the word OK."
_WS_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "carriage return"}
_WS_MARKS = {" ": "␠", "\t": "⇥", "\n": "⏎", "\r": "␍"}
# Corrections (endpoint.CORRECTIONS ids) after which the URL as written would 404 in other
# clients. Appending /v1 to a gateway root is a guess, not a repair: reported by the path check
# only if the server does not answer there.
_REPAIRS = frozenset(
    {"doubled_v1", "doubled_v1_in_endpoint", "path_on_base_url", "v1_in_base_and_endpoint"}
)


@dataclass
class Check:
    id: str
    status: str  # one of STATUSES; "skip" when an earlier failure makes the check meaningless
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "status": self.status, "detail": self.detail, "fix": self.fix}


@dataclass
class DoctorReport:
    resolved_url: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def to_json(self) -> dict[str, Any]:
        checks = [c.to_json() for c in self.checks]
        return {"ok": self.ok, "resolved_url": self.resolved_url, "checks": checks}


@dataclass(repr=False)
class DoctorTarget:
    """What to diagnose. `key_source` says where the key came from: "from $OPENAI_API_KEY"."""

    base_url: str
    endpoint: str | None = None
    api: str | None = None
    model: str | None = None
    api_key: str | None = None
    verify_tls: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    key_source: str = ""

    def __repr__(self) -> str:
        return f"DoctorTarget(base_url={self.base_url!r}, api={self.api!r}, model={self.model!r})"

    @classmethod
    def from_target(cls, target: Any) -> DoctorTarget:
        """From a profiles.Target (or anything with its attributes)."""
        return cls(
            base_url=target.base_url,
            api=getattr(target, "api", None) or None,
            model=getattr(target, "model", None) or None,
            api_key=getattr(target, "api_key", None) or None,
            verify_tls=bool(getattr(target, "verify_tls", True)),
            headers=dict(getattr(target, "headers", {}) or {}),
            key_source="from the profile" if getattr(target, "profile_name", "") else "",
        )


def redact_key(key: str) -> str:
    """A key shown with only a few characters, its stray whitespace made visible: sk-…abcd␠."""
    core = key.strip()
    lead = "".join(_WS_MARKS.get(c, "·") for c in key[: len(key) - len(key.lstrip())])
    trail = "".join(_WS_MARKS.get(c, "·") for c in key[len(key.rstrip()) :])
    # Long keys keep their vendor prefix ("sk-") and last four; short ones reveal less.
    if len(core) >= 20:
        shown = f"{core[:3]}…{core[-4:]}"
    elif len(core) >= 12:
        shown = f"…{core[-4:]}"
    else:
        shown = f"…{core[-2:]}" if len(core) >= 8 else "…"
    return f"{lead}{shown}{trail}"


def key_problems(key: str) -> list[str]:
    """Copy-paste slips in a key, as phrases: 'a trailing space', 'quotes around it', ..."""
    found = []
    lead, trail, core = key[: len(key) - len(key.lstrip())], key[len(key.rstrip()) :], key.strip()
    if lead:
        found.append(f"a leading {_WS_NAMES.get(lead[0], 'whitespace character')}")
    if trail:
        found.append(f"a trailing {_WS_NAMES.get(trail[-1], 'whitespace character')}")
    if any(c.isspace() for c in core):
        found.append("whitespace inside it")
    if len(core) >= 2 and core[0] == core[-1] and core[0] in "\"'":
        found.append("quotes around it")
    if core.lower().startswith("bearer "):
        found.append("the word 'Bearer' in it (TPOT Bench adds that itself)")
    return found


def _refused(exc: BaseException | None) -> bool:
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, ConnectionRefusedError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _excerpt(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _json(resp: httpx.Response | None) -> Any:
    try:
        return resp.json() if resp is not None else None
    except (ValueError, UnicodeDecodeError):
        return None


def _error_message(resp: httpx.Response) -> str:
    body = _json(resp)
    if isinstance(body, dict):
        err = body.get("error", body)
        for holder, key in ((err, "message"), (body, "message"), (body, "detail")):
            if isinstance(holder, dict) and isinstance(holder.get(key), str):
                return holder[key]
    return resp.text


def _mentions_model(resp: httpx.Response) -> bool:
    msg = _error_message(resp).lower()
    return "model" in msg and any(
        w in msg for w in ("not exist", "not found", "unknown", "no such")
    )


def _served_ids(resp: httpx.Response | None) -> list[str] | None:
    body = _json(resp) if resp is not None and resp.status_code == 200 else None
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        return [str(m.get("id")) for m in body["data"] if isinstance(m, dict) and m.get("id")]
    return None


def _max_model_len(resp: httpx.Response, model: str | None) -> int | None:
    body = _json(resp) if resp.status_code == 200 else None
    entries = body.get("data") if isinstance(body, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and (not model or entry.get("id") == model):
            value = entry.get("max_model_len")
            return value if isinstance(value, int) and value > 0 else None
    return None


def _has_choices(resp: httpx.Response | None) -> bool:
    body = _json(resp) if resp is not None and resp.status_code == 200 else None
    return (
        isinstance(body, dict) and isinstance(body.get("choices"), list) and bool(body["choices"])
    )


def _payload(api: str, model: str | None, stream: bool) -> dict[str, Any]:
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


def _base_candidates(base_url: str) -> list[str]:
    """Other spellings of the base URL a user may have meant (with/without /v1, /api roots)."""
    parts = urlsplit(base_url.strip())
    origin = f"{parts.scheme}://{parts.netloc}"
    segs = [s for s in parts.path.split("/") if s]
    while segs and segs[-1] in ("chat", "completions", "models"):
        segs.pop()
    variants = [segs, segs[:-1] if segs[-1:] == ["v1"] else [*segs, "v1"]]
    variants += [[], ["v1"], ["api"], ["api", "v1"]]
    out: list[str] = []
    for v in variants:
        url = origin + "".join(f"/{s}" for s in v)
        if url not in out and url != base_url.strip().rstrip("/"):
            out.append(url)
    return out


class _Probe:
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


async def diagnose(
    target: DoctorTarget, *, timeout_s: float = 5.0, on_check: Callable[[Check], None] | None = None
) -> DoctorReport:
    """Run the checks in order; each is handed to `on_check` as soon as it is decided.

    Raises EndpointError when the URL flags cannot be used at all. A backend that does not
    match the endpoint is not raised: it is diagnosed, since that is the KeyError 'choices' case.
    """
    mismatch = ""
    try:
        resolved = resolve_endpoint(target.base_url, target.endpoint, target.api, target.model)
    except EndpointError as exc:
        if target.api is None:
            raise
        try:
            resolved = resolve_endpoint(target.base_url, target.endpoint, None, target.model)
        except EndpointError:
            raise exc from None
        mismatch = str(exc)
    report = DoctorReport(resolved.url)

    def emit(check: Check) -> None:
        report.checks.append(check)
        if on_check is not None:
            on_check(check)

    api = normalize_api(target.api) or resolved.api
    async with httpx.AsyncClient(timeout=timeout_s, verify=target.verify_tls) as client:
        await _run(_Probe(client, target, api), resolved, mismatch, emit)
    return report


def _skip(emit: Callable[[Check], None], ids: tuple[str, ...], why: str) -> None:
    for cid in ids:
        emit(Check(cid, "skip", f"not run: {why}"))


async def _run(
    probe: _Probe, res: ResolvedEndpoint, mismatch: str, emit: Callable[[Check], None]
) -> None:
    t, host = probe.target, urlsplit(res.url).netloc

    async def stop_after(check: Check, why: str) -> None:
        """Emit `check`, skip the request checks after it, still look at /metrics."""
        emit(check)
        _skip(emit, CHECK_IDS[CHECK_IDS.index(check.id) + 1 : -1], why)
        emit(await _metrics_check(probe, res))

    t0 = time.perf_counter()
    try:
        models = await probe.get(res.models_url)
    except httpx.HTTPError as exc:
        kind, message = failures.classify_exception(exc, after_headers=False)
        detail = f"{failures.title_for(kind)} for {host}: {probe.scrub(message)}"
        if kind == "connect" and _refused(exc):
            detail = f"nothing is listening at {host} (connection refused)"
        emit(Check("reachable", "fail", detail, failures.fix_for(kind)))
        _skip(emit, CHECK_IDS[1:], "the server could not be reached")
        return
    ms = (time.perf_counter() - t0) * 1000
    probe.max_model_len = _max_model_len(models, t.model)
    emit(Check("reachable", "ok", f"{host} answered in {ms:.0f} ms"))

    post, post_kind, post_error = None, "", ""
    try:
        post = await probe.post(res.url, _payload(probe.api, t.model, stream=False))
    except httpx.HTTPError as exc:
        post_kind, post_error = failures.classify_exception(exc, after_headers=False)
    auth = _auth_check(probe, [r.status_code for r in (models, post) if r is not None])
    if auth.status == "fail":
        return await stop_after(auth, "authentication failed")
    emit(auth)

    if post is None:  # GET answered, the generation request did not: not a path problem
        emit(Check("path", "warn", f"POST {res.url} got no answer, so the path is unconfirmed"))
        emit(_model_check(t.model, _served_ids(models), None, False))
        detail = f"POST {res.url}: {probe.scrub(post_error)}"
        body = Check("body", "fail", detail, failures.fix_for(post_kind))
        return await stop_after(body, "the non-streaming request failed")
    model_404 = post.status_code == 404 and _mentions_model(post)
    if post.status_code in (404, 405) and not model_404:
        path = await _path_search(probe, res, post)
        return await stop_after(path, "no completions endpoint answered")
    if post.is_redirect:
        path = Check(
            "path",
            "fail",
            f"POST {res.url} is redirected (HTTP {post.status_code}) to "
            f"{post.headers.get('location', '?')}",
            "Use the URL it redirects to as the base URL (often https:// instead of "
            "http://): clients do not send a POST body on through a redirect.",
        )
        return await stop_after(path, "the endpoint redirects")
    emit(_path_check(res, post.status_code, t.base_url))
    model = _model_check(t.model, _served_ids(models), post, model_404)
    if model.status == "fail":
        return await stop_after(model, "the model is not served")
    emit(model)
    body = await _body_check(probe, res, post, mismatch)
    if body.status == "fail":
        return await stop_after(body, "the non-streaming request failed")
    emit(body)
    emit(await _stream_check(probe, res))
    emit(await _metrics_check(probe, res))


def _auth_check(probe: _Probe, statuses: list[int]) -> Check:
    t = probe.target
    key = t.api_key or ""
    problems = key_problems(key) if key.strip() else []
    header = f"Authorization: Bearer {redact_key(key)}"
    source = f" ({t.key_source})" if t.key_source else ""
    if any(s in (401, 403) for s in statuses):
        status = 403 if 403 in statuses and 401 not in statuses else 401
        if not key.strip():
            return Check(
                "auth",
                "fail",
                f"HTTP {status}: the server wants a key and none was sent{source}",
                "Set the key in the environment variable named by --api-key-env (e.g. export "
                "OPENAI_API_KEY=...) or in the profile; local vLLM needs none, a gateway does.",
            )
        detail = f"HTTP {status}: the server rejected {header}{source}"
        if problems:
            detail += f"; the key has {', '.join(problems)}"
        else:
            detail += ": a key for another endpoint, mistyped, or expired"
        return Check("auth", "fail", detail, failures.fix_for(f"http_{status}"))
    if all(s in (404, 405) for s in statuses):
        return Check(
            "auth",
            "warn",
            "not confirmed: every URL tried answered 404/405, so the key was never checked",
            "Fix the path first (next check), then run the doctor again.",
        )
    if not key.strip():
        return Check("auth", "ok", "no key sent, and the server did not ask for one")
    if problems:
        return Check(
            "auth",
            "warn",
            f"accepted {header}{source}, but the key has {', '.join(problems)}; TPOT Bench "
            "strips surrounding whitespace before sending",
            "Remove the stray characters where the key is stored: curl, vllm bench serve and "
            "SDKs send it as is and get 401.",
        )
    return Check("auth", "ok", f"accepted {header}{source}")


def _endpoint_path(res: ResolvedEndpoint) -> str:
    """The --endpoint that, appended to root_url, gives the resolved URL."""
    return urlsplit(res.url).path[len(urlsplit(res.root_url).path.rstrip("/")) :]


def _path_check(res: ResolvedEndpoint, status: int, base_url: str) -> Check:
    if _REPAIRS.intersection(res.corrections):
        return Check(
            "path",
            "warn",
            f"{res.url} answers (HTTP {status}) after a correction: {'; '.join(res.notes)}",
            f"Write the base URL as {res.root_url} (with --endpoint {_endpoint_path(res)}): "
            "TPOT Bench repaired it, but vllm bench serve and other clients would get 404.",
        )
    if urlsplit(base_url).path.rstrip("/").endswith("completions"):
        return Check(
            "path",
            "warn",
            f"{res.url} answers (HTTP {status}), but the base URL carries the API path",
            f"Pass the server root {res.root_url} as the base URL and the path as --endpoint: "
            "vllm bench serve appends --endpoint to the base URL.",
        )
    return Check("path", "ok", f"POST {res.url} answered HTTP {status}")


async def _path_search(probe: _Probe, res: ResolvedEndpoint, post: httpx.Response) -> Check:
    got = f"HTTP {post.status_code}"
    tried = []
    for base in _base_candidates(probe.target.base_url):
        try:
            cand = resolve_endpoint(base, None, res.api, probe.target.model)
            tried.append(cand.url)
            hit = _served_ids(await probe.get(cand.models_url)) is not None
            if not hit:  # no model list there: an empty body still gets 400/422 from a real route
                hit = (await probe.post(cand.url, {})).status_code not in (404, 405)
        except (EndpointError, httpx.HTTPError):
            continue
        if hit:
            return Check(
                "path",
                "fail",
                f"POST {res.url} gave {got}; {cand.url} answers instead",
                f"Use --base-url {base} (requests then go to {cand.url}).",
            )
    kind = failures.kind_for_status(post.status_code)
    return Check(
        "path",
        "fail",
        f"POST {res.url} gave {got}; none of these answered either: {', '.join(tried)}",
        failures.fix_for(kind),
    )


def _model_check(
    model: str | None, served: list[str] | None, post: httpx.Response | None, model_404: bool
) -> Check:
    listing = ", ".join(served or [])
    fix = (
        "Pass one of the served ids with --model; vLLM serves the name given by "
        "--served-model-name (e.g. --served-model-name qwen2.5-7b)."
    )
    if not model:
        if served:
            return Check(
                "model",
                "warn",
                f"no model given; the server serves: {listing}",
                f"Pass --model {served[0]} so requests and results name the model.",
            )
        return Check("model", "warn", "no model given and the server lists none", fix)
    if served is not None and model not in served:
        return Check("model", "fail", f"'{model}' is not served; served ids: {listing}", fix)
    if model_404 and post is not None:
        return Check(
            "model", "fail", f"'{model}' is unknown: {_excerpt(_error_message(post))}", fix
        )
    if served is None:
        return Check("model", "ok", f"'{model}' accepted (the server publishes no model list)")
    return Check("model", "ok", f"'{model}' is served (served ids: {listing})")


async def _body_check(
    probe: _Probe, res: ResolvedEndpoint, post: httpx.Response, mismatch: str
) -> Check:
    if _has_choices(post):
        choice = _json(post)["choices"][0]
        text = (choice.get("message") or {}).get("content") or choice.get("text") or ""
        return Check("body", "ok", f"'choices' present; reply: {_excerpt(str(text), 60)!r}")
    excerpt = probe.scrub(_excerpt(post.text))
    other = "completions" if probe.api == "chat" else "chat"
    if post.status_code in (200, 400, 422):
        # Chat and completions bodies differ ('messages' vs 'prompt'): try the other flavour.
        try:
            retry = await probe.post(res.url, _payload(other, probe.target.model, stream=False))
        except httpx.HTTPError:
            retry = None
        if _has_choices(retry):
            backend = "openai-chat" if other == "chat" else "openai"
            return Check(
                "body",
                "fail",
                f"HTTP {post.status_code} with a {probe.api} body: {excerpt}; the same URL "
                f"answers a {other} body, so it is the {other} endpoint",
                (mismatch[:1].upper() + mismatch[1:])
                or f"Use --backend {backend} with this URL, or point --endpoint at the "
                f"{probe.api} path; backend and endpoint must match.",
            )
    if post.status_code == 200:
        why = "it is not JSON" if _json(post) is None else "it has no 'choices'"
        return Check(
            "body",
            "fail",
            f"HTTP 200 but {why} (the KeyError: 'choices' case); body: {excerpt}",
            failures.fix_for("no_choices"),
        )
    detail = f"HTTP {post.status_code}: {probe.scrub(_excerpt(_error_message(post)))}"
    if post.headers.get("retry-after"):
        detail += f" (Retry-After: {post.headers['retry-after']} s)"
    fix = failures.fix_for(failures.kind_for_status(post.status_code))
    return Check("body", "fail", detail, mismatch[:1].upper() + mismatch[1:] if mismatch else fix)


async def _stream_check(probe: _Probe, res: ResolvedEndpoint) -> Check:
    decoder = SSEDecoder()
    events = content = malformed = 0
    done, usage, finish, ctype = False, None, None, ""
    body = _payload(probe.api, probe.target.model, stream=True)
    try:
        async with probe.client.stream(
            "POST", res.url, headers=probe.headers, json=body, timeout=probe.generation_timeout
        ) as resp:
            if resp.status_code != 200:
                await resp.aread()
                kind = failures.kind_for_status(resp.status_code)
                msg = probe.scrub(_excerpt(_error_message(resp)))
                detail = f"HTTP {resp.status_code} for stream=true: {msg}"
                return Check("streaming", "fail", detail, failures.fix_for(kind))
            ctype = resp.headers.get("content-type", "")
            async for piece in resp.aiter_bytes():
                for data in decoder.feed(piece):
                    events += 1
                    if data.strip() == b"[DONE]":
                        done = True
                        continue
                    try:
                        msg = json.loads(data)
                    except ValueError:
                        malformed += 1
                        continue
                    usage = (msg.get("usage") if isinstance(msg, dict) else None) or usage
                    for ch in (msg.get("choices") if isinstance(msg, dict) else None) or []:
                        content += bool((ch.get("delta") or {}).get("content") or ch.get("text"))
                        finish = ch.get("finish_reason") or finish
    except httpx.HTTPError as exc:
        kind, message = failures.classify_exception(exc, after_headers=True)
        detail = f"the stream broke after {events} events: {probe.scrub(message)}"
        return Check("streaming", "fail", detail, failures.fix_for(kind))
    seen = f"{events} SSE events, {content} with text, finish_reason={finish}"
    if events == 0:
        detail = f"no SSE events (content-type {ctype or 'missing'})"
        return Check("streaming", "fail", detail, failures.fix_for("not_sse"))
    if malformed:
        detail = f"{seen}; {malformed} not valid JSON"
        return Check("streaming", "fail", detail, failures.fix_for("malformed_chunk"))
    if not done:
        return Check("streaming", "fail", f"{seen}; no [DONE]", failures.fix_for("stream_cut"))
    if not usage:
        return Check(
            "streaming",
            "warn",
            f"{seen}, [DONE] seen, but no usage in the stream",
            "Token counts will be estimated with a tokenizer and results marked estimated; a "
            "server that honours stream_options.include_usage (vLLM does) gives exact counts.",
        )
    tokens = usage.get("completion_tokens")
    return Check("streaming", "ok", f"{seen}, [DONE] seen, usage: {tokens} completion tokens")


async def _metrics_check(probe: _Probe, res: ResolvedEndpoint) -> Check:
    url = res.metrics_url
    fix = "Server-side charts (KV cache, queues) stay empty; client-side figures are unaffected."
    try:
        resp = await probe.get(url)
    except httpx.HTTPError as exc:
        return Check("metrics", "warn", f"{url}: {probe.scrub(_excerpt(str(exc)))}", fix)
    if resp.status_code != 200:
        detail = f"no Prometheus metrics at {url} (HTTP {resp.status_code})"
        return Check("metrics", "warn", detail, fix + " Gateways usually hide /metrics.")
    try:
        snap = parse_metrics(resp.text)
    except MetricsParseError:
        detail = f"{url} answered, but not with Prometheus text: {_excerpt(resp.text, 80)}"
        return Check("metrics", "warn", detail, fix)
    detail = f"{SERVER_LABELS[snap.server]} at {url}"
    cap = snap.capacity
    if cap is not None and cap.num_gpu_blocks and cap.block_size:
        detail += (
            f"; KV cache {cap.num_gpu_blocks:,} blocks × {cap.block_size} = {cap.tokens:,} tokens"
        )
    elif cap is not None:
        detail += f"; KV cache {cap.tokens:,} tokens"
    if cap is not None and probe.max_model_len:
        n, ctx = cap.max_sequences(probe.max_model_len), probe.max_model_len
        detail += f"; {n} requests of the full {ctx:,}-token context fit at once"
    if snap.server == "unknown":
        return Check("metrics", "warn", detail, fix)
    return Check("metrics", "ok", detail)
