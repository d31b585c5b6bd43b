# shellcheck shell=bash
# Docker 26.1 (trixie) with containerd 1.7: the Docker users run.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# A fourth private engine: Debian trixie's docker.io 26.1 (API 1.45) and containerd 1.7, the packages fetched
# with `apt-get download` from a trixie source list kept apart from the system's (its own lists, its own
# cache: nothing of the machine's apt state changes, nothing is installed), unpacked with `dpkg -x` into a
# cache that survives reruns and `down`, and run beside bookworm's runc (docker.io's) with the same flags
# as the main engine. The end-to-end tests run their scenarios on every engine (test/e2e/engine-versions-*.test.ts).
# Not started with TIDEWATCH_ENV_PACKAGES=engine unless TIDEWATCH_ENV_DOCKER26=1; TIDEWATCH_ENV_DOCKER26=0 leaves it out.
D26_DIR="$ENV_DIR/engine26"
D26_SOCK="$D26_DIR/docker.sock"
D26_CACHE="$(realpath -m "${TIDEWATCH_DOCKER26_CACHE:-/var/cache/tidewatch-test/docker26}")"
D26_ROOT="$D26_CACHE/root"
D26_PACKAGES=(docker.io containerd)

# extra_engine_wanted VAR: an extra engine runs unless VAR=0 or TIDEWATCH_ENV_PACKAGES=engine; VAR=1 forces it.
extra_engine_wanted() {
  [ "${!1:-}" = 1 ] && return 0
  [ "${!1:-1}" != 0 ] && [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ]
}
docker26_wanted() { extra_engine_wanted TIDEWATCH_ENV_DOCKER26; }
docker26_ok() { docker -H "unix://$D26_SOCK" version >/dev/null 2>&1; }
docker26_unpacked() { [ -x "$D26_ROOT/usr/sbin/dockerd" ] && [ -x "$D26_ROOT/usr/bin/containerd" ] && [ -x "$D26_ROOT/usr/bin/containerd-shim-runc-v2" ]; }

docker26_fetch() { debian_fetch trixie "$D26_CACHE" docker26_unpacked "${D26_PACKAGES[@]}"; }

docker26_up() {
  docker26_wanted || return 0
  if alive "$D26_DIR/dockerd.pid" dockerd && docker26_ok; then return 0; fi
  docker26_fetch
  stop "$D26_DIR/dockerd.pid" dockerd
  mkdir -p "$D26_DIR"
  unmount_leftovers "$D26_DIR"
  # Its containerd finds the 1.7 shim first on PATH, and the shim bookworm's runc after it; dockerd its own
  # docker-proxy and docker-init (neither is used with these flags).
  PATH="$D26_ROOT/usr/bin:$D26_ROOT/usr/sbin:$PATH" containerd_up "$D26_DIR"
  log "starting Docker 26 ($("$D26_ROOT/usr/sbin/dockerd" --version 2>/dev/null)) on unix://$D26_SOCK"
  PATH="$D26_ROOT/usr/bin:$D26_ROOT/usr/sbin:$PATH" launch_dockerd "$D26_DIR" "$D26_DIR/containerd.sock" "$(cat "$ENV_DIR/storage-driver")" \
    "$D26_DIR/dockerd.pid" docker26_ok -H "unix://$D26_SOCK" && return 0
  show_log "$D26_DIR/dockerd.log"
  die "Docker 26 did not answer on $D26_SOCK"
}

docker26_down() {
  [ -d "$D26_DIR" ] || return 0
  stop "$D26_DIR/dockerd.pid" dockerd
  stop "$D26_DIR/containerd.pid" containerd
}

# Docker 26's entries of env.json, when it runs.
docker26_json() {
  alive "$D26_DIR/dockerd.pid" dockerd || return 0
  printf '\n  "docker26Socket": "%s",\n  "docker26Host": "unix://%s",\n  "docker26Log": "%s",' "$D26_SOCK" "$D26_SOCK" "$D26_DIR/dockerd.log"
}
