"""Where the app finds its bundled resources (from a source tree or a PyInstaller bundle) and
the user's config folder."""

import os
import sys
from pathlib import Path

import platformdirs

CONFIG_ENV = "TPOTBENCH_CONFIG_DIR"


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


def config_dir() -> Path:
    """The user's config directory for TPOT Bench (TPOTBENCH_CONFIG_DIR overrides it)."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("tpotbench", appauthor=False))
