#!/usr/bin/env bash
# Builds a container image that holds ringside's static binary and nothing else (FROM scratch:
# no shell, no libc, no CA files), entrypoint /ringside, with buildah. No registry: the image goes
# to the local containers-storage (where podman finds it), and --archive also writes it to a file
# that a cluster's nodes load without a registry (`kind load image-archive FILE`, or
# `ctr -n k8s.io images import FILE` on each node).
#
#   deploy/k8s/build-image.sh [--binary PATH] [--image NAME] [--archive FILE] [--format oci-archive|docker-archive]
#
# Prints the image's name on stdout (the last line), everything else on stderr. The default name
# is localhost/ringside:<first 12 hex digits of the binary's sha256>: a new binary gets a new tag,
# so nodes holding an older image (imagePullPolicy IfNotPresent) never run it by mistake.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
binary="$root/build/release/apps/ringside"
image=""
archive=""
format="oci-archive"

die() {  # exit code, then one line saying what is wrong and what to do
  local code=$1
  shift
  echo "build-image: $*" >&2
  exit "$code"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?}; shift 2 ;;
    --image) image=${2:?}; shift 2 ;;
    --archive) archive=${2:?}; shift 2 ;;
    --format) format=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument '$1' (see --help)" ;;
  esac
done

case "$format" in
  oci-archive|docker-archive) ;;
  *) die 2 "--format must be oci-archive or docker-archive, got '$format'" ;;
esac
command -v buildah >/dev/null || die 1 "buildah is not installed: run scripts/setup (Debian package buildah)"
[ -x "$binary" ] || die 1 "no executable ringside at $binary: run 'scripts/build release' or give --binary"

# A scratch image has no dynamic loader and no libraries: a dynamically linked binary (the ASan
# build, say) would fail in the container with a bare "no such file or directory".
if ! file -bL "$binary" | grep -Eq 'statically linked|static-pie linked'; then
  die 1 "$binary is not statically linked ($(file -bL "$binary" | cut -d, -f1-4)): a FROM scratch image can run only a static binary; use the release build (scripts/build release)"
fi
if ldd "$binary" >/dev/null 2>&1; then
  die 1 "$binary needs shared libraries (ldd lists them): use the release build (scripts/build release)"
fi

if [ -z "$image" ]; then
  image="localhost/ringside:$(sha256sum "$binary" | cut -c1-12)"
fi

container=$(buildah from scratch)
trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
buildah copy --chmod 0755 "$container" "$binary" /ringside >/dev/null
# nobody: ringside needs no privilege, and a numeric user lets Kubernetes check runAsNonRoot.
buildah config --entrypoint '["/ringside"]' --cmd '' --user 65534:65534 \
  --label org.opencontainers.image.title=ringside \
  --label org.opencontainers.image.description="ringside's static binary, for ringside load in pods (deploy/k8s)" \
  "$container"
buildah commit --quiet --rm "$container" "$image" >/dev/null
trap - EXIT
echo "build-image: $image built from $binary" >&2

if [ -n "$archive" ]; then
  rm -f "$archive"
  buildah push --quiet "$image" "$format:$archive:$image" >/dev/null
  echo "build-image: wrote $archive ($format); load it with 'kind load image-archive $archive' or 'ctr -n k8s.io images import $archive' on each node" >&2
fi
echo "$image"
