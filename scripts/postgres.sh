#!/usr/bin/env bash
# A throwaway PostgreSQL cluster: the event log's server for the real-server tests (started by
# scripts/test-servers.sh for .ci/e2e.sh), and the peers' of `npm run bench` (SpiceDB and OpenFGA).
#
#   scripts/postgres.sh install   # PostgreSQL from Debian's packages when its binaries are missing (apt-get install -y postgresql)
#   scripts/postgres.sh start     # initdb a fresh cluster in the run dir, start it on loopback, create the databases;
#                                 # prints POSTGRES_PORT=... and POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/
#   scripts/postgres.sh stop      # fast shutdown (pg_ctl stop -m fast) of the primary and of the standby if there is
#                                 # one (immediate, then SIGKILL, if that fails), and delete the run dir (data included)
#   scripts/postgres.sh status
#
# For the fault tests (test/faults/postgres-crashes.e2e.test.ts), on the cluster `start` made (same
# SERVERS_RUN_DIR):
#   scripts/postgres.sh kill      # SIGKILL the postmaster and every process of the cluster at once (a machine that
#                                 # dies: nothing flushed but what was fsynced); keeps the data dir
#   scripts/postgres.sh restart [-m fast|immediate]
#                                 # stop (if running) with that mode, then start on the same data dir and port;
#                                 # `-m immediate` is a crash: no shutdown checkpoint, crash recovery at start
#   scripts/postgres.sh standby   # a streaming standby: a second cluster from pg_basebackup -R on the next free
#                                 # port, and the primary made to wait for it (synchronous_standby_names='*',
#                                 # synchronous_commit=on); prints POSTGRES_STANDBY_PORT=... POSTGRES_STANDBY_URL=...
#   scripts/postgres.sh promote   # pg_ctl promote the standby (after the primary was killed)
#   scripts/postgres.sh standby-stop
#                                 # stop and delete the standby, and let the primary commit alone again
#                                 # (synchronous_standby_names reset, even while the primary is down)
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
STANDBY_DIR="$RUN_DIR/standby"
STANDBY_LOG_FILE="$RUN_DIR/standby.log"
STANDBY_PORT_FILE="$RUN_DIR/standby-port"

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

# postmaster_pid [DATA_DIR] -> the pid its postmaster.pid names (the primary's by default).
postmaster_pid() {
  local dir="${1:-$DATA_DIR}"
  [[ -f "$dir/postmaster.pid" ]] && head -n 1 "$dir/postmaster.pid" | tr -dc '0-9'
}

# is_running [DATA_DIR]: the postmaster is started with `-D <data dir>`, so its command line names it.
is_running() {
  local dir="${1:-$DATA_DIR}"
  pid_matches "$(postmaster_pid "$dir" 2>/dev/null || true)" "$dir"
}

port() { cat "$PORT_FILE"; }

url() { echo "postgres://postgres@${POSTGRES_HOST}:$(port)/"; }

print_env() {
  echo "POSTGRES_PORT=$(port)"
  echo "POSTGRES_URL=$(url)"
}

# pick_port [FIRST]: $POSTGRES_PORT if set (for the primary), else the first free port from FIRST (15432).
pick_port() {
  local p="${POSTGRES_PORT:-}" first="${1:-15432}"
  if [[ -n "$p" && -z "${1:-}" ]]; then
    port_open "$POSTGRES_HOST" "$p" && die "port $POSTGRES_HOST:$p is already in use (unset POSTGRES_PORT to pick a free one)"
    echo "$p"
    return 0
  fi
  for ((p = first; p < first + 100; p++)); do
    if ! port_open "$POSTGRES_HOST" "$p"; then
      echo "$p"
      return 0
    fi
  done
  die "no free port in $first-$((first + 99)) (set POSTGRES_PORT)"
}

# start_server DATA_DIR PORT LOG_FILE [EXTRA_OPTIONS]: pg_ctl start, which detaches the postmaster
# (its own session) and waits until it accepts connections (after crash recovery, if it needs one).
start_server() {
  local dir="$1" p="$2" logfile="$3" extra="${4:-}"
  as_owner "$(pg_bin_dir)/pg_ctl" start -D "$dir" -l "$logfile" -w -t "$POSTGRES_READY_TIMEOUT" \
    -o "-c listen_addresses=$POSTGRES_HOST -p $p -k $RUN_DIR -c max_connections=$POSTGRES_MAX_CONNECTIONS $extra" >&2
}

