# Kafka in KRaft mode from Maven Central jars (sourced by infra.sh): `kafka` is one combined
# broker+controller; `kafka-cluster` is three of them in one quorum, with replication factor 3 and
# min.insync.replicas 2, as production runs it.

KAFKA_LIBS=$INFRA_CACHE/kafka-$KAFKA_VERSION/libs

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

# Cluster node i (1..3): broker on KAFKA_CLUSTER_PORT + 2(i-1), its controller on the port after.
kafka_cluster_port() { echo $((KAFKA_CLUSTER_PORT + 2 * ($1 - 1))); }
kafka_cluster_voters() {
  local i voters=()
  for i in 1 2 3; do voters+=("$i@127.0.0.1:$(($(kafka_cluster_port "$i") + 1))"); done
  (IFS=,; echo "${voters[*]}")
}
kafka_cluster_brokers() {
  local i brokers=()
  for i in 1 2 3; do brokers+=("127.0.0.1:$(kafka_cluster_port "$i")"); done
  (IFS=,; echo "${brokers[*]}")
}

# Writes the node's configuration and formats its storage (once). Args: dir node-id port
# controller-port voters replication-factor min-insync cluster-id-file
kafka_configure() {
  local dir=$1 id=$2 port=$3 cport=$4 voters=$5 rf=$6 isr=$7 idfile=$8
  mkdir -p "$dir/logs"
  [ -f "$idfile" ] || head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22 >"$idfile"
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/logs
num.partitions=1
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  cat >"$dir/log4j.properties" <<'LOG4J'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.state.change.logger=WARN
LOG4J
}

# Starts one configured node in the background. Args: name dir log pidfile heap cluster-id-file
kafka_launch() {
  local name=$1 dir=$2 log=$3 pidfile=$4 heap=$5 idfile=$6
  local java_opts=(-Dlog4j.configuration="file:$dir/log4j.properties" -cp "$KAFKA_LIBS/*")
  [ -f "$log" ] && mv -f "$log" "$log.1"
  # shellcheck disable=SC2086
  # --cluster-id=: an id may begin with "-" (base64url), which the tool would read as an option.
  java $heap "${java_opts[@]}" kafka.tools.StorageTool format --cluster-id="$(cat "$idfile")" \
    -c "$dir/server.properties" --ignore-formatted >"$log" 2>&1 \
    || die "$name: formatting the storage failed; read $log"
  # shellcheck disable=SC2086
  nohup java $heap "${java_opts[@]}" kafka.Kafka "$dir/server.properties" >>"$log" 2>&1 </dev/null &
  echo $! >"$pidfile"
}

# Waits for a launched node's log to say it started. Args: name log pidfile
kafka_wait() {
  local name=$1 log=$2 pidfile=$3 waited=0
  until grep -q 'Kafka Server started' "$log" 2>/dev/null; do
    pid_alive "$pidfile" || { rm -f "$pidfile"; die "$name: the broker exited during start-up; read $log"; }
    [ $waited -lt $((START_TIMEOUT * 2)) ] || die "$name: not started after ${START_TIMEOUT}s; read $log"
    sleep 0.5; waited=$((waited + 1))
  done
}

kafka_up() {
  local dir=$INFRA_DATA/kafka log=$INFRA_LOGS/kafka.log pidfile=$INFRA_RUN/kafka.pid
  if pid_alive "$pidfile"; then say "kafka: running (127.0.0.1:$KAFKA_PORT)"; return 0; fi
  if port_open "$KAFKA_PORT"; then say "kafka: reusing the server answering on 127.0.0.1:$KAFKA_PORT"; return 0; fi
  kafka_fetch
  kafka_configure "$dir" 1 "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "1@127.0.0.1:$KAFKA_CONTROLLER_PORT" 1 1 "$dir/cluster-id"
  say "kafka: starting on 127.0.0.1:$KAFKA_PORT (log $log)"
  kafka_launch kafka "$dir" "$log" "$pidfile" "$KAFKA_HEAP_OPTS" "$dir/cluster-id"
  kafka_wait kafka "$log" "$pidfile"
}

# Starts every node of the three that is not running (a node killed by a test comes back the same).
kafka_cluster_up() {
  local dir=$INFRA_DATA/kafka-cluster i port started=()
  kafka_fetch
  for i in 1 2 3; do
    port=$(kafka_cluster_port "$i")
    local pidfile=$INFRA_RUN/kafka-cluster-$i.pid log=$INFRA_LOGS/kafka-cluster-$i.log
    if pid_alive "$pidfile"; then say "kafka-cluster: node $i running (127.0.0.1:$port)"; continue; fi
    port_open "$port" && die "kafka-cluster: port $port is taken by something this script did not start; set KAFKA_CLUSTER_PORT"
    kafka_configure "$dir/node-$i" "$i" "$port" $((port + 1)) "$(kafka_cluster_voters)" 3 2 "$dir/cluster-id"
    # A SIGKILLed broker is fenced, and its partitions led by others, after 3 s instead of 9.
    printf 'broker.session.timeout.ms=3000\nbroker.heartbeat.interval.ms=500\n' >>"$dir/node-$i/server.properties"
    say "kafka-cluster: starting node $i on 127.0.0.1:$port (log $log)"
    kafka_launch "kafka-cluster node $i" "$dir/node-$i" "$log" "$pidfile" "$KAFKA_CLUSTER_HEAP_OPTS" "$dir/cluster-id"
    started+=("$i")
  done
  # A quorum of two must form before any node says it started: launch all, then wait for each.
  for i in "${started[@]}"; do
    kafka_wait "kafka-cluster node $i" "$INFRA_LOGS/kafka-cluster-$i.log" "$INFRA_RUN/kafka-cluster-$i.pid"
  done
}

# All nodes at once: a node stopped last has no quorum left to confirm its controlled shutdown.
kafka_cluster_down() {
  local i
  for i in 1 2 3; do stop_pidfile "kafka-cluster node $i" "$INFRA_RUN/kafka-cluster-$i.pid" 10 & done
  wait
}
