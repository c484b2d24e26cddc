#!/usr/bin/env bash
# Permit's own tests, unchanged, against the service: the e2e tests that ship in the `permit` sdist
# on PyPI (`tests/`), in upstream CI's two lanes (permitio/permit-python, .github/workflows/test.yml):
#
#   lane v1: permit 2.8.3 with pydantic < 2
#   lane v2: permit 3.0.0 with pydantic >= 2
#
#   scripts/permit-upstream-tests.sh                 # both lanes
#   scripts/permit-upstream-tests.sh v2 -- -x -k rebac   # one lane, more pytest options after --
#   UPSTREAM_MODULES="test_rebac_e2e.py" scripts/permit-upstream-tests.sh   # some modules only
#
# For each lane:
# 1. the sdist, downloaded once with pip into .cache/permit-upstream (gitignored) and unpacked; a
#    virtualenv with that `permit`, the lane's pydantic and the test tools
#    (test/sdk/upstream/requirements-<lane>.txt), rebuilt when that file changes;
# 2. the sdist's `tests/` copied as they are into a work folder. The 3.0.0 sdist ships its test
#    modules without their conftest.py, utils.py and pytest settings: test/sdk/upstream/ holds ours
#    (same fixtures, same environment variables as upstream CI), copied beside them. The 2.8.3 sdist
#    ships its own conftest.py and utils.py, used as they are;
# 3. each test module in an environment of its own (upstream CI makes one scratch environment per
#    lane; the 2.8.3 modules use fixed keys such as `document` and `admin`, so two of them in one
#    environment would meet each other's objects): `POST /v2/projects/default/envs`, an environment
#    key, then pytest with PDP_URL and PDP_CONTROL_PLANE at the service and PDP_API_KEY the key,
#    as upstream CI sets them;
# 4. `--runxfail`: the 2.8.3 modules mark five tests xfail (they failed against Permit's cloud at the
#    time); here they must pass like any other;
# 5. the tests that need Permit's cloud itself are deselected, each named in CLOUD_ONLY below with
#    its reason (docs/permit-compat.md lists them too).
#
# Only the e2e modules run (the ones that talk to an API and a PDP); the 3.0.0 sdist's offline
# modules test the SDK against a mock HTTP server and say nothing about this service.
# One service (scripts/embedded-service.sh) serves both lanes; it is stopped whatever happens.
# Exit code: non-zero when any lane failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
cache=$repo/.cache/permit-upstream
log_dir=${UPSTREAM_LOG_DIR:-$cache/report}
started=$SECONDS
step() { echo "[permit-upstream $((SECONDS - started))s] $*" >&2; }

