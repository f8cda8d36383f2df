"""The chunk server's log of one request, the self-test's ground truth: when the request was
complete and when each chunk was written (time.perf_counter_ns, the client's clock), served as
GET /truth {request id: {"recv_ns", "write_ns"}}."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.bench.schema.codec import from_json_obj, to_json_obj


@dataclass(frozen=True)
class RequestTruth:
    recv_ns: int
    write_ns: list[int] = field(default_factory=list)  # appended to while the reply streams


def truth_json(truth: Mapping[str, RequestTruth]) -> bytes:
    return json.dumps(to_json_obj(dict(truth))).encode()


def read_truth(data: bytes) -> dict[str, RequestTruth]:
    """GET /truth's body; SchemaError when it is not that document."""
    return from_json_obj(dict[str, RequestTruth], json.loads(data), where="truth")
