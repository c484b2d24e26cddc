"""permit.api.roles and permit.api.resource_roles: extends, assign/remove permissions,
derivation conditions (no_direct_roles_on_object), and the checks that follow from them."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiError

from _schema import folder_file_schema


async def test_top_level_roles_extend_and_take_permissions(permit: Permit, unique_key) -> None:
    doc, tenant, tom = unique_key("doc"), unique_key("tenant"), unique_key("tom")
    await permit.api.resources.create({"key": doc, "name": "Doc", "actions": {"read": {}, "write": {}}})
    await permit.api.tenants.create({"key": tenant, "name": "Tenant"})
    await permit.api.resource_instances.create({"key": "d", "resource": doc, "tenant": tenant})
    reader, writer = unique_key("reader"), unique_key("writer")
    await permit.api.roles.create({"key": reader, "name": "Reader", "permissions": [f"{doc}:read"]})
    created = await permit.api.roles.create({"key": writer, "name": "Writer", "permissions": [], "extends": [reader]})
    assert created.extends == [reader]

    assigned = await permit.api.roles.assign_permissions(writer, [f"{doc}:write"])
    assert assigned.permissions == [f"{doc}:write"]
    await permit.api.users.create({"key": tom})
    await permit.api.role_assignments.assign({"user": tom, "role": writer, "tenant": tenant})
    assert await permit.check(tom, "write", f"{doc}:d") is True
    assert await permit.check(tom, "read", f"{doc}:d") is True  # inherited from reader

    removed = await permit.api.roles.remove_permissions(writer, [f"{doc}:write", f"{doc}:read"])
    assert removed.permissions == []
    assert await permit.check(tom, "write", f"{doc}:d") is False
    assert await permit.check(tom, "read", f"{doc}:d") is True

    # A cycle is refused with 400 and changes nothing.
    with pytest.raises(PermitApiError) as cycle:
        await permit.api.roles.update(reader, {"extends": [writer]})
    assert cycle.value.status_code == 400
    assert (await permit.api.roles.get(reader)).extends == []

    # Deleting the extended role takes it out of the other's extends.
    await permit.api.roles.delete(reader)
    assert (await permit.api.roles.get(writer)).extends == []
    assert await permit.check(tom, "read", f"{doc}:d") is False


async def test_resource_roles_extend_and_take_permissions(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    cara = unique_key("cara")
    await permit.api.resource_instances.create({"key": "r", "resource": s.file, "tenant": s.tenant})
    await permit.api.resource_roles.create(s.file, {"key": "lead", "name": "Lead", "permissions": [], "extends": ["viewer"]})
    assert (await permit.api.resource_roles.get(s.file, "lead")).extends == ["viewer"]
    updated = await permit.api.resource_roles.assign_permissions(s.file, "lead", ["write"])
    assert updated.permissions == ["write"]
    await permit.api.users.create({"key": cara})
    await permit.api.role_assignments.assign({"user": cara, "role": "lead", "resource_instance": f"{s.file}:r"})
    assert await permit.check(cara, "read", f"{s.file}:r") is True
    assert await permit.check(cara, "write", f"{s.file}:r") is True
    updated = await permit.api.resource_roles.remove_permissions(s.file, "lead", ["write"])
    assert updated.permissions == []
    assert await permit.check(cara, "write", f"{s.file}:r") is False

    # Only roles of the same resource.
    with pytest.raises(PermitApiError) as other:
        await permit.api.resource_roles.update(s.file, "lead", {"extends": ["nobody-here"]})
    assert other.value.status_code == 404


async def test_no_direct_roles_on_object(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)  # file editor derived from folder editor through parent
    ed = unique_key("ed")
    await permit.api.resource_instances.create({"key": "f", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "d", "resource": s.file, "tenant": s.tenant})
    await permit.api.relationship_tuples.create({"subject": f"{s.folder}:f", "relation": s.parent, "object": f"{s.file}:d"})
    await permit.api.users.create({"key": ed})
    await permit.api.role_assignments.assign({"user": ed, "role": "editor", "resource_instance": f"{s.folder}:f"})
    assert await permit.check(ed, "write", f"{s.file}:d") is True

    conditions = await permit.api.resource_roles.update_role_derivation_conditions(
        s.file, "editor", {"no_direct_roles_on_object": True}
    )
    assert conditions.no_direct_roles_on_object is True
    role = await permit.api.resource_roles.get(s.file, "editor")
    assert role.granted_to.when.no_direct_roles_on_object is True

    # A direct role on the file takes the derived editor role away there; removing it gives it back.
    await permit.api.role_assignments.assign({"user": ed, "role": "viewer", "resource_instance": f"{s.file}:d"})
    assert await permit.check(ed, "write", f"{s.file}:d") is False
    assert await permit.check(ed, "read", f"{s.file}:d") is True
    await permit.api.role_assignments.unassign(
        {"user": ed, "role": "viewer", "tenant": s.tenant, "resource_instance": f"{s.file}:d"}
    )
    assert await permit.check(ed, "write", f"{s.file}:d") is True

    lifted = await permit.api.resource_roles.update_role_derivation_conditions(
        s.file, "editor", {"no_direct_roles_on_object": False}
    )
    assert lifted.no_direct_roles_on_object is False
