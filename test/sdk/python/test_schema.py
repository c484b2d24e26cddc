"""The schema families: permit.api.resources (create with inline roles and relations, update,
replace, urn, typed attributes, null descriptions), resource_actions, resource_attributes and
action_groups; an action removed leaves the roles that granted it and the checks. The SDK parses
every answer with its pydantic models (ResourceRead, ResourceActionRead, ...)."""

import pytest
from permit import Permit
from permit.exceptions import PermitNotFoundError


async def test_resource_create_update_replace(permit: Permit, unique_key) -> None:
    folder, doc = unique_key("folder"), unique_key("doc")
    await permit.api.resources.create({"key": folder, "name": "Folder", "actions": {"read": {}}})
    created = await permit.api.resources.create(
        {
            "key": doc,
            "name": "Doc",
            "urn": "urn:example:doc",
            "actions": {"read": {}, "write": {"name": "Write"}},
            "attributes": {"private": {"type": "bool", "description": "Hidden"}},
            "roles": {"editor": {"name": "Editor", "permissions": ["read", "write"]}},
            "relations": {"parent": folder},
        }
    )
    assert created.urn == "urn:example:doc"
    assert created.description is None
    assert created.actions["read"].description is None
    assert (created.attributes["private"].type, created.attributes["private"].description) == ("bool", "Hidden")
    assert created.relations["parent"].resource == folder
    assert (await permit.api.resource_roles.get(doc, "editor")).permissions == ["read", "write"]
    assert (await permit.api.resource_relations.get(doc, "parent")).subject_resource == folder

    updated = await permit.api.resources.update(doc, {"description": "Documents", "actions": {"share": {}}})
    assert updated.description == "Documents"
    assert sorted(updated.actions) == ["read", "share", "write"]

    replaced = await permit.api.resources.replace(doc, {"name": "Document", "actions": {"read": {}, "share": {}}})
    assert (replaced.name, replaced.description, replaced.urn, replaced.attributes) == ("Document", None, None, {})
    assert sorted(replaced.actions) == ["read", "share"]
    assert replaced.actions["read"].id == created.actions["read"].id
    # The replaced-away action left the role that granted it.
    assert (await permit.api.resource_roles.get(doc, "editor")).permissions == ["read"]


async def test_resource_parts(permit: Permit, unique_key) -> None:
    doc = unique_key("doc")
    await permit.api.resources.create({"key": doc, "name": "Doc", "actions": {"read": {}}})

    action = await permit.api.resource_actions.create(doc, {"key": "print", "name": "Print"})
    assert (action.key, action.permission_name, action.description) == ("print", f"{doc}:print", None)
    assert (await permit.api.resource_actions.update(doc, "print", {"description": "On paper"})).description == "On paper"
    assert (await permit.api.resource_actions.get_by_id(doc, str(action.id))).key == "print"
    assert [a.key for a in await permit.api.resource_actions.list(doc)] == ["print", "read"]

    attribute = await permit.api.resource_attributes.create(doc, {"key": "pages", "type": "number"})
    assert (attribute.type, attribute.resource_key, attribute.built_in) == ("number", doc, False)
    assert (await permit.api.resource_attributes.update(doc, "pages", {"type": "string"})).type == "string"
    assert [a.key for a in await permit.api.resource_attributes.list(doc)] == ["pages"]
    await permit.api.resource_attributes.delete(doc, "pages")
    assert await permit.api.resource_attributes.list(doc) == []

    group = await permit.api.action_groups.create(doc, {"key": "out", "name": "Out", "actions": ["print", "read"]})
    assert (group.key, group.actions, group.description) == ("out", ["print", "read"], None)
    assert (await permit.api.action_groups.update(doc, "out", {"name": "Outward"})).name == "Outward"
    assert [g.key for g in await permit.api.action_groups.list(doc)] == ["out"]
    assert (await permit.api.resources.get(doc)).action_groups == {"out": ["print", "read"]}

    # Permit's current types beyond the Node SDK's six.
    nested = await permit.api.resource_attributes.create(doc, {"key": "meta", "type": "object"})
    assert nested.type == "object"
    assert (await permit.api.resources.get(doc)).attributes["meta"].type == "object"


async def test_an_action_removed_leaves_roles_groups_and_checks(permit: Permit, unique_key) -> None:
    doc, tenant, user = unique_key("doc"), unique_key("tenant"), unique_key("user")
    await permit.api.resources.create(
        {"key": doc, "name": "Doc", "actions": {"read": {}, "archive": {}}, "roles": {"archivist": {"name": "Archivist", "permissions": ["read", "archive"]}}}
    )
    await permit.api.action_groups.create(doc, {"key": "all", "name": "All", "actions": ["read", "archive"]})
    await permit.api.tenants.create({"key": tenant, "name": "Tenant"})
    await permit.api.resource_instances.create({"key": "d1", "resource": doc, "tenant": tenant})
    await permit.api.role_assignments.assign({"user": user, "role": "archivist", "resource_instance": f"{doc}:d1"})
    resource = {"type": doc, "key": "d1", "tenant": tenant}
    assert await permit.check(user, "archive", resource) is True

    await permit.api.resource_actions.delete(doc, "archive")
    assert (await permit.api.resource_roles.get(doc, "archivist")).permissions == ["read"]
    assert (await permit.api.action_groups.get(doc, "all")).actions == ["read"]
    assert await permit.check(user, "archive", resource) is False
    assert await permit.check(user, "read", resource) is True
    with pytest.raises(PermitNotFoundError):
        await permit.api.resource_actions.get(doc, "archive")
