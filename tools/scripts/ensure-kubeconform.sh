#!/usr/bin/env bash
# Installs kubeconform and the JSON schemas it checks k8s/ against, into the checkout (.local/,
# git-ignored). Silent when the pinned versions are there. kubeconform normally downloads its
# schemas from GitHub; every piece here comes from a package registry instead:
#   kubeconform           Go module proxy: go install github.com/yannh/kubeconform/cmd/kubeconform
#   Kubernetes schemas    PyPI: the kubernetes-validate wheel ships them per Kubernetes minor version
#   Strimzi CRDs          Maven Central: io.strimzi:api run through Strimzi's own crd-generator, with
#                         the arguments of Strimzi's release build (needs Java 21+)
#   CloudNativePG CRDs    Go module proxy: config/crd/bases of github.com/cloudnative-pg/cloudnative-pg
#   Prometheus Operator   Go module proxy: example/prometheus-operator-crd of its module
# CRDs become JSON schemas through scripts/openapi2jsonschema.py of the kubeconform module itself.
set -euo pipefail
cd "$(dirname "$0")/../.."

KUBECONFORM_VERSION=v0.8.0
K8S_SCHEMAS_PACKAGE=kubernetes-validate==1.37.0
# The oldest Kubernetes the manifests are meant for and the newest the package knows.
KUBERNETES_VERSIONS="1.30.0 1.37.0"
# The operator versions k8s/components/operators/ is written against (k8s/README.md).
STRIMZI_VERSION=1.2.0
CNPG_VERSION=v1.30.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
# Renders k8s/ where kubectl (whose `kubectl kustomize` is what `kubectl apply -k` runs) is missing.
KUSTOMIZE_VERSION=v5.8.1

DIR="$PWD/.local/kubeconform"
SCHEMAS="$DIR/schemas"
BIN="$PWD/.local/bin/kubeconform"
PINS="kubeconform=$KUBECONFORM_VERSION k8s=$K8S_SCHEMAS_PACKAGE:${KUBERNETES_VERSIONS// /,} strimzi=$STRIMZI_VERSION cnpg=$CNPG_VERSION prometheus-operator=$PROMETHEUS_OPERATOR_VERSION"
kustomizeReady() { command -v kubectl >/dev/null || .local/bin/kustomize version 2>/dev/null | grep -q "$KUSTOMIZE_VERSION"; }
[[ -x "$BIN" && -f "$DIR/pins" && "$(cat "$DIR/pins")" == "$PINS" ]] && kustomizeReady && exit 0

log() { echo "[kubeconform] $*"; }
die() {
  echo "[kubeconform] ERROR: $*" >&2
  exit 1
}
GO="$(command -v go || echo /usr/local/go/bin/go)"
[[ -x "$GO" ]] || die "go not found (on the PATH or /usr/local/go/bin/go); kubeconform is installed with go install"
command -v python3 >/dev/null || die "python3 not found (it unpacks the schema package and converts the CRDs)"
command -v mvn >/dev/null || die "mvn not found (it fetches Strimzi's API classes from Maven Central)"
mkdir -p "$DIR" .local/bin
klog="$DIR/install.log"
: >"$klog"
started=$SECONDS
run() { "$@" >>"$klog" 2>&1 || { tail -n 30 "$klog" >&2; die "failed: $* (log: $klog)"; }; }

log "installing kubeconform $KUBECONFORM_VERSION and its schemas into $DIR ..."
if [[ ! -x "$BIN" ]] || ! "$BIN" -v 2>/dev/null | grep -q "${KUBECONFORM_VERSION#v}"; then
  # -ldflags: the version `kubeconform -v` prints (a go install leaves it at "development").
  run env GOBIN="$PWD/.local/bin" "$GO" install \
    -ldflags "-X main.version=$KUBECONFORM_VERSION" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
fi
if ! kustomizeReady; then
  run env GOBIN="$PWD/.local/bin" "$GO" install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
fi
modDir() { "$GO" mod download -json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["Error"]) if "Error" in d else print(d["Dir"])'; }
KUBECONFORM_MOD="$(modDir "github.com/yannh/kubeconform@$KUBECONFORM_VERSION")" || die "go mod download kubeconform failed"

rm -rf "$SCHEMAS" "$DIR/work"
mkdir -p "$SCHEMAS/kubernetes" "$SCHEMAS/crds" "$DIR/work"

