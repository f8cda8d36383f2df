"""Whether the completions path is right, and the base-URL spellings a user may have meant."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from app.bench import failures
from app.bench.doctor_probe import Probe, served_ids
from app.bench.doctor_report import Check, msg
from app.bench.endpoint import EndpointError, ResolvedEndpoint, resolve_endpoint

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


async def path_search(probe: Probe, res: ResolvedEndpoint, post: httpx.Response) -> Check:
    """After a 404/405, which other spelling of the base URL does answer."""
    tried = []
    for base in base_candidates(probe.target.base_url):
        try:
            cand = resolve_endpoint(base, None, res.api, probe.target.model)
            tried.append(cand.url)
            hit = served_ids(await probe.get(cand.models_url)) is not None
            if not hit:  # no model list there: an empty body still gets 400/422 from a real route
                hit = (await probe.post(cand.url, {})).status_code not in (404, 405)
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
