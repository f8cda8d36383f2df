"""Whether the completions path is right, and the base-URL spellings a user may have meant."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import httpx

from app.bench.doctor.probe import Probe, has_choices, payload, served_ids
from app.bench.doctor.report import Check, msg
from app.bench.http import failures
from app.bench.http.endpoint import EndpointError, ResolvedEndpoint, resolve_endpoint

# Corrections (endpoint.CORRECTIONS ids) after which the URL as written would 404 in other
# clients. Appending /v1 to a gateway root is a guess, not a repair: reported by the path check
# only if the server does not answer there.
_REPAIRS = frozenset(
    {"doubled_v1", "doubled_v1_in_endpoint", "path_on_base_url", "v1_in_base_and_endpoint"}
)


def base_candidates(base_url: str) -> list[str]:
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


def endpoint_path(res: ResolvedEndpoint) -> str:
    """The --endpoint that, appended to root_url, gives the resolved URL."""
    return urlsplit(res.url).path[len(urlsplit(res.root_url).path.rstrip("/")) :]


def path_check(res: ResolvedEndpoint, status: int, base_url: str) -> Check:
    """Whether the URL that answered is one other clients would also reach."""
    if _REPAIRS.intersection(res.corrections):
        # The notes are the endpoint module's English sentences: shown as data.
        return Check.of(
            "path",
            "warn",
            msg(
                "{url} answers (HTTP {status}) after a correction: {notes}",
                url=res.url,
                status=status,
                notes="; ".join(res.notes),
            ),
            msg(
                "Write the base URL as {root} (with --endpoint {endpoint}): TPOT Bench repaired "
                "it, but vllm bench serve and other clients would get 404.",
                root=res.root_url,
                endpoint=endpoint_path(res),
            ),
        )
    if urlsplit(base_url).path.rstrip("/").endswith("completions"):
        return Check.of(
            "path",
            "warn",
            msg(
                "{url} answers (HTTP {status}), but the base URL carries the API path",
                url=res.url,
                status=status,
            ),
            msg(
                "Pass the server root {root} as the base URL and the path as --endpoint: "
                "vllm bench serve appends --endpoint to the base URL.",
                root=res.root_url,
            ),
        )
    return Check.of(
        "path", "ok", msg("POST {url} answered HTTP {status}", url=res.url, status=status)
    )


def other_flavour(res: ResolvedEndpoint) -> tuple[str, str]:
    """The other API flavour and its URL beside the resolved one (chat <-> completions)."""
    parts = urlsplit(res.url)
    if res.api == "chat":
        other, path = "completions", parts.path.removesuffix("/chat/completions") + "/completions"
    else:
        other, path = "chat", parts.path.removesuffix("/completions") + "/chat/completions"
    return other, urlunsplit(parts._replace(path=path))


async def _flavour_check(probe: Probe, res: ResolvedEndpoint, status: int) -> Check | None:
    """The field guide's own 404: the server serves the other flavour at the same place."""
    other, url = other_flavour(res)
    try:
        answer = await probe.post(url, payload(other, probe.target.model, stream=False))
    except httpx.HTTPError:
        return None
    if not has_choices(answer):
        return None
    backend = "openai-chat" if other == "chat" else "openai"
    endpoint = urlsplit(url).path[len(urlsplit(res.root_url).path.rstrip("/")) :]
    return Check.of(
        "path",
        "fail",
        msg(
            "POST {url} gave HTTP {status}, but {candidate} answers: the server serves the "
            "{other} API, not {api} (the chat vs completions mix-up)",
            url=res.url,
            status=status,
            candidate=url,
            other=other,
            api=res.api,
        ),
        msg(
            "Use --backend {backend} --endpoint {endpoint} (in the window: API {other}); "
            "chat and completions are separate endpoints and a server may serve only one.",
            backend=backend,
            endpoint=endpoint,
            other=other,
        ),
    )


async def path_search(probe: Probe, res: ResolvedEndpoint, post: httpx.Response) -> Check:
    """After a 404/405: does the other API flavour answer at the same place, or which other
    spelling of the base URL answers (never the URL that was just tried)."""
    flavour = await _flavour_check(probe, res, post.status_code)
    if flavour is not None:
        return flavour
    tried = [other_flavour(res)[1]]
    for base in base_candidates(probe.target.base_url):
        try:
            cand = resolve_endpoint(base, None, res.api, probe.target.model)
            if cand.url == res.url or cand.url in tried:
                continue
            tried.append(cand.url)
            hit = served_ids(await probe.get(cand.models_url)) is not None
            if not hit:  # no model list there: an empty body still gets 400/422 from a real route
                hit = (await probe.post(cand.url, None)).status_code not in (404, 405)
        except (EndpointError, httpx.HTTPError):
            continue
        if hit:
            return Check.of(
                "path",
                "fail",
                msg(
                    "POST {url} gave HTTP {status}; {candidate} answers instead",
                    url=res.url,
                    status=post.status_code,
                    candidate=cand.url,
                ),
                msg(
                    "Use --base-url {base} (requests then go to {candidate}).",
                    base=base,
                    candidate=cand.url,
                ),
            )
    kind = failures.kind_for_status(post.status_code)
    return Check.of(
        "path",
        "fail",
        msg(
            "POST {url} gave HTTP {status}; none of these answered either: {tried}",
            url=res.url,
            status=post.status_code,
            tried=", ".join(tried),
        ),
        msg(failures.fix_for(kind)),
    )
