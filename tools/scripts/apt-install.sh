#!/usr/bin/env bash
# apt-install.sh <tag> <debian-package> <hint>: installs a Debian package for the tests, as root,
# logging to .local/apt-<tag>.log. Used by the ensure-*.sh scripts once they found their tool
# missing; <hint> says what to do where this cannot run (not root, no apt-get).
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=$1 package=$2 hint=$3

die() {
  echo "[$tag] ERROR: $*" >&2
  exit 1
}
[[ "$(id -u)" -eq 0 ]] || die "$tag is missing; run: sudo apt-get install -y --no-install-recommends $package"
command -v apt-get >/dev/null || die "$tag is missing and apt-get is not available; $hint"

mkdir -p .local
alog=.local/apt-$tag.log
echo "[$tag] installing $package (apt-get install $package) ..."
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (infra.sh installing PostgreSQL, another ensure script) may hold the lock for a while: wait for it.
apt=(apt-get -o DPkg::Lock::Timeout=300)
if ! "${apt[@]}" update >"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get update failed (log: $alog)"
fi
if ! "${apt[@]}" install -y --no-install-recommends "$package" >>"$alog" 2>&1; then
  tail -n 20 "$alog" >&2
  die "apt-get install $package failed (log: $alog)"
fi
