# KAFKA_SECURITY=scram-tls for tools/infra/infra.sh (sourced by it): the local broker's client
# listener speaks TLS only and authenticates with SASL/SCRAM-SHA-512, and ACLs are enforced, as a
# production cluster (Strimzi's `tls: true` listener with `scram-sha-512` users and `simple`
# authorization) does. Used by the e2e test that runs the stack with one principal per service.
#
# In $KAFKA_DIR/tls: a CA and the broker's certificate (for 127.0.0.1 and localhost).
# In $LOCAL_DIR/kafka-credentials: one <user>.password (mode 0600) per SCRAM user: `admin` (a super
# user: it applies the ACLs) and every user of KAFKA_SCRAM_USERS. The users are created when the
# storage is formatted; changing the list later needs `reset`.
# The controller listener stays plaintext on loopback with ANONYMOUS as a super user: the single
# node's controller authorizes its own broker over it. Nothing else is served without TLS and a password.

# By default the services' users of the stack's manifest (tools/stack/processes.json) and the subscribers' reader.
kafka_manifest_users() {
  node -e 'const m = require(process.argv[1]); console.log(m.processes.filter((p) => p.kafkaUser).map((p) => p.kafkaUser).join(" "))' "$REPO_ROOT/tools/stack/processes.json"
}
KAFKA_SCRAM_USERS="${KAFKA_SCRAM_USERS:-$(kafka_manifest_users) seed-events-reader}"
KAFKA_TLS_DIR="$KAFKA_DIR/tls"
KAFKA_CREDENTIALS_DIR="$LOCAL_DIR/kafka-credentials"

kafka_secure() { [[ "${KAFKA_SECURITY:-none}" == "scram-tls" ]]; }

kafka_check_security_setting() {
  case "${KAFKA_SECURITY:-none}" in
  none | scram-tls) ;;
  *) die "KAFKA_SECURITY must be none or scram-tls, not ${KAFKA_SECURITY}" ;;
  esac
}

kafka_password() {
  local file="$KAFKA_CREDENTIALS_DIR/$1.password"
  if [[ ! -f "$file" ]]; then
    mkdir -p "$KAFKA_CREDENTIALS_DIR"
    chmod 700 "$KAFKA_CREDENTIALS_DIR"
    (umask 077 && openssl rand -hex 24 >"$file")
  fi
  cat "$file"
}

kafka_tls_material() {
  [[ -f "$KAFKA_TLS_DIR/server.pem" ]] && return 0
  command -v openssl >/dev/null || die "openssl not found (needed for KAFKA_SECURITY=scram-tls)"
  mkdir -p "$KAFKA_TLS_DIR"
  (
    cd "$KAFKA_TLS_DIR"
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=seed local Kafka CA" \
      -keyout ca.key -out ca.crt >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 \
      -extfile server.ext -out server.crt >/dev/null 2>&1
    # Kafka's PEM key store: the unencrypted PKCS#8 key, then the certificate chain.
    openssl pkcs8 -topk8 -nocrypt -in server.key >server.pem
    cat server.crt ca.crt >>server.pem
    chmod 644 ca.crt
  ) || die "could not make the local Kafka's TLS certificates in $KAFKA_TLS_DIR"
}

# Replaces the plaintext client listener of the rendered server.properties.
kafka_secure_props() {
  kafka_tls_material
  local admin_password
  admin_password="$(kafka_password admin)"
  sed -i -e '/^listeners=/d' -e '/^advertised.listeners=/d' -e '/^inter.broker.listener.name=/d' \
    -e '/^listener.security.protocol.map=/d' "$KAFKA_PROPS"
  cat >>"$KAFKA_PROPS" <<PROPS

############################# Security (KAFKA_SECURITY=scram-tls) #############################
listeners=SASL_SSL://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=SASL_SSL://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=SASL_SSL
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin_password";
ssl.keystore.type=PEM
ssl.keystore.location=$KAFKA_TLS_DIR/server.pem
ssl.truststore.type=PEM
ssl.truststore.location=$KAFKA_TLS_DIR/ca.crt
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin;User:ANONYMOUS
PROPS
  chmod 600 "$KAFKA_PROPS"
}

# --add-scram arguments of the storage format: admin and every KAFKA_SCRAM_USERS user.
kafka_scram_format_args() {
  local user
  for user in admin $KAFKA_SCRAM_USERS; do
    printf '%s\n' --add-scram "SCRAM-SHA-512=[name=$user,password=$(kafka_password "$user")]"
  done
}

# The probe's environment: TLS with the local CA, as the admin user.
kafka_probe_env() {
  if kafka_secure; then
    echo "KAFKA_SSL_CA=$KAFKA_TLS_DIR/ca.crt KAFKA_SASL_MECHANISM=scram-sha-512 KAFKA_SASL_USERNAME=admin KAFKA_SASL_PASSWORD=$(kafka_password admin)"
  fi
}
