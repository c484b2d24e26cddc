#!/usr/bin/env bash
# SpiceDB (in memory, or on PostgreSQL) as a peer in `npm run bench`.
#
#   scripts/spicedb.sh install   # build spicedb with `go install` from the Go module proxy into the cache (idempotent)
#   scripts/spicedb.sh start     # install if needed, (migrate,) start on loopback, wait until it answers;
#                                # prints SPICEDB_URL=... (the HTTP gateway) and SPICEDB_KEY=...
#   scripts/spicedb.sh stop      # stop the server started by `start` and delete its run dir
#   scripts/spicedb.sh status
#   scripts/spicedb.sh bin       # print the binary's path (exit 1 if it is not installed)
#
# Env: SPICEDB_VERSION (1.56.2), SPICEDB_HTTP_PORT (18443), SPICEDB_GRPC_PORT (18451),
#      SPICEDB_DATASTORE (memory | postgres), SPICEDB_DATASTORE_URI (postgres: a connection string,
#      e.g. from `scripts/postgres.sh start`: postgres://postgres@127.0.0.1:15432/spicedb?sslmode=disable;
#      `spicedb migrate head` runs on it first), SPICEDB_CACHES (shipped | warm, see below),
#      SPICEDB_KEY (the preshared key, default bench-key), SPICEDB_INSTANCE (spicedb: the run dir's
#      name, so that several can run at once), SPICEDB_READY_TIMEOUT (60), SERVERS_CACHE_DIR, SERVERS_RUN_DIR.
#
# SPICEDB_CACHES=shipped runs SpiceDB's defaults: a revision quantization window of 5 s (checks that
# do not ask for a newer snapshot read the snapshot of the current 5 s window, so its dispatch cache,
# keyed by snapshot, starts over every ~5 s). SPICEDB_CACHES=warm is what a team tuning for checks
# runs: a 1 h window that may be reused for its whole length again (max staleness 100%), so checks
# keep reading one snapshot and the dispatch cache (on by default, 30% of memory) holds the working
# set. (A window that long hides new writes from minimize_latency checks: clients pass the ZedToken
# of their last write. Windows are aligned to the clock, so the bench's checks against this process
# ask for that token's snapshot exactly, at_exact_snapshot: at_least_as_fresh moved to a new, cold
# snapshot at the hour.)
#
# Release binaries live on GitHub (unreachable from CI); the Go module proxy is reachable and
# SpiceDB's cmd builds from a plain `go install` (it then reports no release version, so the
# installed version is recorded in a marker file beside it). The metrics server (9090) and
# dispatch cluster stay off and telemetry and the release check are disabled, so it binds only the
# two ports above, on 127.0.0.1, and makes no outbound connection.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=spicedb

SPICEDB_VERSION="${SPICEDB_VERSION:-1.56.2}"
SPICEDB_VERSION="${SPICEDB_VERSION#v}"
SPICEDB_HOST=127.0.0.1
SPICEDB_HTTP_PORT="${SPICEDB_HTTP_PORT:-18443}"
SPICEDB_GRPC_PORT="${SPICEDB_GRPC_PORT:-18451}"
SPICEDB_DATASTORE="${SPICEDB_DATASTORE:-memory}"
SPICEDB_DATASTORE_URI="${SPICEDB_DATASTORE_URI:-}"
SPICEDB_CACHES="${SPICEDB_CACHES:-shipped}"
SPICEDB_KEY="${SPICEDB_KEY:-bench-key}"
SPICEDB_INSTANCE="${SPICEDB_INSTANCE:-spicedb}"
SPICEDB_READY_TIMEOUT="${SPICEDB_READY_TIMEOUT:-60}"
SPICEDB_MODULE=github.com/authzed/spicedb

INSTALL_DIR="$SERVERS_CACHE_DIR/spicedb-v${SPICEDB_VERSION}"
BIN="$INSTALL_DIR/bin/spicedb"
INSTALL_MARKER="$INSTALL_DIR/.installed"

RUN_DIR="$SERVERS_RUN_DIR/$SPICEDB_INSTANCE"
PID_FILE="$RUN_DIR/spicedb.pid"
LOG_FILE="$RUN_DIR/spicedb.log"
SPICEDB_URL="http://${SPICEDB_HOST}:${SPICEDB_HTTP_PORT}"

binary_works() {
  [[ -x "$BIN" && -f "$INSTALL_MARKER" ]] || return 1
  "$BIN" version >/dev/null 2>&1
}

cmd_install() {
  # Built without cgo: the memory and PostgreSQL datastores are pure Go.
  go_install_pinned spicedb "$SPICEDB_MODULE" "$SPICEDB_VERSION" "$INSTALL_DIR" "~10 min"
}

