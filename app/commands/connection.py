"""The endpoint a command talks to: its flags, the saved profile they override, extra headers.

`probe`, `sweep`, `search` and `doctor` take the same flags with the same meaning. A saved
profile (`--profile`) supplies whatever a flag leaves out; a flag given on the command line wins.

Headers are written as HTTP writes them, `Name: value` (curl's -H form, and what the window's
endpoint editor takes); `KEY=VALUE`, the form earlier versions documented, is accepted too.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.bench.http.auth import header_problem
from app.bench.http.endpoint import EndpointError, ResolvedEndpoint, resolve_endpoint
from app.bench.schema.run_config import EndpointConfig
from app.commands import flags
from app.commands.credentials import UsageError

# vllm bench serve's names first; the engine's own names are aliases of them.
BACKENDS = ("openai-chat", "openai", "chat", "completions")

HEADER_SYNTAX = "'Name: value'"
HEADER_HELP = (
    "extra HTTP header sent with every request, written 'Name: value' as curl -H takes it "
    "(KEY=VALUE is accepted too); repeat the flag, or give several after one --header"
)


def add_connection_arguments(parser: argparse.ArgumentParser, *, host_port: bool = False) -> None:
    """The endpoint flags every networked command takes; `host_port` adds vllm bench serve's
    --host/--port, the default server when neither --base-url nor a profile gives one."""
    add = parser.add_argument
    default = " (default http://HOST:PORT)" if host_port else ""
    add("--base-url", help=f"server root (http://host:8000) or API base (.../v1){default}")
    if host_port:
        add("--host", default="127.0.0.1", help="server host when --base-url is not given")
        add(
            "--port",
            type=flags.port,
            default=8000,
            help="server port when --base-url is not given",
        )
    add("--endpoint", help="API path such as /v1/chat/completions (as in vllm bench serve)")
    add(
        "--backend",
        choices=BACKENDS,
        help="API flavour as in vllm bench serve: openai-chat (/v1/chat/completions) or openai "
        "(/v1/completions); chat and completions are the same two (default: from the URL or "
        "--endpoint, else openai-chat)",
    )
    add("--model", help="model id (default: the first id of /v1/models)")
    add("--profile", help="a saved endpoint profile, its key from the keyring (flags given win)")
    add(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY, then API_KEY)",
    )
    add(
        "--header",
        action="extend",
        nargs="*",
        default=[],
        metavar="'NAME: VALUE'",
        help=HEADER_HELP,
    )
    add("--insecure", action="store_true", help="do not verify the server's TLS certificate")


def split_header(item: str) -> tuple[str, str] | None:
    """'Name: value' or KEY=VALUE as (name, value), stripped; None when it is neither.

    Whichever separator comes first wins, so a value may hold the other one
    ('Authorization: Bearer abc==', 'X-Time=12:00')."""
    colon, equals = item.find(":"), item.find("=")
    cuts = [i for i in (colon, equals) if i >= 0]
    if not cuts:
        return None
    cut = min(cuts)
    name = item[:cut].strip()
    if not name:
        return None
    return name, item[cut + 1 :].strip()


def check_headers(headers: dict[str, str]) -> dict[str, str]:
    """The headers, or UsageError naming the first one that cannot be sent (not its value)."""
    for name, value in headers.items():
        if problem := header_problem(name, value):
            raise UsageError(f"--header: {problem}")
    return headers


def parse_headers(items: Iterable[str]) -> dict[str, str]:
    """--header items as a dict; UsageError naming the bad item (never its value)."""
    headers = {}
    for item in items:
        pair = split_header(item)
        if pair is None:
            # only the start: a header pasted without its separator may hold a secret
            shown = re.split(r"\s", item.strip(), maxsplit=1)[0][:40]
            shown += "..." if len(shown) < len(item.strip()) else ""
            raise UsageError(f"--header: {shown!r} is not {HEADER_SYNTAX} (or KEY=VALUE)")
        headers[pair[0]] = pair[1]
    return check_headers(headers)


def header_args(headers: dict[str, str]) -> list[str]:
    """The --header flags that send `headers`, in the canonical syntax (for a built argv)."""
    return [arg for name, value in headers.items() for arg in ("--header", f"{name}: {value}")]


@dataclass
class Connection:
    """What the flags and the profile say about the endpoint, before the URL is resolved."""

    base_url: str | None
    endpoint: str | None
    api: str | None
    model: str | None
    headers: dict[str, str]
    verify_tls: bool
    profile: str | None = None  # the profile's name: its key is in the keyring under it
    profile_kind: str | None = None
    # The profile's roofline context as its file holds it (settings, read and judged once by
    # app.commands.sweep_config.roofline_context).
    roofline: Mapping[str, object] | None = None
    ray_address: str | None = None

    def resolve(self, base_url: str | None = None) -> ResolvedEndpoint:
        """The endpoint's URLs; UsageError with the resolver's sentence when they are wrong."""
        try:
            return resolve_endpoint(
                base_url or self.base_url or "", self.endpoint, self.api, self.model
            )
        except EndpointError as exc:
            raise UsageError(str(exc)) from None


def connection_from(args: argparse.Namespace, *, flag_in_errors: bool = True) -> Connection:
    """The connection flags merged over the saved profile they name (a flag given wins).

    UsageError for an unknown profile or a bad --header; `flag_in_errors` starts the unknown-
    profile sentence with "--profile: " (the doctor words it without)."""
    endpoint = EndpointConfig(
        base_url=args.base_url,
        endpoint=args.endpoint,
        backend=args.backend,
        model=args.model,
        profile=args.profile,
        headers=tuple(getattr(args, "header", None) or ()),
        insecure=args.insecure,
        ray=getattr(args, "ray", None),
    )
    return connection_for(endpoint, flag_in_errors=flag_in_errors)


def connection_for(endpoint: EndpointConfig, *, flag_in_errors: bool = True) -> Connection:
    """connection_from for a RunConfig's endpoint."""
    given = Connection(
        base_url=endpoint.base_url or None,
        endpoint=endpoint.endpoint,
        api=endpoint.backend,
        model=endpoint.model or None,
        headers=parse_headers(endpoint.headers),
        verify_tls=not endpoint.insecure,
        ray_address=endpoint.ray,
    )
    return _merged(given, endpoint.profile, flag_in_errors)


def _merged(given: Connection, profile_name: str | None, flag_in_errors: bool) -> Connection:
    """The connection given, over the saved profile named (None: no profile)."""
    if not profile_name:
        return given
    from app.profiles import ProfileStore

    profile = ProfileStore().get(profile_name)
    if profile is None:
        prefix = "--profile: " if flag_in_errors else ""
        raise UsageError(f"{prefix}no profile named '{profile_name}'")
    return Connection(
        base_url=given.base_url or profile.base_url or None,
        endpoint=given.endpoint,
        api=given.api or profile.api,
        model=given.model or profile.model or None,
        headers=check_headers({**profile.headers, **given.headers}),
        # --insecure wins over the profile; without it the profile says
        verify_tls=given.verify_tls and profile.verify_tls,
        profile=profile.name,
        profile_kind=profile.kind,
        roofline=profile.roofline,
        ray_address=given.ray_address or profile.ray_address or None,
    )
