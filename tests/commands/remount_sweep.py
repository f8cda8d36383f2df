"""Run `tpotbench sweep` (argv after the folder) with the results folder remounted read-only
mid-sweep: a disk that stops accepting writes, for real (EROFS from the kernel, which root
cannot override). Mode "point": when the second point starts (its file cannot be written);
mode "csv": after the second point's file, before its sweep.csv.

Run inside a private user + mount namespace (`unshare -rm`) where the folder is a bind mount
of itself, so the remount touches nothing outside this process and ends with it. The hooks
wrap the runner's `run_point` and `refresh_sweep_csv` (the engine's own code runs unchanged)."""

from __future__ import annotations

import subprocess
import sys

import app.bench.sweep.runner as runner
from app.cli import main

mode, folder = sys.argv[1], sys.argv[2]
# (write_sweep_csv: the runner's name for it before issue 23, so the hook shows old behaviour)
CSV_WRITER = "refresh_sweep_csv" if hasattr(runner, "refresh_sweep_csv") else "write_sweep_csv"
measure, summarise = runner.run_point, getattr(runner, CSV_WRITER)
calls = {"point": 0, "csv": 0}


def read_only() -> None:
    subprocess.run(["mount", "-o", "remount,ro,bind", folder], check=True)


async def run_point(config, point, *args, **kwargs):  # type: ignore[no-untyped-def]
    calls["point"] += 1
    if mode == "point" and calls["point"] == 2:
        read_only()
    return await measure(config, point, *args, **kwargs)


def refresh_sweep_csv(path, points):  # type: ignore[no-untyped-def]
    calls["csv"] += 1
    if mode == "csv" and calls["csv"] == 2:
        read_only()
    return summarise(path, points)


runner.run_point = run_point  # type: ignore[assignment]
setattr(runner, CSV_WRITER, refresh_sweep_csv)
sys.exit(main(sys.argv[3:]))
