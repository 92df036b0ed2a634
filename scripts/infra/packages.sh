# Debian packages the servers and the tests need (sourced by infra.sh).
APT_UPDATED=0
apt_install() {
  local pkgs=("$@")
  [ ${#pkgs[@]} -gt 0 ] || return 0
  local sudo=()
  if ! is_root; then
    command -v sudo >/dev/null || die "packages missing (${pkgs[*]}) and not root: install them, or run as root"
    sudo=(sudo)
  fi
  if [ $APT_UPDATED = 0 ]; then
    say "apt-get update"
    "${sudo[@]}" apt-get update -qq >"$INFRA_LOGS/apt.log" 2>&1 || die "apt-get update failed; read $INFRA_LOGS/apt.log"
    APT_UPDATED=1
  fi
  say "installing Debian packages: ${pkgs[*]}"
  # policy-rc.d 101 keeps the packages' own services from starting: this script runs them.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}" \
    >>"$INFRA_LOGS/apt.log" 2>&1 || die "apt-get install ${pkgs[*]} failed; read $INFRA_LOGS/apt.log"
}

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

ensure_packages() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v redis-cli >/dev/null || missing+=(redis-tools)
  command -v memcached >/dev/null || missing+=(memcached)
  # The ratelimit topology tests start their own sentinels, TLS Redis (certificates from openssl)
  # and a dnsmasq serving SRV records.
  command -v redis-sentinel >/dev/null || missing+=(redis-sentinel)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v dnsmasq >/dev/null || missing+=(dnsmasq-base)
  [ -n "$(pg_bin)" ] || missing+=(postgresql)
  command -v psql >/dev/null || missing+=(postgresql-client)
  command -v kcat >/dev/null || missing+=(kcat)
  command -v openssl >/dev/null || missing+=(openssl) # kvupgrade's TLS etcd tests make their certificates
  command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || missing+=(maven)
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import avro' 2>/dev/null || missing+=(python3-avro)
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null; then :; else missing+=(python3-grpcio python3-grpc-tools); fi
  # Headless browser for the web page tests (driven by puppeteer-core; no browser download).
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  apt_install "${missing[@]}"
}

apt_update_only() {
  local sudo=(); is_root || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >"$INFRA_LOGS/apt.log" 2>&1 || die "apt-get update failed; read $INFRA_LOGS/apt.log"
  APT_UPDATED=1
}
