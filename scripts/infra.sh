#!/usr/bin/env bash
# Local infrastructure without Docker: installs what is missing and runs real servers on 127.0.0.1.
#   infra.sh up [server...]      install if needed, start (or reuse) servers; default: all but kafka-cluster
#   infra.sh down [server...]    stop servers this script started (a reused server is left alone)
#   infra.sh status              what answers where
#   infra.sh reset               down, then delete data folders (the download cache stays)
#   infra.sh env                 KEY=value lines that clients use to reach the servers
#   infra.sh pid SERVER [NODE]   the pid of a server this script started (tests that kill one)
# Servers: kafka redis postgres memcached kafka-cluster; `up` also places etcd 3.4.23 and 3.5.16 in the cache,
# and, for the test and bench profiles or `up etcd`, builds etcd 3.5.35, 3.6.16 and 3.7.3 (Go needed).
# INFRA_PROFILE=test gives the tests servers of their own (other ports, other data), so a test run
# never writes into what `npm start` shows, nor stops it; INFRA_PROFILE=bench does the same for the
# benchmarks (scripts/bench-infra.sh), whose millions of events would otherwise be the product's.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
INFRA_PROFILE=${INFRA_PROFILE:-product}
case $INFRA_PROFILE in
  product) PORT_SHIFT=0; PROFILE_HOME=$ROOT/.infra ;;
  test) PORT_SHIFT=10000; PROFILE_HOME=$ROOT/.infra/test ;;
  bench) PORT_SHIFT=20000; PROFILE_HOME=$ROOT/.infra/bench ;;
  *) printf 'infra: ERROR: INFRA_PROFILE must be product, test or bench, not %s\n' "$INFRA_PROFILE" >&2; exit 2 ;;
esac
# A second checkout on the same machine (a git worktree) runs its tests on servers of its own with
# INFRA_PORT_SHIFT (e.g. 30000) in place of the profile's shift; its data stays under its own .infra.
PORT_SHIFT=${INFRA_PORT_SHIFT:-$PORT_SHIFT}
INFRA_HOME=${INFRA_HOME:-$PROFILE_HOME}
# Downloads are shared by every profile.
INFRA_CACHE=${INFRA_CACHE:-$ROOT/.infra/cache}
INFRA_DATA=${INFRA_DATA:-$INFRA_HOME/data}
INFRA_LOGS=${INFRA_LOGS:-$INFRA_HOME/logs}
INFRA_RUN=$INFRA_HOME/run

KAFKA_PORT=${KAFKA_PORT:-$((9092 + PORT_SHIFT))}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-$((9093 + PORT_SHIFT))}
KAFKA_CLUSTER_PORT=${KAFKA_CLUSTER_PORT:-$((9094 + PORT_SHIFT))}
KAFKA_VERSION=${KAFKA_VERSION:-3.9.1}
# The tests' brokers live for minutes and are CPU-bound beside the tests on a small machine: the C1
# compiler alone and the serial collector halve their CPU (C2's compiling is most of it); the
# product's and the benchmarks' brokers keep the JVM's defaults for throughput.
if [ "$INFRA_PROFILE" = test ]; then JVM_TUNING='-XX:+UseSerialGC -XX:TieredStopAtLevel=1'; else JVM_TUNING='-XX:+UseG1GC'; fi
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m $JVM_TUNING}
KAFKA_CLUSTER_HEAP_OPTS=${KAFKA_CLUSTER_HEAP_OPTS:--Xms128m -Xmx384m $JVM_TUNING}
REDIS_PORT=${REDIS_PORT:-$((6379 + PORT_SHIFT))}
MEMCACHED_PORT=${MEMCACHED_PORT:-$((11211 + PORT_SHIFT))}
POSTGRES_PORT=${POSTGRES_PORT:-$((5432 + PORT_SHIFT))}
POSTGRES_USER=${POSTGRES_USER:-backbone}
POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-backbone}
POSTGRES_DB=${POSTGRES_DB:-backbone}
ETCD34_VERSION=3.4.23
ETCD34_DEB_VERSION=${ETCD34_DEB_VERSION:-3.4.23-4+b4}
ETCD35_VERSION=3.5.16
START_TIMEOUT=${INFRA_START_TIMEOUT:-120}

DEFAULT_SERVERS=(kafka redis postgres memcached)
ALL_SERVERS=(kafka redis postgres memcached kafka-cluster)

