#!/usr/bin/env bash
# A throwaway PostgreSQL cluster: the event log's server for the real-server tests (started by
# scripts/test-servers.sh for .ci/e2e.sh), and the peers' of `npm run bench` (SpiceDB and OpenFGA).
#
#   scripts/postgres.sh install   # PostgreSQL from Debian's packages when its binaries are missing (apt-get install -y postgresql)
#   scripts/postgres.sh start     # initdb a fresh cluster in the run dir, start it on loopback, create the databases;
#                                 # prints POSTGRES_PORT=... and POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/
#   scripts/postgres.sh stop      # fast shutdown (pg_ctl stop -m fast) and delete the run dir (data included)
#   scripts/postgres.sh status
#
# Env: POSTGRES_PORT (default: 15432, or the next free port above it), POSTGRES_DATABASES ("spicedb openfga";
#      scripts/test-servers.sh makes it "rebac"),
#      POSTGRES_MAX_CONNECTIONS (300), POSTGRES_READY_TIMEOUT (60), POSTGRES_BIN_DIR (found: see pg_bin_dir),
#      SERVERS_RUN_DIR.
#
# The cluster listens on 127.0.0.1 only (and a Unix socket in the run dir), trusts every local
# connection (no password: nothing else can reach it), and keeps PostgreSQL's defaults otherwise
# (fsync on: the peers run durable, as they ship). max_connections is raised because the bench runs
# two SpiceDB and two OpenFGA processes on it at once, each with its own pool (SpiceDB's read and
# write pools and OpenFGA's default 30 come to more than PostgreSQL's default 100).
#
# PostgreSQL refuses to run as root: as root, every server command runs as the `postgres` user
# (which Debian's package creates), and the run dir is handed to it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOG_PREFIX=postgres

POSTGRES_HOST=127.0.0.1
POSTGRES_DATABASES="${POSTGRES_DATABASES:-spicedb openfga}"
POSTGRES_MAX_CONNECTIONS="${POSTGRES_MAX_CONNECTIONS:-300}"
POSTGRES_READY_TIMEOUT="${POSTGRES_READY_TIMEOUT:-60}"

RUN_DIR="$SERVERS_RUN_DIR/postgres"
DATA_DIR="$RUN_DIR/data"
LOG_FILE="$RUN_DIR/postgres.log"
PORT_FILE="$RUN_DIR/port"

# pg_bin_dir -> the directory holding initdb/pg_ctl/postgres: $POSTGRES_BIN_DIR, else the newest
# /usr/lib/postgresql/<major>/bin (Debian's layout), else wherever initdb is on PATH.
pg_bin_dir() {
  if [[ -n "${POSTGRES_BIN_DIR:-}" ]]; then
    echo "$POSTGRES_BIN_DIR"
    return 0
  fi
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)"
  if [[ -n "$dir" && -x "$dir/initdb" ]]; then
    echo "$dir"
    return 0
  fi
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"
    return 0
  fi
  return 1
}

