#!/usr/bin/env bash
# Installs node_modules from package-lock.json when they are missing or the lock changed since.
# `npm install` rather than `npm ci`: npm 11 refuses `ci` on locks that leave out other platforms'
# optional binaries (@swc/core-darwin-*, ...), which is how this machine's npm writes them.
set -euo pipefail
cd "$(dirname "$0")/../.."
stamp=.local/deps.sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
echo "[deps] npm install"
npm install --no-audit --no-fund --loglevel=error
mkdir -p .local && echo "$want" > "$stamp"
