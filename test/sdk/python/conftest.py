"""Fixtures every Python SDK family test uses (test/sdk/python/README.md).

scripts/python-sdk-tests.sh starts one service and passes it here through the environment:

- PERMIT_TEST_URL: the service, both the REST API (`api_url`) and the PDP (`pdp`);
- PERMIT_TEST_ENV_KEY: an environment-level key for PERMIT_TEST_PROJECT/PERMIT_TEST_ENVIRONMENT
  (what an application's SDK holds: schema, facts and checks);
- PERMIT_TEST_ORG_KEY: the organisation admin key (projects, environments, copies).

Every test shares that one environment, and in any order: a test creates its own objects under
keys from `unique_key` and never asserts on the whole of a list it did not filter to its own keys.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass
from typing import Awaitable, Callable

import aiohttp
import pytest
from permit import Permit


@dataclass(frozen=True)
class Service:
    url: str
    env_key: str
    org_key: str
    project: str
    environment: str


def _required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: run the tests with scripts/python-sdk-tests.sh")
    return value


@pytest.fixture(scope="session")
def service() -> Service:
    return Service(
        url=_required("PERMIT_TEST_URL"),
        env_key=_required("PERMIT_TEST_ENV_KEY"),
        org_key=_required("PERMIT_TEST_ORG_KEY"),
        project=os.environ.get("PERMIT_TEST_PROJECT", "default"),
        environment=os.environ.get("PERMIT_TEST_ENVIRONMENT", "production"),
    )


def _client(service: Service, token: str) -> Permit:
    # A fresh client per test: the SDK keeps the key's scope (fetched lazily from
    # GET /v2/api-key/scope) and any context a test sets in its config, so sharing one would let a
    # test see another's context.
    return Permit(token=token, api_url=service.url, pdp=service.url)


@pytest.fixture
def permit(service: Service) -> Permit:
    """The SDK as an application holds it: an environment-level key, the service as API and PDP."""
    return _client(service, service.env_key)


@pytest.fixture
def org_permit(service: Service) -> Permit:
    """The SDK with the organisation admin key: `permit.api.projects`, `.environments`, copies."""
    return _client(service, service.org_key)


@pytest.fixture
def unique_key(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """`unique_key("doc")` -> "doc-<test name>-<8 hex>": a key no other test (or run) uses.

    The test's name is in the key so a failure's leftovers say which test made them.
    """
    test_name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:40]

    def make(prefix: str) -> str:
        return f"{prefix}-{test_name}-{uuid.uuid4().hex[:8]}"

    return make


@pytest.fixture
def client_for_environment(service: Service) -> Callable[[str, str], Awaitable[Permit]]:
    """`await client_for_environment(project, env)`: a client holding a new key for that environment.

    The SDK cannot make keys (it only reads one with environments.get_api_key, and the service never
    hands out a stored secret), so the key is minted with the admin key over plain HTTP.
    """

    async def make(project: str, environment: str) -> Permit:
        body = {"project_id": project, "environment_id": environment, "object_type": "env", "name": "python-sdk-tests"}
        headers = {"Authorization": f"Bearer {service.org_key}"}
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{service.url}/v2/api-key", json=body, headers=headers) as response:
                assert response.status == 200, await response.text()
                secret = (await response.json())["secret"]
        return _client(service, secret)

    return make


async def every_page(fetch: Callable[[int], Awaitable[list]], per_page: int = 100) -> list:
    """All items of an array list, page by page: `await every_page(lambda page: permit.api.tenants.list(page=page))`.

    Tests share one environment, so a list can outgrow one page; stop at the first short page.
    """
    items: list = []
    for page in range(1, 10_000):
        batch = await fetch(page)
        items += batch
        if len(batch) < per_page:
            return items
    raise AssertionError("the list did not end")
