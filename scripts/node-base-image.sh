#!/usr/bin/env bash
# Makes a local stand-in for the `node:24-bookworm-slim` base image, for machines that cannot pull from
# Docker Hub (CI, the test environment), out of the pinned Node from the npm registry
# (scripts/pinned-node.sh, docs/node.md), this machine's npm and Debian files. So the image runs Node 24
# whatever node the machine has. The image is a test fixture, not a product: the Dockerfile builds on it
# with `--build-arg NODE_IMAGE=<tag>`.
#
#   bash scripts/node-base-image.sh [TAG] [LINE]   (default tidewatch-node-base:local, line 24;
#                                                    LINE 20 only for bench:image-memory's comparison)
#
# DOCKER_HOST selects the engine. It holds what the Dockerfile's two stages use: node and npm under
# /usr/local (as in the official image), the shared libraries node links, busybox for /bin/sh (RUN
# steps), CA certificates, and the `node` user (uid 1000). Idempotent: an existing TAG built from the
# same Node version is kept; one from another version (an older checkout's) is replaced.
set -euo pipefail
TAG=${1:-tidewatch-node-base:local}
LINE=${2:-24}

node_bin="$(bash "$(dirname "$0")/pinned-node.sh" "$LINE")/node"
version=$("$node_bin" -v | tr -d v)
have=$(docker image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$TAG" 2>/dev/null | sed -n 's/^NODE_VERSION=//p' || true)
if [ "$have" = "$version" ]; then
  echo "node-base-image: $TAG exists (node $version)"
  exit 0
fi
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
busybox_bin=$(command -v busybox) || { echo "node-base-image: busybox missing (apt-get install busybox-static)" >&2; exit 1; }
if ldd "$busybox_bin" >/dev/null 2>&1; then
  echo "node-base-image: $busybox_bin is not static (apt-get install busybox-static)" >&2
  exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,etc,tmp,root,home/node,usr/bin,usr/local/bin,usr/local/lib/node_modules,etc/ssl/certs}
chmod 1777 "$root/tmp"

cp "$node_bin" "$root/usr/local/bin/node"
# The libraries node links (libstdc++, libc, the loader...), at the same paths.
for lib in $(ldd "$node_bin" | grep -o '/[^ ]*'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

cp "$busybox_bin" "$root/bin/busybox"
for applet in sh ash cat chmod chown cp du env find grep id ln ls mkdir mv rm sed sleep tar test true false wget xargs; do
  ln -s busybox "$root/bin/$applet"
done
ln -s ../../bin/busybox "$root/usr/bin/env" # npm's `#!/usr/bin/env node`
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"

cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
node:x:1000:1000::/home/node:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
node:x:1000:
nogroup:x:65534:
GROUP
chown 1000:1000 "$root/home/node"

# This machine's trust store goes in too (and Node is told to use it): where the npm registry is reached
# through a TLS-inspecting proxy, the build stage's `npm ci` must trust what the host trusts.
ca_env=()
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  ca_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
fi

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  "${ca_env[@]}" \
  --change 'ENV NODE_VERSION='"$("$node_bin" -v | tr -d v)" \
  --change 'CMD ["node"]' \
  - "$TAG" >/dev/null
echo "node-base-image: built $TAG from $node_bin ($("$node_bin" -v)) and $npm_dir"
