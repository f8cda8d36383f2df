"""Point files in earlier releases' shapes open in the reader, the summary row and the report,
with the figures they carry (benchmarks/old_files.py runs the releases themselves)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.bench.results.read import load_results, result_files
from tests.bench.results.old_shapes import (
    LACKS,
    OLD_BOUNDARY_WHY,
    old_document,
    old_search,
    rich_points,
    rich_search,
    write_old_runs,
)

# Columns whose figures come only from a block an older release did not write: empty for it.
# (The load warning of a concurrency the prompts could not fill comes from the counts every
# release wrote, so it is there for all.)
FROM_LATER_BLOCKS = {
    "f6c280a": set(),
    "269907c": set(),
    "bbeb08e": {"ttfo_ms", "tpot_answer_ms"},
}


@pytest.fixture(scope="module")
def runs(sim, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("old_files")
    return write_old_runs(rich_points(sim.base_url, root / "written"), root / "runs")


def rows_of(folder: Path) -> dict[str, dict]:
    return {p.path.name: p.summary_row() for p in load_results(result_files(folder))}


def test_the_current_file_has_every_block_an_older_release_lacks(runs: dict[str, Path]) -> None:
    # Otherwise the older shapes below would equal the current one and prove nothing.
    blocks = [json.loads(p.read_text())["tpotbench"] for p in result_files(runs["current"])]
    for dotted in LACKS["bbeb08e"]:
        if dotted in ("client_ceiling", "stamping"):
            continue  # written only past the machine's measured ceiling / with a transport
        head, _, tail = dotted.partition(".")
        assert any(head in b and (not tail or tail in b[head]) for b in blocks), dotted


@pytest.mark.parametrize("release", list(LACKS))
def test_older_shapes_read_with_the_figures_they_carry(runs: dict[str, Path], release: str) -> None:
    current, old = rows_of(runs["current"]), rows_of(runs[release])
    assert sorted(old) == sorted(current) == ["now_rateinf_conc1.json", "now_rateinf_conc12.json"]
    for name, row in old.items():
        document = json.loads((runs[release] / name).read_text())
        assert row["completed"] == document["completed"] == 6
        assert row["p99_ttft_ms"] == document["p99_ttft_ms"]
        assert row["output_throughput"] == document["output_throughput"]
        assert row["floor_tpot_ms"] == document["tpotbench"]["roofline"]["floor_tpot_ms"]
        assert row["mean_slot_wait_ms"] == document["tpotbench"]["slot_wait_ms"]["mean"]
        differ = {k for k, v in row.items() if v != current[name][k]}
        assert differ == FROM_LATER_BLOCKS[release], {k: row[k] for k in differ}
        assert all(row[k] is None and current[name][k] is not None for k in differ)
        assert sorted(row) == sorted(current[name])
    assert "never reached" in old["now_rateinf_conc12.json"]["load_warnings"]
    assert old["now_rateinf_conc1.json"]["load_warnings"] == ""


@pytest.mark.parametrize("release", list(LACKS))
def test_older_shapes_open_in_the_report(
    runs: dict[str, Path], release: str, tmp_path: Path
) -> None:
    folder = runs[release]
    csv_out, html_out = tmp_path / "r.csv", tmp_path / "r.html"
    report = [sys.executable, "-m", "app", "report", str(folder)]
    proc = subprocess.run(
        [*report, "--csv", str(csv_out), "--html", str(html_out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == f"report: {html_out}"  # nothing else said: no warning
    assert "now_rateinf_conc12.json" in proc.stdout
    with csv_out.open(newline="", encoding="utf-8") as handle:
        table = {r["file"]: r for r in csv.DictReader(handle)}
    expected = rows_of(folder)
    assert sorted(table) == sorted(expected)
    for name, row in expected.items():
        assert float(table[name]["p99_tpot_ms"]) == pytest.approx(row["p99_tpot_ms"])
    html = html_out.read_text(encoding="utf-8")
    assert "now_rateinf_conc12" in html and "Traceback" not in html
    proc = subprocess.run(
        [*report, "--json"], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    rows = {r["file"]: r for r in json.loads(proc.stdout)}
    assert {n: r["p99_ttft_ms"] for n, r in rows.items()} == {
        n: r["p99_ttft_ms"] for n, r in expected.items()
    }


@pytest.mark.parametrize("release", list(LACKS))
def test_an_older_search_opens_in_the_report_with_its_stored_why(
    sim, tmp_path: Path, release: str
) -> None:
    searched = rich_search(sim.base_url, tmp_path / "written")
    folder = tmp_path / release
    folder.mkdir()
    for path in result_files(searched.parent):
        document = old_document(json.loads(path.read_text(encoding="utf-8")), release)
        (folder / path.name).write_text(json.dumps(document), encoding="utf-8")
    old = old_search(json.loads(searched.read_text(encoding="utf-8")))
    (folder / "search.json").write_text(json.dumps(old), encoding="utf-8")
    html_out = tmp_path / "r.html"
    proc = subprocess.run(
        [sys.executable, "-m", "app", "report", str(folder), "--html", str(html_out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == f"report: {html_out}"
    # The old why's parameters fit none of this tree's templates: its stored English is shown.
    assert OLD_BOUNDARY_WHY["text"] in proc.stdout
    assert str(OLD_BOUNDARY_WHY["text"]).replace("'", "&#x27;") in html_out.read_text("utf-8")
