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


# shellcheck source=lib/common.sh
source "$SCRIPT_DIR/lib/common.sh"
# shellcheck source=lib/postgres.sh
source "$SCRIPT_DIR/lib/postgres.sh"
# shellcheck source=lib/kafka.sh
source "$SCRIPT_DIR/lib/kafka.sh"
# shellcheck source=kafka/secure.sh
source "$SCRIPT_DIR/kafka/secure.sh"

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
