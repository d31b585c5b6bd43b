# shellcheck shell=bash
# Compose v2, unpacked once per machine.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# Debian trixie's docker-compose 2.x (a Go binary, Docker's CLI plugin, run standalone): bookworm's
# docker-compose 1.29 has no `configs: content:`, which the copy-file test and the fork compose-file test need
# (docs/watchtower-fork.md). Fetched and unpacked like trixie's Docker 26 (debian_fetch), once per machine, never
# installed; only those two use it (env.json's "compose2"), every other Compose test runs bookworm's. Not with
# TIDEWATCH_ENV_PACKAGES=engine. A failure is logged: those tests then fail under CI=true and skip otherwise.
COMPOSE2_CACHE="$(realpath -m "${TIDEWATCH_COMPOSE2_CACHE:-/var/cache/tidewatch-test/compose2}")"
COMPOSE2_BIN="$COMPOSE2_CACHE/root/usr/libexec/docker/cli-plugins/docker-compose"
compose2_unpacked() { [ -x "$COMPOSE2_BIN" ] && "$COMPOSE2_BIN" version >/dev/null 2>&1; }
compose2_up() {
  [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  (debian_fetch trixie "$COMPOSE2_CACHE" compose2_unpacked docker-compose) || log "warning: trixie's docker-compose 2 could not be fetched"
}
compose2_json() {
  compose2_unpacked || return 0
  printf '\n  "compose2": "%s",' "$COMPOSE2_BIN"
}