lanes=(v1 v2)
if [[ $# -gt 0 && "$1" != "--" ]]; then
  lanes=("$1")
  shift
fi
pytest_args=()
if [[ "${1:-}" == "--" ]]; then
  shift
  pytest_args=("$@")
fi

declare -A SDK_VERSION=([v1]=2.8.3 [v2]=3.0.0)
E2E_MODULES=(test_abac_e2e.py test_abac_pdp.py test_rbac_e2e.py test_rbac_e2e_sync.py test_rebac_e2e.py
  test_sync_client.py test_user_invites_complete_e2e.py)
if [[ -n "${UPSTREAM_MODULES:-}" ]]; then read -r -a E2E_MODULES <<<"$UPSTREAM_MODULES"; fi
# Tests that assert what Permit's cloud PDP refuses (it serves no ABAC: `check`, `get_user_permissions`
# and `filter_objects` with attributes raise there). This service is the PDP and serves ABAC, so they
# cannot pass against any local PDP; 3.0.0's versions skip themselves when PDP_URL names a local one.
declare -A CLOUD_ONLY=(
  [v1]="test_abac_pdp.py::test_abac_pdp_cloud_error test_abac_pdp.py::test_get_user_permissions_cloud_error test_abac_pdp.py::test_filter_objects_cloud_error"
  [v2]=""
)

prepare_lane() {
  local lane=$1 version=${SDK_VERSION[$1]}
  local requirements=$repo/test/sdk/upstream/requirements-$lane.txt
  local venv=$cache/venv-$lane sdist_dir=$cache/permit-$version
  if [[ ! -d "$sdist_dir/tests" ]]; then
    step "downloading the permit $version sdist"
    mkdir -p "$cache"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
      "permit==$version" -d "$cache"
    tar -xzf "$cache/permit-$version.tar.gz" -C "$cache"
  fi
  local pins
  pins=$(sha256sum "$requirements" | cut -d' ' -f1)
  if [[ "$(cat "$venv/.pinned" 2>/dev/null)" != "$pins" ]]; then
    step "lane $lane: installing $(grep -E "^(permit|pydantic)==" "$requirements" | tr '\n' ' ')into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    echo "$pins" >"$venv/.pinned"
  fi
  local work=$cache/work-$lane
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "$sdist_dir/tests" "$work/tests"
  for support in conftest.py utils.py; do
    [[ -f "$work/tests/$support" ]] || cp "$repo/test/sdk/upstream/$support" "$work/tests/$support"
  done
  [[ -f "$work/tests/__init__.py" ]] || touch "$work/tests/__init__.py"
  cp "$repo/test/sdk/upstream/pytest.ini" "$work/pytest.ini"
}

# A new environment in the default project and an environment key for it; prints the key.
scratch_environment() {
  local key=$1
  curl -sf -X POST "$SERVICE_URL/v2/projects/default/envs" -H "Authorization: Bearer $ADMIN_KEY" \
    -H 'content-type: application/json' -d "{\"key\":\"$key\",\"name\":\"$key\"}" >/dev/null
  curl -sf -X POST "$SERVICE_URL/v2/api-key" -H "Authorization: Bearer $ADMIN_KEY" -H 'content-type: application/json' \
    -d "{\"project_id\":\"default\",\"environment_id\":\"$key\",\"object_type\":\"env\",\"name\":\"$key\"}" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])'
}

run_lane() {
  local lane=$1 rc=0 module key
  local work=$cache/work-$lane venv=$cache/venv-$lane
  local deselect=()
  for test_id in ${CLOUD_ONLY[$lane]}; do deselect+=(--deselect "tests/$test_id"); done
  for module in "${E2E_MODULES[@]}"; do
    [[ -f "$work/tests/$module" ]] || continue
    key="upstream-$lane-${module%.py}"
    key=${key//_/-}
    local env_key
    env_key=$(scratch_environment "$key")
    step "lane $lane (permit ${SDK_VERSION[$lane]}): $module in environment $key"
    (
      cd "$work"
      PYTHONDONTWRITEBYTECODE=1 PDP_URL=$SERVICE_URL PDP_CONTROL_PLANE=$SERVICE_URL PDP_API_KEY=$env_key \
        "$venv/bin/python" -m pytest "tests/$module" -p no:cacheprovider --runxfail -q \
        --junitxml "$log_dir/junit-$lane-${module%.py}.xml" "${deselect[@]}" "${pytest_args[@]}"
    ) || {
      local module_rc=$?
      # 5: every test of the module was deselected.
      [[ $module_rc -eq 5 ]] || rc=1
    }
    [[ -f "$log_dir/junit-$lane-${module%.py}.xml" ]] && python3 "$repo/scripts/junit-tally.py" "$log_dir/junit-$lane-${module%.py}.xml"
  done
  return $rc
}

for lane in "${lanes[@]}"; do prepare_lane "$lane"; done

if [[ ! -f dist/main.js ]]; then
  step "building dist/"
  npm run build --silent
fi
mkdir -p "$log_dir"
rm -f "$log_dir"/junit-*.xml
# shellcheck source=scripts/embedded-service.sh
source "$repo/scripts/embedded-service.sh"
embedded_service_start "$log_dir/service.log" "${UPSTREAM_LOG_LEVEL:-warn}"

failed=()
for lane in "${lanes[@]}"; do
  run_lane "$lane" || failed+=("$lane")
done
if [[ ${#failed[@]} -eq 0 ]]; then
  echo "== Permit's own tests (permit ${lanes[*]/#/lane }): passed"
else
  echo "== Permit's own tests: FAILED in lane(s) ${failed[*]} (service log: $log_dir/service.log)"
  exit 1
fi
