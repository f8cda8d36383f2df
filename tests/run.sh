#!/usr/bin/env bash
# Runs the whole test suite: everything offscreen, plus the keyring round-trip against a real
# Secret Service (gnome-keyring) in a private D-Bus session with a throwaway HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
export QT_QPA_PLATFORM=offscreen
"$PY" -m pytest "$@"
