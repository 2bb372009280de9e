#!/usr/bin/env bash
# The web example's headless check: builds it (build.sh), then check.py serves it on a free
# localhost port, loads it in headless Chromium through ChromeDriver on Chromium's own WebGPU
# adapter, asserts the page's verdict and outputs, and saves a screenshot.
#
#   bash examples/web/check.sh [--screenshot PATH] [--timeout SECONDS]
#
# Default screenshot: examples/web/screenshot.png (the one the README shows). Prints one line,
# `web example: ok ...` or `web example: FAILED ...`, and exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/build.sh"
exec python3 "$here/check.py" "$@"
