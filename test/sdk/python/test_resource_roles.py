"""permit.api.resource_roles: create, get, list, update (permissions and granted_to), delete."""

import pytest
from permit import Permit
from permit.exceptions import PermitNotFoundError


async def _folder_and_file(permit: Permit, unique_key) -> tuple[str, str, str]:
    folder, file, parent = unique_key("folder"), unique_key("file"), "parent"
    await permit.api.resources.create({"key": folder, "name": "Folder", "actions": {"read": {}, "write": {}}})
    await permit.api.resources.create({"key": file, "name": "File", "actions": {"read": {}, "write": {}}})
    await permit.api.resource_relations.create(file, {"key": parent, "name": "Parent", "subject_resource": folder})
    return folder, file, parent


async def test_resource_role_round_trip(permit: Permit, unique_key) -> None:
    folder, file, parent = await _folder_and_file(permit, unique_key)
    await permit.api.resource_roles.create(folder, {"key": "editor", "name": "Editor", "permissions": ["read", "write"]})
    created = await permit.api.resource_roles.create(file, {"key": "editor", "name": "Editor", "permissions": ["read"]})
    assert created.key == "editor"
    assert created.resource == file
    assert created.permissions == ["read"]

    fetched = await permit.api.resource_roles.get(file, "editor")
    assert fetched.id == created.id
    assert fetched.resource_id == created.resource_id

    updated = await permit.api.resource_roles.update(
        file,
        "editor",
        {
            "permissions": ["read", "write"],
            "granted_to": {"users_with_role": [{"role": "editor", "on_resource": folder, "linked_by_relation": parent}]},
        },
    )
    assert sorted(updated.permissions) == ["read", "write"]
    derivations = updated.granted_to.users_with_role
    assert [(d.role, d.on_resource, d.linked_by_relation) for d in derivations] == [("editor", folder, parent)]

    await permit.api.resource_roles.create(file, {"key": "viewer", "name": "Viewer", "permissions": ["read"]})
    assert sorted(r.key for r in await permit.api.resource_roles.list(file)) == ["editor", "viewer"]

    await permit.api.resource_roles.delete(file, "viewer")
    with pytest.raises(PermitNotFoundError) as missing:
        await permit.api.resource_roles.get(file, "viewer")
    assert missing.value.status_code == 404
    assert [r.key for r in await permit.api.resource_roles.list(file)] == ["editor"]


async def test_a_role_with_an_unknown_action_is_refused(permit: Permit, unique_key) -> None:
    folder, _, _ = await _folder_and_file(permit, unique_key)
    with pytest.raises(PermitNotFoundError) as refused:
        await permit.api.resource_roles.create(folder, {"key": "admin", "name": "Admin", "permissions": ["fly"]})
    assert refused.value.status_code == 404
    assert "fly" in refused.value.message
    assert await permit.api.resource_roles.list(folder) == []


async def test_implicit_grants_create_and_delete(permit: Permit, unique_key) -> None:
    folder, file, parent = await _folder_and_file(permit, unique_key)
    await permit.api.resource_roles.create(folder, {"key": "editor", "name": "Editor", "permissions": ["write"]})
    await permit.api.resource_roles.create(file, {"key": "viewer", "name": "Viewer", "permissions": ["read"]})

    rule = {"role": "editor", "on_resource": folder, "linked_by_relation": parent}
    grant = await permit.api.resource_roles.create_role_derivation(file, "viewer", rule)
    assert (grant.role, grant.on_resource, grant.linked_by_relation) == ("editor", folder, parent)
    # The ids name the source side: the role held on the related resource, that resource, the relation.
    assert grant.role_id == (await permit.api.resource_roles.get(folder, "editor")).id
    assert grant.resource_id == (await permit.api.resources.get(folder)).id
    assert grant.relation_id == (await permit.api.resource_relations.get(file, parent)).id
    viewer = await permit.api.resource_roles.get(file, "viewer")
    assert [(d.role, d.on_resource) for d in viewer.granted_to.users_with_role] == [("editor", folder)]

    await permit.api.resource_roles.delete_role_derivation(file, "viewer", rule)
    viewer = await permit.api.resource_roles.get(file, "viewer")
    assert viewer.granted_to is None or not viewer.granted_to.users_with_role
