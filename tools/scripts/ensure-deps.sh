#!/usr/bin/env bash
# Installs node_modules from package-lock.json with `npm ci` when they are missing or the lock
# changed since, or a patch in patches/ did (the postinstall's patch-package applies them). The lock
# lists every platform's optional binaries (@swc/core-*), so it installs unchanged everywhere and a
# fresh clone stays clean.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
stamp=.local/deps.sha
want=$(cat package-lock.json patches/*.patch | sha256sum | cut -d' ' -f1)
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
echo "[deps] npm ci"
npm ci --no-audit --no-fund --loglevel=error
mkdir -p .local && echo "$want" > "$stamp"
