"""Reading a large result file without holding its per-gap array as Python objects.

A `--save-detailed` file lists every inter-token gap of every request (`itls`, a list of lists
of seconds): 20M gaps are 134 MB of text, which `json.loads` turns into ~640 MB of Python
floats, and the report's distributions then copied them again (943 MB for the table, 1.9 GB
for --html). Nothing a report or the window shows needs the gaps one by one: the ITL
distribution is drawn from a histogram. So for a large file the `itls` array is cut out of the
text before parsing (its value becomes null), binned request by request with numpy into the
fixed ITL bins our files carry (`tpotbench.itl_histogram`), and the counts are kept under
SET_ASIDE_KEY for the distributions. Small files are parsed whole, as written.
"""

from __future__ import annotations

import re

import numpy as np

from app.bench.results.request_block import ITL_EDGES_MS, ITL_EDGES_WRITTEN_MS, itl_histogram
from app.bench.schema.point_blocks import ItlHistogram

# Files above this size are read lean: below it, the gaps cost less than ~150 MB of objects.
LEAN_BYTES = 32 * 1024 * 1024
# Where the binned gaps of a lean-read document are kept (never a key vLLM or we write).
SET_ASIDE_KEY = "_tpotbench_itl_histogram"
# The `itls` value: a list of lists of numbers (no string can hold an unescaped `"itls": [`).
_ITLS = re.compile(rb'"itls"\s*:\s*(\[[-0-9.eE+,\s\[\]]*\])')
_REQUEST = re.compile(rb"\[([^\[\]]*)\]")


def set_aside_itls(raw: bytes) -> tuple[bytes, ItlHistogram | None]:
    """`raw` with its one `itls` array replaced by null, and that array binned; `raw`
    unchanged and None when the file has no such array, several of them (--append-result),
    or one that is not plain numbers (then it is parsed whole, as usual)."""
    found = _ITLS.search(raw)
    if found is None or _ITLS.search(raw, found.end()) is not None:
        return raw, None
    if not raw[found.start(1) + 1 : found.start(1) + 64].lstrip().startswith((b"[", b"]")):
        return raw, None  # not vLLM's list of lists per request
    counts = np.zeros(len(ITL_EDGES_MS) - 1, dtype=np.int64)
    readable = True
    for request in _REQUEST.finditer(raw, found.start(1) + 1, found.end(1) - 1):
        text = request.group(1).strip()
        if not text:
            continue
        try:
            gaps_s = np.array(text.split(b","), dtype=float)
        except ValueError:  # an empty item or junk: let the strict parser say what is wrong
            readable = False
            break
        counts += itl_histogram(gaps_s * 1000.0)
    if not readable:
        return raw, None
    lean = raw[: found.start(1)] + b"null" + raw[found.end(1) :]
    return lean, ItlHistogram(ITL_EDGES_WRITTEN_MS, [int(c) for c in counts])
