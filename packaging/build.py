"""Build the one-folder bundle dist/tpotbench with PyInstaller, then report its time and size."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "tpotbench.spec"
SIZE_GOAL_MB = 250.0


def project_version() -> str:
    """The version in pyproject.toml: the one source the bundle's --version must match."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def executable(dist: Path) -> Path:
    name = "tpotbench.exe" if sys.platform == "win32" else "tpotbench"
    return dist / "tpotbench" / name


def folder_size(path: Path) -> tuple[int, int]:
    """(bytes, files) under path, not following symlinks (macOS frameworks use many)."""
    total = count = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            file = Path(dirpath) / name
            if not file.is_symlink():
                total += file.stat().st_size
                count += 1
    return total, count


def check_ready() -> str | None:
    """A one-line reason the build cannot start, or None."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        return "PyInstaller is not installed: run  python -m pip install -e '.[packaging]'"
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("tpotbench")
    except PackageNotFoundError:
        return "tpotbench is not installed in this Python: run  python -m pip install -e ."
    if installed != project_version():
        return (
            f"the installed tpotbench metadata says {installed} but pyproject.toml says "
            f"{project_version()}: rerun  python -m pip install -e .  so --version is right"
        )
    return None


def build(dist: Path, work: Path, clean: bool) -> int:
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    cmd += ["--distpath", str(dist), "--workpath", str(work)]
    if clean:
        cmd.append("--clean")
    return subprocess.run([*cmd, str(SPEC)], cwd=ROOT, check=False).returncode


def check_version(exe: Path) -> str | None:
    """Run the bundle's --version; a one-line problem or None."""
    try:
        out = subprocess.run(
            [str(exe), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError as exc:
        return f"could not run {exe}: {exc}"
    expected = f"tpotbench {project_version()}"
    if out.returncode != 0 or out.stdout.strip() != expected:
        got = (out.stdout.strip() or out.stderr.strip())[:200]
        return f"{exe} --version printed {got!r} (exit {out.returncode}), expected {expected!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="PyInstaller work folder")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    args = parser.parse_args(argv)

    problem = check_ready()
    if problem:
        print(f"build.py: {problem}", file=sys.stderr)
        return 1
    start = time.perf_counter_ns()
    if build(args.dist, args.work, args.clean) != 0:
        print("build.py: PyInstaller failed (its messages are above)", file=sys.stderr)
        return 1
    seconds = (time.perf_counter_ns() - start) / 1e9
    exe = executable(args.dist)
    size, files = folder_size(exe.parent)
    mb = size / 1e6
    print(f"built {exe} in {seconds:.1f} s: {mb:.0f} MB in {files} files")
    if mb > SIZE_GOAL_MB:
        print(f"build.py: note: larger than the {SIZE_GOAL_MB:.0f} MB goal", file=sys.stderr)
    problem = check_version(exe)
    if problem:
        print(f"build.py: {problem}", file=sys.stderr)
        return 1
    print(f"{exe.name} --version: tpotbench {project_version()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
