# shellcheck shell=bash
# Packages of other Debian suites unpacked into a machine-wide cache, nothing installed (the extra engines).
# Sourced by scripts/test-env.sh (its settings, log/die and the process helpers are in scope).

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
