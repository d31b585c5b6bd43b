#!/usr/bin/env bash
# The real test environment: a private Docker Engine, a private Swarm engine, two local registries, an
# MQTT broker and Podman's Docker-compatible API, loopback only.
#
#   bash scripts/test-env.sh [up|down|status]
#
# This file is the driver: the settings, env.json and the three commands. Each service's start, check and
# stop live in scripts/test-env/<service>.sh (engine, second-engine, registry, swarm, docker26, docker28,
# debian-fetch, compose2, mqtt, podman, signing-tools; packages and process are the shared helpers).
#
# up (default)  install missing Debian packages, start a private containerd + dockerd, two CNCF
#               distribution registries, a second engine made a single-node Swarm manager, mosquitto
#               and `podman system service` (the last two where installed), write
#               $TIDEWATCH_ENV_DIR/env.json. Idempotent: a second `up` finds everything answering and only
#               rewrites env.json.
# down          stop what `up` started (by pidfile), and Podman's containers. Data (images, registry
#               storage, logs) stays.
# status        print what runs; exit 0 only when everything answers.
#
# Layout of the env dir (default /tmp/tidewatch-env, kept short: unix socket paths must be < 108 bytes):
#   env.json                       what tests read (test/helpers/env.ts)
#   docker.sock  dockerd.pid  dockerd.log  daemon.json  data/  exec/     the private engine
#   containerd.sock  containerd.pid  containerd.log  containerd/         its private containerd
#   registry-5101.access.log (one line per request, combined log format) registry-5101.log (app log, JSON)
#   registry-5102.access.log  registry-5102.log  htpasswd                the Basic-auth registry
#   storage-driver                 the graph driver chosen on the first `up` (overlay2, or vfs)
#   mosquitto.conf  mosquitto.passwd  mosquitto.pid  mosquitto.log   the MQTT broker (not with `engine`)
#   engine2/                       the second engine (not with `engine`): tcp://127.0.0.1:SECOND_PORT, TLS, with registry
#                                  mirrors on REG+2 (plain) and REG+3 (proxy mode; upstream REG+4), which only the
#                                  mirror test runs (test/helpers/mirror-registries.ts, docs/registry-mirrors.md)
#     docker.pid dockerd.log daemon.json data/ exec/ containerd.sock containerd.pid containerd.log containerd/
#     tls/                         openssl's CA and server certificate (made once, kept)
#     client/                      ca.pem cert.pem key.pem: a client's DOCKER_CERT_PATH
#   swarm/ (docker.sock dockerd.pid dockerd.log data/ exec/ containerd…)  a second private engine, a
#                                  single-node Swarm manager (not with `engine`; docs/swarm.md)
#   engine26/ (docker.sock dockerd.pid dockerd.log data/ exec/ containerd…)  Debian trixie's Docker 26.1 with
#                                  containerd 1.7 beside bookworm's runc (not with `engine`; TIDEWATCH_ENV_DOCKER26)
#   skopeo-trixie/  cosign-sid/    trixie's skopeo and sid's cosign 3, unpacked (scripts/skopeo-trixie.sh, cosign-sid.sh)
#   (outside it, once per machine: /var/cache/tidewatch-test/{docker26,docker28,compose2}, the unpacked Debian packages)
#   engine28s/ engine28/ (docker.sock dockerd.pid dockerd.log data/ exec/ containerd…)  Debian sid's Docker 28.5
#                                  with containerd 2.1: the containerd image store on (API floor 1.44), and off
#                                  (not with `engine`; TIDEWATCH_ENV_DOCKER28)
#   podman/  podman.sock  service.pid  service.log  containers.conf  storage.conf  registries.conf
#            storage/  run/  tmp/          Podman's Docker-compatible API (not with `engine`; docs/podman.md)
#
# Only for test machines, as root. It never touches /var/run/docker.sock nor a system dockerd/containerd.
set -euo pipefail

