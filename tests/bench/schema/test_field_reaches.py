"""A field added to a typed block reaches the point file, the `--events jsonl` stream and the
typed views the window reads, with no edit but the field itself.

How: a copy of the app whose ClientBlock, ServerMetricsBlock and SloBlock
(app/bench/schema/point_blocks.py) have one more field with a default, nothing else changed;
a real sweep against the simulator (with /metrics scraped and an SLO) run from that copy
through the CLI; then, in the same copy, the file read back as the Results panel reads
it (`load_result(...).blocks`) and the point_finished line decoded as the window decodes it
(`event_decode.decode`, strict) and viewed as the window views it (the typed summary's blocks).
What it does not show: a new field is not a column of the window's points table (those
columns are a fixed list, read by position), so nothing on screen changes by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ADDED = '    field_added_in_test: str = "reached"\n'
# The last field of each block given one more (the file's key order puts it last).
ANCHORS = {
    "client": "    loop_lag_ms: LoopLag | None = None\n",
    "server_metrics": "    vs_client: dict[str, ClientServerGap] | None = field(default=None, "
    "metadata=_OPTIONAL)\n",
    "slo": "    good_requests: int | None = None\n",
}

CHECK = """
import json, sys
from pathlib import Path
from app.bench.results.read import load_result
from app.bench.schema.point_blocks import point_blocks
from app.bench.schema.point_doc import point_json
from app.bench.sweep.event_decode import decode

out = Path(sys.argv[1])
point = load_result(out / "f_rateinf_conc2.json")
[line] = [l for l in sys.argv[2].splitlines() if '"point_finished"' in l]
finished = decode(line)
summary = finished.summary
views = {
    "file_view": point.blocks,
    "event_view": summary.blocks,
    "event_strict": point_blocks(point_json(summary)["tpotbench"], strict=True),
}
print(json.dumps({
    name: [getattr(blocks, b).field_added_in_test for b in ("client", "server_metrics", "slo")]
    for name, blocks in views.items()
}))
"""


def _tree_with_field(
    tmp_path: Path, anchors: Iterable[str] = tuple(ANCHORS.values()), added: str = ADDED
) -> Path:
    """A copy of the app with `added` (a field) after each of `anchors` in point_blocks.py."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "app", tree / "app", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "resources").symlink_to(ROOT / "resources")
    module = tree / "app" / "bench" / "schema" / "point_blocks.py"
    text = module.read_text(encoding="utf-8")
    for anchor in anchors:
        assert text.count(anchor) == 1
        text = text.replace(anchor, anchor + added)
    module.write_text(text, encoding="utf-8")
    return tree


def _run(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_field_added_to_a_block_reaches_file_event_and_views(sim, tmp_path: Path) -> None:
    tree = _tree_with_field(tmp_path)
    out = tmp_path / "out"
    sweep = _run(
        tree,
        *("-m", "app", "sweep", "--base-url", sim.base_url, "--model", "qwen2.5-7b"),
        *("--max-concurrency", "2", "--num-prompts", "2", "--output-len", "4"),
        *("--result-dir", str(out), "--label", "f", "--events", "jsonl", "--disable-tqdm"),
        *("--server-metrics", "--slo", "tpot:p99:1000"),
    )
    assert sweep.returncode == 0, sweep.stderr
    # The file: in the client block, after the fields before it (key order is the format).
    block = json.loads((out / "f_rateinf_conc2.json").read_text())["tpotbench"]
    assert list(block["client"]) == ["cpu_share", "loop_lag_ms", "field_added_in_test"]
    for name in ANCHORS:
        assert list(block[name])[-1] == "field_added_in_test", name
        assert block[name]["field_added_in_test"] == "reached"
    # The stream, the window's decoder and both typed views, from the same copy.
    check = _run(tree, "-c", CHECK, str(out), sweep.stdout)
    assert check.returncode == 0, check.stderr
    reached = ["reached"] * len(ANCHORS)
    assert json.loads(check.stdout) == {
        "file_view": reached,
        "event_view": reached,
        "event_strict": reached,
    }
