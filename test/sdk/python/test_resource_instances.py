"""permit.api.resource_instances: create, get, list (filtered), delete, bulk replace and delete."""

import pytest
from permit import Permit
from permit.exceptions import PermitNotFoundError

from _schema import folder_file_schema


async def test_resource_instance_round_trip(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    created = await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    assert (created.key, created.resource, created.tenant) == ("docs", s.folder, s.tenant)
    assert created.resource_id == (await permit.api.resources.get(s.folder)).id
    assert created.tenant_id == (await permit.api.tenants.get(s.tenant)).id

    fetched = await permit.api.resource_instances.get(f"{s.folder}:docs")
    assert fetched.id == created.id
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": s.tenant})

    in_tenant = await permit.api.resource_instances.list(tenant_key=s.tenant)
    assert sorted((i.resource, i.key) for i in in_tenant) == sorted([(s.folder, "docs"), (s.file, "readme")])
    of_type = await permit.api.resource_instances.list(resource_key=s.file)
    assert [i.key for i in of_type] == ["readme"]

    await permit.api.resource_instances.delete(f"{s.file}:readme")
    with pytest.raises(PermitNotFoundError) as missing:
        await permit.api.resource_instances.get(f"{s.file}:readme")
    assert missing.value.status_code == 404


async def test_an_instance_in_an_unknown_tenant_is_refused(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    ghost = unique_key("ghost")
    with pytest.raises(PermitNotFoundError) as refused:
        await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": ghost})
    assert refused.value.status_code == 404
    assert ghost in refused.value.message
    assert await permit.api.resource_instances.list(resource_key=s.folder) == []


async def test_bulk_replace_and_delete(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.bulk_replace(
        [
            {"key": "a", "resource": s.folder, "tenant": s.tenant},
            {"key": "b", "resource": s.folder, "tenant": s.tenant},
        ]
    )
    assert sorted(i.key for i in await permit.api.resource_instances.list(resource_key=s.folder)) == ["a", "b"]
    await permit.api.resource_instances.bulk_delete([f"{s.folder}:a"])
    assert [i.key for i in await permit.api.resource_instances.list(resource_key=s.folder)] == ["b"]
