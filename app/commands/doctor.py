"""`tpotbench doctor`: the field guide's troubleshooting order, run against one endpoint."""

from __future__ import annotations

import argparse
import asyncio

from app.bench.doctor.run import DEFAULT_REQUEST_TIMEOUT_S, Check, DoctorTarget, diagnose
from app.bench.http.auth import key_problem
from app.bench.http.endpoint import EndpointError, resolve_endpoint
from app.commands import flags
from app.commands.connection import add_connection_arguments, connection_from
from app.commands.console import error
from app.commands.credentials import find_api_key
from app.commands.timeouts import add_request_timeout, request_limit

_MARK = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]", "skip": "[skip]"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument(
        "--timeout", type=flags.seconds, default=5.0, help="longest silence per request (default 5)"
    )
    add_request_timeout(parser, DEFAULT_REQUEST_TIMEOUT_S)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _fail(message: str) -> int:
    return error("doctor", message)


def build_target(args: argparse.Namespace) -> DoctorTarget:
    """Flags (and a profile) to a DoctorTarget; raises ValueError with a one-line message."""
    conn = connection_from(args, flag_in_errors=False)
    if conn.profile_kind == "simulator" and not args.base_url:
        raise ValueError(
            "the simulator profile has no fixed URL; start 'tpotbench sim' and pass "
            "--base-url http://127.0.0.1:8000"
        )
    if not conn.base_url:
        raise ValueError("give --base-url (e.g. http://localhost:8000) or --profile")
    key, source = find_api_key(args.api_key_env, args.profile)
    return DoctorTarget(
        base_url=conn.base_url,
        endpoint=conn.endpoint,
        api=conn.api,
        model=conn.model,
        api_key=key,
        verify_tls=conn.verify_tls,
        headers=conn.headers,
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
        print(report.json_text())
    else:
        failed = [c.id for c in report.checks if c.status == "fail"]
        warned = [c.id for c in report.checks if c.status == "warn"]
        verdict = f"{len(failed)} failed ({', '.join(failed)})" if failed else "all checks passed"
        if warned:
            verdict += f", {len(warned)} warning(s) ({', '.join(warned)})"
        print(f"{report.resolved_url}: {verdict}")
    return 0 if report.ok else 1
