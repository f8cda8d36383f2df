"""The whole-request time limit every networked command shares, beside its silence timeout."""

from __future__ import annotations

import argparse

from app.commands import flags

REQUEST_TIMEOUT_HELP = (
    "longest a whole request may take, first byte sent to last byte read, seconds; ends a "
    "server that drips bytes (default {default:g}; 0 = no limit)"
)


def add_request_timeout(parser: argparse.ArgumentParser, default: float) -> None:
    parser.add_argument(
        "--request-timeout",
        type=flags.number(0.0, flags.MAX_SECONDS),
        default=default,
        metavar="S",
        help=REQUEST_TIMEOUT_HELP.format(default=default),
    )


def request_limit(value: float) -> float | None:
    """--request-timeout as a deadline in seconds: 0 means none."""
    return None if value == 0 else value