binaries_work() {
  local dir
  dir="$(pg_bin_dir)" || return 1
  [[ -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/postgres" ]] && "$dir/postgres" --version >/dev/null 2>&1
}

cmd_install() {
  if binaries_work; then
    log "PostgreSQL already installed: $("$(pg_bin_dir)/postgres" --version) in $(pg_bin_dir)"
    return 0
  fi
  need_cmd apt-get
  [[ $EUID -eq 0 ]] || die "PostgreSQL is missing and installing it needs root (apt-get install -y postgresql)"
  local t0=$SECONDS
  # The package would create and start a `main` cluster on port 5432; the bench only uses its own.
  if [[ ! -f /etc/postgresql-common/createcluster.conf ]]; then
    mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
  fi
  log "installing PostgreSQL from Debian's packages (apt-get install -y postgresql)"
  apt-get update -qq >&2 || log "apt-get update failed; trying the install with the lists there are"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2 || die "apt-get install -y postgresql failed"
  binaries_work || die "installed PostgreSQL but found no initdb/pg_ctl/postgres (set POSTGRES_BIN_DIR)"
  log "installed $("$(pg_bin_dir)/postgres" --version) in $(elapsed "$t0")"
}

# as_owner CMD... : run CMD as the cluster's owner (the `postgres` user when we are root).
as_owner() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

postmaster_pid() {
  [[ -f "$DATA_DIR/postmaster.pid" ]] && head -n 1 "$DATA_DIR/postmaster.pid" | tr -dc '0-9'
}

# The postmaster is started with `-D <data dir>`, so its command line names our run dir.
is_running() {
  pid_matches "$(postmaster_pid 2>/dev/null || true)" "$DATA_DIR"
}

port() { cat "$PORT_FILE"; }

url() { echo "postgres://postgres@${POSTGRES_HOST}:$(port)/"; }

print_env() {
  echo "POSTGRES_PORT=$(port)"
  echo "POSTGRES_URL=$(url)"
}

pick_port() {
  local p="${POSTGRES_PORT:-}"
  if [[ -n "$p" ]]; then
    port_open "$POSTGRES_HOST" "$p" && die "port $POSTGRES_HOST:$p is already in use (unset POSTGRES_PORT to pick a free one)"
    echo "$p"
    return 0
  fi
  for ((p = 15432; p < 15532; p++)); do
    if ! port_open "$POSTGRES_HOST" "$p"; then
      echo "$p"
      return 0
    fi
  done
  die "no free port in 15432-15531 (set POSTGRES_PORT)"
}

cmd_start() {
  if is_running; then
    log "already running (pid $(postmaster_pid))"
    print_env
    return 0
  fi
  cmd_install
  local bin t0=$SECONDS p
  bin="$(pg_bin_dir)"
  p="$(pick_port)"
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  echo "$p" >"$PORT_FILE"
  : >"$LOG_FILE"
  # The server appends to the log too, so the owner must own it.
  if [[ $EUID -eq 0 ]]; then chown -R postgres: "$RUN_DIR"; fi
  log "initdb in $DATA_DIR ($("$bin/postgres" --version))"
  as_owner "$bin/initdb" -D "$DATA_DIR" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >>"$LOG_FILE" 2>&1 ||
    as_owner "$bin/initdb" -D "$DATA_DIR" -U postgres --auth=trust --encoding=UTF8 --no-locale >>"$LOG_FILE" 2>&1 ||
    {
      dump_log "$LOG_FILE"
      die "initdb failed"
    }
  log "starting on $POSTGRES_HOST:$p"
  # pg_ctl detaches the postmaster (its own session) and waits until it accepts connections.
  if ! as_owner "$bin/pg_ctl" start -D "$DATA_DIR" -l "$LOG_FILE" -w -t "$POSTGRES_READY_TIMEOUT" \
    -o "-c listen_addresses=$POSTGRES_HOST -p $p -k $RUN_DIR -c max_connections=$POSTGRES_MAX_CONNECTIONS" >&2; then
    dump_log "$LOG_FILE"
    die "postgres failed to start (logs kept in $RUN_DIR)"
  fi
  local db
  for db in $POSTGRES_DATABASES; do
    as_owner "$bin/createdb" -h "$RUN_DIR" -p "$p" -U postgres "$db" >>"$LOG_FILE" 2>&1 || {
      dump_log "$LOG_FILE"
      cmd_stop
      die "createdb $db failed"
    }
  done
  log "ready in $(elapsed "$t0") (pid $(postmaster_pid), databases: $POSTGRES_DATABASES, log $LOG_FILE)"
  print_env
}

cmd_stop() {
  if is_running; then
    log "stopping pid $(postmaster_pid) (fast shutdown)"
    as_owner "$(pg_bin_dir)/pg_ctl" stop -D "$DATA_DIR" -m fast -w -t 30 >&2 ||
      as_owner "$(pg_bin_dir)/pg_ctl" stop -D "$DATA_DIR" -m immediate -w -t 30 >&2 || true
  else
    log "not running"
  fi
  rm -rf "$RUN_DIR"
}

cmd_status() {
  if is_running; then
    echo "postgres: running (pid $(postmaster_pid)) POSTGRES_URL=$(url)"
  else
    echo "postgres: not running"
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
