"""Time from starting TPOT Bench to its main window being mapped on a private Xvfb display.

    python packaging/startup_time.py                 # the bundle, dist/tpotbench/tpotbench
    python packaging/startup_time.py --exe .venv/bin/tpotbench   # the source install, to compare

Needs Xvfb and xwininfo (Debian: xvfb, x11-utils). Prints each run and the median; the first
run after a build includes a cold disk cache.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 2.0
TITLE = "TPOT Bench"


def start_xvfb() -> tuple[subprocess.Popen, str]:
    """A private X server; returns it and its DISPLAY value."""
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        server.wait()
        raise RuntimeError("Xvfb did not start")
    return server, f":{number}"


def mapped_window(display: str) -> bool:
    """True once a viewable top-level window whose title contains TITLE exists."""
    env = {**os.environ, "DISPLAY": display}
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"], capture_output=True, text=True, env=env, check=False
    ).stdout
    for match in re.finditer(r"^\s*(0x[0-9a-f]+) \"([^\"]*)\"", tree, re.MULTILINE):
        if TITLE in match.group(2):
            info = subprocess.run(
                ["xwininfo", "-id", match.group(1)],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            ).stdout
            if "IsViewable" in info:
                return True
    return False


def one_run(exe: Path, display: str, timeout_s: float) -> float | None:
    with tempfile.TemporaryDirectory(prefix="tpotbench-start-") as home:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("XDG_", "DBUS_", "QT_", "WAYLAND"))
        }
        env.update(HOME=home, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        start = time.perf_counter_ns()
        app = subprocess.Popen(
            [str(exe)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            while (time.perf_counter_ns() - start) / 1e9 < timeout_s:
                if mapped_window(display):
                    return (time.perf_counter_ns() - start) / 1e9
                if app.poll() is not None:
                    return None
                time.sleep(0.01)
            return None
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", type=Path, default=ROOT / "dist" / "tpotbench" / "tpotbench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("Xvfb", "xwininfo") if shutil.which(tool) is None]
    if missing:
        print(f"startup_time.py: needs {' and '.join(missing)} (apt-get install xvfb x11-utils)")
        return 1
    if not args.exe.exists():
        print(f"startup_time.py: no {args.exe}; build it with python packaging/build.py")
        return 1
    server, display = start_xvfb()
    times = []
    try:
        for run in range(1, args.runs + 1):
            seconds = one_run(args.exe, display, args.timeout)
            if seconds is None:
                print(f"run {run}: no window within {args.timeout:.0f} s (or the app exited)")
                return 1
            times.append(seconds)
            print(f"run {run}: window mapped after {seconds:.2f} s")
    finally:
        server.terminate()
        server.wait()
    median = statistics.median(times)
    verdict = "within" if median <= GOAL_S else "over"
    print(
        f"{args.exe}: median {median:.2f} s over {len(times)} runs ({verdict} the {GOAL_S} s goal)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
