#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (libs/platform/testing/src/headless-browser.ts)
# when /usr/bin/chromium is missing. Silent when it is there. Playwright's own browser builds are
# never downloaded: the tests drive this one through playwright-core.
set -euo pipefail
cd "$(dirname "$0")/../.."
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
[[ -x "$CHROMIUM" ]] && exit 0

bash tools/scripts/apt-install.sh chromium chromium "install Chromium and set CHROMIUM_PATH"
[[ -x "$CHROMIUM" ]] || { echo "[chromium] ERROR: chromium installed but $CHROMIUM is missing (log: .local/apt-chromium.log)" >&2; exit 1; }
echo "[chromium] $("$CHROMIUM" --version 2>/dev/null || echo installed)"