say() { printf 'infra: %s\n' "$*" >&2; }
die() { printf 'infra: ERROR: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
port_open() { { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null && exec 3>&-; }
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

for part in packages kafka stores etcd; do
  # shellcheck source=/dev/null
  source "$ROOT/scripts/infra/$part.sh"
done

# ---------- down / status / env ----------
stop_pidfile() {  # name pidfile [grace-seconds]
  local name=$1 pidfile=$2 grace=${3:-30}
  pid_alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  local pid; pid=$(cat "$pidfile")
  say "$name: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ $waited -eq $((grace * 4)) ]; then say "$name: still running after ${grace}s, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
    [ $waited -ge $((grace * 4 + 20)) ] && break
    sleep 0.25; waited=$((waited + 1))
  done
  rm -f "$pidfile"
}

server_down() {
  case $1 in
    kafka | redis | memcached) stop_pidfile "$1" "$INFRA_RUN/$1.pid" ;;
    kafka-cluster) kafka_cluster_down ;;
    etcd) ;; # binaries only: nothing runs
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
    kafka-cluster) pid_alive "$INFRA_RUN/kafka-cluster-1.pid" || pid_alive "$INFRA_RUN/kafka-cluster-2.pid" || pid_alive "$INFRA_RUN/kafka-cluster-3.pid" ;;
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
  printf '%-14s %-5s 127.0.0.1:%s%s\n' "$name" "$up" "$port" "$owner"
}

cmd_status() {
  status_line kafka "$KAFKA_PORT"
  status_line redis "$REDIS_PORT"
  status_line postgres "$POSTGRES_PORT"
  status_line memcached "$MEMCACHED_PORT"
  local i
  for i in 1 2 3; do
    local port up=down
    port=$(kafka_cluster_port "$i")
    port_open "$port" && up=up
    if [ $up = up ] || pid_alive "$INFRA_RUN/kafka-cluster-$i.pid"; then
      printf '%-14s %-5s 127.0.0.1:%s (cluster node %s)\n' kafka-cluster "$up" "$port" "$i"
    fi
  done
  local built=() b
  for b in "${ETCD_BUILT_VERSIONS[@]}"; do built+=("$(etcd_built_dir "$b"):$b"); done
  for v in "$ETCD34_DIR:$ETCD34_VERSION" "$ETCD35_DIR:$ETCD35_VERSION" "${built[@]}"; do
    if etcd_has "${v%%:*}" "${v##*:}"; then printf '%-14s %-5s %s\n' "etcd" "${v##*:}" "${v%%:*}/usr/bin"
    else printf '%-14s %-5s %s\n' "etcd" "${v##*:}" "not in the cache"; fi
  done
}

cmd_env() {
  cat <<ENV
KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
KAFKA_CLUSTER_BROKERS=$(kafka_cluster_brokers)
REDIS_URL=127.0.0.1:$REDIS_PORT
MEMCACHE_HOST_PORT=127.0.0.1:$MEMCACHED_PORT
POSTGRES_URL=postgres://$POSTGRES_USER:$POSTGRES_PASSWORD@127.0.0.1:$POSTGRES_PORT/$POSTGRES_DB
ETCD34_BIN_DIR=$ETCD34_DIR/usr/bin
ETCD35_BIN_DIR=$ETCD35_DIR/usr/bin
ETCD_RELEASES=$(etcd_releases)
ENV
}

servers_from_args() { if [ $# -eq 0 ]; then echo "${DEFAULT_SERVERS[@]}"; else echo "$@"; fi; }

main() {
  local cmd=${1:-status}; shift || true
  mkdir -p "$INFRA_CACHE" "$INFRA_DATA" "$INFRA_LOGS" "$INFRA_RUN"
  case $cmd in
    up)
      ensure_packages
      for s in $(servers_from_args "$@"); do
        case $s in
          kafka) kafka_up ;; redis) redis_up ;; postgres) postgres_up ;; memcached) memcached_up ;;
          kafka-cluster) kafka_cluster_up ;;
          etcd) build_etcd=1 ;; *) die "unknown server '$s' (known: ${ALL_SERVERS[*]} etcd)" ;;
        esac
      done
      etcd_fetch
      # Only `up etcd` builds the releases Debian does not package (minutes, once): the tests start it
      # in the background (test/helpers/preparations.ts), bench:kvupgrade names it; the product runs no etcd.
      if [ "${build_etcd:-0}" = 1 ]; then etcd_build_all; fi
      say "ready"
      ;;
    down)
      local servers=("$@")
      [ $# -gt 0 ] || servers=("${ALL_SERVERS[@]}")
      for s in "${servers[@]}"; do server_down "$s"; done ;;
    status) cmd_status ;;
    env) cmd_env ;;
    pid)  # pid of a server this script started: `pid kafka`, `pid kafka-cluster 2`
      local file=$INFRA_RUN/${1:-}.pid
      [ "${1:-}" = kafka-cluster ] && file=$INFRA_RUN/kafka-cluster-${2:-1}.pid
      pid_alive "$file" || die "${1:-?}: not running (started by this script)"
      cat "$file" ;;
    reset)
      for s in "${ALL_SERVERS[@]}"; do server_down "$s"; done
      say "deleting $INFRA_DATA and $(postgres_dir)"
      rm -rf "$INFRA_DATA" "$(postgres_dir)" "$(postgres_dir).log"
      ;;
    *) die "usage: infra.sh up|down|status|reset|env [server...] | pid server [node]" ;;
  esac
}

main "$@"
