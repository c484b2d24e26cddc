#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, combined broker+controller) for integration tests.
#
#   scripts/kafka.sh install   # fetch kafka_2.13 + runtime deps from Maven Central into the cache (idempotent)
#   scripts/kafka.sh start     # install if needed, format a fresh data dir, start, wait until ready
#   scripts/kafka.sh stop      # stop the broker started by `start` and delete its data dir
#   scripts/kafka.sh kill      # SIGKILL the broker (a crash), keeping its data dir, config and logs
#   scripts/kafka.sh restart   # start it again on the data dir it had (stopping it first if it runs), wait until ready
#   scripts/kafka.sh status
#
# Env: KAFKA_VERSION (3.9.2), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093),
#      KAFKA_HEAP_OPTS (-Xms128m -Xmx512m), KAFKA_READY_TIMEOUT (90), SERVERS_CACHE_DIR, SERVERS_RUN_DIR.
#
# Why Maven and not the binary tarball: only package registries are reachable from CI, and the
# tarball lives on downloads.apache.org. The kafka_2.13 artifact on Maven Central is the same
# server code; we just have to assemble the classpath ourselves.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=kafka

KAFKA_VERSION="${KAFKA_VERSION:-3.9.2}"
SCALA_VERSION=2.13
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HOST=127.0.0.1
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m}"
KAFKA_READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-90}"
# Kafka's pom has no logging backend (the distribution tarball ships one in libs/).
# slf4j-reload4j must match the slf4j-api 1.7.x that Kafka 3.9 uses.
RELOAD4J_VERSION=1.2.25
SLF4J_VERSION=1.7.36
MAVEN_DEPENDENCY_PLUGIN_VERSION=3.8.1

INSTALL_DIR="$SERVERS_CACHE_DIR/kafka_${SCALA_VERSION}-${KAFKA_VERSION}"
JARS_DIR="$INSTALL_DIR/jars"
INSTALL_MARKER="$INSTALL_DIR/.installed"

RUN_DIR="$SERVERS_RUN_DIR/kafka"
PID_FILE="$RUN_DIR/kafka.pid"
LOG_FILE="$RUN_DIR/server.log"     # log4j output
STDOUT_FILE="$RUN_DIR/stdout.log"  # JVM stdout/stderr (crashes, GC warnings)
DATA_DIR="$RUN_DIR/data"

# JVM command line shared by the storage tool and the broker.
# shellcheck disable=SC2206 # KAFKA_HEAP_OPTS is intentionally word-split
JAVA_CMD=(java $KAFKA_HEAP_OPTS -XX:+UseG1GC -Djava.awt.headless=true
  -Dlog4j.configuration="file:$RUN_DIR/log4j.properties"
  -cp "$JARS_DIR/*")

