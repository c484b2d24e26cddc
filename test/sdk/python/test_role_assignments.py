"""permit.api.role_assignments: assign, list (filters), unassign, bulk assign and unassign."""

from permit import Permit

from _schema import folder_file_schema


async def test_assign_list_unassign(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    user = unique_key("user")

    assigned = await permit.api.role_assignments.assign({"user": user, "role": "editor", "resource_instance": f"{s.folder}:docs"})
    assert (assigned.user, assigned.role, assigned.tenant) == (user, "editor", s.tenant)
    assert assigned.resource_instance == f"{s.folder}:docs"
    assert assigned.user_id == (await permit.api.users.get(user)).id  # the user was created on assignment

    by_user = await permit.api.role_assignments.list(user_key=user)
    assert [(a.role, a.resource_instance) for a in by_user] == [("editor", f"{s.folder}:docs")]
    by_instance = await permit.api.role_assignments.list(resource_instance_key=f"{s.folder}:docs")
    assert [a.user for a in by_instance] == [user]
    assert await permit.api.role_assignments.list(user_key=user, role_key="viewer") == []

    # The SDK's RoleAssignmentRemove requires `tenant` (checked before anything is sent).
    await permit.api.role_assignments.unassign(
        {"user": user, "role": "editor", "tenant": s.tenant, "resource_instance": f"{s.folder}:docs"}
    )
    assert await permit.api.role_assignments.list(user_key=user) == []


async def test_bulk_assign_and_unassign(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    alice, bob = unique_key("alice"), unique_key("bob")
    report = await permit.api.role_assignments.bulk_assign(
        [
            {"user": alice, "role": "editor", "resource_instance": f"{s.folder}:docs"},
            {"user": bob, "role": "viewer", "resource_instance": f"{s.folder}:docs"},
        ]
    )
    assert report.assignments_created == 2
    listed = await permit.api.role_assignments.list(resource_instance_key=f"{s.folder}:docs")
    assert sorted((a.user, a.role) for a in listed) == sorted([(alice, "editor"), (bob, "viewer")])

    removed = await permit.api.role_assignments.bulk_unassign(
        [{"user": alice, "role": "editor", "tenant": s.tenant, "resource_instance": f"{s.folder}:docs"}]
    )
    assert removed.assignments_removed == 1
    assert [a.user for a in await permit.api.role_assignments.list(resource_instance_key=f"{s.folder}:docs")] == [bob]


async def test_tenant_role_assign_list_unassign(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    reader, user = unique_key("reader"), unique_key("user")
    await permit.api.roles.create({"key": reader, "name": "Reader", "permissions": [f"{s.folder}:read"]})

    assigned = await permit.api.role_assignments.assign({"user": user, "role": reader, "tenant": s.tenant})
    assert (assigned.user, assigned.role, assigned.tenant, assigned.resource_instance) == (user, reader, s.tenant, None)
    assert [(a.role, a.tenant) for a in await permit.api.role_assignments.list(user_key=user, tenant_key=s.tenant)] == [(reader, s.tenant)]
    # users.get_assigned_roles reads the same list (GET role_assignments?user=&tenant=).
    assert [a.role for a in await permit.api.users.get_assigned_roles(user, tenant=s.tenant)] == [reader]
    assert await permit.check(user, "read", {"type": s.folder, "tenant": s.tenant}) is True

    await permit.api.role_assignments.unassign({"user": user, "role": reader, "tenant": s.tenant})
    assert await permit.api.role_assignments.list(user_key=user) == []
    assert await permit.check(user, "read", {"type": s.folder, "tenant": s.tenant}) is False
