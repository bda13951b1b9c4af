#!/usr/bin/env bash
# Installs node_modules from package-lock.json with `npm ci` when they are missing or the lock
# changed since. The lock lists every platform's optional binaries (@swc/core-*), so it installs
# unchanged everywhere and a fresh clone stays clean.
set -euo pipefail
cd "$(dirname "$0")/../.."
stamp=.local/deps.sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
echo "[deps] npm ci"
npm ci --no-audit --no-fund --loglevel=error
mkdir -p .local && echo "$want" > "$stamp"
