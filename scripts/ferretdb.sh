#!/usr/bin/env bash
# FerretDB v1 (MongoDB wire protocol on top of SQLite) for integration tests.
#
#   scripts/ferretdb.sh install   # build ferretdb from the Go module proxy into the cache (idempotent)
#   scripts/ferretdb.sh start     # install if needed, start on a fresh data dir, wait until ready
#   scripts/ferretdb.sh stop      # stop the server started by `start` and delete its data dir
#   scripts/ferretdb.sh kill      # SIGKILL the server (a crash), keeping its data dir and log
#   scripts/ferretdb.sh restart   # start it again on the data dir it had (stopping it first if it runs), wait until ready
#   scripts/ferretdb.sh status
#
# Env: FERRETDB_VERSION (1.24.2), FERRETDB_PORT (27017), FERRETDB_LOG_LEVEL (info),
#      FERRETDB_READY_TIMEOUT (30), SERVERS_CACHE_DIR, SERVERS_RUN_DIR.
#
# Why we build from source: release binaries live on GitHub, which CI cannot reach; the Go
# module proxy is reachable.
#
# Why not `go install github.com/FerretDB/FerretDB/cmd/ferretdb@vX`: FerretDB's build/version
# package embeds build/version/*.txt and, when the binary's main module is
# github.com/FerretDB/FerretDB, panics at init unless version.txt exists. That file is generated
# by their release tooling and is not in the module zip. The same panic happens when building
# the cmd from a wrapper module (Go records the main package's module as the main module), and a
# wrapper cannot reimplement the CLI because cmd/ferretdb uses FerretDB's internal/ packages.
# So we copy the module source out of the read-only module cache, write
# build/version/version.txt ourselves, and `go build ./cmd/ferretdb` inside that copy; the
# module's own go.sum pins every dependency.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=ferretdb

FERRETDB_VERSION="${FERRETDB_VERSION:-1.24.2}"
FERRETDB_VERSION="${FERRETDB_VERSION#v}"
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
FERRETDB_HOST=127.0.0.1
FERRETDB_LOG_LEVEL="${FERRETDB_LOG_LEVEL:-info}"
FERRETDB_READY_TIMEOUT="${FERRETDB_READY_TIMEOUT:-30}"
FERRETDB_MODULE=github.com/FerretDB/FerretDB

INSTALL_DIR="$SERVERS_CACHE_DIR/ferretdb-v${FERRETDB_VERSION}"
BIN="$INSTALL_DIR/bin/ferretdb"

RUN_DIR="$SERVERS_RUN_DIR/ferretdb"
PID_FILE="$RUN_DIR/ferretdb.pid"
LOG_FILE="$RUN_DIR/ferretdb.log"
DATA_DIR="$RUN_DIR/data"
STATE_DIR="$RUN_DIR/state"
MONGODB_URL="mongodb://${FERRETDB_HOST}:${FERRETDB_PORT}/"

binary_works() {
  # Capture first: `ferretdb --version | grep -q` can fail under pipefail with SIGPIPE.
  local out
  [[ -x "$BIN" ]] || return 1
  out="$("$BIN" --version 2>/dev/null)" || return 1
  grep -qx "version: v${FERRETDB_VERSION}" <<<"$out"
}

