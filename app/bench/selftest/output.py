"""What `tpotbench selftest --json` and `--jsonl` print: each step as it is measured (--jsonl),
then every mode's ceiling with the machine's facts and where they were saved."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from app.bench.schema.codec import from_json_obj, to_json_obj
from app.bench.selftest.decide import CeilingDoc, StepResult
from app.bench.selftest.store import MachineFacts, plain


@dataclass(frozen=True)
class StepLine:
    kind: Literal["step"] = field(default="step", init=True, kw_only=True)
    workers: int
    step: StepResult
    broken: list[str]  # the limits the step broke, in words

    def json_text(self) -> str:
        return json.dumps(plain(to_json_obj(self)))


@dataclass(frozen=True)
class SelftestResult:
    machine: MachineFacts
    results: dict[str, CeilingDoc]  # keyed by workers, "0": in process
    saved_to: str | None

    def json_text(self, line: bool) -> str:
        """The --json document (indented), or --jsonl's last line (kind "result" first)."""
        obj = to_json_obj(self)
        if line:
            return json.dumps(plain({"kind": "result", **obj}), indent=None, allow_nan=False)
        return json.dumps(plain(obj), indent=2, allow_nan=False)


def read_line(raw: bytes | str) -> StepLine | SelftestResult | None:
    """One --jsonl line as its type (the window reads the self-test's lines through this);
    None for a line that is not one of them (a blank, a stray print). The lines come from the
    same build, so one that does not decode is not read: SchemaError (a ValueError)."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("kind")
    if kind == "step":
        return from_json_obj(StepLine, obj, where="selftest.step")
    if kind == "result":
        rest = {k: v for k, v in obj.items() if k != "kind"}
        return from_json_obj(SelftestResult, rest, where="selftest.result")
    return None
