#!/usr/bin/env bash
# Builds the release binary and the container image from it.
#
#   deploy/build.sh                 # dist/disburse, then the image disburse:VERSION
#   deploy/build.sh --binary-only   # dist/disburse only
#
# The binary is static (CGO_ENABLED=0: the SQLite driver is pure Go),
# built with -trimpath, and stamped with its version and revision
# (cmd/disburse/version.go). The image (Containerfile) is FROM scratch:
# the binary, CA certificates, a passwd entry for the non-root user 65532,
# /tmp and the /data volume. It builds with buildah, podman or docker:
#
#   CONTAINER_BUILD="docker build" deploy/build.sh
#
# Settings, all optional:
#   VERSION, REVISION  what the binary reports (default: git describe, git rev-parse)
#   IMAGE              the image's name and tag (default disburse:VERSION)
#   CONTAINER_BUILD    the build command (default "buildah build"; global
#                      buildah flags go first: "buildah --storage-driver vfs build")
#   CA_CERTIFICATES    the CA bundle to put in the image
#                      (default /etc/ssl/certs/ca-certificates.crt)
set -euo pipefail
cd "$(dirname "$0")/.."

dirty=""
if git rev-parse --git-dir >/dev/null 2>&1; then
  git diff --quiet HEAD -- 2>/dev/null || dirty="+modified"
  : "${VERSION:=$(git describe --tags --always --dirty)}"
  : "${REVISION:=$(git rev-parse HEAD)$dirty}"
fi
: "${VERSION:?VERSION is needed outside a git checkout}"
: "${REVISION:=unknown}"

# The README's release build ("Building a release").
mkdir -p dist
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X main.version=$VERSION -X main.revision=$REVISION" \
  -o dist/disburse ./cmd/disburse
echo "built dist/disburse: $(dist/disburse version)"
[ "${1:-}" = "--binary-only" ] && exit 0

# The image's files, laid out as they land (the Containerfile copies them).
image_dir=dist/image
rm -rf "$image_dir"
mkdir -p "$image_dir/rootfs/etc/ssl/certs" "$image_dir/rootfs/tmp" "$image_dir/data"
cp dist/disburse "$image_dir/rootfs/disburse"
cp "${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}" "$image_dir/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\ndisburse:x:65532:65532:disburse:/data:/sbin/nologin\n' >"$image_dir/rootfs/etc/passwd"
printf 'root:x:0:\ndisburse:x:65532:\n' >"$image_dir/rootfs/etc/group"
chmod 1777 "$image_dir/rootfs/tmp" # $TMPDIR: SQLite's temporary files
chmod 0755 "$image_dir/rootfs" "$image_dir/rootfs/etc" "$image_dir/data"

IMAGE="${IMAGE:-disburse:$VERSION}"
read -ra build <<<"${CONTAINER_BUILD:-buildah build}"
# HEALTHCHECK is a field of Docker's image format; buildah and podman keep
# it only in that format.
export BUILDAH_FORMAT="${BUILDAH_FORMAT:-docker}"
"${build[@]}" -f Containerfile -t "$IMAGE" \
  --label "org.opencontainers.image.version=$VERSION" \
  --label "org.opencontainers.image.revision=$REVISION" .
echo "built image $IMAGE"
