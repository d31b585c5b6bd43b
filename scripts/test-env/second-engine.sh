# shellcheck shell=bash
# The second engine: a private dockerd on loopback TCP with TLS (docs/hosts.md) and registry mirrors.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

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
