"""`tpotbench sweep`: `vllm bench serve` over a grid of request rates x concurrencies."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.bench.capacity.search import SearchSettings, no_success
from app.bench.http.auth import cleartext_warning
from app.bench.load.workers.pool import WorkerError
from app.bench.results.read import result_files
from app.bench.results.write import (
    ensure_writable_dir,
    missing_dirs,
    no_success_note,
    remove_empty_dirs,
)
from app.bench.schema.point_blocks import FailureGroup
from app.bench.schema.run_config import RunConfig
from app.bench.selftest.store import ceiling_warning
from app.bench.sweep.discovery import UnreachableError, fetch_first_model
from app.bench.sweep.events import EventWriter
from app.bench.sweep.observer import SweepObserver
from app.bench.sweep.run_context import ResultExistsError, RunContext
from app.bench.sweep.runner import run_sweep
from app.commands import conversation_flags
from app.commands.console import error, note
from app.commands.credentials import UsageError
from app.commands.run_args import config_argv, config_from_args, read_config, replaced
from app.commands.sweep_config import open_context
from app.commands.sweep_console import ConsoleReporter
from app.commands.sweep_flags import add_sweep_arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_sweep_arguments(parser)


def _watch_stdin(loop: asyncio.AbstractEventLoop, cancel: asyncio.Event) -> None:
    def reader() -> None:
        for line in sys.stdin:
            if line.strip() == "cancel":
                loop.call_soon_threadsafe(cancel.set)
                return

    threading.Thread(target=reader, name="cancel-reader", daemon=True).start()


async def _with_model(config: RunContext) -> RunContext:
    """Check the server answers; without --model take its first model (as vLLM does), and
    name the roofline's architecture after it when no --roofline-model was given: the
    context with the model, ready to run."""
    first = await fetch_first_model(
        config.resolved,
        config.api_key,
        config.extra_headers,
        config.verify_tls,
        timeout_s=min(60.0, config.timeout_s or 60.0),
        request_timeout_s=min(60.0, config.request_timeout_s or 60.0),
    )
    model = config.model
    if not model:
        if first is None:
            raise UnreachableError(f"no model list at {config.resolved.models_url}; pass --model")
        model = first
    roofline = config.roofline
    if roofline is not None and not roofline.model_id:
        roofline = replace(roofline, model_id=model)
        try:
            roofline.scenario()  # the served model's name may not be an architecture we know
        except ValueError as exc:
            print(
                f"note: no roofline for this run: {exc}; name the architecture with "
                "--roofline-model",
                file=sys.stderr,
            )
            roofline = None
    return replace(config, model=model, roofline=roofline)


async def _main(
    run: RunConfig,
    config: RunContext,
    observers: list[SweepObserver],
    search: SearchSettings | None = None,
) -> int:
    loop = asyncio.get_running_loop()
    cancel = asyncio.Event()
    # The exit status of a run stopped by a signal is 128 + its number, as a shell reports a
    # process the signal ended: 130 for Ctrl-C, 143 for SIGTERM (a service manager's stop).
    stopped_by: list[int] = []

    def on_signal(sig: int) -> None:
        if cancel.is_set():
            os._exit(128 + sig)  # a second signal: finished points are already on disk
        stopped_by.append(sig)
        cancel.set()

    def signal_status() -> int:
        return 128 + (stopped_by[0] if stopped_by else int(signal.SIGINT))

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal, int(sig))
    if run.output.events:
        _watch_stdin(loop, cancel)

        def reader_gone() -> None:  # on the writer's thread; the loop may be over by then
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(cancel.set)

        for obs in observers:
            if isinstance(obs, EventWriter):
                obs.on_broken = reader_gone
    config = await _with_model(config)
    if search is not None:
        from app.bench.capacity.search_run import run_search

        found, _, _ = await run_search(config, search, observers, cancel)
        if found.cancelled and not run.output.events:
            return signal_status()
        if no_success(found):
            # As `sweep`: nothing succeeded is an error, with what failed and its fix.
            failures = [
                f
                for v in found.values
                for r in v.runs
                if r.result is not None
                for f in r.result.typed_blocks.failures
            ]
            print(
                f"tpotbench search: no request succeeded at any of {len(found.values)} "
                f"load(s): {no_success_note(_merged(failures))}",
                file=sys.stderr,
            )
            return 1
        return 0
    outcome = await run_sweep(config, observers, cancel)
    if outcome.cancelled and not run.output.events:
        return signal_status()
    empty = outcome.empty_points
    if empty:
        print(
            f"tpotbench sweep: no request succeeded in {len(empty)} of {len(outcome.results)} "
            "point(s); their latency figures are left empty (see the failures above)",
            file=sys.stderr,
        )
    return 1 if empty or outcome.write_errors else 0


def _merged(failures: list[FailureGroup]) -> list[FailureGroup]:
    """Failure groups of several points as one list: counts added per kind, most first."""
    by_kind: dict[str, FailureGroup] = {}
    for failure in failures:
        if failure.kind in by_kind:
            known = by_kind[failure.kind]
            by_kind[failure.kind] = replace(known, count=known.count + failure.count)
        else:
            by_kind[failure.kind] = failure
    return sorted(by_kind.values(), key=lambda f: -f.count)


def run(args: argparse.Namespace) -> int:
    return start(args, "sweep")


def start(args: argparse.Namespace, command: str) -> int:
    """`sweep` or `search`: the RunConfig from the flags (or --config), then the run."""
    try:
        config = config_of(args, command)
    except UsageError as exc:
        events = EventWriter(sys.stdout) if args.events else None
        try:
            return error(command, str(exc), events=events)
        finally:
            if events is not None:
                events.close()
    if config.search is not None:
        from app.commands.search import run_search_config

        return run_search_config(config)
    return run_with(config)


def config_of(args: argparse.Namespace, command: str) -> RunConfig:
    """The run the flags give, or the one --config holds (then no other flag is allowed)."""
    config = config_from_args(args, command)
    if args.config is None:
        return config
    given = config_argv(config)[1:]
    if given:
        raise UsageError(f"--config holds the whole run; drop {given[0]} (or drop --config)")
    return read_config(args.config, command)


def run_with(
    config: RunConfig,
    search: SearchSettings | None = None,
    search_console: Any | None = None,
) -> int:
    """`sweep`, or with `search` settings the capacity search (same flags, same files)."""
    # Written from its own thread: a GUI that reads slowly must not hold up token timestamps.
    events = EventWriter(sys.stdout, background=True) if config.output.events else None
    try:
        return _run(config, events, search, search_console)
    finally:
        if events is not None:
            events.close()  # everything queued, run_finished last, is written before exit


def _num_requests(config: RunContext) -> int:
    conversations = config.conversations
    return len(config.samples) if conversations is None else conversations.num_requests


def _planned(config: RunContext, search: SearchSettings | None) -> tuple[RunContext, list[Path]]:
    """The context with its result files planned (the only time they are), and the result
    files in the folder that this run will not write; OSError (ResultExistsError among them)
    when the folder cannot be written or a file of this run is already there."""
    ensure_writable_dir(config.result_dir)
    config = config.planned()
    assert config.plan is not None
    targets = set(config.plan.targets)
    others = [p for p in result_files(config.result_dir) if p not in targets]
    summary = config.result_dir / "search.json"
    if search is not None and summary.exists() and not config.overwrite:
        raise ResultExistsError(
            f"{summary} exists (an earlier search); pass --overwrite to replace it, or "
            "choose another --result-dir"
        )
    return config, others


def _run(
    run: RunConfig,
    events: EventWriter | None,
    search: SearchSettings | None = None,
    search_console: Any | None = None,
) -> int:
    command = run.command
    try:
        if search is not None and run.dataset.name == "mooncake":
            raise UsageError(
                "a trace replay keeps the trace's own schedule, so there is no load to search; "
                "run tpotbench sweep --dataset-name mooncake (with --trace-speedup)"
            )
        if search is not None:
            conversation_flags.refuse_in_search(run)
            run = replaced(run, "dataset", num_prompts=search.num_prompts)
        config, notes = open_context(run)
    except UsageError as exc:
        return error(command, str(exc), events=events)
    # Folders this run creates are removed again if it ends with nothing in them (every
    # request refused with 401, say): an empty results folder only misleads.
    made = missing_dirs(config.result_dir)
    try:
        return _run_config(run, config, notes, events, search, search_console)
    finally:
        remove_empty_dirs(made)


def _run_config(
    run: RunConfig,
    config: RunContext,
    notes: list[str],
    events: EventWriter | None,
    search: SearchSettings | None,
    search_console: Any | None,
) -> int:
    command = run.command
    try:
        config, others = _planned(config, search)
    except OSError as exc:  # checked before any request, so no load runs for nothing
        message = (
            str(exc)
            if isinstance(exc, ResultExistsError)
            else f"--result-dir: cannot write in {config.result_dir} ({exc.strerror or exc})"
        )
        return error(command, message, events=events)
    if others:  # never read: they cannot stop this run, and sweep.csv will not mix them in
        notes.append(
            f"{config.result_dir} holds {len(others)} other result file(s) (e.g. "
            f"{others[0].name}); they are left as they are and sweep.csv lists "
            + (
                f"this run's points and the earlier ones labelled {config.label}"
                if config.label
                else "this run only"
            )
        )
    for text in notes:
        note(text)
    if config.client_ceiling is not None and (
        past := ceiling_warning(
            config.concurrencies, _num_requests(config), config.workers, config.client_ceiling
        )
    ):
        print(f"warning: {past}", file=sys.stderr)
    if warning := cleartext_warning(config.resolved.url, config.api_key):
        print(warning, file=sys.stderr)
    console = ConsoleReporter(
        bar=not run.output.disable_tqdm,
        summary_stream=sys.stderr if events or search is not None else sys.stdout,
    )
    console.burstiness = config.burstiness
    console.trace = config.trace
    observers: list[SweepObserver] = [console] + ([events] if events else [])
    if search_console is not None:
        if events:  # stdout carries the events; the table goes to stderr
            search_console.out = sys.stderr
        observers.append(search_console)
    from app.bench.http.client import run as run_async

    try:
        return run_async(_main(run, config, observers, search))
    except (UnreachableError, WorkerError) as exc:
        # Points finished before this are on disk already.
        return error(command, str(exc), 1, events=events)
    except OSError as exc:  # the result folder cannot be written, for instance
        return error(command, str(exc), 1, events=events)
