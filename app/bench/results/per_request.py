"""The keys of a result file that hold one entry per request, named once.

The writer (files.build_result, request_block) puts them in; the event stream leaves them out of
a finished point's summary (they would make a line megabytes long; the file has them).
"""

from __future__ import annotations

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

# The tpotbench block's per-request arrays written with --save-detailed: key -> PointMetrics
# attribute.
BLOCK_DETAILED_KEYS = {
    "ttfos": "ttfos",
    "reasoning_lens": "reasoning_lens",
    "cached_lens": "cached_lens",
    "chunk_counts": "chunk_counts",
    "itl_tokens": "itl_tokens",
    "error_kinds": "error_kinds",
    "retried": "retried_flags",
}
# `requests` (request_block.requests_block) is always there.
PER_REQUEST_BLOCK_KEYS = ("requests", *BLOCK_DETAILED_KEYS)

# One entry of `tpotbench.requests` per request, column by column (request_block); the request
# event of the stream carries the same figures under the same names, bar `start_s`.
REQUEST_ENTRY_KEYS = (
    "ok",
    "prompt_tokens",
    "output_tokens",
    "start_s",
    "ttft_ms",
    "tpot_ms",
    "e2el_ms",
    "error_kind",
)
