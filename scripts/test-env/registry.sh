# shellcheck shell=bash
# The two local registries (Debian's docker-registry): plain, and with htpasswd.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

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
