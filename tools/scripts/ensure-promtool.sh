#!/usr/bin/env bash
# Installs Debian's prometheus package for its promtool when promtool is missing: `npm test` checks
# and unit-tests the alert rules of k8s/observability/ with it. Silent when promtool is there.
# Only the tool is wanted: the package's own server is not started (no init system runs it here).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v promtool >/dev/null && exit 0

bash tools/scripts/apt-install.sh promtool prometheus "install Prometheus's promtool (2.42+) on the PATH"
command -v promtool >/dev/null || { echo "[promtool] ERROR: prometheus installed but promtool is not on the PATH (log: .local/apt-promtool.log)" >&2; exit 1; }
echo "[promtool] $(promtool --version 2>&1 | head -n 1)"
