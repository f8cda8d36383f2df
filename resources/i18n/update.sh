#!/usr/bin/env bash
# Refreshes the Chinese translation after UI strings change: extracts every tr()/translate()
# string under app/ into the .ts (no source locations, so parallel edits merge cleanly), then
# compiles the .qm the app loads. Translate new entries (type="unfinished") in the .ts, run again.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(dirname "${PYTHON:-.venv/bin/python}")"
"$BIN/pyside6-lupdate" -locations none -no-obsolete $(find app -name '*.py' | sort) \
    -ts resources/i18n/tpotbench_zh_CN.ts
"$BIN/pyside6-lrelease" resources/i18n/tpotbench_zh_CN.ts -qm resources/i18n/tpotbench_zh_CN.qm
