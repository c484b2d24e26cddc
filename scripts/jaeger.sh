#!/usr/bin/env bash
# Jaeger v2 (an OpenTelemetry Collector distribution with in-memory trace storage and the Jaeger
# query API) as the OTLP receiver of the tracing tests (test/tracing/) and of docs/tracing.md.
#
#   scripts/jaeger.sh install   # build jaeger from the Go module proxy into the cache (idempotent)
#   scripts/jaeger.sh start     # install if needed, start on loopback, wait until healthy;
#                               # prints JAEGER_OTLP_ENDPOINT=... and JAEGER_QUERY_URL=...
#   scripts/jaeger.sh stop      # stop the server started by `start` and delete its run dir (and its traces)
#   scripts/jaeger.sh status
#
# Env: JAEGER_VERSION (1.75.0: the Go module's version; the binary is Jaeger v2),
#      JAEGER_OTLP_PORT (14318: OTLP over HTTP), JAEGER_QUERY_PORT (16696: query API and UI over HTTP),
#      JAEGER_READY_TIMEOUT (30), SERVERS_CACHE_DIR, SERVERS_RUN_DIR.
#
# Release binaries live on GitHub (unreachable from CI); the Go module proxy is reachable. Its
# go.mod has replace directives, so `go install module/cmd/jaeger@v` refuses it: the build goes
# through a module of our own that requires it as a tool (`go get -tool`), then `go build`s the
# command (cold: about 12 minutes on 2 cores, downloads included; cached afterwards).
#
# It runs with a configuration of ours (written into the run dir), not the all-in-one default,
# which binds a dozen ports (Jaeger and Zipkin receivers, sampling, zpages, metrics) on their
# usual numbers: here only OTLP/HTTP, the query API (HTTP and its gRPC twin) and the health
# check listen, on 127.0.0.1 and ports other test servers and a developer's own Jaeger do not use.
# Storage is in memory: `stop` forgets every trace.
#
# The module's UI assets are a placeholder page (the real UI is built from another repository),
# so http://127.0.0.1:$JAEGER_QUERY_PORT/ shows no search page; the API under /api/ is complete.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=jaeger

JAEGER_VERSION="${JAEGER_VERSION:-1.75.0}"
JAEGER_VERSION="${JAEGER_VERSION#v}"
JAEGER_HOST=127.0.0.1
JAEGER_OTLP_PORT="${JAEGER_OTLP_PORT:-14318}"
JAEGER_QUERY_PORT="${JAEGER_QUERY_PORT:-16696}"
JAEGER_QUERY_GRPC_PORT="${JAEGER_QUERY_GRPC_PORT:-16695}"
JAEGER_HEALTH_PORT="${JAEGER_HEALTH_PORT:-13143}"
JAEGER_READY_TIMEOUT="${JAEGER_READY_TIMEOUT:-30}"
JAEGER_MODULE=github.com/jaegertracing/jaeger

INSTALL_DIR="$SERVERS_CACHE_DIR/jaeger-v${JAEGER_VERSION}"
BIN="$INSTALL_DIR/bin/jaeger"
INSTALL_MARKER="$INSTALL_DIR/.installed"

RUN_DIR="$SERVERS_RUN_DIR/jaeger"
PID_FILE="$RUN_DIR/jaeger.pid"
LOG_FILE="$RUN_DIR/jaeger.log"
CONFIG_FILE="$RUN_DIR/config.yaml"
OTLP_ENDPOINT="http://${JAEGER_HOST}:${JAEGER_OTLP_PORT}"
QUERY_URL="http://${JAEGER_HOST}:${JAEGER_QUERY_PORT}"

binary_works() {
  [[ -x "$BIN" && -f "$INSTALL_MARKER" ]] && [[ "$(cat "$INSTALL_MARKER")" == "v$JAEGER_VERSION" ]] && "$BIN" version >/dev/null 2>&1
}

