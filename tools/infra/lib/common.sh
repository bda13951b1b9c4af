# shellcheck shell=bash
# Logging, locking and running as the cluster's owner. Sourced by tools/infra/infra.sh, which sets the paths and ports.

log() { echo "[infra] $*"; }
warn() { echo "[infra] WARNING: $*" >&2; }
die() {
  echo "[infra] ERROR: $*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# Run a command as the user that owns the Postgres cluster (postgres when we are root).
as_pg() {
  if is_root; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

with_lock() {
  mkdir -p "$LOCAL_DIR"
  exec 9>"$LOCAL_DIR/infra.lock"
  if ! flock -w 300 9; then die "another infra.sh holds $LOCAL_DIR/infra.lock for more than 300 s"; fi
}