ENV_DIR="$(realpath -m "${TIDEWATCH_ENV_DIR:-/tmp/tidewatch-env}")"
REG_PORT=${TIDEWATCH_REGISTRY_PORT:-5101}
AUTH_REG_PORT=${TIDEWATCH_AUTH_REGISTRY_PORT:-5102}
AUTH_USER=tidewatch
AUTH_PASSWORD=tidewatch-secret
# The broker's port moves with the registry's, so that parallel environments never share one.
MQTT_PORT=${TIDEWATCH_MQTT_PORT:-$((1883 + REG_PORT - 5101))}
DOCKER_SOCK="$ENV_DIR/docker.sock"
CONTAINERD_SOCK="$ENV_DIR/containerd.sock"
DOCKERD_WAIT=${TIDEWATCH_DOCKERD_WAIT:-60}
# The second engine (several hosts, docs/hosts.md): like the broker's, its port moves with the registry's.
SECOND_PORT=${TIDEWATCH_SECOND_DOCKER_PORT:-$((2376 + REG_PORT - 5101))}
SECOND_DIR="$ENV_DIR/engine2"
SECOND_HOST="tcp://127.0.0.1:$SECOND_PORT"
REGISTRY_WAIT=${TIDEWATCH_REGISTRY_WAIT:-20}
# The second engine's registry mirrors (docs/registry-mirrors.md): a plain Distribution registry and one in proxy
# mode, whose upstream (HUB_STANDIN_PORT) stands in for Docker Hub. The test that needs them starts and stops them
# itself (test/helpers/mirror-registries.ts): the engine only names them. Their ports move with the registry's.
MIRROR_PORT=${TIDEWATCH_MIRROR_REGISTRY_PORT:-$((REG_PORT + 2))}
PROXY_MIRROR_PORT=${TIDEWATCH_PROXY_MIRROR_PORT:-$((REG_PORT + 3))}
HUB_STANDIN_PORT=${TIDEWATCH_HUB_STANDIN_PORT:-$((REG_PORT + 4))}
SECOND_MIRRORS=("http://127.0.0.1:$MIRROR_PORT/" "http://127.0.0.1:$PROXY_MIRROR_PORT/")

