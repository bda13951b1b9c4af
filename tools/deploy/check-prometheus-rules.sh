#!/usr/bin/env bash
# Checks the alert rules of k8s/observability/ with promtool (installed on first use by
# tools/scripts/ensure-promtool.sh): `promtool check rules` on the rule groups, then the unit tests
# of prometheus-rules.test.yaml. promtool reads rule groups, not a PrometheusRule, so the `spec` of
# the PrometheusRule is written to a temporary seed-messaging.rules.yaml beside a copy of the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/ensure-promtool.sh
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
node -e '
const { readFileSync, writeFileSync } = require("node:fs");
const { parse, stringify } = require("yaml");
const rule = parse(readFileSync(process.argv[1], "utf8"));
if (rule.kind !== "PrometheusRule" || !rule.spec || !Array.isArray(rule.spec.groups)) throw new Error(`${process.argv[1]}: not a PrometheusRule with spec.groups`);
writeFileSync(process.argv[2], stringify(rule.spec));
' k8s/observability/prometheus-rules.yaml "$dir/seed-messaging.rules.yaml"
cp k8s/observability/prometheus-rules.test.yaml "$dir/"
if ! out="$(promtool check rules "$dir/seed-messaging.rules.yaml" 2>&1)"; then
  echo "$out" >&2
  echo "[rules] promtool check rules failed: k8s/observability/prometheus-rules.yaml" >&2
  exit 1
fi
if ! out="$(cd "$dir" && promtool test rules prometheus-rules.test.yaml 2>&1)"; then
  echo "$out" >&2
  echo "[rules] promtool test rules failed: k8s/observability/prometheus-rules.test.yaml" >&2
  exit 1
fi
echo "[rules] $(grep -c '^ *- alert:' k8s/observability/prometheus-rules.yaml) alerts checked, $(grep -c '^- name:' k8s/observability/prometheus-rules.test.yaml) promtool tests passed"
