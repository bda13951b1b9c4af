#!/usr/bin/env bash
# Renders k8s/ (the base and every overlay under k8s/overlays/) as `kubectl apply -k` would, and
# validates every object with kubeconform against the schemas of the Kubernetes versions and
# operators that tools/scripts/ensure-kubeconform.sh installed. -strict: an unknown field or a
# duplicate key is an error; a kind without a schema is an error too (no -ignore-missing-schemas).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/ensure-kubeconform.sh
SCHEMAS=.local/kubeconform/schemas
KUBECONFORM=.local/bin/kubeconform

render() {
  if command -v kubectl >/dev/null; then kubectl kustomize "$1"; else .local/bin/kustomize build "$1"; fi
}

# Without Java 21+ the Strimzi schemas could not be generated: say so and skip only those kinds.
skip=()
if [[ ! -d "$SCHEMAS/crds/kafka.strimzi.io" ]]; then
  echo "[manifests] WARNING: Strimzi kinds (Kafka, KafkaNodePool, KafkaTopic) NOT validated: no schemas (needs Java 21+)" >&2
  skip=(-skip Kafka,KafkaNodePool,KafkaTopic)
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
targets=(k8s)
for overlay in k8s/overlays/*/; do [[ -f "$overlay/kustomization.yaml" ]] && targets+=("${overlay%/}"); done
for target in "${targets[@]}"; do
  render "$target" >"$out/$(echo "$target" | tr / _).yaml"
done

for version in $(ls "$SCHEMAS/kubernetes" | sed -n 's/^v\(.*\)-local-strict$/\1/p'); do
  for rendered in "$out"/*.yaml; do
    name="$(basename "$rendered" .yaml | tr _ /)"
    if ! result="$("$KUBECONFORM" -strict -summary -kubernetes-version "$version" "${skip[@]}" \
      -schema-location "$SCHEMAS/kubernetes/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      -schema-location "$SCHEMAS/crds/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" \
      "$rendered" 2>&1)"; then
      echo "$result" >&2
      echo "[manifests] $name is not valid for Kubernetes $version" >&2
      exit 1
    fi
    echo "[manifests] $name, Kubernetes $version: ${result##*$'\n'}"
  done
done
