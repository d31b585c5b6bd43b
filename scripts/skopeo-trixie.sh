#!/usr/bin/env bash
# skopeo with sigstore support, the independent verifier of the signature tests (docs/signatures.md#tests).
# Bookworm's skopeo 1.9 has sigstore disabled ("Debian-local change"); Debian trixie's 1.18 has it. This
# fetches trixie's skopeo and the few libraries it links with `apt-get download`, from a trixie source
# list kept APART from the system's (its own sources file, lists and cache: the system's apt state is
# never touched), extracts them with `dpkg -x`, and writes a wrapper that starts skopeo through trixie's
# own dynamic loader (`ld-linux-x86-64.so.2 --library-path …`), so bookworm's libc is never mixed in.
#
#   bash scripts/skopeo-trixie.sh [install|path]
#
# install (default)  fetch and extract once (idempotent: a working copy is kept), print the wrapper's path
# path               print the wrapper's path when it is installed, exit 1 otherwise
#
# Where: $TIDEWATCH_SKOPEO_DIR, default $TIDEWATCH_ENV_DIR/skopeo-trixie (the test environment's dir).
set -euo pipefail

ENV_DIR="$(realpath -m "${TIDEWATCH_ENV_DIR:-/tmp/tidewatch-env}")"
DIR="$(realpath -m "${TIDEWATCH_SKOPEO_DIR:-$ENV_DIR/skopeo-trixie}")"
MIRROR=${TIDEWATCH_TRIXIE_MIRROR:-http://deb.debian.org/debian}
WRAPPER="$DIR/skopeo"
# skopeo and what it links (ld.so --list): trixie's libc (its loader runs everything), gpgme and sqlite.
PACKAGES=(skopeo libc6 libgpgme11t64 libassuan9 libgpg-error0 libsqlite3-0)

log() { printf 'skopeo-trixie: %s\n' "$*" >&2; }

works() { [ -x "$WRAPPER" ] && "$WRAPPER" --version >/dev/null 2>&1; }

if [ "${1:-install}" = path ]; then
  works && { echo "$WRAPPER"; exit 0; }
  exit 1
fi

if works; then
  echo "$WRAPPER"
  exit 0
fi

[ "$(uname -m)" = x86_64 ] || { log "only x86_64 is supported (the loader path below)"; exit 1; }
mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/cache/archives/partial" "$DIR/debs" "$DIR/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$DIR/apt/sources.list"
APT=(
  -o "Dir::Etc::sourcelist=$DIR/apt/sources.list"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$DIR/apt/lists"
  -o "Dir::Cache=$DIR/apt/cache"
  -o "APT::Get::List-Cleanup=0"
  -o "Debug::NoLocking=1"
)
log "updating the private trixie package list in $DIR/apt"
apt-get "${APT[@]}" -qq update
log "downloading ${PACKAGES[*]}"
(cd "$DIR/debs" && apt-get "${APT[@]}" -qq download "${PACKAGES[@]}")
for deb in "$DIR"/debs/*.deb; do dpkg -x "$deb" "$DIR/root"; done

ROOT="$DIR/root"
LOADER="$ROOT/lib64/ld-linux-x86-64.so.2"
[ -e "$LOADER" ] || LOADER="$ROOT/usr/lib64/ld-linux-x86-64.so.2"
[ -e "$LOADER" ] || { log "trixie's loader is missing from the extracted libc6"; exit 1; }
LIBS="$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu"
cat > "$WRAPPER" <<EOF
#!/bin/sh
# trixie's skopeo through trixie's loader and libraries (scripts/skopeo-trixie.sh)
exec "$LOADER" --library-path "$LIBS" "$ROOT/usr/bin/skopeo" "\$@"
EOF
chmod +x "$WRAPPER"
if ! works; then
  log "the extracted skopeo does not start; missing libraries:"
  "$LOADER" --library-path "$LIBS" --list "$ROOT/usr/bin/skopeo" | grep 'not found' >&2 || true
  exit 1
fi
log "installed: $("$WRAPPER" --version)"
echo "$WRAPPER"
