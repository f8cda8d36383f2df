"""Command-line front door: dispatches to one command module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import NoReturn

from app import __version__

# Each command lives in app/commands/<name>.py with `add_arguments(parser)` and `run(args) -> int`.
# Imported lazily so `tpotbench sim` does not pay for Qt and the GUI does not pay for uvicorn.
COMMANDS: dict[str, str] = {
    "sim": "Run the built-in simulated vLLM server (OpenAI-compatible, /metrics included).",
    "probe": "Send one streaming request and print TTFT, TPOT and tokens/s.",
    "sweep": "Run a benchmark sweep over request rates and concurrencies (like vllm bench serve).",
    "search": "Find the highest concurrency or request rate that meets your SLOs, and why.",
    "compare": "Compare two runs point by point: each figure's change, 95 % interval, verdict.",
    "report": "Summarise result files (ours or vllm bench serve's) as a table, CSV or JSON.",
    "doctor": "Diagnose an endpoint: reachable, auth, path, model, body, streaming, metrics.",
    "roofline": "Print the decode floor, bytes per step, MBU and KV capacity for a GPU and model.",
    "selftest": "Measure this machine's client ceiling: the most streams it stamps faithfully.",
}


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line plus a pointer to --help, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_command_parser(name: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module = importlib.import_module(f"app.commands.{name}")
    parser = OneLineParser(prog=f"tpotbench {name}", description=COMMANDS[name])
    module.add_arguments(parser)
    return parser, module


def _gui_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<9} {text}" for name, text in COMMANDS.items())
    parser = OneLineParser(
        prog="tpotbench",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="With no command, opens the TPOT Bench window.",
        epilog=f"commands (run 'tpotbench COMMAND --help'):\n{lines}",
    )
    parser.add_argument("--version", action="version", version=f"tpotbench {__version__}")
    parser.add_argument("--screenshot", metavar="FILE", help="open the window, save a PNG, exit")
    parser.add_argument(
        "--demo-sweep",
        action="store_true",
        help="with --screenshot: run a short sweep against the simulator first",
    )
    parser.add_argument(
        "--size",
        type=_window_size,
        metavar="WxH",
        help="with --screenshot: the window's size in pixels (default 1400x900)",
    )
    parser.add_argument("--lang", choices=["en", "zh_CN"], help="UI language (default: system)")
    return parser


def _window_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit() and 320 <= int(width) <= 8192):
        raise argparse.ArgumentTypeError(f"'{text[:40]}': give WIDTHxHEIGHT, e.g. 1280x720")
    if not 240 <= int(height) <= 8192:
        raise argparse.ArgumentTypeError(f"'{text[:40]}': give WIDTHxHEIGHT, e.g. 1280x720")
    return int(width), int(height)


def main(argv: list[str]) -> int:
    if argv[:1] == ["_worker"]:  # a load worker started by `sweep --workers N`, not for people
        from app.bench.load.workers.child import main as worker_main

        return worker_main()
    if argv and argv[0] in COMMANDS:
        parser, module = build_command_parser(argv[0])
        args = parser.parse_args(argv[1:])
        try:
            return int(module.run(args))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # `tpotbench report ... | head` closed our stdout: not an error worth a traceback.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
    parser = _gui_parser()
    args = parser.parse_args(argv)
    if args.size and not args.screenshot:
        parser.error("--size goes with --screenshot (the window itself remembers its size)")
    try:
        gui = importlib.import_module("app.ui.launch")
    except ImportError as exc:  # Qt or a system library missing: the headless commands still work
        print(
            f"tpotbench: the window cannot start ({exc}); the commands in "
            "'tpotbench --help' still work.",
            file=sys.stderr,
        )
        return 1
    return int(gui.launch(args))