# The server's command line names its HTTP address, so `stop` can tell our process from a stale
# pid's new owner.
is_running() {
  pid_matches "$(read_pid "$PID_FILE")" "$SPICEDB_HOST:$SPICEDB_HTTP_PORT"
}

spicedb_ready() {
  port_open "$SPICEDB_HOST" "$SPICEDB_HTTP_PORT" || return 1
  # A real call through the gateway and the gRPC server behind it: with no schema written yet it
  # answers 404 (NOT_FOUND), with a wrong key 401; only a started server answers either.
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $SPICEDB_KEY" \
    -H 'content-type: application/json' -d '{}' "$SPICEDB_URL/v1/schema/read" 2>/dev/null || true)"
  [[ "$code" == 200 || "$code" == 404 ]]
}

datastore_flags() {
  case "$SPICEDB_DATASTORE" in
    memory) echo "--datastore-engine=memory" ;;
    postgres)
      [[ -n "$SPICEDB_DATASTORE_URI" ]] || die "SPICEDB_DATASTORE=postgres needs SPICEDB_DATASTORE_URI (see scripts/postgres.sh)"
      echo "--datastore-engine=postgres"
      echo "--datastore-conn-uri=$SPICEDB_DATASTORE_URI"
      ;;
    *) die "SPICEDB_DATASTORE must be memory or postgres, not '$SPICEDB_DATASTORE'" ;;
  esac
}

cache_flags() {
  case "$SPICEDB_CACHES" in
    shipped) ;;
    warm)
      echo "--datastore-revision-quantization-interval=1h"
      echo "--datastore-revision-quantization-max-staleness-percent=1"
      ;;
    *) die "SPICEDB_CACHES must be shipped or warm, not '$SPICEDB_CACHES'" ;;
  esac
}

cmd_start() {
  if is_running; then
    log "already running (pid $(read_pid "$PID_FILE"))"
    echo "SPICEDB_URL=$SPICEDB_URL"
    echo "SPICEDB_KEY=$SPICEDB_KEY"
    return 0
  fi
  need_cmd curl
  cmd_install
  for port in "$SPICEDB_HTTP_PORT" "$SPICEDB_GRPC_PORT"; do
    if port_open "$SPICEDB_HOST" "$port"; then
      die "port $SPICEDB_HOST:$port is already in use (set SPICEDB_HTTP_PORT / SPICEDB_GRPC_PORT)"
    fi
  done
  local t0=$SECONDS datastore=() caches=()
  mapfile -t datastore < <(datastore_flags)
  [[ ${#datastore[@]} -gt 0 ]] || exit 1
  mapfile -t caches < <(cache_flags)
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  if [[ "$SPICEDB_DATASTORE" == postgres ]]; then
    log "migrate head on $SPICEDB_DATASTORE_URI"
    "$BIN" migrate head "${datastore[@]}" --skip-release-check >>"$LOG_FILE" 2>&1 || {
      dump_log "$LOG_FILE"
      die "spicedb migrate head failed"
    }
  fi
  log "starting on $SPICEDB_URL ($SPICEDB_DATASTORE datastore, caches $SPICEDB_CACHES, grpc on $SPICEDB_HOST:$SPICEDB_GRPC_PORT)"
  start_daemon "$PID_FILE" "$LOG_FILE" "$BIN" serve \
    "${datastore[@]}" \
    "${caches[@]}" \
    --grpc-preshared-key="$SPICEDB_KEY" \
    --grpc-addr="${SPICEDB_HOST}:${SPICEDB_GRPC_PORT}" \
    --http-enabled \
    --http-addr="${SPICEDB_HOST}:${SPICEDB_HTTP_PORT}" \
    --metrics-enabled=false \
    --dispatch-cluster-enabled=false \
    --telemetry-endpoint= \
    --skip-release-check \
    --log-level=warn \
    --log-format=json

  if ! wait_until "$SPICEDB_READY_TIMEOUT" "spicedb answering on $SPICEDB_URL" "$PID_FILE" "$LOG_FILE" spicedb_ready; then
    stop_daemon "$PID_FILE" "$SPICEDB_HOST:$SPICEDB_HTTP_PORT" spicedb 20 || true
    die "spicedb failed to start (logs kept in $RUN_DIR)"
  fi
  log "ready in $(elapsed "$t0") (pid $(read_pid "$PID_FILE"), log $LOG_FILE)"
  echo "SPICEDB_URL=$SPICEDB_URL"
  echo "SPICEDB_KEY=$SPICEDB_KEY"
}

cmd_stop() {
  stop_daemon "$PID_FILE" "$SPICEDB_HOST:$SPICEDB_HTTP_PORT" spicedb 20
  rm -rf "$RUN_DIR"
}

cmd_status() {
  if is_running; then
    echo "spicedb: running (pid $(read_pid "$PID_FILE")) SPICEDB_URL=$SPICEDB_URL"
  else
    echo "spicedb: not running"
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
