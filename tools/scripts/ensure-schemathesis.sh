#!/usr/bin/env bash
# Installs schemathesis from PyPI into a virtualenv of the checkout (.local/venv, git-ignored) for
# the API fuzz runs (libs/platform/testing/src/schemathesis.ts). Silent when the pinned version is
# there. A virtualenv, not the system's Python: the pin stays ours and nothing global changes.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Pinned: its CLI flags and report format are what schemathesis.ts parses.
VERSION=4.32.5
VENV=.local/venv
stamp="$VENV/.schemathesis-$VERSION"
# (A venv whose python3 is gone has a dangling bin/python: built again.)
[[ -x "$VENV/bin/python" && -x "$VENV/bin/schemathesis" && -f "$stamp" ]] && exit 0

log() { echo "[schemathesis] $*"; }
die() {
  echo "[schemathesis] ERROR: $*" >&2
  exit 1
}
command -v python3 >/dev/null || die "python3 not found (schemathesis $VERSION needs Python 3.9+)"
mkdir -p .local
plog=.local/pip-schemathesis.log
: >"$plog"

if [[ ! -x "$VENV/bin/python" ]]; then
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV" >>"$plog" 2>&1; then
    # Debian's python3 leaves venv (ensurepip) to a package of its own.
    [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null ||
      die "python3 -m venv failed; run: sudo apt-get install -y python3-venv (log: $plog)"
    log "installing python3-venv (apt-get install python3-venv) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt=(apt-get -o DPkg::Lock::Timeout=300)
    if ! { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends python3-venv; } >>"$plog" 2>&1; then
      tail -n 20 "$plog" >&2
      die "apt-get install python3-venv failed (log: $plog)"
    fi
    rm -rf "$VENV"
    python3 -m venv "$VENV" >>"$plog" 2>&1 || { tail -n 20 "$plog" >&2; die "python3 -m venv failed (log: $plog)"; }
  fi
fi

log "installing schemathesis $VERSION into $VENV ..."
if ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q "schemathesis==$VERSION" >>"$plog" 2>&1; then
  tail -n 20 "$plog" >&2
  die "pip install schemathesis==$VERSION failed (log: $plog)"
fi
[[ -x "$VENV/bin/schemathesis" ]] || die "pip installed schemathesis but $VENV/bin/schemathesis is missing (log: $plog)"
rm -f "$VENV"/.schemathesis-*
touch "$stamp"
log "$("$VENV/bin/schemathesis" --version 2>/dev/null || echo "schemathesis $VERSION installed")"
