"""Where the app finds its bundled resources, from a source tree or a PyInstaller bundle."""

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The `resources/` folder: next to `app/` in a checkout, under `_MEIPASS` in a bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def cli_command() -> list[str]:
    """The argv prefix that runs `tpotbench` as a child process, from source or from a bundle.

    In a PyInstaller bundle sys.executable is the tpotbench program itself, so `-m app` would be
    taken as unknown arguments.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app"]
