# shellcheck shell=bash
# Docker 28.5 (sid) with containerd 2.1: the containerd image store on, and off.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# Two more private engines: Debian sid's docker.io 28.5 and containerd 2.1, fetched and unpacked like trixie's
# Docker 26 (debian_fetch) and run beside bookworm's runc (sid's needs a newer glibc). engine28s has the
# containerd image store on (the default of a fresh Docker 29) and is started with DOCKER_MIN_API_VERSION=1.44,
# so that it refuses older clients exactly as Docker 29.0 does; engine28 has the classic store (graph driver).
# Both start in the background while the rest of `up` runs, and `up` waits for them before writing env.json.
# Not started with TIDEWATCH_ENV_PACKAGES=engine unless TIDEWATCH_ENV_DOCKER28=1; TIDEWATCH_ENV_DOCKER28=0 leaves
# them out. docs/engines.md says what the tests run on them.
D28_STORE_DIR="$ENV_DIR/engine28s"
D28_CLASSIC_DIR="$ENV_DIR/engine28"
D28_CACHE="$(realpath -m "${TIDEWATCH_DOCKER28_CACHE:-/var/cache/tidewatch-test/docker28}")"
D28_ROOT="$D28_CACHE/root"
D28_PACKAGES=(docker.io containerd)

docker28_wanted() { extra_engine_wanted TIDEWATCH_ENV_DOCKER28; }
docker28_unpacked() { [ -x "$D28_ROOT/usr/sbin/dockerd" ] && [ -x "$D28_ROOT/usr/bin/containerd" ] && [ -x "$D28_ROOT/usr/bin/containerd-shim-runc-v2" ]; }
# Answering: /_ping over the socket (bookworm's docker CLI speaks API 1.41, which the store engine refuses).
docker28_ok() { curl -fsS -o /dev/null --max-time 2 --unix-socket "$1/docker.sock" http://d/_ping 2>/dev/null; }
docker28_ok_store() { docker28_ok "$D28_STORE_DIR"; }
docker28_ok_classic() { docker28_ok "$D28_CLASSIC_DIR"; }

# docker28_engine store|classic: one of the two engines, up and answering. Runs in a subshell of its own
# (docker28_up), so its exports stay there: the engine's containerd, shim and dockerd come first on PATH.
docker28_engine() {
  local kind=$1 dir
  if [ "$kind" = store ]; then
    dir=$D28_STORE_DIR
    export DAEMON_JSON='{"features":{"containerd-snapshotter":true}}' DOCKER_MIN_API_VERSION=1.44
  else
    dir=$D28_CLASSIC_DIR
    export DAEMON_JSON='{"features":{"containerd-snapshotter":false}}'
  fi
  if alive "$dir/dockerd.pid" dockerd && "docker28_ok_$kind"; then return 0; fi
  stop "$dir/dockerd.pid" dockerd
  mkdir -p "$dir"
  unmount_leftovers "$dir"
  export PATH="$D28_ROOT/usr/bin:$D28_ROOT/usr/sbin:$PATH"
  containerd_up "$dir"
  log "starting Docker 28 ($kind image store, $(dockerd --version 2>/dev/null)) on unix://$dir/docker.sock"
  # The store's snapshotter follows the graph driver the main engine proved (overlay2: overlayfs, vfs: native);
  # with the store on, --storage-driver names a containerd snapshotter.
  local driver
  driver=$(cat "$ENV_DIR/storage-driver")
  if [ "$kind" = store ]; then
    case $driver in overlay2) driver=overlayfs ;; vfs) driver=native ;; esac
  fi
  launch_dockerd "$dir" "$dir/containerd.sock" "$driver" "$dir/dockerd.pid" "docker28_ok_$kind" \
    -H "unix://$dir/docker.sock" && return 0
  show_log "$dir/dockerd.log"
  die "Docker 28 ($kind image store) did not answer on $dir/docker.sock"
}

# docker28_up: the fetch, then both engines at once. Runs in the background of cmd_up.
docker28_up() {
  docker28_wanted || return 0
  debian_fetch sid "$D28_CACHE" docker28_unpacked "${D28_PACKAGES[@]}"
  local store classic rc=0
  (docker28_engine store) & store=$!
  (docker28_engine classic) & classic=$!
  wait "$store" || rc=1
  wait "$classic" || rc=1
  return $rc
}

docker28_down() {
  local dir
  for dir in "$D28_STORE_DIR" "$D28_CLASSIC_DIR"; do
    [ -d "$dir" ] || continue
    stop "$dir/dockerd.pid" dockerd
    stop "$dir/containerd.pid" containerd
  done
}

# Docker 28's entries of env.json, for each engine that runs.
docker28_json() {
  if alive "$D28_STORE_DIR/dockerd.pid" dockerd; then
    printf '\n  "docker28StoreSocket": "%s",\n  "docker28StoreHost": "unix://%s",\n  "docker28StoreLog": "%s",' \
      "$D28_STORE_DIR/docker.sock" "$D28_STORE_DIR/docker.sock" "$D28_STORE_DIR/dockerd.log"
  fi
  if alive "$D28_CLASSIC_DIR/dockerd.pid" dockerd; then
    printf '\n  "docker28Socket": "%s",\n  "docker28Host": "unix://%s",\n  "docker28Log": "%s",' \
      "$D28_CLASSIC_DIR/docker.sock" "$D28_CLASSIC_DIR/docker.sock" "$D28_CLASSIC_DIR/dockerd.log"
  fi
}
