#!/usr/bin/env bash
# Runs the official Python SDK (`permit` from PyPI) against the service: pytest over test/sdk/python
# (CI runs it after `npm test`).
#
#   scripts/python-sdk-tests.sh                          # all the family tests
#   scripts/python-sdk-tests.sh -- -k tenants -x         # more pytest options after --
#
# 1. a Python virtualenv with the pins of test/sdk/python/requirements.txt, cached in
#    .cache/python-sdk-venv (gitignored; rebuilt when that file changes), and one with permit 2.8.3
#    and pydantic < 2 (test/sdk/upstream/requirements-v1.txt) for the modules in BOTH_LANES;
# 2. `npm run build` when dist/main.js is missing or older than a source file, then the one-process
#    service (`node dist/main.js`, embedded engines) on a fresh DATA_DIR and a free loopback port;
#    waits for /readyz;
# 3. the organisation admin key from $DATA_DIR/admin-api-key, and an environment key minted with it
#    for default/production;
# 4. `pytest test/sdk/python` (then BOTH_LANES again with the older SDK, unless pytest options
#    were given) with PERMIT_TEST_URL, PERMIT_TEST_ENV_KEY, PERMIT_TEST_ORG_KEY,
#    PERMIT_TEST_PROJECT and PERMIT_TEST_ENVIRONMENT set (test/sdk/python/conftest.py reads them);
# 5. stops the service whatever happens. Exit code: pytest's (or non-zero if a step failed).
#
# Environment: PYSDK_LOG_DIR (default .cache/python-sdk-report: the service log), PYSDK_LOG_LEVEL
# (the service's LOG_LEVEL, default warn).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

requirements=$repo/test/sdk/python/requirements.txt
venv=$repo/.cache/python-sdk-venv
log_dir=${PYSDK_LOG_DIR:-$repo/.cache/python-sdk-report}
started=$SECONDS
step() { echo "[python-sdk $((SECONDS - started))s] $*" >&2; }

pytest_args=()
if [[ "${1:-}" == "--" ]]; then
  shift
  pytest_args=("$@")
fi

# A virtualenv with exactly the pins of a requirements file, rebuilt when the file changes.
pinned_venv() {
  local file=$1 dir=$2 pins
  pins=$(sha256sum "$file" | cut -d' ' -f1)
  if [[ "$(cat "$dir/.pinned" 2>/dev/null)" != "$pins" ]]; then
    step "installing $(grep -E '^(permit|pydantic|pytest)==' "$file" | tr '\n' ' ')into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$file"
    echo "$pins" >"$dir/.pinned"
  fi
}
pinned_venv "$requirements" "$venv"
# The modules that run in the older SDK's lane too (permit 2.8.3 with pydantic < 2: its models parse
# the same bodies with pydantic 1), with the pins of Permit's own tests' lane v1.
requirements_v1=$repo/test/sdk/upstream/requirements-v1.txt
venv_v1=$repo/.cache/python-sdk-venv-v1
BOTH_LANES=(test_error_bodies.py)
pinned_venv "$requirements_v1" "$venv_v1"

# Rebuild only when a source of the build is newer than its output: the family tests are run often
# while the service changes, and a stale dist/ would test yesterday's code.
needs_build() {
  [[ ! -f dist/main.js ]] && return 0
  [[ -n "$(find main.ts app command-service projection-service task-service shared console package.json tsconfig.json tsconfig.build.json \
    -newer dist/main.js -type f -print -quit 2>/dev/null)" ]]
}
if needs_build; then
  step "building dist/"
  npm run build --silent
fi

# shellcheck source=scripts/embedded-service.sh
source "$repo/scripts/embedded-service.sh"
service_log=$log_dir/service.log
embedded_service_start "$service_log" "${PYSDK_LOG_LEVEL:-warn}"
url=$SERVICE_URL
project=default
environment=production
org_key=$ADMIN_KEY
env_key=$(embedded_service_env_key python-sdk-tests)

step "pytest test/sdk/python against $url ($project/$environment)"
set +e
# No __pycache__ or .pytest_cache left in the tree.
PYTHONDONTWRITEBYTECODE=1 PERMIT_TEST_URL=$url PERMIT_TEST_ORG_KEY=$org_key PERMIT_TEST_ENV_KEY=$env_key \
  PERMIT_TEST_PROJECT=$project PERMIT_TEST_ENVIRONMENT=$environment \
  "$venv/bin/python" -m pytest "$repo/test/sdk/python" -p no:cacheprovider --junitxml "$log_dir/junit.xml" "${pytest_args[@]}"
pytest_rc=$?
# The plain closing line (and .ci/run's tally): see scripts/junit-tally.py.
[[ -f "$log_dir/junit.xml" ]] && python3 "$repo/scripts/junit-tally.py" "$log_dir/junit.xml"
if [[ ${#pytest_args[@]} -eq 0 ]]; then
  step "pytest ${BOTH_LANES[*]} with $(grep -E '^permit==' "$requirements_v1") and pydantic < 2"
  PYTHONDONTWRITEBYTECODE=1 PERMIT_TEST_URL=$url PERMIT_TEST_ORG_KEY=$org_key PERMIT_TEST_ENV_KEY=$env_key \
    PERMIT_TEST_PROJECT=$project PERMIT_TEST_ENVIRONMENT=$environment \
    "$venv_v1/bin/python" -m pytest "${BOTH_LANES[@]/#/$repo/test/sdk/python/}" -p no:cacheprovider --junitxml "$log_dir/junit-v1.xml"
  v1_rc=$?
  [[ -f "$log_dir/junit-v1.xml" ]] && python3 "$repo/scripts/junit-tally.py" "$log_dir/junit-v1.xml"
  [[ $v1_rc -eq 0 ]] || pytest_rc=$v1_rc
fi
set -e

if [[ $pytest_rc -eq 0 ]]; then verdict=passed; else verdict="FAILED (pytest exit $pytest_rc)"; fi
echo "== Python SDK tests ($(grep -E '^permit==' "$requirements")): $verdict (service log: $service_log)"
exit "$pytest_rc"
