#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (libs/platform/testing/src/headless-browser.ts)
# when /usr/bin/chromium is missing. Silent when it is there. Playwright's own browser builds are
# never downloaded: the tests drive this one through playwright-core.
set -euo pipefail
cd "$(dirname "$0")/../.."
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
[[ -x "$CHROMIUM" ]] && exit 0

log() { echo "[chromium] $*"; }
die() {
  echo "[chromium] ERROR: $*" >&2
  exit 1
}
[[ "$(id -u)" -eq 0 ]] || die "$CHROMIUM is missing; run: sudo apt-get install -y --no-install-recommends chromium"
command -v apt-get >/dev/null || die "$CHROMIUM is missing and apt-get is not available; install Chromium and set CHROMIUM_PATH"

mkdir -p .local
alog=.local/apt-chromium.log
log "installing Chromium (apt-get install chromium) ..."
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (infra.sh installing PostgreSQL, say) may hold the lock for a while: wait for it.
apt=(apt-get -o DPkg::Lock::Timeout=300)
if ! "${apt[@]}" update >"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get update failed (log: $alog)"
fi
if ! "${apt[@]}" install -y --no-install-recommends chromium >>"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get install chromium failed (log: $alog)"
fi
[[ -x "$CHROMIUM" ]] || die "chromium installed but $CHROMIUM is missing (log: $alog)"
log "$("$CHROMIUM" --version 2>/dev/null || echo installed)"
