# shellcheck shell=bash
# Process helpers: pidfiles, spawning detached, stopping, unmounting leftovers, logs.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

# alive PIDFILE NAME: the pid in PIDFILE runs and is NAME (guards against a recycled pid).
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2"
}

# running PID: alive and not a zombie (an orphan exits to PID 1, which may reap it only later).
running() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop PIDFILE NAME: TERM, wait up to 30 s, then KILL.
stop() {
  local pidfile=$1 name=$2 pid i
  if ! alive "$pidfile" "$name"; then rm -f "$pidfile"; return 0; fi
  pid=$(cat "$pidfile")
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    running "$pid" || break
    sleep 0.1
  done
  if running "$pid"; then
    log "$name (pid $pid) ignored SIGTERM for 30 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# spawn PIDFILE OUT ERR CMD...: start CMD detached in its own session (a Ctrl-C or a killed process
# group of the caller leaves it running), its pid written to PIDFILE before exec, so the pid is exact.
spawn() {
  local pidfile=$1 out=$2 err=$3
  shift 3
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$out" 2>>"$err" 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do [ -s "$pidfile" ] && return 0; sleep 0.02; done
  die "could not start $*"
}

# unmount_leftovers: dockerd bind-mounts its data root onto itself (and overlay2 mounts layers under
# it); a clean shutdown undoes that, a crash or a failed start does not. Only mounts under ENV_DIR,
# innermost first, and only while no dockerd/containerd of ours runs. With DIR (another engine's), only
# under DIR; without, the other engines' directories are left to them unless everything is going down.
unmount_leftovers() { # [DIR] [all]
  local m dir=${1:-$ENV_DIR} keep="$SECOND_DIR/ $SWARM_DIR/ $PODMAN_DIR/ $D26_DIR/ $D28_STORE_DIR/ $D28_CLASSIC_DIR/"
  if [ -n "${1:-}" ] || [ "${2:-}" = all ]; then keep=; fi
  awk -v d="$dir/" -v k="$keep" 'BEGIN { n = split(k, ks, " ") }
    index($2, d) == 1 { for (i = 1; i <= n; i++) if (index($2, ks[i]) == 1) next; print $2 }' /proc/mounts |
    sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
}

show_log() {
  log "last lines of $1:"
  tail -n 40 "$1" >&2 2>/dev/null || true
}
