#!/usr/bin/env bash
# Install/start/stop all real servers used by the integration/e2e tests:
# Kafka (scripts/kafka.sh), FerretDB (scripts/ferretdb.sh), PostgreSQL (scripts/postgres.sh:
# the event log's server) and Jaeger (scripts/jaeger.sh, the OTLP receiver of the tracing test).
#
#   scripts/test-servers.sh install   # all four, in parallel (cold: ~12 min, dominated by the Jaeger Go build; cached after)
#   scripts/test-servers.sh start     # install if needed, start all, print KAFKA_BROKERS= / MONGODB_URL= / POSTGRES_URL= / JAEGER_*=
#   scripts/test-servers.sh stop      # stop all, delete their data dirs
#   scripts/test-servers.sh status
#
# `start` prints the connection settings as KEY=value lines on stdout (logs go to stderr), so
#   export $(scripts/test-servers.sh start)
# starts everything and exports KAFKA_BROKERS, MONGODB_URL and POSTGRES_URL (the server; the tests
# create a database of their own on it) into the calling shell.
# If $GITHUB_ENV is set (GitHub Actions) they are also appended there for later steps.
set -euo pipefail
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The databases the PostgreSQL cluster starts with: `rebac`, for a service started by hand on it
# (EVENT_STORE=postgres POSTGRES_URL=${POSTGRES_URL}rebac); the tests create their own.
export POSTGRES_DATABASES="${POSTGRES_DATABASES:-rebac}"

install_all() {
  # The installs use different tools (mvn, go, apt-get) and mostly different resources
  # (network vs CPU), so run them concurrently.
  local kpid fpid ppid jpid rc=0
  "$SCRIPTS/kafka.sh" install &
  kpid=$!
  "$SCRIPTS/ferretdb.sh" install &
  fpid=$!
  "$SCRIPTS/postgres.sh" install &
  ppid=$!
  "$SCRIPTS/jaeger.sh" install &
  jpid=$!
  wait "$kpid" || rc=1
  wait "$fpid" || rc=1
  wait "$ppid" || rc=1
  wait "$jpid" || rc=1
  return "$rc"
}

start_all() {
  local out
  install_all
  out="$("$SCRIPTS/kafka.sh" start)"
  if ! out+=$'\n'"$("$SCRIPTS/ferretdb.sh" start)"; then
    # Don't leave Kafka running if FerretDB could not start.
    "$SCRIPTS/kafka.sh" stop || true
    exit 1
  fi
  if ! out+=$'\n'"$("$SCRIPTS/postgres.sh" start)"; then
    "$SCRIPTS/ferretdb.sh" stop || true
    "$SCRIPTS/kafka.sh" stop || true
    exit 1
  fi
  if ! out+=$'\n'"$("$SCRIPTS/jaeger.sh" start)"; then
    "$SCRIPTS/postgres.sh" stop || true
    "$SCRIPTS/ferretdb.sh" stop || true
    "$SCRIPTS/kafka.sh" stop || true
    exit 1
  fi
  echo "$out"
  if [[ -n "${GITHUB_ENV:-}" ]]; then
    echo "$out" >>"$GITHUB_ENV"
  fi
}

stop_all() {
  local rc=0
  "$SCRIPTS/jaeger.sh" stop || rc=1
  "$SCRIPTS/postgres.sh" stop || rc=1
  "$SCRIPTS/ferretdb.sh" stop || rc=1
  "$SCRIPTS/kafka.sh" stop || rc=1
  return "$rc"
}

status_all() {
  local rc=0
  "$SCRIPTS/kafka.sh" status || rc=1
  "$SCRIPTS/ferretdb.sh" status || rc=1
  "$SCRIPTS/postgres.sh" status || rc=1
  "$SCRIPTS/jaeger.sh" status || rc=1
  return "$rc"
}

case "${1:-}" in
  install) install_all ;;
  start) start_all ;;
  stop) stop_all ;;
  status) status_all ;;
  *)
    echo "usage: $0 install|start|stop|status" >&2
    exit 2
    ;;
esac
