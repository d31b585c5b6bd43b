# shellcheck shell=bash
# The Swarm engine: a private dockerd made a single-node Swarm manager (docs/swarm.md).
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# A second private containerd + dockerd under $ENV_DIR/swarm, made a single-node Swarm manager
# (docs/swarm.md). Swarm is never initialised on the main engine: its tests list that engine's
# containers, and a manager adds task containers and networks of its own. Swarm's ingress and
# docker_gwbridge networks are created in this machine's namespace; no test sends traffic to them
# (loopback only), and `down` removes the bridge. TIDEWATCH_ENV_SWARM=0 leaves the engine out, and so does
# TIDEWATCH_ENV_PACKAGES=engine (the demo needs no swarm).
SWARM_DIR="$ENV_DIR/swarm"
SWARM_SOCK="$SWARM_DIR/docker.sock"
SWARM_CONTAINERD_SOCK="$SWARM_DIR/containerd.sock"

swarm_docker() { docker -H "unix://$SWARM_SOCK" "$@"; }
swarm_engine_ok() { swarm_docker version >/dev/null 2>&1; }
swarm_ok() { [ "$(swarm_docker info --format '{{.Swarm.LocalNodeState}}/{{.Swarm.ControlAvailable}}' 2>/dev/null)" = active/true ]; }

swarm_up() {
  [ "${TIDEWATCH_ENV_SWARM:-1}" != 0 ] && [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  if alive "$SWARM_DIR/dockerd.pid" dockerd && swarm_ok; then return 0; fi
  containerd_up "$SWARM_DIR"
  if ! alive "$SWARM_DIR/dockerd.pid" dockerd; then
    log "starting the Swarm engine"
    launch_dockerd "$SWARM_DIR" "$SWARM_CONTAINERD_SOCK" "$(cat "$ENV_DIR/storage-driver")" "$SWARM_DIR/dockerd.pid" swarm_engine_ok \
      -H "unix://$SWARM_SOCK" || { show_log "$SWARM_DIR/dockerd.log"; die "the Swarm engine did not start"; }
  fi
  if [ "$(swarm_docker info --format '{{.Swarm.LocalNodeState}}' 2>/dev/null)" != active ]; then
    log "initialising a single-node Swarm on the Swarm engine"
    # Ports move with the registry's, so that parallel environments never share one.
    swarm_docker swarm init --advertise-addr 127.0.0.1 --listen-addr "127.0.0.1:$((2377 + REG_PORT - 5101))" \
      --data-path-port "$((4789 + REG_PORT - 5101))" >>"$SWARM_DIR/dockerd.log" 2>&1 ||
      { show_log "$SWARM_DIR/dockerd.log"; die "swarm init failed"; }
  fi
  swarm_ok || die "the Swarm engine is not a manager"
}

swarm_down() {
  [ -d "$SWARM_DIR" ] || return 0
  if alive "$SWARM_DIR/dockerd.pid" dockerd; then
    swarm_docker swarm leave --force >/dev/null 2>&1 || true
    # The swarm is gone with its services: their task containers would only slow the next start down.
    swarm_docker ps -aq | xargs -r docker -H "unix://$SWARM_SOCK" rm -f >/dev/null 2>&1 || true
    swarm_docker network rm docker_gwbridge >/dev/null 2>&1 || true
  fi
  stop "$SWARM_DIR/dockerd.pid" dockerd
  stop "$SWARM_DIR/containerd.pid" containerd
  # Swarm made this bridge in the machine's namespace; nothing else of ours uses it.
  if ip link show docker_gwbridge >/dev/null 2>&1; then ip link del docker_gwbridge 2>/dev/null || log "could not remove docker_gwbridge"; fi
}

# The Swarm engine's entries of env.json, when it runs.
swarm_json() {
  alive "$SWARM_DIR/dockerd.pid" dockerd || return 0
  printf '\n  "swarmDockerSocket": "%s",\n  "swarmDockerHost": "unix://%s",' "$SWARM_SOCK" "$SWARM_SOCK"
}
