#!/usr/bin/env bash
# Builds the bundle (--no-build reuses dist/tpotbench) and checks it works: version, sim, probe,
# doctor, roofline, a small sweep + report, and window screenshots in English and Chinese.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PY" ] || PY=python3
EXE=$ROOT/dist/tpotbench/tpotbench
build=1
for arg in "$@"; do
    case "$arg" in
        --no-build) build=0 ;;
        -h | --help)
            echo "Usage: packaging/smoke.sh [--no-build]   (exit 0 = every check passed)"
            exit 0
            ;;
        *) echo "smoke.sh: unknown option '$arg' (see 'smoke.sh --help')" >&2; exit 2 ;;
    esac
done

ms() { echo $(($(date +%s%N) / 1000000)); }
T0=$(ms)
WORK=$(mktemp -d)
SIM_PID=
cleanup() {
    if [ -n "$SIM_PID" ] && kill -0 "$SIM_PID" 2>/dev/null; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
    fi
    rm -rf -- "$WORK"
}
trap cleanup EXIT

# The bundle runs with a throwaway home so no settings, logs or keyring entries leak out.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/home/.local/share
export XDG_CACHE_HOME=$WORK/home/.cache XDG_STATE_HOME=$WORK/home/.local/state
export QT_QPA_PLATFORM=offscreen
mkdir -p "$HOME"
# No session bus either: a check must never ask (or unlock) the user's real keyring.
unset OPENAI_API_KEY API_KEY DBUS_SESSION_BUS_ADDRESS

step_start=0
step() {  # step NAME: announces a check and starts its clock
    step_name=$1
    step_start=$(ms)
}
ok() {
    printf 'ok   %-34s %6.2f s\n' "$step_name" "$(echo "$(($(ms) - step_start))" | awk '{print $1/1000}')"
}
fail() {
    printf 'FAIL %-34s %s\n' "$step_name" "$*" >&2
    for f in "$WORK"/*.log; do
        [ -s "$f" ] && { echo "--- $(basename "$f") (last lines)" >&2; tail -n 15 "$f" >&2; }
    done
    exit 1
}
run() {  # run LOGNAME CMD...: runs a bundle command with a time limit, output to WORK/LOGNAME.log
    local log=$WORK/$1.log
    shift
    timeout -k 5 120 "$@" >"$log" 2>&1 || fail "exit $? from: ${*##*/} (log: $log)"
}
expect() {  # expect LOGNAME TEXT: the log must contain TEXT
    grep -q -- "$2" "$WORK/$1.log" || fail "'$2' not in the output of $1"
}

if [ "$build" = 1 ]; then
    step "build (python packaging/build.py)"
    "$PY" "$ROOT/packaging/build.py" >"$WORK/build.log" 2>&1 || fail "build failed"
    grep -E "^built " "$WORK/build.log" || true
    ok
fi
[ -x "$EXE" ] || { step "bundle present"; fail "no $EXE: run python packaging/build.py first"; }

step "bundle contents"
"$PY" - "$ROOT" "$(dirname "$EXE")" <<'EOF' || fail "see the message above"
import sys
from pathlib import Path

root, bundle = Path(sys.argv[1]), Path(sys.argv[2])
inside = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
names = {p.relative_to(inside).as_posix() for p in inside.rglob("*")}
problems = []
for banned in ("keyrings", "PyQt5", "PyQt6", "PySide2", "tkinter", "pyqtgraph/opengl"):
    if any(n == banned or n.startswith(banned + "/") for n in names):
        problems.append(f"{banned} is in the bundle")
if any(n.split("/")[-1].startswith(("libgtk-3", "libwayland-")) for n in names):
    problems.append("host GTK/Wayland libraries are in the bundle")
for dist in ("tpotbench", "keyring"):
    if not any(
        n.startswith(dist) and n.endswith((".dist-info/METADATA", ".egg-info/PKG-INFO"))
        for n in names
    ):
        problems.append(f"no {dist} metadata (version / keyring backends would not resolve)")
if not any(n.startswith("keyring-") and n.endswith("entry_points.txt") for n in names):
    problems.append("keyring's entry points (its backend list) are missing")
for src in (root / "resources").rglob("*"):
    rel = src.relative_to(root).as_posix()
    if not src.is_file() or src.suffix in (".ts", ".sh"):  # update.sh builds the .qm
        continue
    if rel not in names:
        problems.append(f"{rel} is missing from the bundle")
    elif (inside / rel).read_bytes() != src.read_bytes():
        problems.append(f"{rel} differs from the checkout: the bundle is stale, rebuild it")
for problem in problems[:20]:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
ok

step "--version matches pyproject"
want=$("$PY" -c 'import tomllib; print(tomllib.load(open("'"$ROOT"'/pyproject.toml", "rb"))["project"]["version"])')
run version "$EXE" --version
expect version "^tpotbench $want\$"
ok

