#!/usr/bin/env bash
# Checks what deploy/ ships, as CI runs it (.ci/run): builds the release
# binary and the image with buildah (deploy/build.sh), then runs what the
# image holds with chroot, as its user 65532, since this machine runs no
# containers: version (stamped), migrate on /data, serve and its
# healthcheck, and a graceful stop. Then systemd-analyze verifies the unit.
# Needs root, buildah and systemd-analyze.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
# buildah's own storage, in the work directory: vfs needs no overlay
# mounts, and nothing is left in the machine's image store.
buildah=(buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs)
container=""
cleanup() {
  if [ -n "$container" ]; then
    "${buildah[@]}" umount "$container" >/dev/null || true
    "${buildah[@]}" rm "$container" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

image=disburse:check
CONTAINER_BUILD="${buildah[*]} build --isolation chroot --quiet" IMAGE="$image" deploy/build.sh
echo "image $image: $("${buildah[@]}" images --format '{{.Size}}' "$image")"

container=$("${buildah[@]}" from "$image")
root=$("${buildah[@]}" mount "$container")
# The image's environment (Containerfile ENV), and nothing of this one's.
in_image=(env -i PATH=/nonexistent DISBURSE_LISTEN=127.0.0.1:18080 DISBURSE_DATABASE_URL=sqlite:/data/disburse.db TMPDIR=/tmp
  "$(command -v chroot)" --userspec=65532:65532 "$root" /disburse)

version=$("${in_image[@]}" version)
echo "$version"
want_revision=$(git rev-parse HEAD)
case "$version" in
  *"revision $want_revision"*) ;;
  *) echo "the image's disburse version does not name revision $want_revision" >&2; exit 1 ;;
esac

"${in_image[@]}" migrate
"${in_image[@]}" migrate | grep -q "no migrations due" || { echo "a second migrate applied something" >&2; exit 1; }
test "$(stat -c %u "$root/data/disburse.db")" = 65532 || { echo "/data/disburse.db is not the user's" >&2; exit 1; }

# serve as the image runs it; healthcheck answers 0 once it is ready;
# SIGTERM stops it with exit 0.
"${in_image[@]}" serve >"$work/serve.log" 2>&1 &
serve=$!
ready=""
for _ in $(seq 1 30); do
  if "${in_image[@]}" healthcheck 2>/dev/null; then ready=1; break; fi
  kill -0 "$serve" 2>/dev/null || break
  sleep 1
done
if [ -z "$ready" ]; then
  kill "$serve" 2>/dev/null || true
  cat "$work/serve.log" >&2
  echo "serve in the image never became ready" >&2
  exit 1
fi
echo "serve in the image is ready (disburse healthcheck: GET /readyz)"
kill -TERM "$serve"
wait "$serve" || { cat "$work/serve.log" >&2; echo "serve did not stop with exit 0 on SIGTERM" >&2; exit 1; }
echo "serve stopped on SIGTERM with exit 0"

# The systemd unit, checked as it ships, its ExecStart pointed at the binary
# just built. systemd-analyze verify exits 0 on warnings; any output fails.
unit_dir="$work/unit"
mkdir -p "$unit_dir"
sed "s#/usr/local/bin/disburse#$PWD/dist/disburse#" deploy/systemd/disburse.service >"$unit_dir/disburse.service"
verify=$(systemd-analyze verify "$unit_dir/disburse.service" 2>&1) || { echo "$verify" >&2; exit 1; }
if [ -n "$verify" ]; then echo "$verify" >&2; exit 1; fi
echo "systemd-analyze verify: deploy/systemd/disburse.service is clean"
systemd-analyze security --offline=yes "$unit_dir/disburse.service" 2>&1 | tail -n 1
