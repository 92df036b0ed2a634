# Redis, memcached and PostgreSQL on 127.0.0.1 (sourced by infra.sh).

redis_answers() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }
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
  # The server writes its log beside its data (as its own user); the logs folder links to it.
  ln -sfn "$log" "$INFRA_LOGS/postgres.log"
  say "postgres: starting on 127.0.0.1:$POSTGRES_PORT (log $INFRA_LOGS/postgres.log)"
  # The socket lives in the data folder, which only the server's user can enter.
  as_pg "$bin/pg_ctl" -D "$dir" -l "$log" -w -t "$START_TIMEOUT" \
    -o "-c listen_addresses=127.0.0.1 -p $POSTGRES_PORT -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
    || die "postgres: failed to start; read $INFRA_LOGS/postgres.log"
  echo "$dir" >"$INFRA_RUN/postgres.dir"
  pg_ensure_role as_pg psql -h "$dir" -p "$POSTGRES_PORT" -U postgres >/dev/null \
    || die "postgres: creating role $POSTGRES_USER failed; read $log"
}
