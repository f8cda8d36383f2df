"""Files written by earlier releases (and by `vllm bench serve`) still open in this tree.

For each revision below, that revision's `app/` and `resources/` are exported from git history
(`git archive REV app resources`), and it runs a small real sweep and a small capacity search
against the simulator of THIS tree (`tpotbench sim` on 127.0.0.1), with the flags that make its
richest files (--save-detailed, --scrape-metrics, --gpu rtx3090, --goodput on the sweep, the
search's early stop). Every file is then opened with THIS tree:

- `tpotbench report SWEEP SEARCH --csv F --html F` (the table, the CSV, the HTML report) and
  `tpotbench report SWEEP SEARCH --json` (every file a row);
- the results reader (`load_results` + `summary_row`), and the same reader of the old release:
  the summary rows must be equal on every column both know (a column the old release had that
  this tree lost is a difference too; columns added since are listed, not failures);
- the Results panel offscreen: folder set, every run, point and table row there, no unreadable
  file, nothing logged at WARNING or above, no Qt warning, no Python warning.

A file in the exact key set of `vllm bench serve --save-result --save-detailed` (the key lists
of tests/commands/test_sweep.py; the figures of tests/bench/results/test_files.py) goes through
the same checks, and this tree's own point files must carry every one of those keys.

  python benchmarks/old_files.py [--port 18450] [--keep DIR]

The oldest revisions measured through httpx-aiohttp, which this tree no longer installs: run
`pip install 'httpx-aiohttp>=0.1.8'` into the environment first (their sweeps exit with
"No module named 'aiohttp'" otherwise), and uninstall it after.

Prints one table (revision, files, opened OK, rows equal, differences) and exits 1 on any
failure. Needs the git history (a clone, not an sdist); takes about two minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Earlier releases, newest first, with the search flags each needs. Picked from
# `git log --first-parent main -- app/bench/results/write.py app/bench/sweep/point_document.py`
# for the file shapes they wrote:
#   13336c6  the eighth session's landing: typed blocks written through the schema codec,
#            the server kind in the why's params, send lateness read by the why.
#   66298f8  the seventh session's landing: completeness, load_warnings, stamping, why,
#            client_ceiling, pareto in the tpotbench block.
#   f6c280a  after the package split (results/write.py, sweep/point_document.py), before
#            completeness, load_warnings, stamping and the why.
#   269907c  one file app/bench/results.py: TTFO, reasoning and prefix-cache figures, the
#            search's early stop (the oldest release whose search runs with --save-detailed).
#   bbeb08e  the first release with SLOs, goodput and the search; no TTFO/reasoning/cache
#            figures. Its early stop crashes on its own request events (fixed in 269907c), so
#            its search runs with --no-early-stop.
RELEASES: list[tuple[str, list[str]]] = [
    ("13336c6", []),
    ("66298f8", []),
    ("f6c280a", []),
    ("269907c", []),
    ("bbeb08e", ["--no-early-stop"]),
]
CURRENT = "current"

WORKLOAD = [
    "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "16",
    "--save-detailed", "--scrape-metrics", "--gpu", "rtx3090", "--disable-tqdm",
]  # fmt: skip
SWEEP = [
    "--num-prompts", "8", "--request-rate", "inf", "--max-concurrency", "1,4,16",
    "--goodput", "ttft:2000", "tpot:50", "--slo", "ttft:p99:60", "--label", "sw",
]  # fmt: skip
# 16 streams with 8 prompts: a load that never happened (load_warnings); TTFT p99 over 60 ms
# there: a failed SLO and its why. The search's TTFT limit is crossed near 8 streams (the
# simulator has 8 slots): growth, then bisection, early stop and a why.
SEARCH = [
    "--slo", "tpot:p99:40", "ttft:p99:150", "--max", "32", "--min-prompts", "8",
    "--prompts-per-unit", "2", "--num-prompts", "32", "--label", "se",
]  # fmt: skip
RUN_TIMEOUT_S = 120

# Prints the summary rows of every result file under the folders given, read by whichever
# tree is first on PYTHONPATH (the results module moved in the package split).
READ_ROWS = """
import importlib, json, sys
from pathlib import Path
try:
    m = importlib.import_module("app.bench.results.read")
except ImportError:
    m = importlib.import_module("app.bench.results")
rows = {}
for folder in sys.argv[1:]:
    for point in m.load_results(m.result_files(Path(folder))):
        rows[str(point.path)] = point.summary_row()
