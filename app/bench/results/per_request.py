"""The keys of a result file that hold one entry per request, named once.

The writer (files.build_result, request_block) puts them in; the event stream leaves them out of
a finished point's summary (they would make a line megabytes long; the file has them).
"""

from __future__ import annotations

import dataclasses

from app.bench.schema.request_arrays import RequestArrays, RequestEntries

# vLLM's per-request arrays that `vllm bench serve` writes only with --save-detailed, in its
# order; each is the PointMetrics attribute of the same name.
VLLM_DETAILED_KEYS = (
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "start_times",
    "generated_texts",
    "errors",
)
# ...and the two it always writes.
VLLM_ALWAYS_KEYS = ("latencies", "queue_times")
VLLM_PER_REQUEST_KEYS = VLLM_DETAILED_KEYS + VLLM_ALWAYS_KEYS

# The tpotbench block's per-request arrays: `requests` always, the rest with --save-detailed.
PER_REQUEST_BLOCK_KEYS = tuple(f.name for f in dataclasses.fields(RequestArrays))

# One entry of `tpotbench.requests` per request, column by column (request_block); the request
# event of the stream carries the same figures under the same names, bar `start_s`.
REQUEST_ENTRY_KEYS = tuple(f.name for f in dataclasses.fields(RequestEntries))
