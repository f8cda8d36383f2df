"""Where the window keeps results unless the user picks another folder."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def default_results_root() -> Path:
    """Documents/TPOT Bench results when there is a documents folder, else the data dir."""
    try:
        docs = Path(platformdirs.user_documents_dir())
        if docs.is_dir():
            return docs / "TPOT Bench results"
    except OSError:
        pass
    return Path(platformdirs.user_data_dir("tpotbench", appauthor=False)) / "results"