# Kubernetes: the package's "local-strict" schemas (unknown fields refused) reference their shared
# definitions by an absolute URL on kubernetes.io; made relative so that nothing is fetched.
run python3 -m pip download --disable-pip-version-check --no-input -q --no-deps -d "$DIR/work" "$K8S_SCHEMAS_PACKAGE"
run python3 - "$DIR/work" "$SCHEMAS/kubernetes" $KUBERNETES_VERSIONS <<'PY'
import glob, json, os, sys, zipfile
work, out, versions = sys.argv[1], sys.argv[2], sys.argv[3:]
wheel = zipfile.ZipFile(glob.glob(os.path.join(work, "kubernetes_validate-*.whl"))[0])
for version in versions:
    prefix = f"kubernetes_validate/kubernetes-json-schema/v{version}-local-strict/"
    names = [n for n in wheel.namelist() if n.startswith(prefix) and n.endswith(".json")]
    if not names:
        sys.exit(f"no schemas for Kubernetes {version} in {wheel.filename}")
    target = os.path.join(out, f"v{version}-local-strict")
    os.makedirs(target)
    for name in names:
        schema = json.loads(wheel.read(name))
        schema.pop("$id", None)
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        with open(os.path.join(target, name[len(prefix):]), "w") as f:
            f.write(text)
PY

# CRD YAML -> one JSON schema per kind and version, under crds/<group>/<kind>_<version>.json.
PYTHONPATH_EXTRA=""
if ! python3 -c 'import yaml' 2>/dev/null; then
  run python3 -m pip install --disable-pip-version-check --no-input -q --target "$DIR/pylib" pyyaml
  PYTHONPATH_EXTRA="$DIR/pylib"
fi
crdSchemas() { # group, CRD files...
  local group="$1"
  shift
  mkdir -p "$SCHEMAS/crds/$group"
  local files=()
  for f in "$@"; do files+=("$(realpath "$f")"); done
  (cd "$SCHEMAS/crds/$group" && run env PYTHONPATH="$PYTHONPATH_EXTRA" FILENAME_FORMAT='{kind}_{version}' \
    python3 "$KUBECONFORM_MOD/scripts/openapi2jsonschema.py" "${files[@]}")
}

CNPG_MOD="$(modDir "github.com/cloudnative-pg/cloudnative-pg@$CNPG_VERSION")" || die "go mod download cloudnative-pg $CNPG_VERSION failed"
crdSchemas postgresql.cnpg.io "$CNPG_MOD"/config/crd/bases/postgresql.cnpg.io_*.yaml
PROM_MOD="$(modDir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")" || die "go mod download prometheus-operator failed"
crdSchemas monitoring.coreos.com "$PROM_MOD"/example/prometheus-operator-crd/monitoring.coreos.com_*.yaml

# Strimzi publishes no CRD YAML to a registry, but its API classes and the generator that turns them
# into the release's CRDs are on Maven Central. The generator's classes need Java 21+.
java21=""
for candidate in "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
  [[ -x "$candidate" ]] || continue
  major="$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  if [[ "${major:-0}" =~ ^[0-9]+$ && "$major" -ge 21 ]]; then
    java21="$candidate"
    break
  fi
done
if [[ -z "$java21" ]]; then
  # tools/deploy/kubeconform.sh then names the Strimzi kinds it could not check.
  log "WARNING: no Java 21+ found (java on the PATH, /usr/lib/jvm/*): Strimzi's CRD schemas are not generated"
else
  strimzi="$DIR/work/strimzi"
  mkdir -p "$strimzi/crds"
  cat >"$strimzi/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>strimzi-crds</artifactId><version>0</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>io.strimzi</groupId><artifactId>api</artifactId><version>$STRIMZI_VERSION</version></dependency>
    <dependency><groupId>io.strimzi</groupId><artifactId>crd-generator</artifactId><version>$STRIMZI_VERSION</version></dependency>
  </dependencies>
</project>
EOF
  run mvn -q -B -f "$strimzi/pom.xml" dependency:copy-dependencies -DoutputDirectory=lib
  # The arguments of the api module's generate-crd execution in Strimzi's own build.
  run "$java21" -cp "$strimzi/lib/*" io.strimzi.crdgenerator.CrdGenerator \
    --label app:strimzi --label strimzi.io/crd-install:true --target-kube 1.16+ \
    --crd-api-version v1 --api-versions v1 --storage-version v1 --yaml \
    "io.strimzi.api.kafka.model.kafka.Kafka=$strimzi/crds/kafka.yaml" \
    "io.strimzi.api.kafka.model.nodepool.KafkaNodePool=$strimzi/crds/kafkanodepool.yaml" \
    "io.strimzi.api.kafka.model.topic.KafkaTopic=$strimzi/crds/kafkatopic.yaml" \
    "io.strimzi.api.kafka.model.user.KafkaUser=$strimzi/crds/kafkauser.yaml"
  crdSchemas kafka.strimzi.io "$strimzi"/crds/*.yaml
fi

rm -rf "$DIR/work"
# Without Strimzi's schemas the pins are not written, so that a later run tries again.
[[ -n "$java21" ]] && echo "$PINS" >"$DIR/pins"
log "$("$BIN" -v) with $(find "$SCHEMAS" -name '*.json' | wc -l) schemas ($((SECONDS - started)) s)"
