#!/usr/bin/env bash
# The real cosign CLI, the signer of the signature tests (docs/signatures.md#tests): Debian sid's cosign 3.1
# (neither bookworm nor trixie has a cosign 3). This fetches the one package with `apt-get download`, from a
# sid source list kept APART from the system's (its own sources file, lists and cache: the system's apt
# state is never touched), and extracts it with `dpkg -x`; nothing is installed. The binary is Go and links
# only libc (>= 2.34), so bookworm's libc runs it.
#
#   bash scripts/cosign-sid.sh [install|path]
#
# install (default)  fetch and extract once (idempotent: a working copy is kept), print the binary's path
# path               print the binary's path when it is installed, exit 1 otherwise
#
# Where: $TIDEWATCH_COSIGN_DIR, default $TIDEWATCH_ENV_DIR/cosign-sid (the test environment's dir).
set -euo pipefail

ENV_DIR="$(realpath -m "${TIDEWATCH_ENV_DIR:-/tmp/tidewatch-env}")"
DIR="$(realpath -m "${TIDEWATCH_COSIGN_DIR:-$ENV_DIR/cosign-sid}")"
MIRROR=${TIDEWATCH_SID_MIRROR:-http://deb.debian.org/debian}
BIN="$DIR/root/usr/bin/cosign"

log() { printf 'cosign-sid: %s\n' "$*" >&2; }

# Only a cosign 3 counts: its default signature format (a v3 bundle) is what the tests are about.
works() { [ -x "$BIN" ] && "$BIN" version 2>/dev/null | grep -q '^GitVersion\|^GoVersion' && "$BIN" sign --help 2>/dev/null | grep -q -- '--use-signing-config'; }

if [ "${1:-install}" = path ]; then
  works && { echo "$BIN"; exit 0; }
  exit 1
fi

if works; then
  echo "$BIN"
  exit 0
fi

mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/cache/archives/partial" "$DIR/debs" "$DIR/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR sid main" > "$DIR/apt/sources.list"
APT=(
  -o "Dir::Etc::sourcelist=$DIR/apt/sources.list"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$DIR/apt/lists"
  -o "Dir::Cache=$DIR/apt/cache"
  -o "APT::Get::List-Cleanup=0"
  -o "APT::Sandbox::User=root"
  -o "Debug::NoLocking=1"
)
log "updating the private sid package list in $DIR/apt"
apt-get "${APT[@]}" -qq update
log "downloading cosign"
rm -f "$DIR"/debs/*.deb
(cd "$DIR/debs" && apt-get "${APT[@]}" -qq download cosign)
for deb in "$DIR"/debs/*.deb; do dpkg -x "$deb" "$DIR/root"; done
if ! works; then
  log "the extracted cosign does not start (or is not a cosign 3):"
  "$BIN" version >&2 || true
  exit 1
fi
log "installed: $(dpkg-deb -f "$DIR"/debs/cosign_*.deb Version)"
echo "$BIN"
