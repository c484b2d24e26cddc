"""permit.api.tenants: create, get (by key and by id), list, delete; typed errors."""

import pytest
from permit import Permit
from permit.exceptions import PermitAlreadyExistsError, PermitNotFoundError, PermitValidationError

from conftest import every_page


async def test_tenant_round_trip(permit: Permit, unique_key) -> None:
    key = unique_key("tenant")
    created = await permit.api.tenants.create({"key": key, "name": "Acme", "description": "a customer", "attributes": {"tier": "gold"}})
    assert (created.key, created.name, created.description) == (key, "Acme", "a customer")
    assert created.attributes == {"tier": "gold"}

    fetched = await permit.api.tenants.get(key)
    assert fetched.id == created.id
    assert (await permit.api.tenants.get_by_id(str(created.id))).key == key

    listed = [t.key for t in await every_page(lambda page: permit.api.tenants.list(page=page)) if t.key == key]
    assert listed == [key]

    await permit.api.tenants.delete(key)
    with pytest.raises(PermitNotFoundError) as missing:
        await permit.api.tenants.get(key)
    assert missing.value.status_code == 404


async def test_a_duplicate_tenant_is_a_conflict(permit: Permit, unique_key) -> None:
    key = unique_key("tenant")
    await permit.api.tenants.create({"key": key, "name": "Acme"})
    with pytest.raises(PermitAlreadyExistsError) as duplicate:
        await permit.api.tenants.create({"key": key, "name": "Other"})
    assert duplicate.value.status_code == 409
    assert (await permit.api.tenants.get(key)).name == "Acme"


async def test_a_page_over_100_is_a_validation_error(permit: Permit) -> None:
    # 422 answers parse as the SDK's HTTPValidationError ({"detail": [{loc, msg, type}]}).
    with pytest.raises(PermitValidationError) as refused:
        await permit.api.tenants.list(per_page=101)
    assert refused.value.status_code == 422
    assert [d.loc for d in refused.value.content.detail] == [["query", "per_page"]]
