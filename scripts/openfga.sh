#!/usr/bin/env bash
# OpenFGA (on PostgreSQL, in memory or on a SQLite file) as a peer in `npm run bench`.
#
#   scripts/openfga.sh install   # build openfga with `go install` from the Go module proxy into the cache (idempotent)
#   scripts/openfga.sh start     # install if needed, start on loopback, wait until healthy; prints OPENFGA_URL=...
#   scripts/openfga.sh stop      # stop the server started by `start` and delete its run dir
#   scripts/openfga.sh status
#   scripts/openfga.sh bin       # print the binary's path (exit 1 if it is not installed)
#
# Env: OPENFGA_VERSION (1.22.1), OPENFGA_HTTP_PORT (18080), OPENFGA_GRPC_PORT (18081),
#      OPENFGA_DATASTORE (memory | sqlite: a file in the run dir, migrated at start |
#      postgres: OPENFGA_DATASTORE_URI, e.g. from `scripts/postgres.sh start`:
#      postgres://postgres@127.0.0.1:15432/openfga?sslmode=disable, migrated at start),
#      OPENFGA_CACHES (shipped | warm, see below), OPENFGA_INSTANCE (openfga: the run dir's name,
#      so that several can run at once, e.g. two on one database),
#      OPENFGA_REQUEST_TIMEOUT (60s), OPENFGA_READY_TIMEOUT (30), SERVERS_CACHE_DIR, SERVERS_RUN_DIR.
#
# OPENFGA_CACHES=shipped keeps the check caches off (OpenFGA's default), so every check is
# evaluated against the datastore. OPENFGA_CACHES=warm is what a team tuning for checks runs: the
# check query cache (sub-problem results) and the check iterator cache (datastore reads) on, with a
# 1 h lifetime instead of 10 s and room for 1,000,000 entries instead of 10,000, so the bench's
# working set stays cached for the whole run.
#
# The memory datastore scans every tuple of a store on each read and on each written tuple
# (pkg/storage/memory), so its writes and checks slow down linearly with the store's size;
# the bench's 130k-tuple store needs more than the default 3 s request timeout to load.
#
# Release binaries live on GitHub (unreachable from CI); the Go module proxy is reachable, and
# unlike FerretDB, OpenFGA's cmd builds and runs from a plain `go install` (the version it
# reports is then "dev", so the installed version is recorded in a marker file beside it).
# The playground (port 3000) and the metrics endpoint (port 2112) are switched off, so the only
# ports it binds are the two above, on 127.0.0.1.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=openfga

OPENFGA_VERSION="${OPENFGA_VERSION:-1.22.1}"
OPENFGA_VERSION="${OPENFGA_VERSION#v}"
OPENFGA_HOST=127.0.0.1
OPENFGA_HTTP_PORT="${OPENFGA_HTTP_PORT:-18080}"
OPENFGA_GRPC_PORT="${OPENFGA_GRPC_PORT:-18081}"
OPENFGA_READY_TIMEOUT="${OPENFGA_READY_TIMEOUT:-30}"
OPENFGA_DATASTORE="${OPENFGA_DATASTORE:-memory}"
OPENFGA_DATASTORE_URI="${OPENFGA_DATASTORE_URI:-}"
OPENFGA_CACHES="${OPENFGA_CACHES:-shipped}"
OPENFGA_INSTANCE="${OPENFGA_INSTANCE:-openfga}"
OPENFGA_REQUEST_TIMEOUT="${OPENFGA_REQUEST_TIMEOUT:-60s}"
OPENFGA_MODULE=github.com/openfga/openfga

INSTALL_DIR="$SERVERS_CACHE_DIR/openfga-v${OPENFGA_VERSION}"
BIN="$INSTALL_DIR/bin/openfga"
INSTALL_MARKER="$INSTALL_DIR/.installed"

RUN_DIR="$SERVERS_RUN_DIR/$OPENFGA_INSTANCE"
PID_FILE="$RUN_DIR/openfga.pid"
LOG_FILE="$RUN_DIR/openfga.log"
OPENFGA_URL="http://${OPENFGA_HOST}:${OPENFGA_HTTP_PORT}"

binary_works() {
  [[ -x "$BIN" && -f "$INSTALL_MARKER" ]] || return 1
  "$BIN" version >/dev/null 2>&1
}

cmd_install() {
  # Built without cgo: every datastore driver OpenFGA links is pure Go.
  go_install_pinned openfga "$OPENFGA_MODULE" "$OPENFGA_VERSION" "$INSTALL_DIR" "several minutes"
}

