"""Fixtures for the packaging checks: the packaging/ helpers on sys.path, a fake bundle."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
if str(PACKAGING) not in sys.path:
    sys.path.insert(0, str(PACKAGING))


@pytest.fixture
def fake_bundle(tmp_path: Path) -> Path:
    """A minimal one-folder bundle: an executable `tpotbench` script and one internal file."""
    bundle = tmp_path / "bundle"
    (bundle / "_internal").mkdir(parents=True)
    (bundle / "_internal" / "marker.txt").write_text("bundle payload\n")
    exe = bundle / "tpotbench"
    exe.write_text('#!/bin/sh\necho "fake tpotbench $*"\n')
    exe.chmod(0o755)
    return bundle
