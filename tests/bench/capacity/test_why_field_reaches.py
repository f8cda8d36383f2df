"""A field added to the why (WhyBlock) reaches the point file, search.json, the event stream
and the typed views the window reads, with no edit but the field itself: the why is declared
once, on its dataclass, and written with the codec (as tests/bench/schema/test_field_reaches.py
shows for a point block).

How: a copy of the app whose WhyBlock has one more field with a default; from that copy a
sweep whose SLO fails (so its point has a why) and a capacity search against the simulator,
through the CLI; then, in the same copy, the file and search.json read back as the Results
panel reads them, and the point_finished and search_finished lines decoded strictly as the
window decodes them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench.schema.test_field_reaches import _run, _tree_with_field

ANCHOR = "    text_zh: str | None = None\n"
ADDED = '    field_added_in_test: str = "reached"\n'

CHECK = """
import json, sys
from pathlib import Path
from app.bench.results.read import load_result
from app.bench.schema.point_blocks import point_blocks
from app.bench.schema.point_doc import point_json
from app.bench.schema.search_doc import read_search_doc
from app.bench.sweep.event_decode import decode

sweep, search = Path(sys.argv[1]), Path(sys.argv[2])
point = load_result(sweep / "f_rateinf_conc2.json")
lines = sys.argv[3].splitlines() + sys.argv[4].splitlines()
finished = decode(next(l for l in lines if '"point_finished"' in l))
searched = decode(next(l for l in lines if '"search_finished"' in l))
doc = read_search_doc(json.loads((search / "search.json").read_text()))
print(json.dumps({
    "file_view": point.blocks.why.field_added_in_test,
    "event_view": finished.summary.blocks.why.field_added_in_test,
    "event_strict": point_blocks(
        point_json(finished.summary)["tpotbench"], strict=True
    ).why.field_added_in_test,
    "search_file": doc.boundary_why.field_added_in_test,
    "search_event": searched.search.boundary_why.field_added_in_test,
}))
"""


def test_a_field_added_to_the_why_reaches_files_events_and_views(sim, tmp_path: Path) -> None:
    tree = _tree_with_field(tmp_path, [ANCHOR], ADDED)
    common = ("--base-url", sim.base_url, "--model", "qwen2.5-7b", "--output-len", "4")
    common += ("--slo", "tpot:p99:0.001", "--events", "jsonl", "--disable-tqdm")
    sweep_dir, search_dir = tmp_path / "sweep", tmp_path / "search"
    sweep = _run(
        tree,
        *("-m", "app", "sweep", *common, "--max-concurrency", "2", "--num-prompts", "2"),
        *("--result-dir", str(sweep_dir), "--label", "f"),
    )
    assert sweep.returncode == 0, sweep.stderr
    search = _run(
        tree,
        *("-m", "app", "search", *common, "--max", "2", "--num-prompts", "4"),
        *("--min-prompts", "2", "--result-dir", str(search_dir)),
    )
    assert search.returncode in (0, 1), search.stderr  # 1: no load met the SLO
    # The files: the why's keys in declaration order, the new one last.
    why = json.loads((sweep_dir / "f_rateinf_conc2.json").read_text())["tpotbench"]["why"]
    assert list(why)[-2:] == ["text_zh", "field_added_in_test"]
    assert why["field_added_in_test"] == "reached"
    boundary = json.loads((search_dir / "search.json").read_text())["boundary_why"]
    assert boundary["field_added_in_test"] == "reached"
    # The streams, the window's decoder and the typed views, from the same copy.
    check = _run(tree, "-c", CHECK, str(sweep_dir), str(search_dir), sweep.stdout, search.stdout)
    assert check.returncode == 0, check.stderr
    assert set(json.loads(check.stdout).values()) == {"reached"}