print(json.dumps(rows, default=str))
"""

# Opens the folder in the Results panel offscreen and prints what it shows.
PANEL = """
import json, logging, sys, warnings
from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

problems = []
class Catch(logging.Handler):
    def emit(self, record):
        problems.append(f"log {record.levelname}: {record.getMessage()}")
logging.getLogger().addHandler(Catch(level=logging.WARNING))
def on_qt(kind, context, message):
    if kind != QtMsgType.QtDebugMsg and kind != QtMsgType.QtInfoMsg:
        problems.append(f"qt: {message}")
qInstallMessageHandler(on_qt)
app = QApplication([])
from app.ui.panels.results.panel import ResultsPanel
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    panel = ResultsPanel()
    panel.set_folder(sys.argv[1])
    panel.show_runs([run.name for run in panel.runs])
    app.processEvents()
problems += [f"warning: {w.message}" for w in caught]
print(json.dumps({
    "runs": len(panel.runs),
    "points": sum(len(run.points) for run in panel.runs),
    "rows": panel.table.rowCount(),
    "errors": [str(e) for e in panel.errors],
    "problems": problems,
}))
"""


@dataclass
class Outcome:
    revision: str
    files: int = 0
    opened: int = 0
    rows_equal: int = 0
    rows_compared: int = 0
    failures: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    new_columns: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    env.update(PYTHONPATH=str(tree), QT_QPA_PLATFORM="offscreen", PYTHONWARNINGS="default")
    return env


def _run(tree: Path, args: Sequence[str], timeout: float = RUN_TIMEOUT_S) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def export(revision: str, into: Path) -> Path:
    """`git archive REV app resources`, unpacked into `into/REV`."""
    tree = into / revision
    tree.mkdir(parents=True)
    archive = into / f"{revision}.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision, "app", "resources"],
            stdout=out,
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    return tree


def measure(
    tree: Path, base_url: str, out: Path, search_extra: list[str], outcome: Outcome
) -> None:
    """The revision's own sweep and search, its files under out/sweep and out/search."""
    target = ["--base-url", base_url]
    for kind, flags in (("sweep", SWEEP), ("search", SEARCH + search_extra)):
        args = ["-m", "app", kind, *target, *WORKLOAD, *flags, "--result-dir", str(out / kind)]
        code, stdout, stderr = _run(tree, args)
        if code != 0:
            outcome.failures.append(f"its {kind} exited {code}: {_last_line(stderr or stdout)}")


def vllm_file(folder: Path) -> Path:
    """A `vllm bench serve --save-result --save-detailed` file: exactly its keys (the lists the
    suite checks our files against), the figures of the suite's vLLM sample."""
    from app.bench.results.per_request import VLLM_DETAILED_KEYS
    from tests.bench.results.test_files import VLLM_SAMPLE
    from tests.commands.test_sweep import DETAILED_KEYS, VLLM_KEYS

    assert set(VLLM_DETAILED_KEYS) == DETAILED_KEYS, "the two detailed key lists disagree"
    document: dict[str, Any] = {key: VLLM_SAMPLE[key] for key in VLLM_SAMPLE if key in VLLM_KEYS}
    document.update(
        input_lens=[240, 251],
        output_lens=[3, 2],
        ttfts=[0.12, 0.13],
        itls=[[0.021, 0.024], [0.022]],
        start_times=[0.0, 0.4],
        generated_texts=["a b c", "d e"],
        errors=["", ""],
    )
    document.update(latencies=[0.165, 0.152], queue_times=[0.0, 0.01])
    assert set(document) == VLLM_KEYS | DETAILED_KEYS, "the vLLM file's keys drifted"
    folder.mkdir(parents=True)
    path = folder / "vllm_rate4_conc16.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def vllm_keys_missing(files: list[Path]) -> list[str]:
    """Which of vLLM's --save-result/--save-detailed keys this tree's point files lack."""
    from tests.commands.test_sweep import DETAILED_KEYS, VLLM_KEYS

    wanted = VLLM_KEYS | DETAILED_KEYS
    missing = []
    for path in files:
        keys = set(json.loads(path.read_text(encoding="utf-8")))
        if lacking := sorted(wanted - keys):
            missing.append(f"{path.name} lacks vLLM keys {', '.join(lacking)}")
    return missing


