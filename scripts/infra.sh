#!/usr/bin/env bash
# Local infrastructure without Docker: installs what is missing and runs real servers on 127.0.0.1.
#   infra.sh up [server...]      install if needed, start (or reuse) servers; default: all
#   infra.sh down [server...]    stop servers this script started (a reused server is left alone)
#   infra.sh status              what answers where
#   infra.sh reset               down, then delete data folders (the download cache stays)
#   infra.sh env                 KEY=value lines that clients use to reach the servers
# Servers: kafka redis postgres memcached; `up` also places etcd 3.4.23 and 3.5.16 in the cache.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
INFRA_HOME=${INFRA_HOME:-$ROOT/.infra}
INFRA_CACHE=${INFRA_CACHE:-$INFRA_HOME/cache}
INFRA_DATA=${INFRA_DATA:-$INFRA_HOME/data}
INFRA_LOGS=${INFRA_LOGS:-$INFRA_HOME/logs}
INFRA_RUN=$INFRA_HOME/run

KAFKA_PORT=${KAFKA_PORT:-9092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
KAFKA_VERSION=${KAFKA_VERSION:-3.9.1}
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m -XX:+UseG1GC}
REDIS_PORT=${REDIS_PORT:-6379}
MEMCACHED_PORT=${MEMCACHED_PORT:-11211}
POSTGRES_PORT=${POSTGRES_PORT:-5432}
POSTGRES_USER=${POSTGRES_USER:-backbone}
POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-backbone}
POSTGRES_DB=${POSTGRES_DB:-backbone}
ETCD34_VERSION=3.4.23
ETCD34_DEB_VERSION=${ETCD34_DEB_VERSION:-3.4.23-4+b4}
ETCD35_VERSION=3.5.16
START_TIMEOUT=${INFRA_START_TIMEOUT:-120}

ALL_SERVERS=(kafka redis postgres memcached)

