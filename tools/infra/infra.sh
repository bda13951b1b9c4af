#!/usr/bin/env bash
# Local PostgreSQL + single-node Apache Kafka (KRaft) for development and tests, without containers.
#
#   bash tools/infra/infra.sh up       start what is missing (idempotent), write .local/infra.env
#   bash tools/infra/infra.sh down     stop what this script started
#   bash tools/infra/infra.sh status   show what runs
#   bash tools/infra/infra.sh reset    down + delete the local Postgres cluster and Kafka data
#   bash tools/infra/infra.sh probe    run tools/infra/kafkajs-probe.mjs against the broker
#
# Environment (all optional):
#   DATABASE_URL   if set, Postgres is not started and this URL is used as is
#   KAFKA_BROKERS  if set, Kafka is not started and these brokers are used as is
#   PG_PORT (55432), KAFKA_PORT (59092), KAFKA_CONTROLLER_PORT (59093)
#   SEED_LOCAL_DIR data, logs and infra.env (default <repo>/.local); another folder and other ports
#                  give a second, independent PostgreSQL and Kafka (the fault tests use this)
#   KAFKA_VERSION  Kafka release from Maven Central (see docs/adr/0104-kafka-4-4-with-kafkajs.md)
#   SEED_CACHE_DIR jar cache, default $HOME/.cache/seed-messaging
#   KAFKA_HEAP_OPTS (-Xms256m -Xmx768m), KAFKA_READY_TIMEOUT seconds (90)
#   KAFKA_SECURITY none (default) or scram-tls: TLS + SASL/SCRAM-SHA-512 + ACLs (tools/infra/kafka/secure.sh)
# See tools/infra/README.md.
set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------------------------
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}" # chosen in docs/adr/0104-kafka-4-4-with-kafkajs.md

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
LOCAL_DIR="${SEED_LOCAL_DIR:-$REPO_ROOT/.local}"
ENV_FILE="$LOCAL_DIR/infra.env"

PG_PORT="${PG_PORT:-55432}"
PG_DB="seed"
PG_DIR="$LOCAL_DIR/postgres"
PG_DATA="$PG_DIR/data"
PG_LOG="$PG_DIR/server.log"
PG_PID_FILE="$LOCAL_DIR/postgres.pid"
PG_TLS_DIR="$PG_DIR/tls" # a CA of its own and the server's certificate (ensure_pg_tls)

KAFKA_PORT="${KAFKA_PORT:-59092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-59093}"
KAFKA_DIR="$LOCAL_DIR/kafka"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_LOG="$KAFKA_DIR/server.log"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_PID_FILE="$LOCAL_DIR/kafka.pid"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
KAFKA_READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-90}"

if [[ -z "${HOME:-}" ]]; then HOME="$(getent passwd "$(id -u)" | cut -d: -f6)"; fi
SEED_CACHE_DIR="${SEED_CACHE_DIR:-$HOME/.cache/seed-messaging}"
KAFKA_CACHE="$SEED_CACHE_DIR/kafka-$KAFKA_VERSION"
KAFKA_LIB="$KAFKA_CACHE/lib"
KAFKA_MAJOR="${KAFKA_VERSION%%.*}"

log() { echo "[infra] $*"; }
# shellcheck source=kafka/secure.sh
source "$SCRIPT_DIR/kafka/secure.sh"
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

