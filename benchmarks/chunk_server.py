"""A streaming test server that logs the monotonic time at which it wrote every chunk (the
self-test's server, app/bench/selftest/chunk_server.py, run as a script for the benchmarks).

  python benchmarks/chunk_server.py --port 0 --itl-ms 20 --tokens 128 --ttft-ms 5
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bench.selftest.chunk_server import main

if __name__ == "__main__":
    main()