# psql_primary SQL: one statement on the primary, unaligned output.
psql_primary() {
  as_owner "$(pg_bin_dir)/psql" -h "$RUN_DIR" -p "$(port)" -U postgres -d postgres -v ON_ERROR_STOP=1 -Atqc "$1"
}

# kill_cluster DATA_DIR NAME: SIGKILL the postmaster and its children together (a child left alive
# would hold the shared memory, and a new postmaster would refuse to start on the data dir).
kill_cluster() {
  local dir="$1" name="$2" pid children i
  pid="$(postmaster_pid "$dir" 2>/dev/null || true)"
  pid_matches "$pid" "$dir" || return 1
  children="$(pgrep -P "$pid" || true)"
  log "$name: killing the postmaster $pid and its $(wc -w <<<"$children") processes (SIGKILL)"
  # shellcheck disable=SC2086 # one pid per word
  kill -KILL "$pid" $children 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    local alive=0 c
    for c in $pid $children; do pid_alive "$c" && alive=1; done
    ((alive == 0)) && return 0
    sleep 0.1
  done
  die "$name: processes still alive 10 s after SIGKILL"
}

# stop_cluster DATA_DIR NAME: fast shutdown, else immediate, else SIGKILL; never fails.
stop_cluster() {
  local dir="$1" name="$2"
  is_running "$dir" || return 0
  log "$name: stopping pid $(postmaster_pid "$dir") (fast shutdown)"
  as_owner "$(pg_bin_dir)/pg_ctl" stop -D "$dir" -m fast -w -t 30 >&2 ||
    as_owner "$(pg_bin_dir)/pg_ctl" stop -D "$dir" -m immediate -w -t 30 >&2 ||
    kill_cluster "$dir" "$name" ||
    true
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
  if ! start_server "$DATA_DIR" "$p" "$LOG_FILE"; then
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
  # Each cluster on its own, whatever state the other is in (a fault test may have left the primary
  # killed and the standby promoted).
  if ! is_running "$STANDBY_DIR" && ! is_running; then log "not running"; fi
  stop_cluster "$STANDBY_DIR" standby
  stop_cluster "$DATA_DIR" primary
  rm -rf "$RUN_DIR"
}

cmd_status() {
  if is_running "$STANDBY_DIR"; then
    echo "postgres standby: running (pid $(postmaster_pid "$STANDBY_DIR")) on port $(cat "$STANDBY_PORT_FILE")"
  fi
  if is_running; then
    echo "postgres: running (pid $(postmaster_pid)) POSTGRES_URL=$(url)"
  else
    echo "postgres: not running"
    return 1
  fi
}

require_cluster() {
  [[ -f "$PORT_FILE" && -d "$DATA_DIR" ]] || die "no cluster in $RUN_DIR (run: $0 start)"
}

cmd_kill() {
  require_cluster
  kill_cluster "$DATA_DIR" primary || die "not running (nothing to kill)"
}

cmd_restart() {
  local mode=fast
  if [[ "${1:-}" == "-m" ]]; then mode="${2:-}"; fi
  [[ "$mode" == fast || "$mode" == immediate || "$mode" == smart ]] || die "restart: -m fast|immediate|smart, not '$mode'"
  require_cluster
  local t0=$SECONDS
  if is_running; then
    log "stopping pid $(postmaster_pid) (-m $mode)"
    as_owner "$(pg_bin_dir)/pg_ctl" stop -D "$DATA_DIR" -m "$mode" -w -t 30 >&2 || die "pg_ctl stop -m $mode failed"
  fi
  log "starting on $POSTGRES_HOST:$(port)"
  start_server "$DATA_DIR" "$(port)" "$LOG_FILE" || {
    dump_log "$LOG_FILE"
    die "postgres failed to start again"
  }
  log "running again in $(elapsed "$t0") (pid $(postmaster_pid))"
}

standby_port() { cat "$STANDBY_PORT_FILE"; }

