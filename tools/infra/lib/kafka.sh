# shellcheck shell=bash
# The local Kafka: one KRaft node from the official artifacts on Maven Central. Sourced by tools/infra/infra.sh, which sets the paths and ports.

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
