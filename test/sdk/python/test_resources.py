"""permit.api.resources: create, get (by key and by id), list, delete."""

import pytest
from permit import Permit
from permit.exceptions import PermitAlreadyExistsError, PermitNotFoundError

from conftest import every_page


async def test_resource_round_trip(permit: Permit, unique_key) -> None:
    key = unique_key("doc")
    created = await permit.api.resources.create(
        {"key": key, "name": "Document", "description": "docs", "actions": {"read": {}, "write": {"name": "Write"}}}
    )
    assert created.key == key
    assert created.name == "Document"
    assert created.description == "docs"
    assert sorted(created.actions) == ["read", "write"]
    assert created.actions["write"].name == "Write"

    fetched = await permit.api.resources.get(key)
    assert fetched.id == created.id
    assert fetched.environment_id == created.environment_id
    assert (await permit.api.resources.get_by_id(str(created.id))).key == key

    listed = [r for r in await every_page(lambda page: permit.api.resources.list(page=page)) if r.key == key]
    assert [r.id for r in listed] == [created.id]

    await permit.api.resources.delete(key)
    # Our error body parses as the SDK's ErrorDetails, so it raises its typed errors.
    with pytest.raises(PermitNotFoundError) as missing:
        await permit.api.resources.get(key)
    assert missing.value.status_code == 404
    assert key in missing.value.message


async def test_a_duplicate_resource_is_a_conflict(permit: Permit, unique_key) -> None:
    key = unique_key("doc")
    await permit.api.resources.create({"key": key, "name": "Document", "actions": {"read": {}}})
    with pytest.raises(PermitAlreadyExistsError) as duplicate:
        await permit.api.resources.create({"key": key, "name": "Again", "actions": {"read": {}}})
    assert duplicate.value.status_code == 409
    assert duplicate.value.code == "DUPLICATE_ENTITY"
    assert (await permit.api.resources.get(key)).name == "Document"