is_running() {
  pid_matches "$(read_pid "$PID_FILE")" "$OPENFGA_HTTP_PORT"
}

openfga_ready() {
  port_open "$OPENFGA_HOST" "$OPENFGA_HTTP_PORT" || return 1
  # /healthz answers {"status":"SERVING"} once the gRPC server behind the HTTP gateway is up.
  if command -v curl >/dev/null 2>&1; then
    curl -fsS "$OPENFGA_URL/healthz" 2>/dev/null | grep -q SERVING
  fi
}

cmd_start() {
  if is_running; then
    log "already running (pid $(read_pid "$PID_FILE"))"
    echo "OPENFGA_URL=$OPENFGA_URL"
    return 0
  fi
  cmd_install
  for port in "$OPENFGA_HTTP_PORT" "$OPENFGA_GRPC_PORT"; do
    if port_open "$OPENFGA_HOST" "$port"; then
      die "port $OPENFGA_HOST:$port is already in use (set OPENFGA_HTTP_PORT / OPENFGA_GRPC_PORT)"
    fi
  done
  local t0=$SECONDS datastore=() caches=()
  case "$OPENFGA_CACHES" in
    shipped) ;;
    warm)
      caches=(--check-query-cache-enabled --check-query-cache-ttl=1h --check-iterator-cache-enabled
        --check-iterator-cache-ttl=1h --check-cache-limit=1000000)
      ;;
    *) die "OPENFGA_CACHES must be shipped or warm, not '$OPENFGA_CACHES'" ;;
  esac
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  case "$OPENFGA_DATASTORE" in
    memory) datastore=(--datastore-engine=memory) ;;
    sqlite)
      datastore=(--datastore-engine=sqlite "--datastore-uri=file:$RUN_DIR/openfga.sqlite")
      "$BIN" migrate "${datastore[@]}" >>"$LOG_FILE" 2>&1 || { dump_log "$LOG_FILE"; die "openfga migrate failed"; }
      ;;
    postgres)
      [[ -n "$OPENFGA_DATASTORE_URI" ]] || die "OPENFGA_DATASTORE=postgres needs OPENFGA_DATASTORE_URI (see scripts/postgres.sh)"
      datastore=(--datastore-engine=postgres "--datastore-uri=$OPENFGA_DATASTORE_URI")
      # Idempotent: a second instance on the same database finds it at the latest version.
      "$BIN" migrate "${datastore[@]}" >>"$LOG_FILE" 2>&1 || { dump_log "$LOG_FILE"; die "openfga migrate failed"; }
      ;;
    *) die "OPENFGA_DATASTORE must be memory, sqlite or postgres, not '$OPENFGA_DATASTORE'" ;;
  esac
  log "starting on $OPENFGA_URL ($OPENFGA_DATASTORE datastore, caches $OPENFGA_CACHES, grpc on $OPENFGA_HOST:$OPENFGA_GRPC_PORT)"
  start_daemon "$PID_FILE" "$LOG_FILE" "$BIN" run \
    "${datastore[@]}" \
    "${caches[@]}" \
    --request-timeout="$OPENFGA_REQUEST_TIMEOUT" \
    --http-addr="${OPENFGA_HOST}:${OPENFGA_HTTP_PORT}" \
    --grpc-addr="${OPENFGA_HOST}:${OPENFGA_GRPC_PORT}" \
    --playground-enabled=false \
    --metrics-enabled=false \
    --log-level=warn \
    --log-format=json

  if ! wait_until "$OPENFGA_READY_TIMEOUT" "openfga healthy on $OPENFGA_URL" "$PID_FILE" "$LOG_FILE" openfga_ready; then
    stop_daemon "$PID_FILE" "$OPENFGA_HTTP_PORT" openfga 20 || true
    die "openfga failed to start (logs kept in $RUN_DIR)"
  fi
  log "ready in $(elapsed "$t0") (pid $(read_pid "$PID_FILE"), log $LOG_FILE)"
  echo "OPENFGA_URL=$OPENFGA_URL"
}

cmd_stop() {
  stop_daemon "$PID_FILE" "$OPENFGA_HTTP_PORT" openfga 20
  rm -rf "$RUN_DIR"
}

cmd_status() {
  if is_running; then
    echo "openfga: running (pid $(read_pid "$PID_FILE")) OPENFGA_URL=$OPENFGA_URL"
  else
    echo "openfga: not running"
    return 1
  fi
}

cmd_bin() {
  binary_works || return 1
  echo "$BIN"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  bin) cmd_bin ;;
  *)
    echo "usage: $0 install|start|stop|status|bin" >&2
    exit 2
    ;;
esac
