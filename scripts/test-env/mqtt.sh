# shellcheck shell=bash
# The MQTT broker (mosquitto) of the Home Assistant and mqtt:// notification tests.
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

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