# ---------------------------------------------------------------------------------------------
# Kafka
# ---------------------------------------------------------------------------------------------
# Pid of our broker: the pid file, else a java process started with our server.properties.
kafka_pid() {
  local pid=""
  if [[ -f "$KAFKA_PID_FILE" ]]; then
    pid="$(cat "$KAFKA_PID_FILE" 2>/dev/null || true)"
    if [[ -n "$pid" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "kafka.Kafka $KAFKA_PROPS"; then
      echo "$pid"
      return 0
    fi
  fi
  local f
  for f in /proc/[0-9]*/cmdline; do
    if tr '\0' ' ' <"$f" 2>/dev/null | grep -q "kafka.Kafka $KAFKA_PROPS"; then
      pid="${f#/proc/}"
      echo "${pid%/cmdline}"
      return 0
    fi
  done
  return 1
}

kafka_log_opts() {
  if ((KAFKA_MAJOR >= 4)); then
    echo "-Dlog4j2.configurationFile=file:$SCRIPT_DIR/kafka/log4j2.yaml"
  else
    echo "-Dlog4j.configuration=file:$SCRIPT_DIR/kafka/log4j.properties"
  fi
}

check_java() {
  command -v java >/dev/null || die "java not found (Kafka $KAFKA_VERSION needs Java 17+)"
  local v
  v="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
  if [[ -n "$v" ]] && ((KAFKA_MAJOR >= 4 && v < 17)); then
    die "Kafka $KAFKA_VERSION needs Java 17+, found Java $v"
  fi
}

# Resolve the broker's jars from Maven Central into the cache (once per version + pom).
ensure_kafka_lib() {
  local profile="kafka4"
  ((KAFKA_MAJOR >= 4)) || profile="kafka3"
  local stamp
  stamp="$KAFKA_VERSION $profile $(sha256sum "$SCRIPT_DIR/kafka/pom.xml" | cut -c1-16)"
  if [[ -f "$KAFKA_LIB/.complete" && "$(cat "$KAFKA_LIB/.complete")" == "$stamp" ]]; then return 0; fi

  command -v mvn >/dev/null || die "mvn not found (needed once to fetch Kafka $KAFKA_VERSION from Maven Central)"
  log "fetching Kafka $KAFKA_VERSION jars with Maven into $KAFKA_LIB ..."
  mkdir -p "$KAFKA_CACHE"
  local tmp="$KAFKA_CACHE/lib.tmp.$$"
  local mlog="$KAFKA_CACHE/mvn.log"
  rm -rf "$tmp"
  if ! mvn -B -q -Dstyle.color=never -f "$SCRIPT_DIR/kafka/pom.xml" -P "$profile" \
    -Dkafka.version="$KAFKA_VERSION" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp" >"$mlog" 2>&1; then
    tail -n 30 "$mlog" >&2
    rm -rf "$tmp"
    die "Maven could not resolve org.apache.kafka:kafka_2.13:$KAFKA_VERSION (log: $mlog)"
  fi
  rm -rf "$SCRIPT_DIR/kafka/target"
  [[ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "kafka_2.13-$KAFKA_VERSION.jar missing after Maven (log: $mlog)"
  echo "$stamp" >"$tmp/.complete"
  rm -rf "$KAFKA_LIB"
  mv "$tmp" "$KAFKA_LIB"
}

# Kafka's Uuid: 16 random bytes, base64url without padding, not starting with '-'.
random_cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && break
  done
  echo "$id"
}

render_kafka_props() {
  mkdir -p "$KAFKA_DATA"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
    -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
    -e "s|@KAFKA_DATA_DIR@|$KAFKA_DATA|g" \
    "$SCRIPT_DIR/kafka/server.properties.template" >"$KAFKA_PROPS.tmp"
  mv -f "$KAFKA_PROPS.tmp" "$KAFKA_PROPS"
  if kafka_secure; then kafka_secure_props; fi
}

# Starts the broker in the background; kafka_wait_ready waits for it.
KAFKA_STARTED=0
kafka_start() {
  local pid
  if pid="$(kafka_pid)"; then
    echo "$pid" >"$KAFKA_PID_FILE"
    if port_open "$KAFKA_PORT"; then
      log "kafka already running on 127.0.0.1:$KAFKA_PORT (pid $pid)"
      return 0
    fi
    KAFKA_STARTED=1 # still starting: wait for it
    return 0
  fi
  rm -f "$KAFKA_PID_FILE"
  if port_open "$KAFKA_PORT"; then
    # Someone else's broker on our port, e.g. the same script from another checkout on this
    # machine. Use it if it answers like a Kafka broker (tests use unique names anyway).
    if kafkajs_available && env $(kafka_probe_env) KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" PROBE_TIMEOUT_MS=10000 \
      node "$SCRIPT_DIR/kafkajs-probe.mjs" --ready >/dev/null 2>&1; then
      warn "a Kafka broker not started from this checkout listens on 127.0.0.1:$KAFKA_PORT; using it (down will not stop it)"
      return 0
    fi
    die "port $KAFKA_PORT is used by another process; set KAFKA_PORT/KAFKA_CONTROLLER_PORT or KAFKA_BROKERS"
  fi
  if port_open "$KAFKA_CONTROLLER_PORT"; then
    die "port $KAFKA_CONTROLLER_PORT is used by another process; set KAFKA_CONTROLLER_PORT"
  fi
  check_java
  ensure_kafka_lib
  render_kafka_props

  local log_opts
  log_opts="$(kafka_log_opts)"
  if [[ ! -f "$KAFKA_DATA/meta.properties" ]]; then
    local cid
    cid="$(random_cluster_id)"
    log "formatting Kafka storage (cluster id $cid)"
    local scram=()
    if kafka_secure; then mapfile -t scram < <(kafka_scram_format_args); fi
    if ! java -Xmx256m "$log_opts" -cp "$KAFKA_LIB/*" kafka.tools.StorageTool format \
      -t "$cid" -c "$KAFKA_PROPS" --ignore-formatted "${scram[@]}" >"$KAFKA_DIR/format.log" 2>&1; then
      tail -n 20 "$KAFKA_DIR/format.log" >&2
      die "kafka storage format failed (log: $KAFKA_DIR/format.log)"
    fi
  fi

  [[ -f "$KAFKA_LOG" ]] && mv -f "$KAFKA_LOG" "$KAFKA_LOG.1"
  log "starting kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  # setsid: own session, so that a Ctrl-C or the end of the calling job does not stop it.
  # shellcheck disable=SC2086
  setsid nohup java $KAFKA_HEAP_OPTS \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    "$log_opts" -Dkafka.logs.dir="$KAFKA_DIR" \
    -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_PROPS" >"$KAFKA_LOG" 2>&1 </dev/null 9>&- &
  echo $! >"$KAFKA_PID_FILE"
  KAFKA_STARTED=1
}

kafkajs_available() {
  command -v node >/dev/null &&
    (cd "$REPO_ROOT" && node -e "require.resolve('kafkajs')" >/dev/null 2>&1)
}

kafka_fail() {
  echo "[infra] ERROR: $*" >&2
  echo "[infra] last lines of $KAFKA_LOG:" >&2
  tail -n 40 "$KAFKA_LOG" 2>/dev/null | sed 's/^/    /' >&2 || true
  local pid
  if pid="$(kafka_pid)"; then kill "$pid" 2>/dev/null || true; fi
  rm -f "$KAFKA_PID_FILE"
  exit 1
}

kafka_wait_ready() {
  ((KAFKA_STARTED)) || return 0
  local deadline=$((SECONDS + KAFKA_READY_TIMEOUT))
  local pid
  pid="$(cat "$KAFKA_PID_FILE")"
  while ! port_open "$KAFKA_PORT"; do
    kill -0 "$pid" 2>/dev/null || kafka_fail "kafka exited during start-up"
    ((SECONDS < deadline)) || kafka_fail "kafka did not open 127.0.0.1:$KAFKA_PORT within ${KAFKA_READY_TIMEOUT}s"
    sleep 0.3
  done
  if kafkajs_available; then
    # The broker answers metadata requests: admin connects and lists topics.
    until env $(kafka_probe_env) KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" PROBE_TIMEOUT_MS=10000 \
      node "$SCRIPT_DIR/kafkajs-probe.mjs" --ready >/dev/null 2>&1; do
      kill -0 "$pid" 2>/dev/null || kafka_fail "kafka exited during start-up"
      ((SECONDS < deadline)) || kafka_fail "kafka did not answer a kafkajs listTopics within ${KAFKA_READY_TIMEOUT}s"
      sleep 0.5
    done
  else
    until grep -q "Kafka Server started" "$KAFKA_LOG" 2>/dev/null; do
      kill -0 "$pid" 2>/dev/null || kafka_fail "kafka exited during start-up"
      ((SECONDS < deadline)) || kafka_fail "kafka did not log 'Kafka Server started' within ${KAFKA_READY_TIMEOUT}s"
      sleep 0.3
    done
  fi
  log "kafka ready (pid $pid)"
}

kafka_down() {
  local pid
  if pid="$(kafka_pid)"; then
    log "stopping kafka (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 600; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      warn "kafka did not stop within 60 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
    fi
  fi
  rm -f "$KAFKA_PID_FILE"
}

# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------
write_env() {
  local tmp="$ENV_FILE.tmp.$$"
  {
    echo "DATABASE_URL=$DATABASE_URL"
    echo "KAFKA_BROKERS=$KAFKA_BROKERS"
    if kafka_secure; then
      echo "KAFKA_SSL_CA=$KAFKA_TLS_DIR/ca.crt"
      echo "KAFKA_CREDENTIALS_DIR=$KAFKA_CREDENTIALS_DIR"
    fi
  } >"$tmp"
  mv -f "$tmp" "$ENV_FILE"
  sed 's/^/[infra] /' "$ENV_FILE"
}

cmd_up() {
  kafka_check_security_setting
  with_lock
  local t0=$SECONDS
  if [[ -n "${KAFKA_BROKERS:-}" ]]; then
    log "KAFKA_BROKERS is set; not starting kafka"
  else
    kafka_start # in the background, while Postgres starts
  fi
  if [[ -n "${DATABASE_URL:-}" ]]; then
    log "DATABASE_URL is set; not starting postgres"
  else
    pg_up
  fi
  if [[ -z "${KAFKA_BROKERS:-}" ]]; then
    kafka_wait_ready
    kafka_partitions_note
    KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
  fi
  write_env
  if ((SECONDS - t0 > 2)); then log "up in $((SECONDS - t0))s (env in $ENV_FILE)"; fi
}

cmd_down() {
  with_lock
  kafka_down
  pg_down
  log "down"
}

# The local broker keeps every topic it was given. Stacks started by hand with their own
# KAFKA_TOPIC_PREFIX (the test suites and benches delete theirs) leave ~110 partitions each, and the
# broker's idle CPU grows with the count: with ~14,000 it checkpointed every partition's high
# watermark every 5 s (docs/adr/0041-e2e-bench-conditions.md).
KAFKA_PARTITIONS_WARN=2000

kafka_partitions_note() {
  [[ -d "$KAFKA_DATA" ]] || return 0
  local count
  count="$(find "$KAFKA_DATA" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*' | wc -l)"
  if ((count > KAFKA_PARTITIONS_WARN)); then
    log "kafka: $count partitions on disk, most likely left by stacks with their own topic prefix; they cost CPU while idle (bash tools/infra/infra.sh reset starts over)"
  fi
}

cmd_status() {
  local pid rc=0
  if pg_running; then
    log "postgres: running, pid $(head -n 1 "$PG_DATA/postmaster.pid"), 127.0.0.1:$(pg_running_port), data $PG_DATA"
  elif [[ -f "$PG_DATA/PG_VERSION" ]]; then
    log "postgres: stopped (data $PG_DATA)"
    rc=3
  else
    log "postgres: not created"
    rc=3
  fi
  if pid="$(kafka_pid)"; then
    local state="starting"
    port_open "$KAFKA_PORT" && state="running"
    log "kafka: $state, pid $pid, 127.0.0.1:$KAFKA_PORT, version $KAFKA_VERSION, data $KAFKA_DATA"
    kafka_partitions_note
  elif [[ -f "$KAFKA_DATA/meta.properties" ]]; then
    log "kafka: stopped (data $KAFKA_DATA)"
    rc=3
  else
    log "kafka: not created"
    rc=3
  fi
  if [[ -f "$ENV_FILE" ]]; then sed 's/^/[infra] env: /' "$ENV_FILE"; fi
  return $rc
}

cmd_reset() {
  cmd_down
  log "deleting $PG_DIR and $KAFKA_DIR"
  rm -rf "$PG_DIR" "$KAFKA_DIR" "$ENV_FILE" "$KAFKA_CREDENTIALS_DIR"
}

cmd_probe() {
  command -v node >/dev/null || die "node not found"
  exec node "$SCRIPT_DIR/kafkajs-probe.mjs" "$@"
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
reset) cmd_reset ;;
probe)
  shift
  cmd_probe "$@"
  ;;
*)
  echo "usage: bash tools/infra/infra.sh up|down|status|reset|probe" >&2
  exit 2
  ;;
esac
