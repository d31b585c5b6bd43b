# shellcheck shell=bash
# The signature tests' tools: trixie's skopeo and sid's cosign, unpacked into the env dir.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# skopeo_up: Debian trixie's skopeo (sigstore support) in $ENV_DIR/skopeo-trixie, the independent verifier of
# the signature tests (scripts/skopeo-trixie.sh); not with TIDEWATCH_ENV_PACKAGES=engine. A failure is
# logged: the tests that need it then fail under CI=true and skip otherwise.
skopeo_up() {
  [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  TIDEWATCH_ENV_DIR="$ENV_DIR" bash "$SCRIPTS_DIR/skopeo-trixie.sh" install >/dev/null || log "warning: trixie's skopeo could not be installed"
}

# cosign_up: Debian sid's cosign 3.1 in $ENV_DIR/cosign-sid, the signer of the signature tests
# (scripts/cosign-sid.sh); not with TIDEWATCH_ENV_PACKAGES=engine. A failure is logged: the tests that need it
# then fail under CI=true and skip otherwise.
cosign_up() {
  [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  TIDEWATCH_ENV_DIR="$ENV_DIR" bash "$SCRIPTS_DIR/cosign-sid.sh" install >/dev/null || log "warning: sid's cosign could not be installed"
}