cmd_install() {
  if binary_works; then
    log "jaeger v$JAEGER_VERSION already installed at $BIN"
    return 0
  fi
  need_cmd go
  local t0=$SECONDS work
  log "building jaeger v$JAEGER_VERSION from the Go module proxy into $INSTALL_DIR (cold: about 12 min on 2 cores)"
  mkdir -p "$SERVERS_CACHE_DIR" "$INSTALL_DIR/bin"
  rm -f "$INSTALL_MARKER"
  work="$(mktemp -d "$SERVERS_CACHE_DIR/.jaeger-build.XXXXXX")"
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  # -buildvcs=false: the build dir may sit inside some other git checkout; its VCS info is irrelevant.
  (
    cd "$work"
    export GO111MODULE=on CGO_ENABLED=0 GOFLAGS=-buildvcs=false
    go mod init rebac-jaeger-build >/dev/null 2>&1
    # (Its output, a line per module of a few hundred, only matters when it fails.)
    go get -tool "${JAEGER_MODULE}/cmd/jaeger@v${JAEGER_VERSION}" 2>"$work/go-get.log" || { cat "$work/go-get.log" >&2; exit 1; }
    go build -trimpath -o "$BIN.tmp" "${JAEGER_MODULE}/cmd/jaeger"
  ) || die "go build of ${JAEGER_MODULE}/cmd/jaeger@v${JAEGER_VERSION} failed"
  mv -f "$BIN.tmp" "$BIN"
  "$BIN" version >/dev/null 2>&1 || die "built binary does not run: $BIN"
  echo "v${JAEGER_VERSION}" >"$INSTALL_MARKER"
  rm -rf "$work"
  trap - EXIT
  log "installed $BIN in $(elapsed "$t0")"
}

is_running() {
  pid_matches "$(read_pid "$PID_FILE")" "$RUN_DIR"
}

write_config() {
  cat >"$CONFIG_FILE" <<EOF
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: info

extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: ${JAEGER_HOST}:${JAEGER_QUERY_PORT}
    grpc:
      endpoint: ${JAEGER_HOST}:${JAEGER_QUERY_GRPC_PORT}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  healthcheckv2:
    use_v2: true
    http:
      endpoint: ${JAEGER_HOST}:${JAEGER_HEALTH_PORT}

receivers:
  otlp:
    protocols:
      http:
        endpoint: ${JAEGER_HOST}:${JAEGER_OTLP_PORT}

processors:
  batch:
    timeout: 200ms

exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
EOF
}

jaeger_ready() {
  port_open "$JAEGER_HOST" "$JAEGER_OTLP_PORT" || return 1
  port_open "$JAEGER_HOST" "$JAEGER_QUERY_PORT" || return 1
  # The query API answers once the storage is up (node, which the repository needs anyway, rather than curl).
  node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$QUERY_URL/api/services" >/dev/null 2>&1
}

cmd_start() {
  if is_running; then
    log "already running (pid $(read_pid "$PID_FILE"))"
    print_settings
    return 0
  fi
  cmd_install
  need_cmd node
  local port
  for port in "$JAEGER_OTLP_PORT" "$JAEGER_QUERY_PORT" "$JAEGER_QUERY_GRPC_PORT" "$JAEGER_HEALTH_PORT"; do
    if port_open "$JAEGER_HOST" "$port"; then
      die "port $JAEGER_HOST:$port is already in use (set JAEGER_OTLP_PORT, JAEGER_QUERY_PORT, JAEGER_QUERY_GRPC_PORT, JAEGER_HEALTH_PORT)"
    fi
  done
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  write_config
  local t0=$SECONDS
  log "starting on ${JAEGER_HOST} (OTLP/HTTP :$JAEGER_OTLP_PORT, query :$JAEGER_QUERY_PORT)"
  start_daemon "$PID_FILE" "$LOG_FILE" "$BIN" --config "$CONFIG_FILE"
  if ! wait_until "$JAEGER_READY_TIMEOUT" "jaeger ready on ports $JAEGER_OTLP_PORT and $JAEGER_QUERY_PORT" "$PID_FILE" "$LOG_FILE" jaeger_ready; then
    stop_daemon "$PID_FILE" "$RUN_DIR" jaeger 10 || true
    die "jaeger failed to start (logs kept in $RUN_DIR)"
  fi
  log "ready in $(elapsed "$t0") (pid $(read_pid "$PID_FILE"), log $LOG_FILE)"
  print_settings
}

print_settings() {
  echo "JAEGER_OTLP_ENDPOINT=$OTLP_ENDPOINT"
  echo "JAEGER_QUERY_URL=$QUERY_URL"
}

cmd_stop() {
  stop_daemon "$PID_FILE" "$RUN_DIR" jaeger 10
  rm -rf "$RUN_DIR"
}

cmd_status() {
  if is_running; then
    echo "jaeger: running (pid $(read_pid "$PID_FILE")) JAEGER_OTLP_ENDPOINT=$OTLP_ENDPOINT JAEGER_QUERY_URL=$QUERY_URL"
  else
    echo "jaeger: not running"
    return 1
  fi
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 install|start|stop|status" >&2
    exit 2
    ;;
esac
