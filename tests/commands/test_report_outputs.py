"""`tpotbench report --csv/--html FILE` never replaces what FILE is: a symlink is written
through, a FIFO is refused, an input file is refused, '-' streams; a FIFO given as a result
file is refused at once instead of waiting for a writer (issue 23 items 1 and 8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.results.write import atomic_write_text
from tests.commands.test_report import VLLM_SAMPLE, write_json


def report(*args: str) -> subprocess.CompletedProcess[str]:
    # The timeout is a guard only: a report that opens a FIFO waits for ever without it. Run
    # from the folder of the files so a stray output named '-' could not land in the tree.
    return subprocess.run(
        [sys.executable, "-m", "app", "report", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(args[0]).parent,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    runs.mkdir()
    write_json(runs / "expA_rate4_conc16.json", VLLM_SAMPLE)
    return runs


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_a_symlink_is_written_through_and_stays_a_link(
    tmp_path: Path, folder: Path, option: str
) -> None:
    target = tmp_path / "elsewhere" / "out.txt"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(target)
    done = report(str(folder), option, str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8") != "old"
    assert ("<html" if option == "--html" else "expA_rate4_conc16") in target.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_a_fifo_is_refused_not_replaced(tmp_path: Path, folder: Path, option: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = report(str(folder), option, str(fifo))
    assert done.returncode == 2
    assert "not a regular file" in done.stderr and len(done.stderr.splitlines()) == 1
    assert fifo.is_fifo()


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_an_input_file_is_refused_and_kept(folder: Path, option: str) -> None:
    point = folder / "expA_rate4_conc16.json"
    before = point.read_bytes()
    for given in (str(point), str(folder)):
        done = report(given, option, str(point))
        assert done.returncode == 2
        assert "one of the files being reported" in done.stderr
        assert point.read_bytes() == before


def test_a_link_to_an_input_file_is_refused(tmp_path: Path, folder: Path) -> None:
    point = folder / "expA_rate4_conc16.json"
    before = point.read_bytes()
    link = tmp_path / "innocent.html"
    link.symlink_to(point)
    done = report(str(folder), "--html", str(link))
    assert done.returncode == 2 and point.read_bytes() == before


def test_dash_streams_the_document_to_stdout_alone(folder: Path) -> None:
    done = report(str(folder), "--csv", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("file,") or "," in done.stdout.splitlines()[0]
    assert "TTFT p50" not in done.stdout  # no table mixed into the CSV
    html = report(str(folder), "--html", "-")
    assert html.returncode == 0 and html.stdout.lstrip().startswith("<!DOCTYPE html>")
    both = report(str(folder), "--csv", "-", "--json")
    assert both.returncode == 2 and "standard output" in both.stderr


def test_the_atomic_writer_refuses_a_fifo_and_writes_through_a_link(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        atomic_write_text(fifo, "x")
    assert fifo.is_fifo()
    real = tmp_path / "real.csv"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_fifo_named_json_is_refused_without_waiting(tmp_path: Path, folder: Path) -> None:
    fifo = folder / "stuck.json"
    os.mkfifo(fifo)
    alone = report(str(fifo))
    assert alone.returncode == 2
    assert "not a regular file" in alone.stderr and len(alone.stderr.splitlines()) == 1
    beside = report(str(folder), "--json")
    assert beside.returncode == 0
    assert "skipped" in beside.stderr and "stuck.json" in beside.stderr
    assert len(json.loads(beside.stdout)) == 1
