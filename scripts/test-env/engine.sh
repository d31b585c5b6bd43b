# shellcheck shell=bash
# The main private engine: its own containerd and dockerd, the storage driver probe, a smoke test.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# A private containerd, so that dockerd never falls back to a system one: dockerd 20.10 silently uses
# /run/containerd/containerd.sock whenever that socket exists, instead of supervising its own.
containerd_up() { # [DIR]: the engine's directory (default: the env dir), which holds socket, pidfile and log
  local dir=${1:-$ENV_DIR}
  local sock="$dir/containerd.sock"
  if alive "$dir/containerd.pid" containerd && [ -S "$sock" ]; then return 0; fi
  mkdir -p "$dir/containerd/root" "$dir/containerd/state"
  cat >"$dir/containerd/config.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = ""
  level = "warn"
[metrics]
  address = ""
EOF
  log "starting containerd${1:+ of $dir}"
  rm -f "$dir/containerd.pid"
  spawn "$dir/containerd.pid" "$dir/containerd.log" "$dir/containerd.log" \
    containerd --config "$dir/containerd/config.toml"
  local i
  for ((i = 0; i < 200; i++)); do
    [ -S "$sock" ] && return 0
    alive "$dir/containerd.pid" containerd || break
    sleep 0.1
  done
  show_log "$dir/containerd.log"
  die "containerd did not start"
}

# ---------------------------------------------------------------- dockerd

docker_ok() { docker -H "unix://$DOCKER_SOCK" version >/dev/null 2>&1; }

# overlay2 needs a kernel overlayfs that accepts an upper dir on the env dir's filesystem (it is
# refused on overlayfs itself, e.g. inside some containers); vfs always works, copying every layer.
probe_overlay() {
  local p="$ENV_DIR/overlay-probe" ok=1
  rm -rf "$p" && mkdir -p "$p/lower" "$p/upper" "$p/work" "$p/merged"
  echo x >"$p/lower/f"
  if mount -t overlay overlay -o "lowerdir=$p/lower,upperdir=$p/upper,workdir=$p/work" "$p/merged" 2>/dev/null; then
    echo y >"$p/merged/f" 2>/dev/null && [ "$(cat "$p/lower/f")" = x ] && ok=0
    umount "$p/merged" 2>/dev/null || true
  fi
  rm -rf "$p"
  return $ok
}

# launch_dockerd DIR CONTAINERD_SOCK DRIVER PIDFILE OK_COMMAND [dockerd args...]: one private engine with
# the loopback-only settings every engine here shares (no default bridge, no iptables, its own roots under
# DIR), waiting until OK_COMMAND succeeds. Returns 1, the engine stopped again, when it does not answer
# within DOCKERD_WAIT seconds or exits; the caller says which engine and what then.
launch_dockerd() {
  local dir=$1 containerd_sock=$2 driver=$3 pidfile=$4 ok=$5 i pid
  shift 5
  # Our own daemon.json, so /etc/docker/daemon.json (if any) never leaks in; DAEMON_JSON adds settings.
  local config='{}'
  [ -n "${DAEMON_JSON:-}" ] && config=$DAEMON_JSON
  printf '%s\n' "$config" >"$dir/daemon.json"
  mkdir -p "$dir/data" "$dir/exec"
  echo "=== $(date -u +%FT%TZ) dockerd --storage-driver=$driver" >>"$dir/dockerd.log"
  # dockerd writes --pidfile itself (and refuses a live pid in it): track the launch in another file.
  local launch="$dir/dockerd.launch.pid"
  rm -f "$launch"
  spawn "$launch" "$dir/dockerd.log" "$dir/dockerd.log" dockerd \
    --config-file="$dir/daemon.json" \
    --bridge=none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
    --userland-proxy=false \
    --data-root="$dir/data" --exec-root="$dir/exec" --pidfile="$pidfile" \
    --containerd="$containerd_sock" \
    --storage-driver="$driver" \
    --shutdown-timeout=5 \
    "$@"
  pid=$(cat "$launch")
  rm -f "$launch"
  for ((i = 0; i < DOCKERD_WAIT * 5; i++)); do
    $ok && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.2
  done
  log "dockerd in $dir did not answer within ${DOCKERD_WAIT}s"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  return 1
}

start_dockerd() {
  log "starting dockerd (storage driver $1)"
  launch_dockerd "$ENV_DIR" "$CONTAINERD_SOCK" "$1" "$ENV_DIR/dockerd.pid" docker_ok -H "unix://$DOCKER_SOCK"
}

# smoke_test: a fresh engine must run a container, not only answer: import a busybox rootfs, run
# /bin/true with no network, remove the image again (tests may count images).
smoke_test() {
  local d="$ENV_DIR/smoke" img=tidewatch-env-smoke:latest rc=0 bb
  bb=$(command -v busybox) || bb=/bin/busybox
  rm -rf "$d" && mkdir -p "$d/rootfs/bin"
  cp "$bb" "$d/rootfs/bin/busybox" && ln -s busybox "$d/rootfs/bin/true"
  {
    tar -C "$d/rootfs" -cf - . | docker -H "unix://$DOCKER_SOCK" import - "$img" >/dev/null &&
      docker -H "unix://$DOCKER_SOCK" run --rm --network none "$img" /bin/true
  } >>"$ENV_DIR/dockerd.log" 2>&1 || rc=$?
  docker -H "unix://$DOCKER_SOCK" rmi -f "$img" >/dev/null 2>&1 || true
  rm -rf "$d"
  [ "$rc" -eq 0 ] || log "smoke test failed: could not run a container (see $ENV_DIR/dockerd.log)"
  return "$rc"
}

# start_and_check DRIVER: start dockerd and run the smoke test; on failure leave no dockerd running.
start_and_check() {
  start_dockerd "$1" || return 1
  smoke_test && return 0
  stop "$ENV_DIR/dockerd.pid" dockerd
  return 1
}

dockerd_up() {
  if alive "$ENV_DIR/dockerd.pid" dockerd && docker_ok; then return 0; fi
  stop "$ENV_DIR/dockerd.pid" dockerd # a hung one, if any
  local driver="${TIDEWATCH_STORAGE_DRIVER:-}"
  [ -z "$driver" ] && [ -s "$ENV_DIR/storage-driver" ] && driver=$(cat "$ENV_DIR/storage-driver")
  if [ -z "$driver" ]; then
    if probe_overlay; then driver=overlay2; else driver=vfs; fi
  fi
  unmount_leftovers
  if ! start_and_check "$driver"; then
    unmount_leftovers
    if [ "$driver" != vfs ] && [ -z "${TIDEWATCH_STORAGE_DRIVER:-}" ]; then
      show_log "$ENV_DIR/dockerd.log"
      log "dockerd failed with $driver: retrying with vfs"
      driver=vfs
      start_and_check "$driver" || { show_log "$ENV_DIR/dockerd.log"; die "dockerd did not start"; }
    else
      show_log "$ENV_DIR/dockerd.log"
      die "dockerd did not start"
    fi
  fi
  echo "$driver" >"$ENV_DIR/storage-driver"
}
