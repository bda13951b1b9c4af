#!/usr/bin/env bash
# Installs Debian's prometheus package for its promtool when promtool is missing: `npm test` checks
# and unit-tests the alert rules of k8s/observability/ with it. Silent when promtool is there.
# Only the tool is wanted: the package's own server is not started (no init system runs it here).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v promtool >/dev/null && exit 0

log() { echo "[promtool] $*"; }
die() {
  echo "[promtool] ERROR: $*" >&2
  exit 1
}
[[ "$(id -u)" -eq 0 ]] || die "promtool is missing; run: sudo apt-get install -y --no-install-recommends prometheus"
command -v apt-get >/dev/null || die "promtool is missing and apt-get is not available; install Prometheus's promtool (2.42+) on the PATH"

mkdir -p .local
alog=.local/apt-promtool.log
log "installing promtool (apt-get install prometheus) ..."
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (the Chromium install, say) may hold the lock for a while: wait for it.
apt=(apt-get -o DPkg::Lock::Timeout=300)
if ! "${apt[@]}" update >"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get update failed (log: $alog)"
fi
if ! "${apt[@]}" install -y --no-install-recommends prometheus >>"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get install prometheus failed (log: $alog)"
fi
command -v promtool >/dev/null || die "prometheus installed but promtool is not on the PATH (log: $alog)"
log "$(promtool --version 2>&1 | head -n 1)"
