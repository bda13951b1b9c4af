#!/usr/bin/env bash
# Installs conftest (Open Policy Agent's Rego runner for configuration files), which
# tools/deploy/policy-check.sh runs over the rendered k8s/ and docker/Dockerfile. Silent when the
# pinned version is there. From the Go module proxy, as ensure-kubeconform.sh installs kubeconform:
#   go install github.com/open-policy-agent/conftest@$CONFTEST_VERSION
# (kube-linter is not served by the module proxy under its module name golang.stackrox.io/kube-linter.)
# Built once per machine into ~/.cache/seed-messaging/ (the first build takes a few minutes: conftest
# brings OPA and its many parsers), so fresh clones on the same machine, as CI's, find it there.
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."

CONFTEST_VERSION=v0.71.1

DIR="${SEED_CACHE_DIR:-$HOME/.cache/seed-messaging}/conftest-$CONFTEST_VERSION"
BIN="$DIR/conftest"
if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -q "${CONFTEST_VERSION#v}"; then
  echo "$BIN"
  exit 0
fi

log() { echo "[conftest] $*" >&2; }
die() {
  echo "[conftest] ERROR: $*" >&2
  exit 1
}
GO="$(command -v go || echo /usr/local/go/bin/go)"
[[ -x "$GO" ]] || die "go not found (on the PATH or /usr/local/go/bin/go); conftest is installed with go install"
mkdir -p "$DIR"
started=$SECONDS
log "installing conftest $CONFTEST_VERSION into $DIR (go install, a few minutes the first time) ..."
# -ldflags: the version `conftest --version` prints (a go install leaves it at "dev").
if ! env GOBIN="$DIR" "$GO" install -ldflags "-s -w -X github.com/open-policy-agent/conftest/internal/version.Version=${CONFTEST_VERSION#v}" \
  "github.com/open-policy-agent/conftest@$CONFTEST_VERSION" >"$DIR/install.log" 2>&1; then
  tail -n 30 "$DIR/install.log" >&2
  die "go install conftest@$CONFTEST_VERSION failed (log: $DIR/install.log)"
fi
"$BIN" --version 2>/dev/null | grep -q "${CONFTEST_VERSION#v}" || die "$BIN --version does not print ${CONFTEST_VERSION#v}: $("$BIN" --version 2>&1 | head -n 3)"
log "$("$BIN" --version | head -n 1) ($((SECONDS - started)) s)"
echo "$BIN"
