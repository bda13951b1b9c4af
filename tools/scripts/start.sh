#!/usr/bin/env bash
# `npm start`: installs what is missing, starts PostgreSQL and Kafka (unless DATABASE_URL /
# KAFKA_BROKERS are given), builds, and runs every service and the gateway. Ctrl-C stops
# everything it started, the infrastructure included.
set -euo pipefail
cd "$(dirname "$0")/../.."
export KAFKAJS_NO_PARTITIONER_WARNING=1
# Webhooks to receivers on this machine (refused in production, where private addresses are).
export WEBHOOK_ALLOWED_HOSTS="${WEBHOOK_ALLOWED_HOSTS-127.0.0.1,localhost,[::1]}"

bash tools/scripts/ensure-deps.sh
started_infra=no
if ! bash tools/infra/infra.sh status >/dev/null 2>&1; then started_infra=yes; fi
bash tools/infra/infra.sh up
set -a; . .local/infra.env; set +a
node tools/scripts/build.mjs

if [ -z "${ADMIN_TOKEN:-}" ]; then
  if [ -s .local/admin-token ]; then ADMIN_TOKEN=$(cat .local/admin-token)
  else ADMIN_TOKEN=$(node -e "process.stdout.write(require('crypto').randomBytes(24).toString('hex'))"); fi
fi
export ADMIN_TOKEN
(umask 077; printf '%s' "$ADMIN_TOKEN" > .local/admin-token)

cleanup() {
  if [ "$started_infra" = yes ] && [ -z "${KEEP_INFRA:-}" ]; then bash tools/infra/infra.sh down || true; fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM
STACK_BANNER=1 node tools/scripts/stack.mjs
