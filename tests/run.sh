#!/usr/bin/env bash
# Runs the whole test suite: everything offscreen, plus the keyring round-trip against a real
# Secret Service (gnome-keyring) in a private D-Bus session with a throwaway HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
export QT_QPA_PLATFORM=offscreen

# The real Secret Service part runs first, so the main suite's summary is the last line printed.
# gnome-keyring needs a session bus, an unlocked collection (--unlock reads the password from
# stdin) and a private HOME so nothing touches a user's keyring.
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
    echo "run.sh: skipping the secretservice tests: dbus-run-session or gnome-keyring-daemon" \
        "is not installed (apt-get install dbus gnome-keyring)"
    ss_status=0
else
    SS_HOME="$(mktemp -d)"
    trap 'rm -rf "$SS_HOME"' EXIT
    mkdir -m 700 "$SS_HOME/run"
    ss_status=0
    HOME="$SS_HOME" XDG_RUNTIME_DIR="$SS_HOME/run" XDG_DATA_HOME="$SS_HOME/data" \
        dbus-run-session -- bash -c '
            set -euo pipefail
            printf "throwaway" | gnome-keyring-daemon --foreground --unlock --components=secrets \
                >/dev/null 2>&1 &
            daemon=$!
            owned=no
            for _ in $(seq 100); do
                if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
                    | grep -q "boolean true"; then
                    owned=yes
                    break
                fi
                sleep 0.1
            done
            [ "$owned" = yes ] || echo "run.sh: gnome-keyring did not claim org.freedesktop.secrets" \
                "within 10 s; the secretservice tests will skip"
            status=0
            "$0" -m pytest -m secretservice -p no:cacheprovider tests/test_secrets_real.py -q || status=$?
            kill "$daemon" 2>/dev/null || true
            wait "$daemon" 2>/dev/null || true
            exit "$status"
        ' "$PY" || ss_status=$?
fi

# pytest, rerun once if it died of a signal: a native crash (its Python stack is printed) is not
# a test verdict, and one crash in Qt teardown must not hide every other result.
# A tier that hangs (killed by `timeout`: 124/137) is treated like a crash.
run_pytest() {
    local status=0
    timeout -k 10 900 "$PY" -X faulthandler -m pytest -m "not secretservice" "$@" || status=$?
    if [ "$status" -ge 124 ]; then
        echo "run.sh: pytest crashed or hung (exit $status); running these tests once more"
        status=0
        timeout -k 10 900 "$PY" -X faulthandler -m pytest -m "not secretservice" "$@" || status=$?
    fi
    return "$status"
}

main_status=0
if [ "$#" -gt 0 ]; then
    run_pytest "$@" || main_status=$?
else
    # Two tiers in two processes: the Qt-free engine, simulator and roofline tests, then the
    # window's tests (pytest-qt, offscreen), so no Qt state crosses from one into the other.
    run_pytest --ignore=tests/ui tests || main_status=$?
    run_pytest tests/ui || main_status=$?
fi
[ "$ss_status" -eq 0 ] || echo "run.sh: the secretservice tests failed (exit $ss_status)"
[ "$main_status" -ne 0 ] && exit "$main_status"
exit "$ss_status"
