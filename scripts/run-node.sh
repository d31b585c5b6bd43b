#!/usr/bin/env bash
# Runs `node ARGS…` on a Node that package.json's "engines" accepts (docs/node.md): the machine's own when
# it is in range, else the pinned Node 24 from the npm registry (scripts/pinned-node.sh), so that
# `npm run demo` on a fresh machine with Debian's Node 20 means the same as it does in CI and the image.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if ! node "$here/scripts/engines-check.mjs" 2>/dev/null; then
  PATH="$(bash "$here/scripts/pinned-node.sh" 24 </dev/null):$PATH"
  export PATH
fi
exec node "$@"
