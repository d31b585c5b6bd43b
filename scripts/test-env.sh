#!/usr/bin/env bash
# The real test environment: a private Docker Engine, a private Swarm engine, two local registries, an
# MQTT broker and Podman's Docker-compatible API, loopback only.
#
#   bash scripts/test-env.sh [up|down|status]
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

# ---------------------------------------------------------------- packages

# docker.io: dockerd + containerd + runc; docker-registry: CNCF distribution 2.8; busybox-static: the
# one binary in every test image; apache2-utils: htpasswd; curl: readiness checks; git: the Git tests;
# iproute2: the Swarm engine's teardown; chromium: the Swagger page test drives it headless; openssl: the TLS test's certificate; mosquitto:
# the MQTT broker of the Home Assistant and mqtt:// notification tests; podman: the Podman runtime
# tests drive its Docker-compatible API (it brings conmon and the CNI plugins; runc comes with docker.io).
# TIDEWATCH_ENV_PACKAGES=engine installs only what the engine and registries need (npm run demo: a
# fresh machine should not fetch a browser to show a demo); the default, all, is what the tests need.
install_packages() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 && command -v containerd >/dev/null 2>&1 || missing+=(docker.io)
  [ -x /usr/bin/docker-registry ] || missing+=(docker-registry)
  dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static)
  command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  # ip: removing the docker_gwbridge bridge the Swarm engine leaves behind.
  command -v ip >/dev/null 2>&1 || missing+=(iproute2)
  if [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ]; then
    command -v git >/dev/null 2>&1 || missing+=(git)
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    [ -x /usr/sbin/mosquitto ] || missing+=(mosquitto)
    # The notification template parity test renders with Go's own text/template (docs/notifications.md).
    command -v go >/dev/null 2>&1 || missing+=(golang-go)
    [ -d /usr/share/gocode/src/golang.org/x/text/cases ] || missing+=(golang-golang-x-text-dev)
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    # The least-privilege tests put docker-socket-proxy's haproxy configuration in front of the engine (docs/security.md).
    command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  fi
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages (${missing[*]}) and not root: cannot apt-get install"
  log "installing ${missing[*]}"
  # Keep package scripts from starting a system dockerd/containerd/registry (invoke-rc.d honours this).
  local policy=/usr/sbin/policy-rc.d made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
  fi
  local rc=0
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
  } </dev/null >&2 || rc=$?
  [ "$made_policy" -eq 1 ] && rm -f "$policy"
  [ "$rc" -eq 0 ] || die "apt-get install ${missing[*]} failed ($rc)"
}

# ---------------------------------------------------------------- process helpers

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

# ---------------------------------------------------------------- containerd

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

# ---------------------------------------------------------------- the second engine

# Several engines at once (docs/hosts.md): a second private dockerd, on loopback TCP with TLS as a remote
# engine is, with its own containerd, data root, exec root and pidfile. Not started with
# TIDEWATCH_ENV_PACKAGES=engine (the demo needs one engine).
second_wanted() { [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ]; }

second_docker() {
  docker -H "$SECOND_HOST" --tlsverify --tlscacert "$SECOND_DIR/client/ca.pem" \
    --tlscert "$SECOND_DIR/client/cert.pem" --tlskey "$SECOND_DIR/client/key.pem" "$@"
}
second_ok() { second_docker version >/dev/null 2>&1; }

