# shellcheck shell=bash
# Podman's Docker-compatible API (`podman system service`, docs/podman.md).
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

PODMAN_DIR="$ENV_DIR/podman"
PODMAN_SOCK="$PODMAN_DIR/podman.sock"

# podman_env: the private configuration every podman command of ours runs with, so that nothing of a
# system Podman (/etc/containers, /var/lib/containers, /run/containers) is read or written.
podman_env() {
  export CONTAINERS_CONF="$PODMAN_DIR/containers.conf" \
    CONTAINERS_STORAGE_CONF="$PODMAN_DIR/storage.conf" \
    CONTAINERS_REGISTRIES_CONF="$PODMAN_DIR/registries.conf"
}

podman_ok() { curl -fsS -o /dev/null --max-time 2 --unix-socket "$PODMAN_SOCK" http://d/_ping 2>/dev/null; }

# podman_config: Podman as root on this machine: cgroupfs (no systemd), events in a file (no journald),
# no network for containers by default (the tests' containers are all --network none), the registries of
# the environment as plain-HTTP ones (Podman refuses HTTP otherwise), and rlimits the runtime can set:
# without CAP_SYS_RESOURCE, Podman's root defaults (nofile 1048576, nproc 4194304) make every start fail
# with "error setting rlimit ... operation not permitted", so they are capped at what conmon inherits:
# this shell's hard nofile, and nproc at most 32768, where Podman 4.3 sets its own (and so conmon's) limit.
podman_config() {
  local nofile nproc storage_driver=overlay
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  [ "$nofile" = unlimited ] && nofile=1048576
  { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
  # The same choice as dockerd's: where overlay2 failed, Podman's overlay would too.
  [ "$(cat "$ENV_DIR/storage-driver" 2>/dev/null)" = vfs ] && storage_driver=vfs
  mkdir -p "$PODMAN_DIR"
  cat >"$PODMAN_DIR/containers.conf" <<EOF
[containers]
netns = "none"
log_driver = "k8s-file"
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$PODMAN_DIR/events.log"
runtime = "runc"
tmp_dir = "$PODMAN_DIR/tmp"
static_dir = "$PODMAN_DIR/storage/libpod"
volume_path = "$PODMAN_DIR/storage/volumes"
[network]
network_config_dir = "$PODMAN_DIR/networks"
EOF
  cat >"$PODMAN_DIR/storage.conf" <<EOF
[storage]
driver = "$storage_driver"
graphroot = "$PODMAN_DIR/storage"
runroot = "$PODMAN_DIR/run"
EOF
  cat >"$PODMAN_DIR/registries.conf" <<EOF
unqualified-search-registries = []
[[registry]]
location = "127.0.0.1:$REG_PORT"
insecure = true
[[registry]]
location = "127.0.0.1:$AUTH_REG_PORT"
insecure = true
EOF
}

# podman_up: `podman system service` on a unix socket of the env dir, only where podman is installed
# (TIDEWATCH_ENV_PACKAGES=engine leaves it out). --time=0: it never exits for being idle.
podman_up() {
  command -v podman >/dev/null 2>&1 || return 0
  if alive "$PODMAN_DIR/service.pid" podman && podman_ok; then return 0; fi
  stop "$PODMAN_DIR/service.pid" podman
  podman_config
  podman_env
  mkdir -p "$PODMAN_DIR/tmp" "$PODMAN_DIR/networks"
  rm -f "$PODMAN_SOCK" "$PODMAN_DIR/service.pid"
  log "starting podman system service"
  spawn "$PODMAN_DIR/service.pid" "$PODMAN_DIR/service.log" "$PODMAN_DIR/service.log" \
    podman system service --time=0 "unix://$PODMAN_SOCK"
  local i
  for ((i = 0; i < REGISTRY_WAIT * 10; i++)); do
    podman_ok && return 0
    alive "$PODMAN_DIR/service.pid" podman || break
    sleep 0.1
  done
  show_log "$PODMAN_DIR/service.log"
  die "podman system service did not answer on $PODMAN_SOCK"
}

# podman_down: the containers go first (each runs under its own conmon, which outlives the service),
# then the service; images stay, the run state (on disk here, not on a tmpfs) does not.
podman_down() {
  [ -s "$PODMAN_DIR/containers.conf" ] || return 0
  podman_env
  if command -v podman >/dev/null 2>&1; then
    podman rm --all --force --time 0 >/dev/null 2>&1 || log "podman rm --all failed"
  fi
  stop "$PODMAN_DIR/service.pid" podman
  # An exec's conmon stays up to 300 s (exit_command_delay) after its container is gone: ours go now.
  local proc
  for proc in /proc/[0-9]*; do
    [ "$(cat "$proc/comm" 2>/dev/null)" = conmon ] || continue
    tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -qF -- "$PODMAN_DIR/" && kill -TERM "${proc#/proc/}" 2>/dev/null
  done
  awk -v d="$PODMAN_DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
  rm -rf "$PODMAN_DIR/run" "$PODMAN_DIR/tmp" "$PODMAN_SOCK"
}

# The Podman entries of env.json, when its service runs.
podman_json() {
  alive "$PODMAN_DIR/service.pid" podman || return 0
  printf '\n  "podmanSocket": "%s",\n  "podmanHost": "unix://%s",\n  "podmanLog": "%s",' \
    "$PODMAN_SOCK" "$PODMAN_SOCK" "$PODMAN_DIR/service.log"
}
