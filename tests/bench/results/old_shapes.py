"""Point files in the shapes earlier releases wrote, made from one this tree writes.

benchmarks/old_files.py runs the earlier releases themselves (it needs git history); these are
what it found them to write, so that the suite can check the readers without history: each
earlier release's `tpotbench` block is this tree's less the blocks added after it. No key of a
point file was renamed and no block changed its kind between those releases (the script
compared them three levels deep); only blocks and fields were added. A search.json did change:
its why's parameters and evidence had other names (old_search).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.bench.results.read import result_files

# Added after f6c280a (a merge of 2026-12-02): load warnings, token stamps, the why, the
# client's ceiling, the /metrics bracket and the server's own phase times, tensor parallelism.
_AFTER_F6C280A = (
    "load_warnings",
    "stamping",
    "why",
    "client_ceiling",
    "roofline.tensor_parallel",
    "server_metrics.bracket_s",
    "server_metrics.server_queue_ms",
    "server_metrics.server_prefill_ms",
    "server_metrics.server_decode_ms",
    "server_metrics.server_inference_ms",
)
# Added after 269907c (2026-12-01, one app/bench/results.py): ITL in tokens, arrival lateness.
_AFTER_269907C = (*_AFTER_F6C280A, "itl_tokens", "schedule_lateness_ms")
# Added after bbeb08e (the first release with SLOs and the search): TTFO, reasoning, prefix
# cache seen by the client.
_AFTER_BBEB08E = (
    *_AFTER_269907C,
    "cached_lens",
    "prefix_cache_client",
    "reasoning_lens",
    "reasoning_tokens",
    "tpot_answer_ms",
    "ttfo_ms",
    "ttfos",
)
# release -> the tpotbench fields its files lack (dotted: a field of a sub-block).
LACKS: dict[str, tuple[str, ...]] = {
    "f6c280a": _AFTER_F6C280A,
    "269907c": _AFTER_269907C,
    "bbeb08e": _AFTER_BBEB08E,
}


def old_document(document: dict[str, Any], release: str) -> dict[str, Any]:
    """`document` (a point file of this tree) as `release` would have written it."""
    old = copy.deepcopy(document)
    block = old["tpotbench"]
    for dotted in LACKS[release]:
        *parents, name = dotted.split(".")
        holder = block
        for parent in parents:
            holder = holder.get(parent) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            holder.pop(name, None)
    return old


def rich_points(base_url: str, folder: Path) -> list[Path]:
    """A real sweep of this tree with the flags that make its richest files: per-request data,
    /metrics, the roofline, goodput, an SLO that fails (a why) and a concurrency the prompts
    cannot fill (a load warning)."""
    cmd = [
        sys.executable, "-m", "app", "sweep", "--base-url", base_url,
        "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
        "--num-prompts", "6", "--request-rate", "inf", "--max-concurrency", "1,12",
        "--save-detailed", "--scrape-metrics", "--gpu", "rtx3090",
        "--goodput", "ttft:2000", "--slo", "ttft:p99:1", "--label", "now",
        "--result-dir", str(folder), "--disable-tqdm",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    # Exit 1: the 1 ms TTFT SLO fails on purpose; the points are saved all the same.
    assert proc.returncode in (0, 1), proc.stderr
    files = result_files(folder)
    assert len(files) == 2, proc.stderr
    return files


def write_old_runs(points: list[Path], root: Path) -> dict[str, Path]:
    """One folder per release under `root`, each holding `points` in that release's shape;
    'current' holds them as written."""
    folders = {}
    for release in ("current", *LACKS):
        folder = root / release
        folder.mkdir(parents=True)
        for path in points:
            document = json.loads(path.read_text(encoding="utf-8"))
            if release != "current":
                document = old_document(document, release)
            (folder / path.name).write_text(json.dumps(document), encoding="utf-8")
        folders[release] = folder
    return folders


# The why of a search's boundary as releases before c24f75f wrote it (f6c280a's, from
# benchmarks/old_files.py): no confidence, runner-up, ruled-out causes, missing evidence or
# Chinese text; its evidence the template's parameters under older names (ttft_p99, not
# ttft_p99_ms; prompt, not prompt_tokens). This tree's templates take other parameters, so
# only the stored English can be shown.
OLD_BOUNDARY_WHY = {
    "cause": "prefill",
    "text": "TTFT is spent in prefill: p99 379 ms for 39-token prompts (median 76 ms) with no "
    "queue in the server; shorter prompts or prefix caching lower it.",
    "params": {"ttft_p99": 379.3243818499999, "ttft_p50": 75.967937, "prompt": 39.0},
    "evidence": {"ttft_p99": 379.3243818499999, "ttft_p50": 75.967937, "prompt": 39.0},
    "estimate": None,
}
# Fields of a search document and of its knees' whys added after f6c280a.
_SEARCH_ADDED = ("boundary_evidence", "fill_limit")
_WHY_ADDED = ("confidence", "missing", "ruled_out", "runner_up", "text_zh")


def old_search(document: dict[str, Any]) -> dict[str, Any]:
    """A search.json of this tree as f6c280a, 269907c and bbeb08e wrote it (the three agree)."""
    old = copy.deepcopy(document)
    for name in _SEARCH_ADDED:
        old.pop(name, None)
    old["boundary_why"] = copy.deepcopy(OLD_BOUNDARY_WHY)
    for knee in (old.get("knee") or {}).values():
        why = knee.get("why") if isinstance(knee, dict) else None
        if isinstance(why, dict):
            for name in _WHY_ADDED:
                why.pop(name, None)
    return old


def rich_search(base_url: str, folder: Path) -> Path:
    """A real capacity search of this tree whose TTFT limit is crossed: growth, bisection,
    a boundary with its why; returns its search.json."""
    cmd = [
        sys.executable, "-m", "app", "search", "--base-url", base_url,
        "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
        "--slo", "ttft:p99:35", "--max", "8", "--min-prompts", "4", "--prompts-per-unit", "1",
        "--num-prompts", "8", "--save-detailed", "--scrape-metrics", "--gpu", "rtx3090",
        "--label", "se", "--result-dir", str(folder), "--disable-tqdm",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "API_KEY")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert (folder / "search.json").is_file(), proc.stderr
    return folder / "search.json"
