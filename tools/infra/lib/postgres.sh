# shellcheck shell=bash
# The local PostgreSQL: install from Debian's package, a cluster in the project folder, TLS. Sourced by tools/infra/infra.sh, which sets the paths and ports.

# ---------------------------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------------------------
find_pg_bin() {
  if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/pg_ctl" ]]; then
    echo "$PG_BIN"
    return 0
  fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$d/pg_ctl" && -x "$d/initdb" && -x "$d/postgres" ]]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

ensure_pg_installed() {
  if PG_BIN="$(find_pg_bin)"; then return 0; fi
  is_root || die "PostgreSQL is not installed; run: sudo apt-get install -y postgresql"
  log "installing PostgreSQL (apt-get install postgresql) ..."
  export DEBIAN_FRONTEND=noninteractive
  local alog="$LOCAL_DIR/apt.log"
  if ! apt-get update >"$alog" 2>&1; then
    tail -n 20 "$alog" >&2
    die "apt-get update failed (log: $alog)"
  fi
  if ! apt-get install -y --no-install-recommends postgresql >>"$alog" 2>&1; then
    tail -n 20 "$alog" >&2
    die "apt-get install postgresql failed (log: $alog)"
  fi
  PG_BIN="$(find_pg_bin)" || die "postgresql installed but no /usr/lib/postgresql/*/bin/pg_ctl found"
}

# The server must be able to reach its data directory: every parent must be traversable.
ensure_pg_traversable() {
  is_root || return 0
  id postgres >/dev/null 2>&1 || die "user 'postgres' does not exist (it comes with Debian's postgresql package)"
  local d="$PG_DIR"
  while [[ "$d" != "/" ]]; do
    d="$(dirname "$d")"
    if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then
      chmod o+x "$d"
      log "chmod o+x $d (so that user postgres can reach $PG_DIR)"
    fi
  done
}

pg_socket_dir() {
  local dir="$PG_DIR/run"
  # A unix socket path must stay under 108 bytes.
  if ((${#dir} + 20 > 107)); then
    dir="/tmp/seed-pg-$(printf '%s' "$PG_DIR" | sha256sum | cut -c1-12)"
  fi
  echo "$dir"
}

pg_running() {
  [[ -f "$PG_DATA/PG_VERSION" ]] || return 1
  local bin
  bin="$(find_pg_bin)" || return 1
  as_pg "$bin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

# Port the running postmaster listens on (line 4 of postmaster.pid).
pg_running_port() { sed -n 4p "$PG_DATA/postmaster.pid" 2>/dev/null || true; }

# A CA made for this cluster and a server certificate for 127.0.0.1 and localhost, made once, so
# that clients can test sslmode=verify-full against $PG_TLS_DIR/ca.crt (docs/security.md, "PostgreSQL").
ensure_pg_tls() {
  if [[ -f "$PG_TLS_DIR/ca.crt" && -f "$PG_TLS_DIR/server.crt" && -f "$PG_TLS_DIR/server.key" ]]; then return 0; fi
  command -v openssl >/dev/null || die "openssl not found (needed once to make PostgreSQL's TLS certificate)"
  local tmp="$PG_TLS_DIR.tmp.$$" tlog="$PG_DIR/tls.log"
  rm -rf "$tmp" "$PG_TLS_DIR"
  mkdir -p "$tmp"
  if ! {
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=seed-messaging local PostgreSQL CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout "$tmp/ca.key" -out "$tmp/ca.crt" &&
      openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$tmp/server.key" -out "$tmp/server.csr" &&
      printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
        "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >"$tmp/server.ext" &&
      openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial -days 3650 \
        -extfile "$tmp/server.ext" -out "$tmp/server.crt"
  } >"$tlog" 2>&1; then
    tail -n 20 "$tlog" >&2
    rm -rf "$tmp"
    die "openssl could not make PostgreSQL's certificate (log: $tlog)"
  fi
  rm -f "$tmp/server.csr" "$tmp/server.ext" "$tmp/ca.srl"
  chmod 600 "$tmp/ca.key" "$tmp/server.key" # the server refuses a key others can read
  chmod 644 "$tmp/ca.crt" "$tmp/server.crt"
  if is_root; then chown -R postgres:postgres "$tmp"; fi
  mv "$tmp" "$PG_TLS_DIR"
  log "made a CA and a certificate for 127.0.0.1 in $PG_TLS_DIR"
}

write_pg_conf() {
  local sock="$1"
  cat >"$PG_DATA/seed-local.conf" <<EOF
# Written by tools/infra/infra.sh on every start; edit the script, not this file.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$sock'
max_connections = 300
shared_buffers = 256MB
# TLS beside plain connections (host lines of pg_hba.conf take both): sslmode=verify-full with
# sslrootcert=$PG_TLS_DIR/ca.crt is checked end to end, and URLs without sslmode still work.
ssl = on
ssl_cert_file = '$PG_TLS_DIR/server.crt'
ssl_key_file = '$PG_TLS_DIR/server.key'
# Durability is kept (tests should see what production sees).
fsync = on
synchronous_commit = on
full_page_writes = on
# Small machine, many short test queries.
jit = off
huge_pages = off
work_mem = 8MB
maintenance_work_mem = 64MB
effective_cache_size = 1GB
random_page_cost = 1.1
max_locks_per_transaction = 128
max_wal_size = 1GB
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
EOF
  if is_root; then chown postgres:postgres "$PG_DATA/seed-local.conf"; fi
}

pg_up() {
  ensure_pg_installed
  local sock
  sock="$(pg_socket_dir)"

  local psql=("$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
  if pg_running; then
    local p
    p="$(pg_running_port)"
    if [[ -n "$p" && "$p" != "$PG_PORT" ]]; then
      warn "Postgres already runs on port $p (PG_PORT=$PG_PORT); using $p"
      PG_PORT="$p"
      psql=("$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
    fi
    log "postgres already running on 127.0.0.1:$PG_PORT"
    # A cluster started before TLS was added gets it without a restart (ssl settings reload).
    if [[ "$("${psql[@]}" -tAc 'SHOW ssl' 2>/dev/null)" != "on" ]]; then
      ensure_pg_tls
      write_pg_conf "$sock"
      as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -s reload >/dev/null || die "pg_ctl reload failed (log: $PG_LOG)"
      local i
      for ((i = 0; i < 50; i++)); do
        [[ "$("${psql[@]}" -tAc 'SHOW ssl' 2>/dev/null)" == "on" ]] && break
        sleep 0.1
      done
      log "postgres: TLS on (CA $PG_TLS_DIR/ca.crt)"
    fi
  elif "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres 2>/dev/null; then
    # Someone else's server on our port, e.g. the same script from another checkout on this
    # machine. Use it if it lets us in as postgres (tests use unique names anyway).
    "${psql[@]}" -tAc 'SELECT 1' >/dev/null 2>&1 ||
      die "port $PG_PORT is used by a Postgres that refuses user postgres; set PG_PORT or DATABASE_URL"
    warn "a Postgres not started from this checkout listens on 127.0.0.1:$PG_PORT; using it (down will not stop it)"
  else
    mkdir -p "$PG_DIR" "$sock"
    if is_root; then chown postgres:postgres "$PG_DIR" "$sock"; fi
    chmod 750 "$PG_DIR"
    chmod 700 "$sock"
    ensure_pg_traversable

    if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
      log "initdb $PG_DATA ($("$PG_BIN/postgres" --version | sed 's/.*PostgreSQL) \([0-9.]*\).*/\1/'))"
      rm -rf "$PG_DATA"
      local locale="C.UTF-8"
      locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$' || locale="C"
      if ! as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth-local=trust --auth-host=trust \
        -E UTF8 --locale="$locale" >"$PG_DIR/initdb.log" 2>&1; then
        tail -n 20 "$PG_DIR/initdb.log" >&2
        die "initdb failed (log: $PG_DIR/initdb.log)"
      fi
      echo "include_if_exists = 'seed-local.conf'" >>"$PG_DATA/postgresql.conf"
    fi
    ensure_pg_tls
    write_pg_conf "$sock"

    # Keep the server log bounded across restarts.
    if [[ -f "$PG_LOG" ]] && (($(stat -c %s "$PG_LOG") > 10485760)); then mv -f "$PG_LOG" "$PG_LOG.1"; fi
    log "starting postgres on 127.0.0.1:$PG_PORT"
    # (9>&-: the server must not inherit the lock.)
    if ! as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 -s start >/dev/null 2>&1 9>&-; then
      tail -n 20 "$PG_LOG" >&2 || true
      die "postgres did not start (log: $PG_LOG)"
    fi
  fi
  if pg_running; then head -n 1 "$PG_DATA/postmaster.pid" >"$PG_PID_FILE" 2>/dev/null || true; fi

  if [[ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != "1" ]]; then
    "${psql[@]}" -c "CREATE DATABASE $PG_DB" >/dev/null || die "could not create database $PG_DB"
    log "created database $PG_DB"
  fi
  DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$PG_DB"
}

pg_down() {
  if pg_running; then
    log "stopping postgres"
    as_pg "$(find_pg_bin)/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 -s stop >/dev/null ||
      die "pg_ctl stop failed (log: $PG_LOG)"
  fi
  rm -f "$PG_PID_FILE"
}