def open_everything(
    out: Path, folders: list[Path], old_tree: Path | None, outcome: Outcome
) -> None:
    """Every file under `folders`, opened by this tree (report, reader, panel), and compared
    with what `old_tree` (None: no old reader, a vLLM file) reads from it."""
    from app.bench.results.read import result_files

    files = [f for folder in folders if folder.is_dir() for f in result_files(folder)]
    outcome.files = len(files)
    if not files:
        outcome.failures.append("no result files written")
        return
    opened = {str(f): True for f in files}

    def fail(what: str, names: Sequence[str] | None = None) -> None:
        outcome.failures.append(what)
        for name in names if names is not None else list(opened):
            opened[name] = False

    dirs = [str(f) for f in folders if f.is_dir()]
    csv_out, html_out = out / "report.csv", out / "report.html"
    code, stdout, stderr = _run(
        ROOT, ["-m", "app", "report", *dirs, "--csv", str(csv_out), "--html", str(html_out)]
    )
    if code != 0 or not stdout.strip():
        fail(f"report exited {code}: {_last_line(stderr or stdout)}")
    elif said := [line for line in stderr.splitlines() if line != f"report: {html_out}"]:
        fail(f"report said on stderr: {said[0][:200]}")  # it names the HTML file it wrote
    for written in (csv_out, html_out):
        if code == 0 and (not written.is_file() or written.stat().st_size == 0):
            fail(f"report wrote no {written.suffix}")
    if csv_out.is_file():
        lines = csv_out.read_text(encoding="utf-8").strip().splitlines()
        if len(lines) - 1 != len(files):
            fail(f"report --csv has {len(lines) - 1} rows for {len(files)} files")
    code, stdout, stderr = _run(ROOT, ["-m", "app", "report", *dirs, "--json"])
    try:
        json_rows = json.loads(stdout) if code == 0 else None
    except ValueError:
        json_rows = None
    if not isinstance(json_rows, list) or len(json_rows) != len(files):
        fail(f"report --json: exit {code}, not one row per file: {_last_line(stderr or stdout)}")

    code, stdout, stderr = _run(ROOT, ["-c", READ_ROWS, *dirs])
    current = json.loads(stdout) if code == 0 else {}
    if code != 0:
        fail(f"load_results raised: {_last_line(stderr)}")
    elif skipped := [name for name in opened if name not in current]:
        fail(f"load_results skipped {', '.join(Path(n).name for n in skipped)}", skipped)

    panel_root = folders[0].parent
    code, stdout, stderr = _run(ROOT, ["-c", PANEL, str(panel_root)])
    if code != 0:
        fail(f"Results panel raised: {_last_line(stderr)}")
    else:
        shown = json.loads(stdout.strip().splitlines()[-1])
        if shown["errors"]:
            fail(f"Results panel could not read: {'; '.join(shown['errors'])[:200]}")
        if shown["problems"]:
            fail(f"Results panel logged: {'; '.join(shown['problems'])[:200]}")
        if (
            shown["runs"] != len(dirs)
            or shown["points"] != len(files)
            or shown["rows"] != len(files)
        ):
            fail(
                f"Results panel shows {shown['runs']} runs, {shown['points']} points, "
                f"{shown['rows']} rows for {len(dirs)} folders of {len(files)} files"
            )
    outcome.opened = sum(opened.values())

    if old_tree is None:
        return
    code, stdout, stderr = _run(old_tree, ["-c", READ_ROWS, *dirs])
    if code != 0:
        outcome.failures.append(f"the old release's own reader raised: {_last_line(stderr)}")
        return
    old = json.loads(stdout)
    new_columns: set[str] = set()
    for name, old_row in old.items():
        row = current.get(name)
        if row is None:
            continue
        outcome.rows_compared += 1
        new_columns |= set(row) - set(old_row)
        differs = []
        for key, value in old_row.items():
            if key not in row:
                differs.append(f"{key} dropped")
            elif _corrected(key, value, row):
                outcome.corrected.append(f"{Path(name).name}: partial False -> True")
            elif row[key] != value:
                differs.append(f"{key} {value!r} -> {row[key]!r}")
        if differs:
            outcome.differences.append(f"{Path(name).name}: {'; '.join(differs)}")
        else:
            outcome.rows_equal += 1  # a corrected reading counts as equal: it is the fix
    outcome.new_columns = sorted(new_columns)
    if outcome.differences:
        outcome.failures.append(f"{len(outcome.differences)} row(s) read differently")