cmd_install() {
  if binary_works; then
    log "ferretdb v$FERRETDB_VERSION already installed at $BIN"
    return 0
  fi
  need_cmd go
  local t0=$SECONDS work mod_dir
  log "building ferretdb v$FERRETDB_VERSION from the Go module proxy into $INSTALL_DIR"
  mkdir -p "$SERVERS_CACHE_DIR"
  work="$(mktemp -d "$SERVERS_CACHE_DIR/.ferretdb-build.XXXXXX")"
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT

  # Fetch the module into GOMODCACHE and learn where it landed.
  mod_dir="$(cd "$work" && GO111MODULE=on go mod download -json "${FERRETDB_MODULE}@v${FERRETDB_VERSION}" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -n "$mod_dir" && -f "$mod_dir/go.mod" ]] || die "go mod download of ${FERRETDB_MODULE}@v${FERRETDB_VERSION} failed"

  # Writable copy of the source (the module cache is read-only) plus the missing version file.
  cp -R "$mod_dir" "$work/src"
  chmod -R u+w "$work/src"
  echo "v${FERRETDB_VERSION}" >"$work/src/build/version/version.txt"

  # CGO_ENABLED=0: the SQLite backend is modernc.org/sqlite (pure Go), so no C toolchain needed.
  # -buildvcs=false: the copy may sit inside some other git checkout; its VCS info is irrelevant.
  mkdir -p "$INSTALL_DIR/bin"
  (cd "$work/src" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$BIN.tmp" ./cmd/ferretdb) ||
    die "go build of ferretdb failed"
  mv -f "$BIN.tmp" "$BIN"
  binary_works || die "built binary does not report version v$FERRETDB_VERSION"
  rm -rf "$work"
  trap - EXIT
  log "installed $BIN in $(elapsed "$t0")"
}

is_running() {
  pid_matches "$(read_pid "$PID_FILE")" "$RUN_DIR"
}

# Use the service's own MongoDB driver for a real `ping` when the repo's node_modules has it;
# otherwise fall back to "port open + FerretDB logged that it is listening".
have_node_driver() {
  command -v node >/dev/null 2>&1 && (cd "$REPO_DIR" && node -e "require.resolve('mongodb')") >/dev/null 2>&1
}

node_ping() {
  (cd "$REPO_DIR" && MONGODB_URL="$MONGODB_URL" timeout 10 node -e '
    const { MongoClient } = require("mongodb");
    const c = new MongoClient(process.env.MONGODB_URL, { serverSelectionTimeoutMS: 2000 });
    c.connect().then(() => c.db("admin").command({ ping: 1 }))
      .then(() => c.close()).then(() => process.exit(0), () => process.exit(1));
  ') >/dev/null 2>&1
}

# Where the log ended when this start began: only a later 'Listening on TCP' counts.
LOG_OFFSET=0

ferretdb_ready() {
  port_open "$FERRETDB_HOST" "$FERRETDB_PORT" || return 1
  logged_since "$LOG_FILE" "$LOG_OFFSET" 'Listening on TCP' || return 1
  if [[ "$USE_NODE_PING" == 1 ]]; then
    node_ping
  fi
}

cmd_start() {
  if is_running; then
    log "already running (pid $(read_pid "$PID_FILE"))"
    echo "MONGODB_URL=$MONGODB_URL"
    return 0
  fi
  cmd_install
  if port_open "$FERRETDB_HOST" "$FERRETDB_PORT"; then
    die "port $FERRETDB_HOST:$FERRETDB_PORT is already in use (set FERRETDB_PORT)"
  fi

  rm -rf "$RUN_DIR"
  mkdir -p "$DATA_DIR" "$STATE_DIR"
  launch
}

# Starts the server on $DATA_DIR and waits until it is ready.
launch() {
  local t0=$SECONDS
  USE_NODE_PING=0
  if have_node_driver; then USE_NODE_PING=1; fi
  LOG_OFFSET="$(file_size "$LOG_FILE")"

  log "starting on ${FERRETDB_HOST}:${FERRETDB_PORT} (sqlite data in $DATA_DIR)"
  # --sqlite-url must be a directory URI ending in '/': one SQLite file per MongoDB database.
  # --state-dir: FerretDB writes state.json (instance uuid, telemetry choice); keep it out of cwd.
  # --telemetry=disable: never phone home from CI.
  # --debug-addr=-: don't bind the metrics/pprof HTTP port (127.0.0.1:8088 by default).
  start_daemon "$PID_FILE" "$LOG_FILE" "$BIN" \
    --handler=sqlite \
    --sqlite-url="file:${DATA_DIR}/" \
    --listen-addr="${FERRETDB_HOST}:${FERRETDB_PORT}" \
    --state-dir="$STATE_DIR" \
    --telemetry=disable \
    --debug-addr=- \
    --log-level="$FERRETDB_LOG_LEVEL" \
    --log-format=text

  if ! wait_until "$FERRETDB_READY_TIMEOUT" "ferretdb ready on port $FERRETDB_PORT" "$PID_FILE" "$LOG_FILE" ferretdb_ready; then
    # Kill the half-started server but keep $RUN_DIR (logs) for CI artifacts; the next
    # start/stop removes it.
    stop_daemon "$PID_FILE" "$RUN_DIR" ferretdb 20 || true
    die "ferretdb failed to start (logs kept in $RUN_DIR)"
  fi
  log "ready in $(elapsed "$t0") (pid $(read_pid "$PID_FILE"), $([[ $USE_NODE_PING == 1 ]] && echo "ping ok" || echo "port check only"), log $LOG_FILE)"
  echo "MONGODB_URL=$MONGODB_URL"
}

cmd_stop() {
  stop_daemon "$PID_FILE" "$RUN_DIR" ferretdb 20
  rm -rf "$RUN_DIR"
}

cmd_kill() {
  kill_daemon "$PID_FILE" "$RUN_DIR" ferretdb
}

cmd_restart() {
  [[ -d "$DATA_DIR" && -d "$STATE_DIR" ]] || die "no data dir in $RUN_DIR to restart on (run start first)"
  if is_running; then stop_daemon "$PID_FILE" "$RUN_DIR" ferretdb 20; fi
  [[ -x "$BIN" ]] || die "$BIN is missing (run install)"
  if port_open "$FERRETDB_HOST" "$FERRETDB_PORT"; then
    die "port $FERRETDB_HOST:$FERRETDB_PORT is already in use (set FERRETDB_PORT)"
  fi
  launch
}

cmd_status() {
  if is_running; then
    echo "ferretdb: running (pid $(read_pid "$PID_FILE")) MONGODB_URL=$MONGODB_URL"
  else
    echo "ferretdb: not running"
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
