"""Every error status the service can send parses as the SDK's error model.

The SDK turns an error answer into its typed exception in `permit.exceptions.handle_api_error`:
the body is parsed as `ErrorDetails`, whose `error_code` is Permit's `ErrorCode` enum; a code
outside the enum made it fall back to a bare `PermitApiError` caused by a pydantic error. Each case
here provokes one status from the real service over plain HTTP and hands the answer to that same
function, as every `permit.api` call does.
"""

from __future__ import annotations

import aiohttp
import pytest
from permit.api.models import ErrorCode
from permit.exceptions import (
    PermitAlreadyExistsError,
    PermitApiDetailedError,
    PermitNotFoundError,
    PermitValidationError,
    handle_api_error,
)

from conftest import Service

FACTS = "/v2/facts/{project}/{environment}"


async def _refusal(service: Service, method: str, path: str, key: str | None = None, **kwargs) -> BaseException:
    path = path.format(project=service.project, environment=service.environment)
    headers = {"Authorization": f"Bearer {key or service.env_key}", **kwargs.pop("headers", {})}
    async with aiohttp.ClientSession() as session:
        async with session.request(method, f"{service.url}{path}", headers=headers, **kwargs) as response:
            with pytest.raises(Exception) as raised:
                await handle_api_error(response)
            return raised.value


# (status, reason, how to provoke it); reason: our finer code beside Permit's error_code, or None.
CASES = [
    (
        400,
        None,
        "POST",
        FACTS + "/tenants",
        {"data": b"not gzip", "headers": {"Content-Type": "application/json", "Content-Encoding": "gzip"}},
    ),
    (401, None, "GET", "/v2/api-key/scope", {"key": "not-a-key"}),
    (403, None, "POST", "/v2/projects", {"json": {"key": "p", "name": "P"}}),
    (404, None, "GET", FACTS + "/tenants/no-such-tenant", {}),
    (405, "METHOD_NOT_ALLOWED", "PUT", FACTS + "/tenants", {"json": {}}),
    (413, "PAYLOAD_TOO_LARGE", "POST", FACTS + "/tenants", {"json": {"key": "big", "name": "x" * 2_000_000}}),
    (415, "UNSUPPORTED_MEDIA_TYPE", "POST", FACTS + "/tenants", {"data": "key=t", "headers": {"Content-Type": "text/plain"}}),
    (431, "REQUEST_HEADER_FIELDS_TOO_LARGE", "GET", FACTS + "/tenants", {"headers": {"X-Filler": "x" * 20_000}}),
    (501, "NOT_IMPLEMENTED", "GET", "/v2/members", {"key": "org"}),
]


@pytest.mark.parametrize(("status", "reason", "method", "path", "options"), CASES, ids=[str(case[0]) for case in CASES])
async def test_an_error_status_parses_as_the_sdk_error_model(
    service: Service, status: int, reason: str | None, method: str, path: str, options: dict
) -> None:
    options = dict(options)
    key_name = options.pop("key", None)
    key = service.org_key if key_name == "org" else key_name
    error = await _refusal(service, method, path, key, **options)
    assert getattr(error, "status_code", None) == status, error
    # The typed error, never the fallback a body outside the SDK's model gives.
    assert isinstance(error, (PermitApiDetailedError, PermitNotFoundError, PermitAlreadyExistsError)), repr(error)
    content = error.content
    assert ErrorCode(content.error_code)
    assert getattr(content, "reason", None) == reason


async def test_a_duplicate_parses_as_already_exists(permit, service: Service, unique_key) -> None:
    key = unique_key("tenant")
    await permit.api.tenants.create({"key": key, "name": "Once"})
    error = await _refusal(service, "POST", FACTS + "/tenants", json={"key": key, "name": "Twice"})
    assert isinstance(error, PermitAlreadyExistsError)
    assert error.content.error_code == ErrorCode.DUPLICATE_ENTITY


async def test_an_invalid_body_parses_as_the_validation_error(service: Service) -> None:
    error = await _refusal(service, "POST", FACTS + "/tenants", json={"key": "no name", "name": None})
    assert isinstance(error, PermitValidationError)
    assert [tuple(d.loc) for d in error.content.detail] == [("body", "key"), ("body", "name")]
