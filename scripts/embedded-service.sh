# Sourced (not run) by the scripts that drive the one-process service over HTTP: scripts/fuzz-api.sh
# and scripts/python-sdk-tests.sh. The caller defines `step MESSAGE` (its own log prefix).
#
#   embedded_service_start LOG_FILE LOG_LEVEL
#       `node dist/main.js` (embedded engines) on a fresh DATA_DIR and a free loopback port; waits
#       for /readyz. Sets SERVICE_URL and ADMIN_KEY (the organisation admin key the service writes
#       to its DATA_DIR), and an EXIT trap that stops the service, removes its DATA_DIR, prints the
#       log's errors when the script fails, and exits with the script's status.
#   embedded_service_env_key NAME
#       prints the secret of a new environment key for default/production, named NAME.

SERVICE_URL=
ADMIN_KEY=
_service_pid=
_service_data_dir=
_service_log=

embedded_service_start() {
  _service_log=$1
  local level=$2 port
  _service_data_dir=$(mktemp -d "${TMPDIR:-/tmp}/rebac-service.XXXXXX")
  mkdir -p "$(dirname "$_service_log")"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  SERVICE_URL=http://127.0.0.1:$port
  trap _embedded_service_stop EXIT
  trap 'exit 130' INT TERM

  step "starting the service on $SERVICE_URL (DATA_DIR $_service_data_dir)"
  PORT=$port HOST=127.0.0.1 DATA_DIR=$_service_data_dir LOG_LEVEL=$level node dist/main.js >"$_service_log" 2>&1 &
  _service_pid=$!
  for _ in $(seq 1 300); do
    if curl -sf "$SERVICE_URL/readyz" >/dev/null 2>&1; then break; fi
    kill -0 "$_service_pid" 2>/dev/null || {
      cat "$_service_log" >&2
      echo "the service exited" >&2
      exit 1
    }
    sleep 0.1
  done
  curl -sf "$SERVICE_URL/readyz" >/dev/null || {
    echo "the service did not become ready" >&2
    exit 1
  }
  ADMIN_KEY=$(tr -d "\n" <"$_service_data_dir/admin-api-key")
}

embedded_service_env_key() {
  curl -sf -X POST "$SERVICE_URL/v2/api-key" -H "Authorization: Bearer $ADMIN_KEY" -H 'content-type: application/json' \
    -d "{\"project_id\":\"default\",\"environment_id\":\"production\",\"object_type\":\"env\",\"name\":\"$1\"}" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])'
}

_embedded_service_stop() {
  local rc=$?
  if [[ -n "$_service_pid" ]] && kill -0 "$_service_pid" 2>/dev/null; then
    step "stopping the service (pid $_service_pid)"
    kill -TERM "$_service_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$_service_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$_service_pid" 2>/dev/null || true
    wait "$_service_pid" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -f "$_service_log" ]]; then
    echo "--- 5xx and errors in the service log ($_service_log):" >&2
    grep -E '"level":(50|60)' "$_service_log" | tail -n 20 >&2 || true
  fi
  rm -rf "$_service_data_dir"
  step "done (exit $rc)"
  exit "$rc"
}
