"""A results folder that stops accepting writes mid-sweep stops the sweep at the first failed
write, with one line, a non-zero exit and the finished points kept, and sweep.csv is never
named as the summary when it is out of date; a run that saves nothing leaves no empty folder
behind (issue 23 items 2 and 4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.test_sweep import read_csv, sweep_cmd

HOOK = Path(__file__).with_name("remount_sweep.py")
ROOT = Path(__file__).resolve().parents[2]


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(
    not _namespaces_work(), reason="needs unshare -rm (user + mount namespaces) to remount"
)


def _remounted_sweep(mode: str, base_url: str, folder: Path) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    argv = sweep_cmd(base_url, folder, "--num-prompts", "2", "--max-concurrency", "1,2,3")
    argv += ["--model", "qwen2.5-7b", "--label", "disk"]
    script = 'mount --bind "$1" "$1" && shift && exec "$@"'
    cmd = ["unshare", "-rm", "sh", "-c", script, "sh", str(folder)]
    cmd += [sys.executable, str(HOOK), mode, str(folder), *argv[3:]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def _saved(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("disk_*.json"))


def _one_error(mode: str, base_url: str, folder: Path) -> tuple[str, str]:
    """(the one error line, stderr) of a sweep whose folder went read-only, exit 1."""
    proc = _remounted_sweep(mode, base_url, folder)
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    return errors[0], proc.stderr


@needs_namespaces
def test_a_folder_gone_read_only_stops_the_sweep_at_the_next_point(sim, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    error, stderr = _one_error("point", sim.base_url, folder)
    assert "Read-only file system" in error
    assert "the sweep stopped after 1 of 3 point(s)" in error
    assert "Point 3" not in stderr  # the third point was never measured
    assert _saved(folder) == ["disk_rateinf_conc1.json"]
    rows = read_csv(folder / "sweep.csv")
    assert [row["max_concurrency"] for row in rows] == ["1"]  # true to what is on disk
    assert stderr.splitlines()[-1] == f"summary {folder / 'sweep.csv'}"  # true: named
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temp file left


@needs_namespaces
def test_a_summary_that_cannot_be_rewritten_is_not_named_and_says_so(sim, tmp_path) -> None:
    folder = tmp_path / "runs"
    error, stderr = _one_error("csv", sim.base_url, folder)
    assert "sweep.csv (Read-only file system); it lists only the points before" in error
    assert "the sweep stopped after 2 of 3 point(s)" in error
    assert _saved(folder) == ["disk_rateinf_conc1.json", "disk_rateinf_conc2.json"]
    assert not any(line.startswith("summary ") for line in stderr.splitlines())


def test_a_run_refused_with_401_leaves_no_empty_folder(make_sim, tmp_path: Path) -> None:
    gateway = make_sim(api_key="sk-test-key-0123456789abcdef")
    folder = tmp_path / "new" / "runs"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    argv = sweep_cmd(gateway.base_url, folder, "--num-prompts", "2", "--model", "qwen2.5-7b")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode != 0 and "401" in proc.stderr
    assert not (tmp_path / "new").exists()  # the folders it made are gone again
    # a folder that was there before the run is left in place, empty or not
    folder.mkdir(parents=True)
    again = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert again.returncode != 0 and folder.is_dir()