def _corrected(key: str, old_value: object, row: dict[str, Any]) -> bool:
    """A reading the old release got wrong and this tree fixes on purpose: releases before
    9c6e739 said partial=False for a point its early stop cut short (issue 22 item 3: "sweep.csv
    says partial=False for a point that ran 6 of its 48 requests"); this tree reads the file's
    own counts and says "early-stopped after X of Y"."""
    return (
        key == "partial"
        and old_value is False
        and row[key] is True
        and str(row.get("completeness", "")).startswith(("early-stopped", "cancelled"))
    )


def start_sim(port: int) -> subprocess.Popen[bytes]:
    sim = subprocess.Popen(
        [sys.executable, "-m", "app", "sim", "--port", str(port), "--gpu", "rtx3090",
         "--max-num-seqs", "8", "--exit-on-stdin-eof"],
        cwd=ROOT, env=_env(ROOT), stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    import httpx

    for _ in range(300):  # up to ~30 s for the child to listen
        if sim.poll() is not None:
            raise SystemExit(f"the simulator exited {sim.returncode} (port {port} taken?)")
        try:
            httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1.0)
            return sim
        except httpx.TransportError:
            time.sleep(0.1)
    sim.kill()
    raise SystemExit(f"the simulator did not listen on 127.0.0.1:{port}")


def print_table(outcomes: list[Outcome]) -> None:
    head = ("revision", "files", "opened OK", "rows equal", "seconds", "differences / failures")
    print(f"{head[0]:<10} {head[1]:>5} {head[2]:>9} {head[3]:>10} {head[4]:>7}  {head[5]}")
    for o in outcomes:
        equal = f"{o.rows_equal}/{o.rows_compared}" if o.revision != "vllm" else "-"
        if o.revision == CURRENT:
            equal = "-"
        notes = o.failures + o.differences or ["none"]
        print(
            f"{o.revision:<10} {o.files:>5} {o.opened:>9} {equal:>10} {o.seconds:>7.1f}  {notes[0]}"
        )
        for note in notes[1:]:
            print(f"{'':<46}{note}")
        if o.corrected:
            print(
                f"{'':<46}(corrected on purpose, issue 22 item 3: {len(o.corrected)} point(s) "
                "its early stop cut short, which the old release called complete: "
                "partial False -> True)"
            )
        if o.new_columns:
            print(f"{'':<46}(columns added since: {', '.join(o.new_columns)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=18450, help="the simulator's port")
    parser.add_argument("--keep", type=Path, help="leave the files in this folder")
    args = parser.parse_args(argv)
    started = time.perf_counter_ns()
    work = Path(tempfile.mkdtemp(prefix="old_files_"))
    outcomes: list[Outcome] = []
    sim = start_sim(args.port)
    base_url = f"http://127.0.0.1:{args.port}"
    try:
        for revision, search_extra in [(CURRENT, []), *RELEASES]:
            t0 = time.perf_counter_ns()
            outcome = Outcome(revision)
            tree = ROOT if revision == CURRENT else export(revision, work / "trees")
            out = work / "files" / revision
            measure(tree, base_url, out, search_extra, outcome)
            folders = [out / "sweep", out / "search"]
            open_everything(out, folders, None if revision == CURRENT else tree, outcome)
            if revision == CURRENT:
                from app.bench.results.read import result_files

                ours = [f for d in folders if d.is_dir() for f in result_files(d)]
                outcome.failures += vllm_keys_missing(ours)
            outcome.seconds = (time.perf_counter_ns() - t0) / 1e9
            outcomes.append(outcome)
        t0 = time.perf_counter_ns()
        outcome = Outcome("vllm")
        folder = work / "files" / "vllm" / "bench_serve"
        vllm_file(folder)
        open_everything(folder.parent, [folder], None, outcome)
        outcome.seconds = (time.perf_counter_ns() - t0) / 1e9
        outcomes.append(outcome)
    finally:
        assert sim.stdin is not None
        sim.stdin.close()
        try:
            sim.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sim.kill()
        if args.keep:
            shutil.copytree(work / "files", args.keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    print_table(outcomes)
    failed = [o.revision for o in outcomes if o.failures]
    total = (time.perf_counter_ns() - started) / 1e9
    print(f"{len(outcomes)} sources, {sum(o.files for o in outcomes)} files, {total:.0f} s; "
          + (f"FAILED: {', '.join(failed)}" if failed else "every file opened"))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
