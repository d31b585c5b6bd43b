# shellcheck shell=bash
# Debian packages the environment needs, installed when missing.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

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
    # The ssh:// host tests start a private sshd on loopback with its own keys (test/helpers/sshd.ts, docs/ssh-hosts.md).
    [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
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