print_standby_env() {
  echo "POSTGRES_STANDBY_PORT=$(standby_port)"
  echo "POSTGRES_STANDBY_URL=postgres://postgres@${POSTGRES_HOST}:$(standby_port)/"
}

cmd_standby() {
  require_cluster
  is_running || die "the primary is not running"
  if is_running "$STANDBY_DIR"; then
    log "standby already running (pid $(postmaster_pid "$STANDBY_DIR"))"
    print_standby_env
    return 0
  fi
  local t0=$SECONDS p
  p="$(pick_port $(($(port) + 1)))"
  rm -rf "$STANDBY_DIR"
  echo "$p" >"$STANDBY_PORT_FILE"
  : >"$STANDBY_LOG_FILE"
  if [[ $EUID -eq 0 ]]; then chown postgres: "$STANDBY_LOG_FILE"; fi
  # -R writes standby.signal and primary_conninfo (the primary's socket); -X stream copies the WAL
  # written during the backup. Done before the primary waits for a standby (below): the copy of
  # postgresql.auto.conf must not make the standby, once promoted, wait for one of its own.
  log "pg_basebackup of the primary into $STANDBY_DIR"
  as_owner "$(pg_bin_dir)/pg_basebackup" -h "$RUN_DIR" -p "$(port)" -U postgres -D "$STANDBY_DIR" -R -X stream -c fast \
    >>"$STANDBY_LOG_FILE" 2>&1 || {
    dump_log "$STANDBY_LOG_FILE"
    die "pg_basebackup failed"
  }
  # A standby retries its connection to the primary every wal_retrieve_retry_interval (5 s by
  # default); while it is away a synchronous primary holds every commit, so retry sooner.
  log "starting the standby on $POSTGRES_HOST:$p"
  start_server "$STANDBY_DIR" "$p" "$STANDBY_LOG_FILE" "-c wal_retrieve_retry_interval=200ms" || {
    dump_log "$STANDBY_LOG_FILE"
    die "the standby failed to start"
  }
  psql_primary "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
  psql_primary "ALTER SYSTEM SET synchronous_commit = on" >/dev/null
  psql_primary "SELECT pg_reload_conf()" >/dev/null
  local i state=""
  for ((i = 0; i < 300; i++)); do
    state="$(psql_primary "SELECT string_agg(sync_state, ',') FROM pg_stat_replication" || true)"
    [[ "$state" == sync ]] && break
    sleep 0.1
  done
  [[ "$state" == sync ]] || die "the standby did not become synchronous (pg_stat_replication: '$state')"
  log "standby ready in $(elapsed "$t0") (pid $(postmaster_pid "$STANDBY_DIR"), synchronous, log $STANDBY_LOG_FILE)"
  print_standby_env
}

cmd_promote() {
  is_running "$STANDBY_DIR" || die "no standby running (run: $0 standby)"
  log "promoting the standby on port $(standby_port)"
  as_owner "$(pg_bin_dir)/pg_ctl" promote -D "$STANDBY_DIR" -w -t "$POSTGRES_READY_TIMEOUT" >&2 || die "pg_ctl promote failed"
}

cmd_standby_stop() {
  stop_cluster "$STANDBY_DIR" standby
  rm -rf "$STANDBY_DIR" "$STANDBY_PORT_FILE" "$STANDBY_LOG_FILE"
  # Without this the primary would hold every commit for a standby that is gone.
  if is_running; then
    psql_primary "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null
    psql_primary "SELECT pg_reload_conf()" >/dev/null
  elif [[ -f "$DATA_DIR/postgresql.auto.conf" ]]; then
    # ALTER SYSTEM's file, edited while the server is down (it reads it at start).
    sed -i '/^synchronous_standby_names/d' "$DATA_DIR/postgresql.auto.conf"
  fi
  log "standby removed; the primary commits alone"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  kill) cmd_kill ;;
  restart) cmd_restart "${@:2}" ;;
  standby) cmd_standby ;;
  promote) cmd_promote ;;
  standby-stop) cmd_standby_stop ;;
  *)
    echo "usage: $0 install|start|stop|status|kill|restart [-m fast|immediate]|standby|promote|standby-stop" >&2
    exit 2
    ;;
esac
