# shellcheck shell=bash
# Shared helpers for the test-server scripts (kafka.sh, ferretdb.sh, test-servers.sh).
# Source it; do not execute it.
#
# Layout:
#   $SERVERS_CACHE_DIR  (default ~/.cache/rebac-test-servers)  downloaded jars / built binaries.
#                       Safe to cache between CI runs; everything in it is versioned by directory name.
#   $SERVERS_RUN_DIR    (default /tmp/rebac-test-servers)      per-run state: pid files, data dirs, logs.
#                       Each server's subdirectory is deleted by `stop`.

SERVERS_CACHE_DIR="${SERVERS_CACHE_DIR:-$HOME/.cache/rebac-test-servers}"
SERVERS_RUN_DIR="${SERVERS_RUN_DIR:-/tmp/rebac-test-servers}"
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC2034 # used by the scripts that source this file
REPO_DIR="$(cd "$SCRIPTS_DIR/.." && pwd)"

log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${LOG_PREFIX:-servers}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need_cmd() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' is required but not on PATH"
}

# port_open HOST PORT -> 0 if something accepts TCP connections there.
# Uses bash's /dev/tcp so no nc/curl dependency; `timeout` guards against a hanging connect.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# pid_alive PID -> 0 if the process exists (and is not a zombie).
pid_alive() {
  local pid="$1" state
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [[ "$state" != "Z" ]]
}

# pid_matches PID MARKER -> 0 if PID is alive and its command line contains MARKER.
# Every server is started with a path under its own run dir on its command line, so this
# protects `stop` from killing an unrelated process that reused a stale pid.
pid_matches() {
  local pid="$1" marker="$2"
  local cmdline
  pid_alive "$pid" || return 1
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"$marker"* ]]
}

# read_pid PIDFILE -> prints the pid (empty if no file).
read_pid() {
  if [[ -f "$1" ]]; then tr -dc '0-9' <"$1"; fi
}

# start_daemon PIDFILE LOGFILE CMD... : run CMD detached (own session, so CI step / terminal
# signals don't reach it and it outlives this script) with stdout+stderr to LOGFILE.
# The child writes its own pid before exec'ing, so the pid file holds the server's real pid
# (not a wrapper's).
start_daemon() {
  local pidfile="$1" logfile="$2"
  shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $@ must expand in the child shell, not here
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$logfile" 2>&1 &
  # Wait (briefly) for the pid file to appear.
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.1
  done
  die "process did not write its pid file $pidfile"
}

# stop_daemon PIDFILE MARKER NAME [TIMEOUT_S]: SIGTERM, wait, then SIGKILL; only if the pid
# still belongs to our server (see pid_matches).
stop_daemon() {
  local pidfile="$1" marker="$2" name="$3" timeout_s="${4:-30}" pid i
  pid="$(read_pid "$pidfile")"
  if [[ -z "$pid" ]]; then
    log "$name: no pid file, nothing to stop"
    return 0
  fi
  if ! pid_matches "$pid" "$marker"; then
    log "$name: pid $pid is not running (or is not ours); cleaning up"
    rm -f "$pidfile"
    return 0
  fi
  log "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout_s * 10; i++)); do
    pid_alive "$pid" || break
    sleep 0.1
  done
  if pid_alive "$pid"; then
    log "$name: still running after ${timeout_s}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_alive "$pid" || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}

# kill_daemon PIDFILE MARKER NAME: SIGKILL (a crash: no shutdown hook, nothing flushed), wait
# until the process is gone; only if the pid still belongs to our server. Keeps every file.
kill_daemon() {
  local pidfile="$1" marker="$2" name="$3" pid i
  pid="$(read_pid "$pidfile")"
  pid_matches "$pid" "$marker" || die "$name: not running (nothing to kill)"
  log "$name: killing pid $pid (SIGKILL)"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    pid_alive "$pid" || break
    sleep 0.1
  done
  pid_alive "$pid" && die "$name: pid $pid still alive 10 s after SIGKILL"
  rm -f "$pidfile"
}

# file_size FILE -> its size in bytes (0 if missing): where a server's log ends before a restart.
file_size() {
  if [[ -f "$1" ]]; then wc -c <"$1" | tr -d ' '; else echo 0; fi
}

# logged_since FILE OFFSET TEXT -> 0 if TEXT appears in FILE after byte OFFSET (a restarted
# server appends to its old log, whose earlier lines must not count).
logged_since() {
  local out
  [[ -f "$1" ]] || return 1
  # Captured first: `tail | grep -q` fails under pipefail when grep stops reading early.
  out="$(tail -c "+$(($2 + 1))" "$1")"
  grep -qF "$3" <<<"$out"
}

# wait_until TIMEOUT_S DESCRIPTION PIDFILE LOGFILE CHECK_CMD... : poll CHECK_CMD every 0.5 s.
# Fails fast (with the log tail) if the server process dies while we wait.
wait_until() {
  local timeout_s="$1" what="$2" pidfile="$3" logfile="$4"
  shift 4
  local deadline=$((SECONDS + timeout_s)) pid
  pid="$(read_pid "$pidfile")"
  while ((SECONDS < deadline)); do
    if "$@"; then
      return 0
    fi
    if ! pid_alive "$pid"; then
      log "process $pid exited while waiting for: $what"
      dump_log "$logfile"
      return 1
    fi
    sleep 0.5
  done
  log "timed out after ${timeout_s}s waiting for: $what"
  dump_log "$logfile"
  return 1
}

dump_log() {
  local logfile="$1"
  if [[ -f "$logfile" ]]; then
    log "----- last 60 lines of $logfile -----"
    tail -n 60 "$logfile" >&2 || true
    log "-------------------------------------"
  fi
}

# elapsed helper for timing output: prints seconds since START_S (set by caller from $SECONDS).
elapsed() { echo "$((SECONDS - $1))s"; }

# A Go server's command built with `go install` from the Go module proxy into INSTALL_DIR/bin
# (pure Go: CGO_ENABLED=0), once: a marker file records the version, so a half-built or older
# binary is rebuilt. The binary must answer `version`. Used by openfga.sh and spicedb.sh.
#   go_install_pinned NAME MODULE VERSION INSTALL_DIR COLD_TIME
go_install_pinned() {
  local name=$1 module=$2 version=$3 dir=$4 cold=$5
  local bin="$dir/bin/$name" marker="$dir/.installed"
  if [[ -x "$bin" && -f "$marker" ]] && "$bin" version >/dev/null 2>&1; then
    log "$name v$version already installed at $bin"
    return 0
  fi
  need_cmd go
  local t0=$SECONDS
  log "building $name v$version with go install from the Go module proxy into $dir (cold: $cold on 2 cores)"
  mkdir -p "$dir/bin"
  rm -f "$marker"
  GOBIN="$dir/bin" CGO_ENABLED=0 GO111MODULE=on GOFLAGS=-buildvcs=false \
    go install -trimpath "${module}/cmd/${name}@v${version}" ||
    die "go install of ${module}/cmd/${name}@v${version} failed"
  "$bin" version >/dev/null 2>&1 || die "built binary does not run: $bin"
  echo "v${version}" >"$marker"
  log "installed $bin in $(elapsed "$t0")"
}
