"""The why on servers whose limiting cause is known by construction (tests/why_scenarios.py):
one point per scenario and variant, the cause named against the true one, as a table.

    PYTHONPATH=. python benchmarks/why_scenarios.py [--only slots,kv_full] [--early-stop]
        [--save-results DIR]

Each variant runs one point against its own server (the simulator in a child process, or the
purpose-built one); about 5-15 s each on an idle core. Variants: the scenario as built, on a
faster GPU (the simulator's --gpu and the roofline's together), and without /metrics (the why
must abstain). `--early-stop` also runs each point under early stop (the fragment's why must
abstain). `--save-results` keeps each point's result document and its why, as written, in DIR
(one JSON file per row): recorded inputs for checking that another version of the why reads
them the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.bench.capacity.why import explain
from app.bench.schema.codec import to_json_obj
from app.bench.schema.point_doc import read_point_doc
from tests.why_scenarios import SCENARIOS, Scenario, measure

EVIDENCE_KEYS = (
    "queue_ms_mean", "waiting_mean", "kv_peak", "preemptions", "tpot_p50_ms",
    "floor_tpot_ms", "itl_p50_ms", "itl_p99_ms", "ttft_p99_ms", "server_prefill_ms_mean",
    "client_loop_lag_ms", "metrics_samples",
)  # fmt: skip


def _evidence(evidence: dict[str, Any]) -> str:
    parts = []
    for key in EVIDENCE_KEYS:
        value = evidence.get(key)
        if isinstance(value, float):
            parts.append(f"{key}={value:.3g}")
        elif value is not None:
            parts.append(f"{key}={value}")
    return " ".join(parts)


def variants(scenario: Scenario, early: bool) -> list[tuple[str, Scenario, dict[str, Any], str]]:
    out = [("as built", scenario, {}, scenario.cause)]
    if scenario.name in ("slots", "bandwidth", "prefill", "unexplained"):
        out.append(("rtx4090", scenario.at(gpu="rtx4090"), {}, scenario.cause))
    out.append(("no /metrics", scenario, {"metrics": False}, "abstain"))
    if early:
        out.append(("early stop", scenario, {"early_stop": True}, "abstain"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma list of scenario names")
    parser.add_argument("--early-stop", action="store_true")
    parser.add_argument("--save-results", type=Path, metavar="DIR")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(SCENARIOS)
    rows = []
    for name in names:
        for label, scenario, kwargs, truth in variants(SCENARIOS[name], args.early_stop):
            with tempfile.TemporaryDirectory() as tmp:
                started = time.perf_counter_ns()
                if scenario.client_hog and not kwargs.get("metrics", True):
                    truth = "client"  # the client's cause needs no /metrics
                result = measure(scenario, Path(tmp), **kwargs)
                seconds = (time.perf_counter_ns() - started) / 1e9
            failed = (result["tpotbench"].get("slo") or {}).get("failed") or [scenario.slo]
            why = explain(read_point_doc(result, strict=False), failed)
            ok = "ok" if why.cause == truth else "WRONG"
            rows.append(
                (name, label, truth, why.cause, why.confidence, why.runner_up or "-", ok,
                 f"{seconds:.1f}", _evidence(why.evidence))
            )  # fmt: skip
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
            if args.save_results is not None:
                args.save_results.mkdir(parents=True, exist_ok=True)
                row = {"name": name, "variant": label, "failed": failed, "result": result}
                target = args.save_results / f"{len(rows):02d}_{name}.json"
                target.write_text(json.dumps({**row, "why": to_json_obj(why)}), encoding="utf-8")
    headers = ("scenario", "variant", "true cause", "named", "confidence", "runner-up", "", "s")
    print("| " + " | ".join((*headers, "evidence")) + " |")
    print("|" + "---|" * (len(headers) + 1))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    wrong = sum(1 for row in rows if row[6] != "ok")
    print(f"\n{len(rows) - wrong} of {len(rows)} named as built.")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