step "roofline (catalogue in the bundle)"
run roofline "$EXE" roofline --gpu rtx3090 --model qwen2.5-7b --json
# The contract's reference case: RTX 3090 + Qwen2.5-7B BF16 -> floor ~15 ms, 5306 KV blocks.
"$PY" - "$WORK/roofline.log" <<'EOF' || fail "unexpected roofline figures (see above)"
import json, sys
data = json.load(open(sys.argv[1]))
assert data["num_gpu_blocks"] == 5306, data["num_gpu_blocks"]
assert 14.5 < data["floor_tpot_ms"] < 15.5, data["floor_tpot_ms"]
EOF
ok

step "sim starts and answers /health"
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
URL=http://127.0.0.1:$port
"$EXE" sim --host 127.0.0.1 --port "$port" >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
healthy=0
for _ in $(seq 1 300); do  # up to 30 s
    if "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1).read()' \
        "$URL/health" 2>/dev/null; then
        healthy=1
        break
    fi
    kill -0 "$SIM_PID" 2>/dev/null || fail "sim exited early"
    sleep 0.1
done
[ "$healthy" = 1 ] || fail "no answer from $URL/health within 30 s"
ok

step "probe against the sim"
run probe "$EXE" probe --base-url "$URL" --max-tokens 32 --json
"$PY" - "$WORK/probe.log" <<'EOF' || fail "probe output is not a successful JSON result"
import json, sys
data = json.load(open(sys.argv[1]))
assert data["ok"] is True, data
# --max-tokens 32 against the simulator: exactly 32 tokens, counted by the server's usage.
assert (data["output_tokens"], data["output_tokens_source"]) == (32, "usage"), data
assert data["ttft_ms"] > 0 and data["tpot_ms"] > 0, data
EOF
ok

step "the window's worker command line"
# The window runs workers as [sys.executable, "-m", "app", ...]; in the bundle that is this program.
run worker "$EXE" -m app probe --base-url "$URL" --max-tokens 8 --events jsonl
"$PY" - "$WORK/worker.log" <<'EOF' || fail "the worker's event stream is wrong"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
kinds = [e["type"] for e in events]
assert kinds[0] == "run_started" and kinds[-1] == "run_finished", kinds
done = [e for e in events if e["type"] == "request"]
assert len(done) == 1 and done[0]["ok"] and done[0]["output_tokens"] == 8, done
EOF
ok

step "doctor against the sim"
run doctor "$EXE" doctor --base-url "$URL"
expect doctor "all checks passed"
ok

step "sweep (2 points) + report"
run sweep "$EXE" sweep --base-url "$URL" --num-prompts 8 --max-concurrency 1,4 \
    --output-len 16 --save-result --result-dir "$WORK/results" --disable-tqdm
run report "$EXE" report --json "$WORK/results"
"$PY" - "$WORK/report.log" "$WORK/results" "$want" <<'EOF' || fail "sweep/report results are wrong"
import json, sys
from pathlib import Path
rows = json.load(open(sys.argv[1]))
assert [(r["max_concurrency"], r["completed"], r["failed"]) for r in rows] == [(1, 8, 0), (4, 8, 0)], rows
for path in sorted(Path(sys.argv[2]).glob("*.json")):  # every result names the app version
    assert json.load(open(path))["tpotbench"]["app_version"] == sys.argv[3], path
EOF
run report_html "$EXE" report "$WORK/results" --html "$WORK/report.html" --lang zh_CN
grep -q '<svg class="chart" id="knee-tpot"' "$WORK/report.html" && grep -q "测试点" "$WORK/report.html" \
    || fail "report --html wrote no charts"
ok

step "sim stops on SIGTERM"
kill "$SIM_PID"
for _ in $(seq 1 100); do
    kill -0 "$SIM_PID" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$SIM_PID" 2>/dev/null && fail "sim still running 10 s after SIGTERM"
SIM_PID=
ok

check_png() {  # check_png FILE: a real window picture, not an empty or one-colour image
    "$PY" - "$1" <<'EOF' || fail "$1 does not look like a window"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert width >= 800 and height >= 500, (width, height)
assert len(data) > 30_000, f"only {len(data)} bytes: an almost empty picture"
EOF
}

step "window screenshot (English)"
run shot_en "$EXE" --screenshot "$WORK/en.png" --lang en
check_png "$WORK/en.png"
ok

step "window screenshot (zh_CN)"
run shot_zh "$EXE" --screenshot "$WORK/zh.png" --lang zh_CN
check_png "$WORK/zh.png"
ok

if [ -n "${SMOKE_KEEP_SCREENSHOTS:-}" ]; then
    mkdir -p "$SMOKE_KEEP_SCREENSHOTS"
    cp "$WORK/en.png" "$WORK/zh.png" "$SMOKE_KEEP_SCREENSHOTS/"
fi
printf 'smoke.sh: all checks passed in %.1f s\n' "$(echo "$(($(ms) - T0))" | awk '{print $1/1000}')"