# second_certs: a CA, a server certificate for IP 127.0.0.1 and a client certificate, made by openssl
# once (EC keys: milliseconds). The client's files are named as Docker's --tlsverify expects in a
# DOCKER_CERT_PATH directory.
second_certs() {
  local tls="$SECOND_DIR/tls" client="$SECOND_DIR/client"
  [ -s "$client/key.pem" ] && [ -s "$tls/server-key.pem" ] && return 0
  log "making the second engine's TLS certificates (openssl)"
  rm -rf "$tls" "$client"
  mkdir -p "$tls" "$client"
  chmod 0700 "$tls" "$client"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  {
    openssl req -x509 "${ec[@]}" -keyout "$tls/ca-key.pem" -out "$tls/ca.pem" -days 3650 \
      -subj "/CN=tidewatch test CA" &&
      openssl req "${ec[@]}" -keyout "$tls/server-key.pem" -out "$tls/server.csr" -subj "/CN=127.0.0.1" &&
      printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tls/server.ext" &&
      openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca-key.pem" -CAcreateserial \
        -days 3650 -extfile "$tls/server.ext" -out "$tls/server-cert.pem" &&
      openssl req "${ec[@]}" -keyout "$client/key.pem" -out "$tls/client.csr" -subj "/CN=tidewatch tests" &&
      printf 'extendedKeyUsage=clientAuth\n' >"$tls/client.ext" &&
      openssl x509 -req -in "$tls/client.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca-key.pem" -CAcreateserial \
        -days 3650 -extfile "$tls/client.ext" -out "$client/cert.pem" &&
      cp "$tls/ca.pem" "$client/ca.pem"
  } >>"$SECOND_DIR/openssl.log" 2>&1 || { show_log "$SECOND_DIR/openssl.log"; die "openssl could not make the certificates"; }
}

second_dockerd_up() {
  second_wanted || return 0
  mkdir -p "$SECOND_DIR"
  second_certs
  # An engine started before it had its mirrors (or with other ports) is started again with them.
  if alive "$SECOND_DIR/docker.pid" dockerd && second_ok && second_mirrors_ok; then return 0; fi
  stop "$SECOND_DIR/docker.pid" dockerd
  unmount_leftovers "$SECOND_DIR"
  containerd_up "$SECOND_DIR"
  # The first engine proved the storage driver (smoke test); this one uses the same. Like the first
  # engine, it pulls from the registries on 127.0.0.1, which Docker treats as insecure (plain HTTP)
  # without any setting.
  log "starting the second dockerd on $SECOND_HOST (TLS)"
  launch_dockerd "$SECOND_DIR" "$SECOND_DIR/containerd.sock" "$(cat "$ENV_DIR/storage-driver")" "$SECOND_DIR/docker.pid" second_ok \
    --tlsverify --tlscacert="$SECOND_DIR/tls/ca.pem" \
    --tlscert="$SECOND_DIR/tls/server-cert.pem" --tlskey="$SECOND_DIR/tls/server-key.pem" \
    -H "$SECOND_HOST" --registry-mirror "${SECOND_MIRRORS[0]}" --registry-mirror "${SECOND_MIRRORS[1]}" && return 0
  show_log "$SECOND_DIR/dockerd.log"
  die "the second dockerd did not answer on $SECOND_HOST"
}

# Whether the running second engine lists exactly SECOND_MIRRORS as its registry mirrors.
second_mirrors_ok() {
  [ "$(second_docker info --format '{{join .RegistryConfig.Mirrors " "}}' 2>/dev/null)" = "${SECOND_MIRRORS[*]}" ]
}

# The second engine's entries of env.json, when it runs.
second_json() {
  alive "$SECOND_DIR/docker.pid" dockerd || return 0
  printf '\n  "secondDockerHost": "%s",\n  "secondCertPath": "%s",\n  "secondDockerdLog": "%s",' \
    "$SECOND_HOST" "$SECOND_DIR/client" "$SECOND_DIR/dockerd.log"
  printf '\n  "secondRegistryMirrors": ["127.0.0.1:%s", "127.0.0.1:%s"],\n  "hubStandIn": "127.0.0.1:%s",' \
    "$MIRROR_PORT" "$PROXY_MIRROR_PORT" "$HUB_STANDIN_PORT"
}

# ---------------------------------------------------------------- registries

