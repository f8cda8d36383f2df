"""Ordered endpoint diagnostics: reachable, auth, path, model, body, streaming, metrics."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

import httpx

from app.bench.doctor.checks import body_check, metrics_check, model_check, stream_check
from app.bench.doctor.keys import auth_check, key_problems, redact_key
from app.bench.doctor.paths import path_check, path_search
from app.bench.doctor.probe import (
    Probe,
    ReplyProblem,
    listed_max_model_len,
    mentions_model,
    payload,
    refused,
    served_ids,
)
from app.bench.doctor.report import (
    CHECK_IDS,
    STATUSES,
    Check,
    DoctorReport,
    DoctorTarget,
    Msg,
    msg,
)
from app.bench.http import failures
from app.bench.http.auth import key_problem
from app.bench.http.endpoint import EndpointError, ResolvedEndpoint, normalize_api, resolve_endpoint

# The doctor's requests are small (a few tokens): a minute for the whole of one is generous,
# and a server that drips a byte a second cannot hold the report up for longer.
DEFAULT_REQUEST_TIMEOUT_S = 60.0

__all__ = [
    "CHECK_IDS",
    "STATUSES",
    "Check",
    "DoctorReport",
    "DoctorTarget",
    "Msg",
    "diagnose",
    "key_problems",
    "redact_key",
]


async def diagnose(
    target: DoctorTarget,
    *,
    timeout_s: float = 5.0,
    request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
    on_check: Callable[[Check], None] | None = None,
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

    if key_problem(target.api_key):
        _refuse_key(emit)
        return report
    api = normalize_api(target.api) or resolved.api
    async with httpx.AsyncClient(timeout=timeout_s, verify=target.verify_tls) as client:
        await _run(Probe(client, target, api, request_timeout_s), resolved, mismatch, emit)
    return report


def _refuse_key(emit: Callable[[Check], None]) -> None:
    """A key with a line break or other control character: nothing is sent. Sent, it would
    inject headers, and the HTTP library's error would quote it whole."""
    _skip(emit, CHECK_IDS[:1], msg("the API key cannot be sent"))
    emit(
        Check.of(
            "auth",
            "fail",
            msg("the API key contains a line break or another control character; not sent"),
            msg(
                "Remove the stray characters where the key is stored (environment "
                "variable, keyring entry or the profile's key field)."
            ),
        )
    )
    _skip(emit, CHECK_IDS[2:], msg("the API key cannot be sent"))


def _skip(emit: Callable[[Check], None], ids: tuple[str, ...], why: Msg) -> None:
    for cid in ids:
        emit(Check.of(cid, "skip", msg("not run: {why}", why=why)))


def _unreachable(probe: Probe, host: str, exc: httpx.HTTPError) -> Check:
    kind, message = failures.classify_exception(exc, after_headers=False)
    title = msg(failures.title_for(kind))
    detail = msg(
        "{title} for {host}: {message}", title=title, host=host, message=probe.scrub(message)
    )
    if kind == "connect" and refused(exc):
        detail = msg("nothing is listening at {host} (connection refused)", host=host)
    return Check.of("reachable", "fail", detail, msg(failures.fix_for(kind)))


def _models_unreadable(host: str, url: str, exc: ReplyProblem) -> Check:
    return Check.of(
        "reachable",
        "warn",
        msg(
            "{host} answered (HTTP {status}), but its reply to GET {url} {problem}; the "
            "checks that need no model list go on",
            host=host,
            status=exc.status,
            url=url,
            problem=exc.problem,
        ),
        msg(
            "A model list is a few kilobytes and comes at once: check that the URL points at "
            "the API itself (not a proxy or a page in front of it) and that the server is healthy."
        ),
    )


def _redirected(url: str, post: httpx.Response) -> Check:
    location = post.headers.get("location")
    return Check.of(
        "path",
        "fail",
        msg(
            "POST {url} is redirected (HTTP {status}) to {location}",
            url=url,
            status=post.status_code,
            location=urljoin(url, location) if location else "?",
        ),
        msg(
            "Use the URL it redirects to as the base URL (often https:// instead of "
            "http://): clients do not send a POST body on through a redirect."
        ),
    )


# The checks in their order, each deciding whether the next may run (`stop_after`); the
# sequence reads as the doctor's report does.
async def _run(
    probe: Probe, res: ResolvedEndpoint, mismatch: str, emit: Callable[[Check], None]
) -> None:
    t, host = probe.target, urlsplit(res.url).netloc

    async def stop_after(check: Check, why: Msg) -> None:
        """Emit `check`, skip the request checks after it, still look at /metrics."""
        emit(check)
        _skip(emit, CHECK_IDS[CHECK_IDS.index(check.id) + 1 : -1], why)
        emit(await metrics_check(probe, res))

    t0 = time.perf_counter()
    models: httpx.Response | None = None
    try:
        models = await probe.get_answered(res.models_url)
    except ReplyProblem as exc:
        # Reached: only its model list is unusable, so the checks that need no list go on.
        emit(_models_unreadable(host, res.models_url, exc))
    except httpx.HTTPError as exc:
        emit(_unreachable(probe, host, exc))
        _skip(emit, CHECK_IDS[1:], msg("the server could not be reached"))
        return
    if models is not None:
        ms = (time.perf_counter() - t0) * 1000
        probe.max_model_len = listed_max_model_len(models, t.model)
        emit(Check.of("reachable", "ok", msg("{host} answered in {ms:.0f} ms", host=host, ms=ms)))

    post, post_kind, post_error = None, "", ""
    try:
        post = await probe.post(res.url, payload(probe.api, t.model, stream=False))
    except httpx.HTTPError as exc:
        post_kind, post_error = failures.classify_exception(exc, after_headers=False)
    auth = auth_check(probe, [r.status_code for r in (models, post) if r is not None])
    if auth.status == "fail":
        return await stop_after(auth, msg("authentication failed"))
    emit(auth)

    if post is None:  # GET answered, the generation request did not: not a path problem
        unconfirmed = msg("POST {url} got no answer, so the path is unconfirmed", url=res.url)
        emit(Check.of("path", "warn", unconfirmed))
        emit(model_check(t.model, served_ids(models), None, False))
        detail = msg("POST {url}: {error}", url=res.url, error=probe.scrub(post_error))
        body = Check.of("body", "fail", detail, msg(failures.fix_for(post_kind)))
        return await stop_after(body, msg("the non-streaming request failed"))
    model_404 = post.status_code == 404 and mentions_model(post)
    if post.status_code in (404, 405) and not model_404:
        path = await path_search(probe, res, post)
        return await stop_after(path, msg("no completions endpoint answered"))
    if post.is_redirect:
        return await stop_after(_redirected(res.url, post), msg("the endpoint redirects"))
    emit(path_check(res, post.status_code, t.base_url))
    model = model_check(t.model, served_ids(models), post, model_404)
    if model.status == "fail":
        return await stop_after(model, msg("the model is not served"))
    emit(model)
    body = await body_check(probe, res, post, mismatch)
    if body.status == "fail":
        return await stop_after(body, msg("the non-streaming request failed"))
    emit(body)
    emit(await stream_check(probe, res))
    emit(await metrics_check(probe, res))
