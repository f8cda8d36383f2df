"""Streaming-client fidelity: client timings against the server's own logged chunk write times."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

USAGE = """
Starts benchmarks/chunk_server.py (fixed ITL; logs when it wrote each chunk on CLOCK_MONOTONIC,
the clock perf_counter_ns reads on Linux), runs each client variant in a fresh child process
at each concurrency, and prints per variant and concurrency:

  TTFTexcess  mean of (client TTFT - server TTFT), p99 beside it; server TTFT = request fully
              received -> first chunk written, so the request's way to the server, the server
              reading it and the first chunk's way back all count as client error
  lag         mean (client stamp - server write) over all chunks
  ITLp99err   p99 of the client's ITLs - p99 of the server's write gaps
  gapErrP99   p99 of |client gap - server gap|, gap by gap
  TPOTerr%    mean client TPOT vs mean server TPOT, percent
  CPU/1k      client CPU (all threads and worker processes) per 1,000 streamed tokens
  tok/s       streamed tokens / wall time of the run
  same%       share of gaps of 0: two tokens of one stream in one read (one stamp for both;
              with kernel stamps, the newest packet's: TCP merges packets left unread)
  cleanP99    gapErrP99 without those gaps and the gap before each (stretched by them)

  python benchmarks/fidelity_stream.py                     # 1/32/256 streams, all variants
  python benchmarks/fidelity_stream.py --variants ours,guide --repeat 3
  python benchmarks/fidelity_stream.py --throughput        # ITL 2 ms: the tok/s ceiling
  python benchmarks/fidelity_stream.py --itl-ms 0 --conc 128,256 --variants ours,floor

Figures (2 cores shared with other work; load averages in brackets; one run each):
the previous transport (httpx API on aiohttp, kernel stamps through asyncio internals; removed,
commit e459a0f) against the vLLM-shaped client, --conc 32,64,256 --variants ours,aiohttp-loop:
  [0.2-1.5]  CPU/1k 134.7 / 112.0 / 33.2 vs 99.9 / 90.4 / 62.8; gapErrP99 0.047 / 0.049 /
             190.7 ms; TTFTexcess at 256 88.7 ms
  [1.5-1.9]  CPU/1k 126.0 / 114.3 / 46.1 vs 98.9 / 85.8 / 34.1; gapErrP99 0.029 / 0.026 /
             126.5 ms; TTFTexcess at 256 80.7 ms
  ITL 0, --conc 128,256 [6.8-7.1]: 18507 / 21607 tok/s; [6.4-6.5]: 14330 / 18635 tok/s
this transport (ours) against floor and aiohttp-loop, --conc 32,64,256, [6.2-6.4]:
  CPU/1k ours 37.5 / 37.2 / 23.2, floor 23.4 / 18.6 / 16.4, aiohttp-loop 61.6 / 48.3 / 19.2;
  gapErrP99 ours 0.019 / 8.3 / 80.9 ms (cleanP99 0.019 / 0.020 / 0.021 ms; same% 0 / 0.87 /
  45.3: the tail is tokens that shared a read); TTFTexcess at 256 74.4 ms
  --repeat 2 [7.3-8.7], medians: CPU/1k ours 31.7 / 37.3 / 16.6, floor 42.0 / 38.1 / 13.8,
  aiohttp-loop 60.5 / 55.1 / 16.7 (CPU time per token is not stable at that load);
  gapErrP99 ours 0.018 / 1.8 / 135.9 ms, cleanP99 0.018 / 0.019 / 3.2 ms
  ITL 0, --conc 128,256 [6.2-6.6]: 20752 / 31580 tok/s (aiohttp-loop 20074 / 16337)
with the chunk shape shortcut (no SSE split or JSON parse for a read that is one event of the
stream's learned shape, app/bench/http/chunk_shape.py) and no 'bytes in bytes' per read,
--conc 32,64,256 --variants ours,floor,aiohttp-loop, every run (CPU/1k at 32 / 64 / 256;
ours, floor, aiohttp-loop):
  [6.1-5.7]  38.0 / 35.3 / 14.6, 51.3 / 43.5 / 14.2, 96.7 / 66.1 / 22.7; gapErrP99 at 64
             0.141 ms; TTFTexcess at 256 94.8 (floor 64.4) ms
  [3.6]      33.5 / 28.8 / 22.6, 40.7 / 36.5 / 21.4, 99.8 / 73.1 / 36.2; 0.055 ms; 46.2 (29.4)
  [3.6-4.4]  41.6 / 26.2 / 17.4, 36.7 / 36.9 / 19.6, 60.5 / 68.9 / 25.1; 0.056 ms; 85.0 (26.9)
  [4.4-5.1]  37.1 / 30.8 / 21.1, 22.7 / 23.3 / 15.8, 94.4 / 69.3 / 35.9; 0.021 ms; 32.8 (89.1)
  (before the 'bytes in bytes' change, [5.9-6.9], three runs: 31.3 / 28.1 / 14.2, 40.1 / 29.7 /
  13.4, 82.9 / 64.9 / 18.7 and 33.4 / 27.9 / 15.5, 45.7 / 45.4 / 14.6, 80.2 / 67.2 / 19.3;
  at [7.7-5.1] and [7.8-5.7]: 48.3 / 27.2 / 21.6, 24.5 / 19.0 / 13.1, 46.6 / 54.4 / 36.3 and
  43.3 / 34.1 / 23.2, 53.6 / 43.7 / 18.9, 85.4 / 45.6 / 34.2)
  Under load every variant's CPU per token at 256 falls as reads carry several events, the
  vLLM-shaped client's most (it falls 50-300 ms behind): ours is 0.89-1.34x the floor there
  and half of aiohttp-loop would be below the floor.
  ITL 0, --conc 128,256 [5.7-7.3]: 44624 / 36138 tok/s (floor 46909 / 34591, aiohttp-loop
  23440 / 18853: the server was the limit); [4.4]: 66991 / 76282 (floor 56408 / 100107,
  aiohttp-loop 33181 / 43511)
"""

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VARIANTS = {
    "ours": "send_request, httpx API on TPOT Bench's own transport (app/bench/http/wire: "
    "kernel receive stamps on Linux, httptools, reads handed to the exchange in the read "
    "callback, a read of the stream's learned chunk shape taken without parsing), the loop "
    "run() picks, pool warmed",
    "ours-uvloop": "same on uvloop (the transport reads with recvmsg there too: kernel stamps)",
    "ours-nowarm": "same without warming the pool",
    "ours-httpx": "send_request on httpx's own transport (uvloop, warmed)",
    "ours-2proc": "send_request in 2 worker processes, each half the streams",
    "ours-noreadtimeout": "same as ours without a read timeout (no per-chunk timer)",
    "aiohttp-loop": "vLLM's client shape: plain aiohttp, a clock reading per message",
    "floor": "the physical limit of a Python client here: asyncio.Protocol + httptools, one "
    "connection per stream slot, counts bytes and stamps each read (perf_counter_ns in "
    "data_received), no JSON",
    "guide": "the field guide's loop shape: requests + iter_lines, one thread per stream",
}


# ---- child side: one variant at one concurrency ----------------------------------------------


def _records_ours(url: str, conc: int, total: int, tokens: int, tag: str, opts: dict) -> dict:
    from app.bench.http.client import make_client, run, warm_pool
    from app.bench.http.endpoint import resolve_endpoint
    from app.bench.http.request import RequestSpec
    from app.bench.http.stream import send_request

    resolved = resolve_endpoint(url, None, "chat", model="bench")

    async def main() -> tuple[list, float, float]:
        timeout = None if opts.get("no_read_timeout") else 600.0
        async with make_client(conc, timeout_s=timeout, transport=opts["transport"]) as client:
            # one full request first: lazy imports and TLS-context set-up are not per-token costs
            await send_request(client, resolved, RequestSpec("hi", 1, 4, request_id=f"{tag}-w"))
            if opts["warm"]:
                await warm_pool(client, resolved.models_url, conc)
            if opts.get("start_at"):
                await asyncio.sleep(max(0.0, (opts["start_at"] - time.perf_counter_ns()) / 1e9))
            sem = asyncio.Semaphore(conc)

            async def one(i: int):
                async with sem:
                    spec = RequestSpec("hi", 1, tokens, request_id=f"{tag}-{i}")
                    return await send_request(client, resolved, spec)

            cpu0, wall0 = time.process_time(), time.perf_counter()
            recs = await asyncio.gather(*(one(i) for i in range(total)))
            return recs, time.process_time() - cpu0, time.perf_counter() - wall0

    recs, cpu_s, wall_s = run(main(), use_uvloop=opts["uvloop"])
    return {
        "records": [
            {
                "id": r.request_id,
                "ok": r.ok,
                "error": r.error,
                "send_ns": r.send_ns,
                "chunk_ns": r.chunk_ns,
                "tokens": r.output_tokens,
            }
            for r in recs
        ],
        "cpu_s": cpu_s,
        "wall_s": wall_s,
    }


def _records_guide(url: str, conc: int, total: int, tokens: int, tag: str) -> dict:
    """The field guide's script shape (requests.post(stream=True) + iter_lines, stamp on every
    `data: ` line), one thread per concurrent stream; written here, not copied."""
    try:
        import requests
    except ImportError:
        raise SystemExit("the 'guide' variant needs requests: pip install requests") from None

    out: list[dict] = []
    lock = threading.Lock()
    counter = iter(range(total))

    def worker() -> None:
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            payload = {
                "model": "bench",
                "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": tokens,
                "stream": True,
            }
            headers = {"Content-Type": "application/json", "X-Request-Id": f"{tag}-{i}"}
            stamps: list[int] = []
            start = time.perf_counter_ns()
            with requests.post(
                f"{url}/v1/chat/completions", headers=headers, json=payload, stream=True
            ) as resp:
                for line in resp.iter_lines():
                    if not line:
                        continue
                    if line.startswith(b"data: ") and b"[DONE]" not in line:
                        stamps.append(time.perf_counter_ns())
            with lock:
                out.append(
                    {
                        "id": f"{tag}-{i}",
                        "ok": bool(stamps),
                        "error": "",
                        "send_ns": start,
                        "chunk_ns": stamps,
                        "tokens": len(stamps),
                    }
                )

    requests.post(
        f"{url}/v1/chat/completions",
        json={
            "model": "bench",
            "max_tokens": 4,
            "messages": [{"role": "user", "content": "hi"}],
            "stream": True,
        },
    ).close()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(conc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "records": out,
        "cpu_s": time.process_time() - cpu0,
        "wall_s": time.perf_counter() - wall0,
    }


def _records_aiohttp_loop(url: str, conc: int, total: int, tokens: int, tag: str) -> dict:
    """vLLM's client shape on plain aiohttp (written here, not copied): iter_any, split on
    blank lines, json.loads, a perf_counter reading per message with choices."""
    import aiohttp

    from app.bench.http.client import run

    async def main() -> tuple[list, float, float]:
        timeout = aiohttp.ClientTimeout(total=6 * 3600)
        # a pool as large as the concurrency, as vLLM's benchmark configures it
        connector = aiohttp.TCPConnector(limit=conc, limit_per_host=conc, keepalive_timeout=60)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            sem = asyncio.Semaphore(conc)

            async def one(i: int) -> dict:
                body = {
                    "model": "bench",
                    "messages": [{"role": "user", "content": "hi"}],
                    "max_completion_tokens": tokens,
                    "stream": True,
                    "stream_options": {"include_usage": True},
                }
                async with sem:
                    stamps: list[int] = []
                    start = time.perf_counter_ns()
                    async with session.post(
                        f"{url}/v1/chat/completions",
                        json=body,
                        headers={"X-Request-Id": f"{tag}-{i}"},
                    ) as resp:
                        buf = ""
                        async for raw in resp.content.iter_any():
                            buf += raw.decode()
                            while "\n\n" in buf:
                                msg, buf = buf.split("\n\n", 1)
                                data = msg.strip().removeprefix("data: ")
                                if data and data != "[DONE]" and json.loads(data).get("choices"):
                                    stamps.append(time.perf_counter_ns())
                    return {
                        "id": f"{tag}-{i}",
                        "ok": bool(stamps),
                        "error": "",
                        "send_ns": start,
                        "chunk_ns": stamps,
                        "tokens": len(stamps),
                    }

            await one(-1)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            recs = await asyncio.gather(*(one(i) for i in range(total)))
            return recs, time.process_time() - cpu0, time.perf_counter() - wall0

    recs, cpu_s, wall_s = run(main(), use_uvloop=False)
    return {"records": recs, "cpu_s": cpu_s, "wall_s": wall_s}


def _records_floor(url: str, conc: int, total: int, tokens: int, tag: str) -> dict:
    """A plain asyncio.Protocol + httptools: does nothing but send, count bytes and stamp
    reads (each read's stamp given to every token event in it, found by a byte count)."""
    import httptools

    from app.bench.http.client import run

    host, port = url.removeprefix("http://").split(":")
    clock = time.perf_counter_ns

    class Floor(asyncio.Protocol):
        def __init__(self) -> None:
            self.parser = httptools.HttpResponseParser(self)
            self.done: asyncio.Future[None] | None = None
            self.stamps: list[int] = []
            self.size = 0
            self.t = 0

        def data_received(self, data: bytes) -> None:
            self.t = clock()
            self.parser.feed_data(data)

        def on_body(self, body: bytes) -> None:
            self.size += len(body)
            n = body.count(b"data: {")
            if n:
                self.stamps.extend([self.t] * n)

        def on_message_complete(self) -> None:
            assert self.done is not None
            self.done.set_result(None)

    async def main() -> tuple[list, float, float]:
        loop = asyncio.get_running_loop()
        free: list[tuple[asyncio.Transport, Floor]] = []

        async def one(i: int) -> dict:
            if free:
                transport, proto = free.pop()
            else:
                transport, proto = await loop.create_connection(Floor, host, int(port))
            body = json.dumps(
                {
                    "model": "bench",
                    "messages": [{"role": "user", "content": "hi"}],
                    "max_tokens": tokens,
                    "stream": True,
                }
            ).encode()
            proto.done = loop.create_future()
            proto.stamps = []
            start = clock()
            transport.write(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nX-Request-Id: %s\r\n"
                b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (host.encode(), f"{tag}-{i}".encode(), len(body), body)
            )
            await proto.done
            stamps = proto.stamps
            free.append((transport, proto))
            return {
                "id": f"{tag}-{i}",
                "ok": bool(stamps),
                "error": "",
                "send_ns": start,
                "chunk_ns": stamps,
                "tokens": len(stamps),
            }

        sem = asyncio.Semaphore(conc)

        async def slot(i: int) -> dict:
            async with sem:
                return await one(i)

        await one(-1)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        recs = await asyncio.gather(*(slot(i) for i in range(total)))
        for transport, _ in free:
            transport.close()
        return recs, time.process_time() - cpu0, time.perf_counter() - wall0

    recs, cpu_s, wall_s = run(main(), use_uvloop=False)
    return {"records": recs, "cpu_s": cpu_s, "wall_s": wall_s}


def _records_multiproc(url: str, conc: int, total: int, tokens: int, tag: str, procs: int) -> dict:
    """Split the streams over worker processes; perf_counter_ns is CLOCK_MONOTONIC, one clock
    for every process on the machine, so their records merge as they are."""
    # every worker starts its streams at the same moment, as one process would
    start_at = time.perf_counter_ns() + 3_000_000_000
    children = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(procs):
            sub_conc = conc // procs + (1 if k < conc % procs else 0)
            sub_total = total // procs + (1 if k < total % procs else 0)
            if sub_conc == 0 or sub_total == 0:
                continue
            out = Path(tmp) / f"w{k}.json"
            cmd = [
                sys.executable,
                __file__,
                "--child",
                "ours",
                "--url",
                url,
                "--conc",
                str(sub_conc),
                "--total",
                str(sub_total),
                "--tokens",
                str(tokens),
                "--tag",
                f"{tag}w{k}",
                "--out",
                str(out),
                "--start-at",
                str(start_at),
            ]
            children.append((subprocess.Popen(cmd), out))
        results = []
        for c, out in children:
            if c.wait() != 0:
                raise SystemExit(f"worker failed with exit code {c.returncode}")
            results.append(json.loads(out.read_text()))
    return {
        "records": [r for res in results for r in res["records"]],
        "cpu_s": sum(res["cpu_s"] for res in results),
        "wall_s": max(res["wall_s"] for res in results),
    }


def child(args: argparse.Namespace) -> None:
    v = args.child
    if v == "guide":
        res = _records_guide(args.url, args.conc, args.total, args.tokens, args.tag)
    elif v == "aiohttp-loop":
        res = _records_aiohttp_loop(args.url, args.conc, args.total, args.tokens, args.tag)
    elif v == "floor":
        res = _records_floor(args.url, args.conc, args.total, args.tokens, args.tag)
    elif v == "ours-2proc":
        res = _records_multiproc(args.url, args.conc, args.total, args.tokens, args.tag, 2)
    else:
        opts = {
            "transport": "httpx" if v == "ours-httpx" else "native",
            "uvloop": True if v in ("ours-uvloop", "ours-httpx") else None,
            "warm": v != "ours-nowarm",
            "start_at": args.start_at,
            "no_read_timeout": v == "ours-noreadtimeout",
        }
        res = _records_ours(args.url, args.conc, args.total, args.tokens, args.tag, opts)
    if args.out:
        Path(args.out).write_text(json.dumps(res))
    else:
        print(json.dumps(res))


# ---- parent side -------------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    s = sorted(values)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def evaluate(res: dict, truth: dict) -> dict:
    excess, lag, c_itl, s_itl, gap_err, c_tpot, s_tpot = [], [], [], [], [], [], []
    clean_err: list[float] = []  # gaps whose tokens each came in a read of their own
    same_read = 0
    up, first = [], []
    tokens = failed = 0
    for r in res["records"]:
        t = truth.get(r["id"])
        if not r["ok"] or t is None:
            failed += 1
            continue
        c, s = r["chunk_ns"], t["write_ns"]
        n = min(len(c), len(s))
        tokens += len(s)
        if n < 2:
            continue
        excess.append(((c[0] - r["send_ns"]) - (s[0] - t["recv_ns"])) / 1e6)
        up.append((t["recv_ns"] - r["send_ns"]) / 1e6)
        first.append((c[0] - s[0]) / 1e6)
        lag.extend((c[i] - s[i]) / 1e6 for i in range(n))
        for i in range(1, n):
            cg, sg = (c[i] - c[i - 1]) / 1e6, (s[i] - s[i - 1]) / 1e6
            c_itl.append(cg)
            s_itl.append(sg)
            gap_err.append(abs(cg - sg))
            # 0: two tokens in one read, one stamp; the gap before it is stretched by it
            same_read += c[i] == c[i - 1]
            if c[i] != c[i - 1] and not (i + 1 < n and c[i + 1] == c[i]):
                clean_err.append(abs(cg - sg))
        c_tpot.append((c[n - 1] - c[0]) / 1e6 / (n - 1))
        s_tpot.append((s[n - 1] - s[0]) / 1e6 / (n - 1))
    ms_tpot = _mean(s_tpot)
    return {
        "requests": len(res["records"]),
        "failed": failed,
        "ttft_excess_ms": _mean(excess),
        "ttft_excess_p99_ms": _pct(excess, 99),
        "lag_mean_ms": _mean(lag),
        "send_to_server_ms": _mean(up),
        "first_chunk_lag_ms": _mean(first),
        "itl_p99_err_ms": _pct(c_itl, 99) - _pct(s_itl, 99),
        "gap_err_p99_ms": _pct(gap_err, 99),
        "same_read_pct": 100 * same_read / len(gap_err) if gap_err else math.nan,
        "clean_gap_err_p99_ms": _pct(clean_err, 99),
        "tpot_err_pct": (_mean(c_tpot) - ms_tpot) / ms_tpot * 100 if s_tpot else math.nan,
        "server_itl_p99_ms": _pct(s_itl, 99),
        "cpu_ms_per_1k": res["cpu_s"] * 1e3 / (tokens / 1e3) if tokens else math.nan,
        "tok_s": tokens / res["wall_s"] if res["wall_s"] else math.nan,
    }


def _start_server(itl_ms: float, tokens: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "chunk_server.py"),
            "--itl-ms",
            str(itl_ms),
            "--tokens",
            str(tokens),
            "--ttft-ms",
            "5",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    return proc, f"http://127.0.0.1:{int(line.split()[1])}"


def _print_row(variant: str, conc: int, fig: dict) -> None:
    print(
        f"{variant:<13}{conc:>5}{fig['requests']:>6.0f}{fig['failed']:>5.0f}"
        f"{fig['ttft_excess_ms']:>11.3f}{fig['ttft_excess_p99_ms']:>8.2f}"
        f"{fig['lag_mean_ms']:>7.3f}{fig['itl_p99_err_ms']:>10.3f}"
        f"{fig['gap_err_p99_ms']:>10.3f}{fig['tpot_err_pct']:>9.3f}"
        f"{fig['cpu_ms_per_1k']:>8.1f}{fig['tok_s']:>8.0f}"
        f"{fig['same_read_pct']:>7.2f}{fig['clean_gap_err_p99_ms']:>9.3f}",
        flush=True,
    )


def _uptime() -> str:
    return os.popen("uptime").read().strip()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__,
        epilog=USAGE + "variants:\n" + "\n".join(f"  {k:<19}{v}" for k, v in VARIANTS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--conc", default="1,32,256")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--itl-ms", type=float, default=20.0)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--waves", type=int, default=2, help="requests per stream slot")
    parser.add_argument("--min-requests", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=1, help="runs; prints medians too")
    parser.add_argument("--throughput", action="store_true", help="ITL 2 ms, 128 streams, ours")
    parser.add_argument("--json", metavar="FILE", help="also write all figures as JSON")
    # child mode (internal)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--total", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="r", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.conc = int(args.conc)
        child(args)
        return
    if args.throughput:
        args.itl_ms, args.conc = 2.0, args.conc if args.conc != "1,32,256" else "128"
        if args.variants == ",".join(VARIANTS):
            args.variants = "ours,ours-2proc"
    concs = [int(c) for c in args.conc.split(",")]
    variants = [v for v in args.variants.split(",") if v]
    server, url = _start_server(args.itl_ms, args.tokens)
    rows = []
    tmp = tempfile.mkdtemp(prefix="fidelity-")
    clock = time.get_clock_info("perf_counter").implementation
    if "CLOCK_MONOTONIC" not in clock:
        raise SystemExit(f"perf_counter is {clock}, not CLOCK_MONOTONIC: processes cannot compare")
    print(f"# {_uptime()}")
    print(f"# clock: perf_counter_ns = {clock}, one clock for server, client and workers")
    print(f"# server: ITL {args.itl_ms} ms, {args.tokens} tokens, TTFT 5 ms; {url}")
    print(
        f"{'variant':<13}{'conc':>5}{'reqs':>6}{'fail':>5}{'TTFTexcess':>11}{'p99':>8}"
        f"{'lag':>7}{'ITLp99err':>10}{'gapErrP99':>10}{'TPOTerr%':>9}{'CPU/1k':>8}{'tok/s':>8}"
        f"{'same%':>7}{'cleanP99':>9}"
    )
    try:
        for _ in range(args.repeat):
            for conc in concs:
                for variant in variants:
                    total = max(
                        args.min_requests if conc < args.min_requests else conc, conc * args.waves
                    )
                    result_file = Path(tmp) / f"{variant}-{conc}.json"
                    proc = subprocess.run(
                        [
                            sys.executable,
                            __file__,
                            "--child",
                            variant,
                            "--url",
                            url,
                            "--conc",
                            str(conc),
                            "--total",
                            str(total),
                            "--tokens",
                            str(args.tokens),
                            "--tag",
                            f"{variant}-{conc}",
                            "--out",
                            str(result_file),
                        ],
                        capture_output=True,
                        text=True,
                        timeout=900,
                    )
                    if proc.returncode != 0:
                        print(f"{variant:<13}{conc:>5}  failed: {proc.stderr.strip()[-300:]}")
                        continue
                    # through a file: a megabyte printed to the captured stdout pipe came back
                    # with a stray line break now and then
                    res = json.loads(result_file.read_text())
                    with urllib.request.urlopen(f"{url}/truth") as resp:
                        truth = json.loads(resp.read())
                    fig = evaluate(res, truth)
                    rows.append({"variant": variant, "conc": conc, **fig})
                    _print_row(variant, conc, fig)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {_uptime()}")
    summary = rows
    if args.repeat > 1:
        print(f"# median of {args.repeat} runs")
        summary = []
        for conc in concs:
            for variant in variants:
                runs = [r for r in rows if r["variant"] == variant and r["conc"] == conc]
                if runs:
                    keys = [k for k in runs[0] if k not in ("variant", "conc")]
                    med = {k: statistics.median(r[k] for r in runs) for k in keys}
                    _print_row(variant, conc, med)
                    summary.append({"variant": variant, "conc": conc, **med})
    for row in summary:
        print(
            f"# {row['variant']} conc {row['conc']}: TTFT excess = request send->server "
            f"{row['send_to_server_ms']:.3f} ms + first chunk write->client stamp "
            f"{row['first_chunk_lag_ms']:.3f} ms"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
