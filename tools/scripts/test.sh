#!/usr/bin/env bash
# `npm test`: lint and type check, unit tests, then the integration and end-to-end tiers against a
# real PostgreSQL and Kafka (started by tools/infra/infra.sh unless DATABASE_URL / KAFKA_BROKERS are given).
set -euo pipefail
cd "$(dirname "$0")/../.."
export KAFKAJS_NO_PARTITIONER_WARNING=1

bash tools/scripts/ensure-deps.sh
# The browser tests' Chromium and the API fuzz runs' schemathesis (integration and e2e tiers).
bash tools/scripts/ensure-chromium.sh
bash tools/scripts/ensure-schemathesis.sh
echo "[test] lint"
npx nx run-many -t lint --outputStyle=static --parallel=2 >/tmp/seed-lint.log 2>&1 || { cat /tmp/seed-lint.log; exit 1; }
echo "[test] type check"
npx tsc -p tsconfig.json --noEmit
echo "[test] manifests"
# k8s/ and its overlays rendered and validated by kubeconform against the Kubernetes and operator
# schemas (installed from package registries on first use: tools/scripts/ensure-kubeconform.sh).
bash tools/deploy/kubeconform.sh
echo "[test] deployment policy"
# The same renderings and docker/Dockerfile held to the Rego policies of tools/deploy/policy/ by
# conftest (built from the Go module proxy on first use: tools/scripts/ensure-conftest.sh).
bash tools/deploy/policy-check.sh
echo "[test] alert rules"
# k8s/observability/prometheus-rules.yaml checked and unit-tested by promtool (from Debian's
# prometheus package, installed on first use: tools/scripts/ensure-promtool.sh).
bash tools/deploy/check-prometheus-rules.sh
echo "[test] unit"
npx jest --selectProjects unit --silent
echo "[test] infrastructure"
# What this run starts, it stops; infrastructure that was already running is left running.
if ! bash tools/infra/infra.sh status >/dev/null 2>&1; then trap 'bash tools/infra/infra.sh down >/dev/null 2>&1 || true' EXIT; fi
bash tools/infra/infra.sh up
set -a; . .local/infra.env; set +a
node tools/scripts/build.mjs
echo "[test] integration"
npx jest --selectProjects integration --maxWorkers=2
echo "[test] end-to-end"
npx jest --selectProjects e2e --maxWorkers=2
