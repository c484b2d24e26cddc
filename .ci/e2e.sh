#!/usr/bin/env bash
# The real-server tests: adapter contract suites (MongoDB protocol, Kafka, PostgreSQL; EventStoreDB when
# EVENTSTORE_CONNECTION_STRING is set, reported as skipped otherwise), the three-process
# end-to-end test (test/distributed/), the traces of the three processes read back from Jaeger
# (test/tracing/) and the fault tests (test/faults/), which kill and restart
# the servers through scripts/kafka.sh, scripts/ferretdb.sh and scripts/postgres.sh (same
# SERVERS_RUN_DIR and ports, inherited from this script's environment).
#
#   .ci/e2e.sh            # from anywhere; needs `npm install` done
#
# Installs Kafka, FerretDB and Jaeger from the registries and PostgreSQL from Debian's packages
# (scripts/test-servers.sh; cached in SERVERS_CACHE_DIR; Jaeger's cold build is about 12 minutes on
# 2 cores), builds dist/ (the e2e tests run the services from it), starts the four servers,
# runs `jest --selectProjects e2e --runInBand`, and always stops the servers. Exit code: jest's
# (or the first failing step's). Server logs stay in SERVERS_RUN_DIR only while they run; on a
# failure the last lines of each are printed here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

started=$SECONDS
step() { echo "[e2e $((SECONDS - started))s] $*" >&2; }

step "installing the test servers"
scripts/test-servers.sh install

step "building dist/"
npm run build --silent

step "starting Kafka, FerretDB, PostgreSQL and Jaeger"
run_dir="${SERVERS_RUN_DIR:-/tmp/rebac-test-servers}"
stop_servers() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    for log in "$run_dir/kafka/server.log" "$run_dir/ferretdb/ferretdb.log" "$run_dir/postgres/postgres.log" "$run_dir/jaeger/jaeger.log"; do
      [[ -f "$log" ]] && { echo "--- last lines of $log" >&2; tail -n 30 "$log" >&2; }
    done
  fi
  step "stopping the test servers"
  scripts/test-servers.sh stop || true
  step "done (exit $rc)"
  exit "$rc"
}
trap stop_servers EXIT
settings="$(scripts/test-servers.sh start)"
# shellcheck disable=SC2046
export $settings
export KAFKAJS_NO_PARTITIONER_WARNING=1 E2E_USE_DIST=1
step "servers up: $(echo "$settings" | tr '\n' ' ')"

step "running the e2e tests"
npx jest --selectProjects e2e --runInBand
