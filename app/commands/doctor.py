"""`tpotbench doctor`: the field guide's troubleshooting order, run against one endpoint."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from app.bench.doctor.run import DEFAULT_REQUEST_TIMEOUT_S, Check, DoctorTarget, diagnose
from app.bench.http.auth import key_problem
from app.bench.http.endpoint import EndpointError, resolve_endpoint
from app.commands import flags
from app.commands.credentials import find_api_key
from app.commands.timeouts import add_request_timeout, request_limit

_MARK = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]", "skip": "[skip]"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", help="use a saved endpoint profile (its key from the keyring)")
    parser.add_argument("--base-url", help="server root or API base, e.g. http://localhost:8000")
    parser.add_argument("--endpoint", help="path such as /v1/chat/completions (as in vllm bench)")
    parser.add_argument(
        "--backend",
        choices=["openai-chat", "openai", "chat", "completions"],
        help="API flavour: openai-chat (chat) or openai (completions)",
    )
    parser.add_argument("--model", help="model id as the server serves it")
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY, then API_KEY)",
    )
    parser.add_argument(
        "--insecure", action="store_true", help="do not verify the server's TLS certificate"
    )
    parser.add_argument(
        "--timeout", type=flags.seconds, default=5.0, help="longest silence per request (default 5)"
    )
    add_request_timeout(parser, DEFAULT_REQUEST_TIMEOUT_S)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _fail(message: str) -> int:
    print(f"tpotbench doctor: error: {message}", file=sys.stderr)
    return 2


def build_target(args: argparse.Namespace) -> DoctorTarget:
    """Flags (and a profile) to a DoctorTarget; raises ValueError with a one-line message."""
    base_url, api, model, verify, headers = args.base_url, None, args.model, True, {}
    if args.profile:
        from app.profiles import ProfileStore

        profile = ProfileStore().get(args.profile)
        if profile is None:
            raise ValueError(f"no profile named '{args.profile}'")
        if profile.kind == "simulator" and not base_url:
            raise ValueError(
                "the simulator profile has no fixed URL; start 'tpotbench sim' and pass "
                "--base-url http://127.0.0.1:8000"
            )
        base_url = base_url or profile.base_url
        api, model = profile.api, model or profile.model or None
        verify, headers = profile.verify_tls, dict(profile.headers)
    if not base_url:
        raise ValueError("give --base-url (e.g. http://localhost:8000) or --profile")
    key, source = find_api_key(args.api_key_env, args.profile)
    return DoctorTarget(
        base_url=base_url,
        endpoint=args.endpoint,
        api=args.backend or api,
        model=model,
        api_key=key,
        verify_tls=verify and not args.insecure,
        headers=headers,
        key_source=source,
    )


def format_check(check: Check) -> str:
    line = f"  {_MARK.get(check.status, check.status)} {check.id:<10} {check.detail}"
    if check.fix and check.status in ("warn", "fail"):
        line += f"\n{'':19}fix: {check.fix}"
    return line


def run(args: argparse.Namespace) -> int:
    try:
        target = build_target(args)
    except ValueError as exc:
        return _fail(str(exc))
    if problem := key_problem(target.api_key):
        return _fail(f"{problem} ({target.key_source.removeprefix('from ')})")
    request_timeout = request_limit(args.request_timeout)
    try:
        resolved = resolve_endpoint(target.base_url, target.endpoint, target.api, target.model)
    except EndpointError as exc:
        return _fail(str(exc))
    if not args.json:
        print(f"Checking {resolved.url} ({resolved.api} API)", flush=True)

    def show(check: Check) -> None:
        if not args.json:
            print(format_check(check), flush=True)

    try:
        report = asyncio.run(
            diagnose(
                target,
                timeout_s=args.timeout,
                request_timeout_s=request_timeout,
                on_check=show,
            )
        )
    except EndpointError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        failed = [c.id for c in report.checks if c.status == "fail"]
        warned = [c.id for c in report.checks if c.status == "warn"]
        verdict = f"{len(failed)} failed ({', '.join(failed)})" if failed else "all checks passed"
        if warned:
            verdict += f", {len(warned)} warning(s) ({', '.join(warned)})"
        print(f"{report.resolved_url}: {verdict}")
    return 0 if report.ok else 1