registry_ok() { # PORT [user:password]
  local args=(-fsS -o /dev/null --max-time 2 --noproxy '*')
  [ $# -gt 1 ] && args+=(-u "$2")
  curl "${args[@]}" "http://127.0.0.1:$1/v2/" 2>/dev/null
}

# registry_up PORT [auth]: CNCF distribution 2.8 (Debian's docker-registry), plain HTTP on loopback.
registry_up() {
  local port=$1 auth=${2:-} name="registry-$1" cred=() i
  [ -n "$auth" ] && cred=("$AUTH_USER:$AUTH_PASSWORD")
  if alive "$ENV_DIR/$name.pid" docker-registry && registry_ok "$port" "${cred[@]}"; then return 0; fi
  stop "$ENV_DIR/$name.pid" docker-registry
  mkdir -p "$ENV_DIR/$name"
  cat >"$ENV_DIR/$name/config.yml" <<EOF
version: 0.1
log:
  level: info
  formatter: json
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $ENV_DIR/$name/data
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:$port
  secret: tidewatch-tests-only
  headers:
    X-Content-Type-Options: [nosniff]
EOF
  if [ -n "$auth" ]; then
    htpasswd -Bbn "$AUTH_USER" "$AUTH_PASSWORD" | sed '/^$/d' >"$ENV_DIR/htpasswd"
    cat >>"$ENV_DIR/$name/config.yml" <<EOF
auth:
  htpasswd:
    realm: tidewatch
    path: $ENV_DIR/htpasswd
EOF
  fi
  log "starting $name on 127.0.0.1:$port${auth:+ (htpasswd)}"
  # stdout: the access log, one combined-format line per request; stderr: the JSON app log.
  rm -f "$ENV_DIR/$name.pid"
  spawn "$ENV_DIR/$name.pid" "$ENV_DIR/$name.access.log" "$ENV_DIR/$name.log" \
    /usr/bin/docker-registry serve "$ENV_DIR/$name/config.yml"
  for ((i = 0; i < REGISTRY_WAIT * 10; i++)); do
    registry_ok "$port" "${cred[@]}" && return 0
    alive "$ENV_DIR/$name.pid" docker-registry || break
    sleep 0.1
  done
  show_log "$ENV_DIR/$name.log"
  die "$name did not answer on 127.0.0.1:$port/v2/"
}

# ---------------------------------------------------------------- the Swarm engine

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

# ---------------------------------------------------------------- Docker 26 (the Docker users run)

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

# debian_fetch SUITE CACHE CHECK PACKAGES...: Debian SUITE's PACKAGES unpacked into CACHE/root, once per machine
# (a lock, since several environments may share the cache), until CHECK (a command) says the tree is complete.
debian_fetch() {
  local suite=$1 cache=$2 check=$3
  shift 3
  "$check" && return 0
  [ "$(id -u)" -eq 0 ] || die "$suite's $* are not unpacked in $cache and not root: cannot fetch them"
  mkdir -p "$cache"
  exec 8>"$cache/.lock"
  flock -w 600 8 || die "could not lock $cache/.lock"
  if ! "$check"; then
    mkdir -p "$cache/lists/partial" "$cache/cache/archives/partial" "$cache/debs"
    # The system's own Debian mirror, with the other suite: the same archive, keyring and signatures.
    local mirror
    mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$mirror" ] || die "no Debian mirror in the system's apt sources: cannot fetch $suite's $*"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" "$suite" >"$cache/$suite.sources"
    local apt=(-q -o "Dir::Etc::sourcelist=$cache/$suite.sources" -o Dir::Etc::sourceparts=- \
      -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache/cache" -o APT::Sandbox::User=root)
    log "fetching Debian $suite's $* into $cache"
    rm -f "$cache"/debs/*.deb
    {
      apt-get "${apt[@]}" update && (cd "$cache/debs" && apt-get "${apt[@]}" download "$@")
    } </dev/null >>"$cache/fetch.log" 2>&1 || { show_log "$cache/fetch.log"; die "could not fetch $suite's $*"; }
    rm -rf "$cache/root.tmp" && mkdir -p "$cache/root.tmp"
    local deb
    for deb in "$cache"/debs/*.deb; do dpkg -x "$deb" "$cache/root.tmp" || die "dpkg -x $deb failed"; done
    rm -rf "$cache/root" && mv "$cache/root.tmp" "$cache/root"
    "$check" || die "$suite's $* unpacked, but $check fails on them"
    # The unpacked tree is what is kept; the packages and lists are fetched again only if it goes.
    rm -rf "$cache/debs" "$cache/lists" "$cache/cache"
  fi
  exec 8>&-
}

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

# ---------------------------------------------------------------- Docker 28.5 (what Docker 29 users run)

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

# ---------------------------------------------------------------- Compose v2

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

# ---------------------------------------------------------------- MQTT broker

mqtt_ok() { (exec 3<>"/dev/tcp/127.0.0.1/$MQTT_PORT") 2>/dev/null; }

# mqtt_up: Debian's mosquitto on loopback, only where it is installed (TIDEWATCH_ENV_PACKAGES=engine leaves
# it out). One listener: anonymous clients are let in, and a client giving a name must give the password of
# the password file (the tests of credentials use $AUTH_USER/$AUTH_PASSWORD). Nothing persists.
mqtt_up() {
  [ -x /usr/sbin/mosquitto ] || return 0
  if alive "$ENV_DIR/mosquitto.pid" mosquitto && mqtt_ok; then return 0; fi
  stop "$ENV_DIR/mosquitto.pid" mosquitto
  rm -f "$ENV_DIR/mosquitto.passwd"
  mosquitto_passwd -b -c "$ENV_DIR/mosquitto.passwd" "$AUTH_USER" "$AUTH_PASSWORD" >/dev/null 2>&1 ||
    die "mosquitto_passwd failed"
  chmod 0600 "$ENV_DIR/mosquitto.passwd"
  cat >"$ENV_DIR/mosquitto.conf" <<EOF
user root
persistence false
log_dest stderr
listener $MQTT_PORT 127.0.0.1
allow_anonymous true
password_file $ENV_DIR/mosquitto.passwd
EOF
  log "starting mosquitto on 127.0.0.1:$MQTT_PORT"
  rm -f "$ENV_DIR/mosquitto.pid"
  spawn "$ENV_DIR/mosquitto.pid" "$ENV_DIR/mosquitto.log" "$ENV_DIR/mosquitto.log" \
    /usr/sbin/mosquitto -c "$ENV_DIR/mosquitto.conf"
  local i
  for ((i = 0; i < REGISTRY_WAIT * 10; i++)); do
    mqtt_ok && return 0
    alive "$ENV_DIR/mosquitto.pid" mosquitto || break
    sleep 0.1
  done
  show_log "$ENV_DIR/mosquitto.log"
  die "mosquitto did not answer on 127.0.0.1:$MQTT_PORT"
}

# The broker's entries of env.json, when it runs.
mqtt_json() {
  alive "$ENV_DIR/mosquitto.pid" mosquitto || return 0
  printf '\n  "mqtt": "127.0.0.1:%s",\n  "mosquittoLog": "%s",' "$MQTT_PORT" "$ENV_DIR/mosquitto.log"
}

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

# ---------------------------------------------------------------- Podman

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

# ---------------------------------------------------------------- commands

with_lock() { # serialise concurrent up/down on the same env dir
  mkdir -p "$ENV_DIR"
  exec 9>"$ENV_DIR/.lock"
  flock -w 300 9 || die "could not lock $ENV_DIR/.lock"
}

# skopeo_up: Debian trixie's skopeo (sigstore support) in $ENV_DIR/skopeo-trixie, the independent verifier of
# the signature tests (scripts/skopeo-trixie.sh); not with TIDEWATCH_ENV_PACKAGES=engine. A failure is
# logged: the tests that need it then fail under CI=true and skip otherwise.
skopeo_up() {
  [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  TIDEWATCH_ENV_DIR="$ENV_DIR" bash "$(dirname "${BASH_SOURCE[0]}")/skopeo-trixie.sh" install >/dev/null || log "warning: trixie's skopeo could not be installed"
}

# cosign_up: Debian sid's cosign 3.1 in $ENV_DIR/cosign-sid, the signer of the signature tests
# (scripts/cosign-sid.sh); not with TIDEWATCH_ENV_PACKAGES=engine. A failure is logged: the tests that need it
# then fail under CI=true and skip otherwise.
cosign_up() {
  [ "${TIDEWATCH_ENV_PACKAGES:-all}" != engine ] || return 0
  TIDEWATCH_ENV_DIR="$ENV_DIR" bash "$(dirname "${BASH_SOURCE[0]}")/cosign-sid.sh" install >/dev/null || log "warning: sid's cosign could not be installed"
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