log() { printf 'test-env: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The parts, one per service (scripts/test-env/*.sh): sourced in this order, which is the order in which
# their settings refer to each other; each only defines settings and functions, nothing runs here.
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for part in packages process engine second-engine registry swarm debian-fetch docker26 docker28 compose2 mqtt podman signing-tools; do
  # shellcheck source=/dev/null
  source "$SCRIPTS_DIR/test-env/$part.sh"
done

# ---------------------------------------------------------------- env.json

write_env_json() {
  local tmp="$ENV_DIR/env.json.tmp"
  cat >"$tmp" <<EOF
{
  "dockerSocket": "$DOCKER_SOCK",
  "dockerHost": "unix://$DOCKER_SOCK",
  "registry": "127.0.0.1:$REG_PORT",
  "authRegistry": "127.0.0.1:$AUTH_REG_PORT",
  "authUser": "$AUTH_USER",
  "authPassword": "$AUTH_PASSWORD",
  "registryLog": "$ENV_DIR/registry-$REG_PORT.access.log",
  "authRegistryLog": "$ENV_DIR/registry-$AUTH_REG_PORT.access.log",
  "registryAppLog": "$ENV_DIR/registry-$REG_PORT.log",
  "authRegistryAppLog": "$ENV_DIR/registry-$AUTH_REG_PORT.log",
  "dockerdLog": "$ENV_DIR/dockerd.log",
  "storageDriver": "$(cat "$ENV_DIR/storage-driver")",$(mqtt_json)$(swarm_json)$(podman_json)$(second_json)$(docker26_json)$(docker28_json)$(compose2_json)
  "envDir": "$ENV_DIR"
}
EOF
  mv -f "$tmp" "$ENV_DIR/env.json"
}


# ---------------------------------------------------------------- commands

with_lock() { # serialise concurrent up/down on the same env dir
  mkdir -p "$ENV_DIR"
  exec 9>"$ENV_DIR/.lock"
  flock -w 300 9 || die "could not lock $ENV_DIR/.lock"
}

cmd_up() {
  [ ${#DOCKER_SOCK} -lt 100 ] || die "socket path too long (${#DOCKER_SOCK} chars): use a shorter TIDEWATCH_ENV_DIR"
  install_packages
  [ "$(id -u)" -eq 0 ] || die "a private dockerd needs root"
  with_lock
  chmod 0755 "$ENV_DIR"
  containerd_up
  dockerd_up
  # Docker 28's fetch and engines need only the storage driver proved above: they come up meanwhile.
  local d28=
  if docker28_wanted; then docker28_up & d28=$!; fi
  registry_up "$REG_PORT"
  registry_up "$AUTH_REG_PORT" auth
  mqtt_up
  swarm_up
  podman_up
  second_dockerd_up
  docker26_up
  skopeo_up
  cosign_up
  compose2_up
  if [ -n "$d28" ]; then wait "$d28" || die "Docker 28 did not come up (see $D28_STORE_DIR/dockerd.log, $D28_CLASSIC_DIR/dockerd.log)"; fi
  write_env_json
  log "ready: DOCKER_HOST=unix://$DOCKER_SOCK$(second_wanted && printf ' and %s (TLS)' "$SECOND_HOST"), registries 127.0.0.1:$REG_PORT and 127.0.0.1:$AUTH_REG_PORT (auth), $ENV_DIR/env.json"
}

cmd_down() {
  [ -d "$ENV_DIR" ] || return 0
  with_lock
  podman_down
  stop "$ENV_DIR/mosquitto.pid" mosquitto
  swarm_down
  docker26_down
  docker28_down
  stop "$SECOND_DIR/docker.pid" dockerd
  stop "$SECOND_DIR/containerd.pid" containerd
  stop "$ENV_DIR/registry-$AUTH_REG_PORT.pid" docker-registry
  stop "$ENV_DIR/registry-$REG_PORT.pid" docker-registry
  stop "$ENV_DIR/dockerd.pid" dockerd
  stop "$ENV_DIR/containerd.pid" containerd
  unmount_leftovers "" all
  log "down"
}

cmd_status() {
  local ok=0 line
  report() { # NAME PIDFILE PROC CHECK...
    local name=$1 pidfile=$2 proc=$3
    shift 3
    if alive "$pidfile" "$proc" && "$@"; then
      line="up    (pid $(cat "$pidfile"))"
    elif alive "$pidfile" "$proc"; then
      line="NOT ANSWERING (pid $(cat "$pidfile"))"
      ok=1
    else
      line="down"
      ok=1
    fi
    printf '%-16s %s\n' "$name" "$line"
  }
  report containerd "$ENV_DIR/containerd.pid" containerd test -S "$CONTAINERD_SOCK"
  report dockerd "$ENV_DIR/dockerd.pid" dockerd docker_ok
  report "registry:$REG_PORT" "$ENV_DIR/registry-$REG_PORT.pid" docker-registry registry_ok "$REG_PORT"
  report "registry:$AUTH_REG_PORT" "$ENV_DIR/registry-$AUTH_REG_PORT.pid" docker-registry \
    registry_ok "$AUTH_REG_PORT" "$AUTH_USER:$AUTH_PASSWORD"
  if [ "${TIDEWATCH_ENV_SWARM:-1}" != 0 ]; then report swarm "$SWARM_DIR/dockerd.pid" dockerd swarm_ok; fi
  if [ -x /usr/sbin/mosquitto ]; then report "mqtt:$MQTT_PORT" "$ENV_DIR/mosquitto.pid" mosquitto mqtt_ok; fi
  if command -v podman >/dev/null 2>&1; then report podman "$PODMAN_DIR/service.pid" podman podman_ok; fi
  if second_wanted; then
    report containerd2 "$SECOND_DIR/containerd.pid" containerd test -S "$SECOND_DIR/containerd.sock"
    report "dockerd:$SECOND_PORT" "$SECOND_DIR/docker.pid" dockerd second_ok
  fi
  if docker26_wanted; then report docker26 "$D26_DIR/dockerd.pid" dockerd docker26_ok; fi
  if docker28_wanted; then
    report docker28-store "$D28_STORE_DIR/dockerd.pid" dockerd docker28_ok_store
    report docker28 "$D28_CLASSIC_DIR/dockerd.pid" dockerd docker28_ok_classic
  fi
  if [ -s "$ENV_DIR/storage-driver" ]; then printf '%-16s %s\n' "storage driver" "$(cat "$ENV_DIR/storage-driver")"; fi
  if [ -s "$ENV_DIR/env.json" ]; then printf '%-16s %s\n' "env.json" "$ENV_DIR/env.json"; fi
  return $ok
}

case "${1:-up}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) die "usage: $0 [up|down|status]" ;;
esac
