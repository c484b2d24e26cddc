"""permit.api.relationship_tuples: create, list (filters), delete, bulk create and delete."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiDetailedError, PermitApiError

from _schema import folder_file_schema


async def test_create_list_delete(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": s.tenant})
    subject, obj = f"{s.folder}:docs", f"{s.file}:readme"

    created = await permit.api.relationship_tuples.create({"subject": subject, "relation": s.parent, "object": obj})
    assert (created.subject, created.relation, created.object, created.tenant) == (subject, s.parent, obj, s.tenant)
    assert created.relation_id == (await permit.api.resource_relations.get(s.file, s.parent)).id

    assert [t.object for t in await permit.api.relationship_tuples.list(subject_key=subject)] == [obj]
    assert [t.subject for t in await permit.api.relationship_tuples.list(object_key=obj, relation_key=s.parent)] == [subject]
    assert len(await permit.api.relationship_tuples.list(tenant_key=s.tenant)) == 1

    await permit.api.relationship_tuples.delete({"subject": subject, "relation": s.parent, "object": obj})
    assert await permit.api.relationship_tuples.list(subject_key=subject) == []


async def test_a_tuple_between_tenants_is_refused(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    other = unique_key("tenant")
    await permit.api.tenants.create({"key": other, "name": "Other"})
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": other})
    with pytest.raises(PermitApiDetailedError) as refused:
        await permit.api.relationship_tuples.create({"subject": f"{s.folder}:docs", "relation": s.parent, "object": f"{s.file}:readme"})
    assert refused.value.status_code == 400
    # Permit's own code for it, from the SDK's ErrorCode enum: the SDK raises its typed error.
    assert refused.value.code == "MISMATCH_RESOURCE_INSTANCES_TENANTS"
    assert other in refused.value.explanation
    assert await permit.api.relationship_tuples.list(subject_key=f"{s.folder}:docs") == []


async def test_bulk_create_and_delete(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    for name in ("a", "b"):
        await permit.api.resource_instances.create({"key": name, "resource": s.file, "tenant": s.tenant})
    tuples = [{"subject": f"{s.folder}:docs", "relation": s.parent, "object": f"{s.file}:{name}"} for name in ("a", "b")]

    await permit.api.relationship_tuples.bulk_create(tuples)
    listed = await permit.api.relationship_tuples.list(subject_key=f"{s.folder}:docs")
    assert sorted(t.object for t in listed) == [f"{s.file}:a", f"{s.file}:b"]

    await permit.api.relationship_tuples.bulk_delete(tuples[:1])
    assert [t.object for t in await permit.api.relationship_tuples.list(subject_key=f"{s.folder}:docs")] == [f"{s.file}:b"]
