"""permit.api facts beyond create and get: users sync/update/delete/roles/bulk, tenants update,
tenant users and bulk, resource instance update, instances created by an assignment or a tuple
that names a tenant, role assignments filtered by several values and by resource, bulk tuples."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiError

from _schema import folder_file_schema


def on(s, resource: str, key: str) -> dict:
    return {"type": resource, "key": key, "tenant": s.tenant}


async def test_user_sync_update_and_delete_with_its_grants(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    key = unique_key("user")
    created = await permit.api.users.sync({"key": key, "email": "sam@example.com", "first_name": "Sam"})
    assert (created.key, created.email) == (key, "sam@example.com")
    # A replace sets the whole profile: what it leaves out is cleared.
    replaced = await permit.api.users.sync({"key": key, "last_name": "Smith"})
    assert (replaced.id, replaced.email, replaced.first_name, replaced.last_name) == (created.id, None, None, "Smith")
    updated = await permit.api.users.update(key, {"first_name": "Samuel"})
    assert (updated.first_name, updated.last_name) == ("Samuel", "Smith")

    # Neither instance exists: naming the tenant creates them.
    await permit.api.relationship_tuples.create(
        {"subject": f"{s.folder}:docs", "relation": s.parent, "object": f"{s.file}:readme", "tenant": s.tenant}
    )
    await permit.api.role_assignments.assign({"user": key, "role": "editor", "resource_instance": f"{s.folder}:docs", "tenant": s.tenant})
    assert (await permit.api.resource_instances.get(f"{s.file}:readme")).tenant == s.tenant
    assert await permit.check(key, "write", on(s, s.file, "readme")) is True

    await permit.api.users.delete(key)
    with pytest.raises(PermitApiError) as gone:
        await permit.api.users.get(key)
    assert gone.value.status_code == 404
    assert await permit.api.role_assignments.list(user_key=key) == []
    assert await permit.check(key, "write", on(s, s.file, "readme")) is False


async def test_user_roles_and_bulk_users(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    ann, bob, cy = unique_key("ann"), unique_key("bob"), unique_key("cy")
    await permit.api.users.create({"key": ann})
    assigned = await permit.api.users.assign_role({"user": ann, "role": "viewer", "resource_instance": f"{s.folder}:docs"})
    assert (assigned.user, assigned.role, assigned.resource_instance) == (ann, "viewer", f"{s.folder}:docs")
    assert await permit.check(ann, "read", on(s, s.folder, "docs")) is True
    # The Python SDK's RoleAssignmentRemove requires the tenant.
    await permit.api.users.unassign_role({"user": ann, "role": "viewer", "resource_instance": f"{s.folder}:docs", "tenant": s.tenant})
    assert await permit.check(ann, "read", on(s, s.folder, "docs")) is False

    await permit.api.users.bulk_create(
        [{"key": bob}, {"key": cy, "role_assignments": [{"role": "editor", "resource_instance": f"{s.folder}:docs"}]}]
    )
    assert await permit.check(cy, "write", on(s, s.folder, "docs")) is True
    await permit.api.users.bulk_replace([{"key": bob, "email": "bob@example.com"}])
    assert (await permit.api.users.get(bob)).email == "bob@example.com"
    await permit.api.users.bulk_delete([ann, bob, cy])
    assert await permit.check(cy, "write", on(s, s.folder, "docs")) is False
    with pytest.raises(PermitApiError) as gone:
        await permit.api.users.get(bob)
    assert gone.value.status_code == 404


async def test_tenant_update_tenant_users_and_bulk_tenants(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    updated = await permit.api.tenants.update(s.tenant, {"description": "Acme Inc.", "attributes": {"tier": "gold"}})
    assert (updated.name, updated.description, updated.attributes) == ("Tenant", "Acme Inc.", {"tier": "gold"})

    user = unique_key("user")
    await permit.api.role_assignments.assign({"user": user, "role": "viewer", "resource_instance": f"{s.folder}:docs", "tenant": s.tenant})
    users = await permit.api.tenants.list_tenant_users(s.tenant)
    assert ([u.key for u in users.data], users.total_count) == ([user], 1)
    await permit.api.tenants.delete_tenant_user(s.tenant, user)
    assert (await permit.api.tenants.list_tenant_users(s.tenant)).total_count == 0
    assert await permit.check(user, "read", on(s, s.folder, "docs")) is False

    t1, t2 = unique_key("t1"), unique_key("t2")
    await permit.api.tenants.bulk_create([{"key": t1, "name": "T1"}, {"key": t2, "name": "T2"}])
    assert (await permit.api.tenants.get(t2)).name == "T2"
    await permit.api.tenants.bulk_delete([t1, t2])
    with pytest.raises(PermitApiError) as gone:
        await permit.api.tenants.get(t1)
    assert gone.value.status_code == 404


async def test_instance_update_and_assignment_filters(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": s.tenant})
    instance = await permit.api.resource_instances.update(f"{s.folder}:docs", {"attributes": {"private": True}})
    assert instance.attributes == {"private": True}

    ann, bob = unique_key("ann"), unique_key("bob")
    await permit.api.role_assignments.bulk_assign(
        [
            {"user": ann, "role": "viewer", "resource_instance": f"{s.folder}:docs"},
            {"user": bob, "role": "editor", "resource_instance": f"{s.file}:readme"},
        ]
    )
    both = await permit.api.role_assignments.list(user_key=[ann, bob])
    assert sorted(a.user for a in both) == sorted([ann, bob])
    on_files = await permit.api.role_assignments.list(user_key=[ann, bob], resource_key=s.file)
    assert [a.user for a in on_files] == [bob]
    await permit.api.role_assignments.bulk_unassign(
        [{"user": ann, "role": "viewer", "resource_instance": f"{s.folder}:docs", "tenant": s.tenant}]
    )
    assert await permit.api.role_assignments.list(user_key=ann) == []


async def test_bulk_tuples_create_missing_instances_in_their_tenant(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.relationship_tuples.bulk_create(
        [{"subject": f"{s.folder}:a", "relation": s.parent, "object": f"{s.file}:b", "tenant": s.tenant}]
    )
    assert (await permit.api.resource_instances.get(f"{s.folder}:a")).tenant == s.tenant
    listed = await permit.api.relationship_tuples.list(object_key=f"{s.file}:b")
    assert [(t.subject, t.object) for t in listed] == [(f"{s.folder}:a", f"{s.file}:b")]
    await permit.api.relationship_tuples.bulk_delete([{"subject": f"{s.folder}:a", "relation": s.parent, "object": f"{s.file}:b"}])
    assert await permit.api.relationship_tuples.list(object_key=f"{s.file}:b") == []