cmd_install() {
  if [[ -f "$INSTALL_MARKER" ]]; then
    log "kafka $KAFKA_VERSION already installed in $INSTALL_DIR"
    return 0
  fi
  need_cmd mvn
  need_cmd java
  local t0=$SECONDS
  log "installing kafka_${SCALA_VERSION} $KAFKA_VERSION from Maven Central into $INSTALL_DIR"
  rm -rf "$INSTALL_DIR"
  mkdir -p "$INSTALL_DIR"
  # A throwaway pom whose only purpose is to let maven-dependency-plugin resolve the runtime
  # classpath (kafka's runtime-scoped deps are needed to run the broker).
  cat >"$INSTALL_DIR/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.rebac-test-servers</groupId>
  <artifactId>kafka-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_${SCALA_VERSION}</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>ch.qos.reload4j</groupId>
      <artifactId>reload4j</artifactId>
      <version>${RELOAD4J_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>${SLF4J_VERSION}</version>
    </dependency>
  </dependencies>
</project>
EOF
  # Pinned plugin version: maven 3.8's default maven-dependency-plugin is ancient.
  # Output goes to stderr (stdout of `start` is reserved for KEY=value lines); the sed strips the
  # stray ANSI reset codes Debian's maven 3.8 prints even with -B/-q.
  mvn -B -q -Dstyle.color=never -f "$INSTALL_DIR/pom.xml" \
    "org.apache.maven.plugins:maven-dependency-plugin:${MAVEN_DEPENDENCY_PLUGIN_VERSION}:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$JARS_DIR" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2 ||
    die "maven could not resolve kafka dependencies"
  [[ -f "$JARS_DIR/kafka_${SCALA_VERSION}-${KAFKA_VERSION}.jar" ]] || die "kafka jar missing after maven run"
  date -u +%FT%TZ >"$INSTALL_MARKER"
  log "installed $(find "$JARS_DIR" -name '*.jar' | wc -l) jars in $(elapsed "$t0")"
}

write_config() {
  mkdir -p "$DATA_DIR"
  cat >"$RUN_DIR/server.properties" <<EOF
# Single node KRaft: this process is both the broker and the only controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${KAFKA_HOST}:${KAFKA_CONTROLLER_PORT}
listeners=PLAINTEXT://${KAFKA_HOST}:${KAFKA_PORT},CONTROLLER://${KAFKA_HOST}:${KAFKA_CONTROLLER_PORT}
advertised.listeners=PLAINTEXT://${KAFKA_HOST}:${KAFKA_PORT}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${DATA_DIR}

# Single-node settings: internal topics cannot have replication factor > 1 here.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
default.replication.factor=1
min.insync.replicas=1
# Fewer partitions = faster creation of internal topics on first use (tests are small).
offsets.topic.num.partitions=1
transaction.state.log.num.partitions=1
num.partitions=1
# Consumers join immediately instead of waiting 3 s for more group members.
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
EOF
  cat >"$RUN_DIR/log4j.properties" <<EOF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${LOG_FILE}
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
# Very chatty at INFO and not useful for tests.
log4j.logger.kafka.request.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.state.change.logger=WARN
EOF
}

is_running() {
  pid_matches "$(read_pid "$PID_FILE")" "$RUN_DIR"
}

# Where server.log ended when this start began: only a later 'Kafka Server started' counts.
LOG_OFFSET=0

kafka_ready() {
  port_open "$KAFKA_HOST" "$KAFKA_PORT" && logged_since "$LOG_FILE" "$LOG_OFFSET" 'Kafka Server started'
}

ports_free() {
  local port
  for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    if port_open "$KAFKA_HOST" "$port"; then
      die "port $KAFKA_HOST:$port is already in use (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
    fi
  done
}

# Starts the broker on the formatted data dir and waits until it is ready.
launch() {
  local t0=$SECONDS
  LOG_OFFSET="$(file_size "$LOG_FILE")"
  log "starting broker on ${KAFKA_HOST}:${KAFKA_PORT} (controller ${KAFKA_CONTROLLER_PORT})"
  start_daemon "$PID_FILE" "$STDOUT_FILE" "${JAVA_CMD[@]}" kafka.Kafka "$RUN_DIR/server.properties"

  if ! wait_until "$KAFKA_READY_TIMEOUT" "kafka ready on port $KAFKA_PORT" "$PID_FILE" "$LOG_FILE" kafka_ready; then
    dump_log "$STDOUT_FILE"
    # Kill the half-started server but keep $RUN_DIR (logs) for CI artifacts; the next
    # start/stop removes it.
    stop_daemon "$PID_FILE" "$RUN_DIR" kafka 60 || true
    die "kafka failed to start (logs kept in $RUN_DIR)"
  fi
  log "ready in $(elapsed "$t0") (pid $(read_pid "$PID_FILE"), logs in $RUN_DIR)"
  echo "KAFKA_BROKERS=${KAFKA_HOST}:${KAFKA_PORT}"
}

cmd_start() {
  if is_running; then
    log "already running (pid $(read_pid "$PID_FILE"))"
    echo "KAFKA_BROKERS=${KAFKA_HOST}:${KAFKA_PORT}"
    return 0
  fi
  cmd_install
  need_cmd java
  ports_free

  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  write_config

  # A fresh cluster every time: format the data dir with a new random cluster id.
  # Kafka cluster ids are 16 random bytes in URL-safe base64 without padding; generating it here
  # saves a JVM start (`kafka.tools.StorageTool random-uuid`). Like Kafka's own Uuid.randomUuid(),
  # draw again while the id starts with '-': the tool's argument parser reads such a value as an
  # option and refuses `-t` (1 run in 64 failed this way).
  local cluster_id="-"
  while [[ "$cluster_id" == -* ]]; do
    cluster_id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
  done
  log "formatting $DATA_DIR (cluster id $cluster_id)"
  "${JAVA_CMD[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$RUN_DIR/server.properties" \
    >>"$STDOUT_FILE" 2>&1 || {
    dump_log "$STDOUT_FILE"
    die "kafka storage format failed"
  }
  launch
}

cmd_stop() {
  # Controlled shutdown of a single KRaft node normally takes a few seconds.
  stop_daemon "$PID_FILE" "$RUN_DIR" kafka 60
  rm -rf "$RUN_DIR"
}

cmd_kill() {
  kill_daemon "$PID_FILE" "$RUN_DIR" kafka
}

cmd_restart() {
  [[ -f "$RUN_DIR/server.properties" && -d "$DATA_DIR" ]] || die "no data dir in $RUN_DIR to restart on (run start first)"
  if is_running; then stop_daemon "$PID_FILE" "$RUN_DIR" kafka 60; fi
  need_cmd java
  ports_free
  launch
}

cmd_status() {
  if is_running; then
    echo "kafka: running (pid $(read_pid "$PID_FILE")) KAFKA_BROKERS=${KAFKA_HOST}:${KAFKA_PORT}"
  else
    echo "kafka: not running"
    return 1
  fi
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  kill) cmd_kill ;;
  restart) cmd_restart ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 install|start|stop|kill|restart|status" >&2
    exit 2
    ;;
esac
