"""Projects and environments beyond create/list (update, delete, stats, API key, scoped copy), the default
tenant, and the PDP's answers the Python SDK parses (authorized_users, bulk_check, get_user_permissions)."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiError

from conftest import Service, every_page


async def test_a_project_has_production_and_development_and_can_be_updated_and_deleted(org_permit: Permit, unique_key) -> None:
    key = unique_key("proj")
    created = await org_permit.api.projects.create({"key": key, "name": "Project"})
    envs = {e.key for e in await every_page(lambda page: org_permit.api.environments.list(key, page=page))}
    assert envs == {"production", "development"}

    updated = await org_permit.api.projects.update(key, {"name": "Renamed", "description": "by the SDK"})
    assert (updated.id, updated.name, updated.description) == (created.id, "Renamed", "by the SDK")

    await org_permit.api.projects.delete(key)
    with pytest.raises(PermitApiError) as gone:
        await org_permit.api.projects.get(key)
    assert gone.value.status_code == 404
    with pytest.raises(PermitApiError) as env_gone:
        await org_permit.api.environments.get(key, "production")
    assert env_gone.value.status_code == 404


async def test_environment_update_stats_api_key_delete(
    org_permit: Permit, service: Service, unique_key, client_for_environment
) -> None:
    key = unique_key("env")
    created = await org_permit.api.environments.create(service.project, {"key": key, "name": "Staging"})
    updated = await org_permit.api.environments.update(service.project, key, {"description": "updated", "custom_branch_name": "stg"})
    assert (updated.id, updated.description, updated.custom_branch_name) == (created.id, "updated", "stg")

    in_env = await client_for_environment(service.project, key)
    await in_env.api.resources.create({"key": "doc", "name": "Doc", "actions": {"read": {}, "write": {}}})
    await in_env.api.roles.create({"key": "reader", "name": "Reader", "permissions": ["doc:read"]})
    stats = await org_permit.api.environments.get_stats(service.project, key)
    assert stats.key == key
    assert stats.pdp_configs == []
    # The `default` tenant is there from the environment's creation.
    assert (stats.stats.roles, stats.stats.resources, stats.stats.policies, stats.stats.tenants) == (1, 1, 1, 1)
    assert (await in_env.api.tenants.get("default")).key == "default"

    api_key = await org_permit.api.environments.get_api_key(service.project, key)
    assert api_key.environment_id == created.id

    await org_permit.api.environments.delete(service.project, key)
    with pytest.raises(PermitApiError) as gone:
        await org_permit.api.environments.get(service.project, key)
    assert gone.value.status_code == 404
    # Its keys went with it: the client made for it is refused.
    with pytest.raises(PermitApiError) as refused:
        await in_env.api.resources.list()
    assert refused.value.status_code == 401


async def test_copy_with_a_scope(org_permit: Permit, service: Service, unique_key, client_for_environment) -> None:
    source_key = unique_key("src")
    await org_permit.api.environments.create(service.project, {"key": source_key, "name": "Source"})
    source = await client_for_environment(service.project, source_key)
    for resource in ("doc", "secret"):
        await source.api.resources.create({"key": resource, "name": resource, "actions": {"read": {}}})
    await source.api.roles.create({"key": "reader", "name": "Reader", "permissions": ["doc:read", "secret:read"]})

    target = unique_key("scoped")
    await org_permit.api.environments.copy(
        service.project,
        source_key,
        {"target_env": {"new": {"key": target, "name": "Scoped"}}, "scope": {"resources": {"include": ["*"], "exclude": ["sec*"]}}},
    )
    in_copy = await client_for_environment(service.project, target)
    assert [r.key for r in await in_copy.api.resources.list()] == ["doc"]
    assert (await in_copy.api.roles.get("reader")).permissions == ["doc:read"]
    assert [t.key for t in await every_page(lambda page: in_copy.api.tenants.list(page=page))] == ["default"]


async def test_the_pdp_in_the_default_tenant(permit: Permit, unique_key) -> None:
    # The SDK fills in the `default` tenant: it exists, so assignments there work as on Permit.
    resource, user = unique_key("res"), unique_key("user")
    await permit.api.resources.create({"key": resource, "name": "R", "actions": {"read": {}, "write": {}}})
    role = unique_key("role")
    await permit.api.roles.create({"key": role, "name": "Role", "permissions": [f"{resource}:read"]})
    await permit.api.users.create({"key": user})
    await permit.api.role_assignments.assign({"user": user, "role": role, "tenant": "default"})

    assert await permit.bulk_check(
        [{"user": user, "action": "read", "resource": resource}, {"user": user, "action": "write", "resource": resource}]
    ) == [True, False]
    permissions = await permit.get_user_permissions(user, tenants=["default"])
    assert permissions["__tenant:default"]["permissions"] == [f"{resource}:read"]
    readers = await permit.authorized_users("read", resource)
    assert (readers.resource, readers.tenant) == (f"{resource}:*", "default")
    assert [(a.role, a.resource) for a in readers.users[user]] == [(role, "__tenant:default")]


async def test_pdp_api_lists_the_local_role_assignments(permit: Permit, unique_key) -> None:
    resource, user, tenant = unique_key("res"), unique_key("user"), unique_key("tenant")
    await permit.api.resources.create({"key": resource, "name": "R", "actions": {"read": {}}})
    await permit.api.resource_roles.create(resource, {"key": "owner", "name": "Owner", "permissions": ["read"]})
    role = unique_key("role")
    await permit.api.roles.create({"key": role, "name": "Role", "permissions": [f"{resource}:read"]})
    await permit.api.tenants.create({"key": tenant, "name": "T"})
    await permit.api.resource_instances.create({"key": "i1", "resource": resource, "tenant": tenant})
    await permit.api.role_assignments.assign({"user": user, "role": role, "tenant": tenant})
    await permit.api.role_assignments.assign({"user": user, "role": "owner", "resource_instance": f"{resource}:i1"})

    mine = await permit.pdp_api.role_assignments.list(user_key=user)
    assert sorted((a.role, a.tenant, a.resource_instance) for a in mine) == sorted(
        [(role, tenant, None), ("owner", tenant, f"{resource}:i1")]
    )
    on_type = await permit.pdp_api.role_assignments.list(user_key=user, resource_key=resource)
    assert [(a.role, a.resource_instance) for a in on_type] == [("owner", f"{resource}:i1")]