say() { printf 'infra: %s\n' "$*" >&2; }
die() { printf 'infra: ERROR: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
port_open() { { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null && exec 3>&-; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# ---------- packages ----------

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

# ---------- kafka ----------

KAFKA_LIBS=$INFRA_CACHE/kafka-$KAFKA_VERSION/libs
KAFKA_DIR=$INFRA_DATA/kafka
KAFKA_LOG=$INFRA_LOGS/kafka.log

kafka_fetch() {
  [ -f "$KAFKA_LIBS/.complete" ] && return 0
  say "downloading Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_LIBS"
  local build=$INFRA_CACHE/kafka-$KAFKA_VERSION
  mkdir -p "$build"
  cat >"$build/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.infra</groupId><artifactId>kafka-runtime</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>
  </dependencies>
</project>
POM
  mvn -q -B -f "$build/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$KAFKA_LIBS" >"$INFRA_LOGS/kafka-download.log" 2>&1 \
    || die "kafka: downloading jars failed; read $INFRA_LOGS/kafka-download.log"
  touch "$KAFKA_LIBS/.complete"
}

kafka_up() {
  if pid_alive "$INFRA_RUN/kafka.pid"; then say "kafka: running (127.0.0.1:$KAFKA_PORT)"; return 0; fi
  if port_open "$KAFKA_PORT"; then say "kafka: reusing the server answering on 127.0.0.1:$KAFKA_PORT"; return 0; fi
  kafka_fetch
  mkdir -p "$KAFKA_DIR/logs"
  [ -f "$KAFKA_DIR/cluster-id" ] || head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22 >"$KAFKA_DIR/cluster-id"
  cat >"$KAFKA_DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DIR/logs
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  cat >"$KAFKA_DIR/log4j.properties" <<'LOG4J'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.state.change.logger=WARN
LOG4J
  local java_opts=(-Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" -cp "$KAFKA_LIBS/*")
  # shellcheck disable=SC2086
  java $KAFKA_HEAP_OPTS "${java_opts[@]}" kafka.tools.StorageTool format -t "$(cat "$KAFKA_DIR/cluster-id")" \
    -c "$KAFKA_DIR/server.properties" --ignore-formatted >"$KAFKA_LOG" 2>&1 \
    || die "kafka: formatting the storage failed; read $KAFKA_LOG"
  say "kafka: starting on 127.0.0.1:$KAFKA_PORT (log $KAFKA_LOG)"
  # shellcheck disable=SC2086
  nohup java $KAFKA_HEAP_OPTS "${java_opts[@]}" kafka.Kafka "$KAFKA_DIR/server.properties" >>"$KAFKA_LOG" 2>&1 </dev/null &
  echo $! >"$INFRA_RUN/kafka.pid"
  local waited=0
  until grep -q 'Kafka Server started' "$KAFKA_LOG" 2>/dev/null; do
    pid_alive "$INFRA_RUN/kafka.pid" || { rm -f "$INFRA_RUN/kafka.pid"; die "kafka: the broker exited during start-up; read $KAFKA_LOG"; }
    [ $waited -lt $((START_TIMEOUT * 2)) ] || die "kafka: not started after ${START_TIMEOUT}s; read $KAFKA_LOG"
    sleep 0.5; waited=$((waited + 1))
  done
}

# ---------- redis ----------

REDIS_DIR=$INFRA_DATA/redis
REDIS_LOG=$INFRA_LOGS/redis.log

redis_up() {
  if pid_alive "$INFRA_RUN/redis.pid"; then say "redis: running (127.0.0.1:$REDIS_PORT)"; return 0; fi
  if redis_answers; then
    say "redis: reusing the server answering on 127.0.0.1:$REDIS_PORT"; return 0
  fi
  port_open "$REDIS_PORT" && die "redis: port $REDIS_PORT is taken by something that is not Redis; set REDIS_PORT"
  mkdir -p "$REDIS_DIR"
  say "redis: starting on 127.0.0.1:$REDIS_PORT (log $REDIS_LOG)"
  # Tests keep nothing on disk.
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --daemonize yes --pidfile "$INFRA_RUN/redis.pid" \
    --logfile "$REDIS_LOG" --dir "$REDIS_DIR" --save '' --appendonly no >/dev/null 2>>"$REDIS_LOG" \
    || die "redis: redis-server failed to start; read $REDIS_LOG"
  local waited=0
  until redis_answers; do
    [ $waited -lt $((START_TIMEOUT * 4)) ] || die "redis: not answering after ${START_TIMEOUT}s; read $REDIS_LOG"
    sleep 0.25; waited=$((waited + 1))
  done
}

# ---------- memcached ----------

MEMCACHED_LOG=$INFRA_LOGS/memcached.log

memcached_answers() {
  local reply
  reply=$({ exec 3<>"/dev/tcp/127.0.0.1/$MEMCACHED_PORT"; } 2>/dev/null && printf 'version\r\n' >&3 && timeout 2 head -c 7 <&3) || return 1
  [ "$reply" = "VERSION" ]
}

memcached_up() {
  if pid_alive "$INFRA_RUN/memcached.pid"; then say "memcached: running (127.0.0.1:$MEMCACHED_PORT)"; return 0; fi
  if memcached_answers; then say "memcached: reusing the server answering on 127.0.0.1:$MEMCACHED_PORT"; return 0; fi
  port_open "$MEMCACHED_PORT" && die "memcached: port $MEMCACHED_PORT is taken by something that is not memcached; set MEMCACHED_PORT"
  local user=()
  if is_root; then id memcache >/dev/null 2>&1 && user=(-u memcache) || user=(-u nobody); fi
  say "memcached: starting on 127.0.0.1:$MEMCACHED_PORT (log $MEMCACHED_LOG)"
  nohup memcached -l 127.0.0.1 -p "$MEMCACHED_PORT" -U 0 -m 64 "${user[@]}" >"$MEMCACHED_LOG" 2>&1 </dev/null &
  echo $! >"$INFRA_RUN/memcached.pid"
  local waited=0
  until memcached_answers; do
    pid_alive "$INFRA_RUN/memcached.pid" || { rm -f "$INFRA_RUN/memcached.pid"; die "memcached: exited during start-up; read $MEMCACHED_LOG"; }
    [ $waited -lt $((START_TIMEOUT * 4)) ] || die "memcached: not answering after ${START_TIMEOUT}s; read $MEMCACHED_LOG"
    sleep 0.25; waited=$((waited + 1))
  done
}

# ---------- postgres ----------

# PostgreSQL refuses to run as root: as root, its files belong to the `postgres` user, which must
# be able to reach them (a clone under /root is not reachable, so the data go to /var/tmp then).
as_pg() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }

postgres_dir() {
  if [ -n "${POSTGRES_DATA_DIR:-}" ]; then echo "$POSTGRES_DATA_DIR"; return; fi
  mkdir -p "$INFRA_DATA"
  if ! is_root || runuser -u postgres -- test -x "$INFRA_DATA" 2>/dev/null; then
    echo "$INFRA_DATA/postgres"
  else
    echo "/var/tmp/backbone-infra/postgres-$POSTGRES_PORT"
  fi
}

pg_ensure_role() {
  local psql=("$@")
  "${psql[@]}" -v ON_ERROR_STOP=1 -q -d postgres <<SQL
SELECT format('CREATE ROLE %I LOGIN CREATEDB PASSWORD %L', '$POSTGRES_USER', '$POSTGRES_PASSWORD')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$POSTGRES_USER') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', '$POSTGRES_DB', '$POSTGRES_USER')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$POSTGRES_DB') \gexec
SQL
}

pg_login_works() {
  PGPASSWORD=$POSTGRES_PASSWORD PGCONNECT_TIMEOUT=3 psql -h 127.0.0.1 -p "$POSTGRES_PORT" -U "$POSTGRES_USER" \
    -d "$POSTGRES_DB" -Atqc 'select 1' >/dev/null 2>&1
}

postgres_up() {
  local dir log bin
  dir=$(postgres_dir); log=$dir.log; bin=$(pg_bin)
  if [ -f "$INFRA_RUN/postgres.dir" ] && as_pg "$bin/pg_ctl" -D "$(cat "$INFRA_RUN/postgres.dir")" status >/dev/null 2>&1; then
    say "postgres: running (127.0.0.1:$POSTGRES_PORT)"; return 0
  fi
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$POSTGRES_PORT" 2>/dev/null; then
    say "postgres: reusing the server answering on 127.0.0.1:$POSTGRES_PORT"
    if ! pg_login_works; then
      # Debian's own cluster: its superuser logs in through the default socket.
      pg_ensure_role as_pg psql -h /var/run/postgresql -p "$POSTGRES_PORT" -U postgres >/dev/null 2>&1 || true
      pg_login_works || die "postgres: the server on 127.0.0.1:$POSTGRES_PORT does not accept role $POSTGRES_USER and this script could not create it; set POSTGRES_PORT to a free port"
    fi
    return 0
  fi
  port_open "$POSTGRES_PORT" && die "postgres: port $POSTGRES_PORT is taken by something that is not PostgreSQL; set POSTGRES_PORT"
  mkdir -p "$(dirname "$dir")"
  if [ ! -f "$dir/PG_VERSION" ]; then
    say "postgres: initialising $dir"
    mkdir -p "$dir"; is_root && chown postgres:postgres "$dir" "$(dirname "$dir")"
    as_pg "$bin/initdb" -D "$dir" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
      >"$INFRA_LOGS/postgres-initdb.log" 2>&1 || die "postgres: initdb failed; read $INFRA_LOGS/postgres-initdb.log"
  fi
  touch "$log"; is_root && chown postgres:postgres "$log"
  say "postgres: starting on 127.0.0.1:$POSTGRES_PORT (log $log)"
  # The socket lives in the data folder, which only the server's user can enter.
  as_pg "$bin/pg_ctl" -D "$dir" -l "$log" -w -t "$START_TIMEOUT" \
    -o "-c listen_addresses=127.0.0.1 -p $POSTGRES_PORT -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
    || die "postgres: failed to start; read $log"
  echo "$dir" >"$INFRA_RUN/postgres.dir"
  pg_ensure_role as_pg psql -h "$dir" -p "$POSTGRES_PORT" -U postgres >/dev/null \
    || die "postgres: creating role $POSTGRES_USER failed; read $log"
}

# ---------- etcd (binaries only; kvupgrade starts the members) ----------

ETCD34_DIR=$INFRA_CACHE/etcd-$ETCD34_VERSION
ETCD35_DIR=$INFRA_CACHE/etcd-$ETCD35_VERSION

# Output captured first: with pipefail, `| grep -q` can fail through SIGPIPE on the writer.
etcd_has() { [ -x "$1/usr/bin/etcd" ] && [ -x "$1/usr/bin/etcdctl" ] && [[ "$("$1/usr/bin/etcd" --version 2>/dev/null)" == *"Version: $2"* ]]; }
redis_answers() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

etcd_unpack() {  # dir, then the apt-get options and package specs
  local dir=$1; shift
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && apt-get "$@") >>"$INFRA_LOGS/etcd-download.log" 2>&1 \
    || { rm -rf "$tmp"; die "etcd: apt-get $* failed; read $INFRA_LOGS/etcd-download.log"; }
  rm -rf "$dir"; mkdir -p "$dir"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir"; done
  rm -rf "$tmp"
}

etcd_fetch() {
  if ! etcd_has "$ETCD34_DIR" "$ETCD34_VERSION"; then
    say "etcd: fetching $ETCD34_VERSION (Debian bookworm) into $ETCD34_DIR"
    if [ $APT_UPDATED = 0 ]; then apt_update_only; fi
    etcd_unpack "$ETCD34_DIR" download "etcd-server=$ETCD34_DEB_VERSION" "etcd-client=$ETCD34_DEB_VERSION"
    etcd_has "$ETCD34_DIR" "$ETCD34_VERSION" || die "etcd: $ETCD34_DIR/usr/bin/etcd is not $ETCD34_VERSION; read $INFRA_LOGS/etcd-download.log"
  fi
  if ! etcd_has "$ETCD35_DIR" "$ETCD35_VERSION"; then
    say "etcd: fetching $ETCD35_VERSION (Debian trixie) into $ETCD35_DIR"
    # A private package list for trixie, so the system's sources stay untouched.
    local apt=$INFRA_CACHE/apt-trixie
    mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    echo 'deb http://deb.debian.org/debian trixie main' >"$apt/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o Debug::NoLocking=1)
    apt-get "${opts[@]}" update -qq >>"$INFRA_LOGS/etcd-download.log" 2>&1 \
      || die "etcd: apt-get update for trixie failed; read $INFRA_LOGS/etcd-download.log"
    etcd_unpack "$ETCD35_DIR" "${opts[@]}" download etcd-server etcd-client
    etcd_has "$ETCD35_DIR" "$ETCD35_VERSION" || die "etcd: $ETCD35_DIR/usr/bin/etcd is not $ETCD35_VERSION; read $INFRA_LOGS/etcd-download.log"
  fi
}

apt_update_only() {
  local sudo=(); is_root || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >"$INFRA_LOGS/apt.log" 2>&1 || die "apt-get update failed; read $INFRA_LOGS/apt.log"
  APT_UPDATED=1
}

# ---------- down / status ----------

stop_pidfile() {  # name pidfile
  local name=$1 pidfile=$2
  pid_alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  local pid; pid=$(cat "$pidfile")
  say "$name: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ $waited -ge 120 ]; then say "$name: still running after 30s, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
    [ $waited -ge 140 ] && break
    sleep 0.25; waited=$((waited + 1))
  done
  rm -f "$pidfile"
}

server_down() {
  case $1 in
    kafka | redis | memcached) stop_pidfile "$1" "$INFRA_RUN/$1.pid" ;;
    postgres)
      if [ -f "$INFRA_RUN/postgres.dir" ]; then
        local dir; dir=$(cat "$INFRA_RUN/postgres.dir")
        say "postgres: stopping"
        as_pg "$(pg_bin)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
        rm -f "$INFRA_RUN/postgres.dir"
      fi ;;
    *) die "unknown server '$1' (known: ${ALL_SERVERS[*]})" ;;
  esac
}

ours() {
  case $1 in
    postgres) [ -f "$INFRA_RUN/postgres.dir" ] ;;
    *) pid_alive "$INFRA_RUN/$1.pid" ;;
  esac
}

status_line() {
  local name=$1 port=$2 up=down owner=""
  case $name in
    redis) [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] && up=up ;;
    memcached) memcached_answers && up=up ;;
    postgres) "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$port" 2>/dev/null && up=up ;;
    *) port_open "$port" && up=up ;;
  esac
  if [ $up = up ]; then ours "$name" && owner=" (started by this script)" || owner=" (not ours: reused)"; fi
  printf '%-10s %-5s 127.0.0.1:%s%s\n' "$name" "$up" "$port" "$owner"
}

cmd_status() {
  status_line kafka "$KAFKA_PORT"
  status_line redis "$REDIS_PORT"
  status_line postgres "$POSTGRES_PORT"
  status_line memcached "$MEMCACHED_PORT"
  for v in "$ETCD34_DIR:$ETCD34_VERSION" "$ETCD35_DIR:$ETCD35_VERSION"; do
    if etcd_has "${v%%:*}" "${v##*:}"; then printf '%-10s %-5s %s\n' "etcd" "${v##*:}" "${v%%:*}/usr/bin"
    else printf '%-10s %-5s %s\n' "etcd" "${v##*:}" "not fetched"; fi
  done
}

cmd_env() {
  cat <<ENV
KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
REDIS_URL=127.0.0.1:$REDIS_PORT
MEMCACHE_HOST_PORT=127.0.0.1:$MEMCACHED_PORT
POSTGRES_URL=postgres://$POSTGRES_USER:$POSTGRES_PASSWORD@127.0.0.1:$POSTGRES_PORT/$POSTGRES_DB
ETCD34_BIN_DIR=$ETCD34_DIR/usr/bin
ETCD35_BIN_DIR=$ETCD35_DIR/usr/bin
ENV
}

servers_from_args() { if [ $# -eq 0 ]; then echo "${ALL_SERVERS[@]}"; else echo "$@"; fi; }

main() {
  local cmd=${1:-status}; shift || true
  mkdir -p "$INFRA_CACHE" "$INFRA_DATA" "$INFRA_LOGS" "$INFRA_RUN"
  case $cmd in
    up)
      ensure_packages
      for s in $(servers_from_args "$@"); do
        case $s in
          kafka) kafka_up ;; redis) redis_up ;; postgres) postgres_up ;; memcached) memcached_up ;;
          etcd) ;; *) die "unknown server '$s' (known: ${ALL_SERVERS[*]} etcd)" ;;
        esac
      done
      etcd_fetch
      say "ready"
      ;;
    down) for s in $(servers_from_args "$@"); do server_down "$s"; done ;;
    status) cmd_status ;;
    env) cmd_env ;;
    reset)
      for s in "${ALL_SERVERS[@]}"; do server_down "$s"; done
      say "deleting $INFRA_DATA and $(postgres_dir)"
      rm -rf "$INFRA_DATA" "$(postgres_dir)" "$(postgres_dir).log"
      ;;
    *) die "usage: infra.sh up|down|status|reset|env [server...]" ;;
  esac
}

main "$@"
