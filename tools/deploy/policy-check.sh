#!/usr/bin/env bash
# The policy check of the deployment (npm test, beside kubeconform): conftest runs the Rego policies of
# tools/deploy/policy/ over
#   - k8s/ and every overlay under k8s/overlays/, rendered as `kubectl apply -k` renders them, all at
#     once (--combine) so that rules can look across objects: non-root, no privilege escalation,
#     read-only root filesystem, capabilities dropped, seccomp, no host namespaces, no service-account
#     token, CPU and memory requests, memory and CPU limits, pinned images, a default-deny ingress
#     NetworkPolicy and a rule for every container port, the admin port exposed by no public Ingress
#     and reachable from named namespaces only, secure connections required unless seed-config says
#     it is for development (kubernetes.rego; waivers with their reasons in exceptions.yaml);
#   - docker/Dockerfile: base images pinned to an exact version or a digest, `npm ci` (dockerfile.rego).
# Usage: policy-check.sh [kustomization dir or rendered YAML ...]   (default: k8s and its overlays)
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFTEST="$(bash tools/scripts/ensure-conftest.sh)"
bash tools/scripts/ensure-kubeconform.sh # kustomize where kubectl is missing
POLICY=tools/deploy/policy

render() {
  if [[ -f "$1" ]]; then cat "$1"; elif command -v kubectl >/dev/null; then kubectl kustomize "$1"; else .local/bin/kustomize build "$1"; fi
}

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(k8s)
  for overlay in k8s/overlays/*/; do [[ -f "$overlay/kustomization.yaml" ]] && targets+=("${overlay%/}"); done
fi
status=0
for target in "${targets[@]}"; do
  rendered="$out/$(echo "$target" | tr / _).yaml"
  render "$target" >"$rendered"
  if result="$("$CONFTEST" test --no-color --combine --policy "$POLICY" --namespace main \
    --data "$POLICY/exceptions.yaml" "$rendered" 2>&1)"; then
    echo "[policy] $target: ${result##*$'\n'}"
  else
    echo "$result" >&2
    echo "[policy] $target breaks the policy (tools/deploy/policy/kubernetes.rego)" >&2
    status=1
  fi
done
if [[ $# -eq 0 ]]; then
  if result="$("$CONFTEST" test --no-color --parser dockerfile --policy "$POLICY" --namespace dockerfile docker/Dockerfile 2>&1)"; then
    echo "[policy] docker/Dockerfile: ${result##*$'\n'}"
  else
    echo "$result" >&2
    echo "[policy] docker/Dockerfile breaks the policy (tools/deploy/policy/dockerfile.rego)" >&2
    status=1
  fi
fi
exit $status
