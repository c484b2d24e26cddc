"""Fixtures for the `permit` 3.0.0 sdist's own tests (scripts/permit-upstream-tests.sh).

The 3.0.0 sdist ships its test modules but not their conftest.py, utils.py or pytest settings
(2.8.3 ships its conftest.py and utils.py, and that lane uses them). This file gives the 3.0.0
modules the fixtures they name, read from the same environment variables upstream CI sets:

- PDP_API_KEY: the environment key the tests act with;
- PDP_URL: the PDP (here: the service itself);
- PDP_CONTROL_PLANE: the REST API (here: the service itself).

`permit_cloud` resolves as upstream's does (PDP_URL, else the cloud PDP), so the tests that
assert what Permit's cloud PDP refuses see that PDP_URL points at a PDP container and skip
themselves, as they do in upstream CI.
"""

import os

import pytest

from permit import Permit, PermitConfig
from permit.sync import Permit as SyncPermit

# test_rbac_e2e.py's timeout tests talk to a local pytest_httpserver at this port.
MOCKED_PORT = 9999


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple:
    return "localhost", MOCKED_PORT


def _token() -> str:
    token = os.getenv("PDP_API_KEY", "")
    if not token:
        pytest.fail("PDP_API_KEY is not set: run scripts/permit-upstream-tests.sh")
    return token


def _config(pdp: str, api_url: str) -> PermitConfig:
    return PermitConfig(token=_token(), pdp=pdp, api_url=api_url, log={"level": "debug", "enable": True})


@pytest.fixture
def permit_config() -> PermitConfig:
    return _config(os.getenv("PDP_URL", "http://localhost:7766"), os.getenv("PDP_CONTROL_PLANE", "http://localhost:8000"))


@pytest.fixture
def permit(permit_config: PermitConfig) -> Permit:
    return Permit(permit_config)


@pytest.fixture
def sync_permit(permit_config: PermitConfig) -> SyncPermit:
    return SyncPermit(permit_config)


@pytest.fixture
def permit_config_cloud() -> PermitConfig:
    return _config(
        os.getenv("PDP_URL", "https://cloudpdp.api.permit.io"),
        os.getenv("PDP_CONTROL_PLANE", "https://api.permit.io"),
    )


@pytest.fixture
def permit_cloud(permit_config_cloud: PermitConfig) -> Permit:
    return Permit(permit_config_cloud)
