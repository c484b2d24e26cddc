"""permit.api.resource_relations: create, get, list (a paginated answer), delete."""

import pytest
from permit import Permit
from permit.exceptions import PermitNotFoundError


async def test_resource_relation_round_trip(permit: Permit, unique_key) -> None:
    folder, file = unique_key("folder"), unique_key("file")
    await permit.api.resources.create({"key": folder, "name": "Folder", "actions": {"read": {}}})
    await permit.api.resources.create({"key": file, "name": "File", "actions": {"read": {}}})

    created = await permit.api.resource_relations.create(file, {"key": "parent", "name": "Parent", "subject_resource": folder})
    assert (created.key, created.subject_resource, created.object_resource) == ("parent", folder, file)
    assert created.object_resource_id == (await permit.api.resources.get(file)).id
    assert created.subject_resource_id == (await permit.api.resources.get(folder)).id

    fetched = await permit.api.resource_relations.get(file, "parent")
    assert fetched.id == created.id

    page = await permit.api.resource_relations.list(file)
    assert page.total_count == 1
    assert [r.key for r in page.data] == ["parent"]

    await permit.api.resource_relations.delete(file, "parent")
    with pytest.raises(PermitNotFoundError) as missing:
        await permit.api.resource_relations.get(file, "parent")
    assert missing.value.status_code == 404
    assert (await permit.api.resource_relations.list(file)).total_count == 0


async def test_a_relation_to_an_unknown_resource_is_refused(permit: Permit, unique_key) -> None:
    file = unique_key("file")
    await permit.api.resources.create({"key": file, "name": "File", "actions": {"read": {}}})
    ghost = unique_key("ghost")
    with pytest.raises(PermitNotFoundError) as refused:
        await permit.api.resource_relations.create(file, {"key": "parent", "name": "Parent", "subject_resource": ghost})
    assert refused.value.status_code == 404
    assert ghost in refused.value.message
    assert (await permit.api.resource_relations.list(file)).total_count == 0
