"""permit.api.environments.copy: POST .../copy (the SDK waits for the answer) into a new environment."""

from permit import Permit

from _schema import folder_file_schema
from conftest import Service


async def test_copy_takes_the_policy_into_a_new_environment(
    permit: Permit, org_permit: Permit, service: Service, unique_key, client_for_environment
) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})

    target = unique_key("copy")
    copied = await org_permit.api.environments.copy(
        service.project, service.environment, {"target_env": {"new": {"key": target, "name": "Copy"}}}
    )
    assert (copied.key, copied.name) == (target, "Copy")
    source = await org_permit.api.environments.get(service.project, service.environment)
    assert copied.project_id == source.project_id
    assert copied.id != source.id
    assert (await org_permit.api.environments.get(service.project, target)).id == copied.id

    in_copy = await client_for_environment(service.project, target)
    # environments.get_api_key finds that key (without its secret: the service keeps only a hash).
    listed_key = await org_permit.api.environments.get_api_key(service.project, target)
    assert listed_key.environment_id == copied.id
    assert listed_key.secret is None

    # As Permit does, a copy takes the policy (resource types, roles, relations, derivations) ...
    assert (await in_copy.api.resources.get(s.file)).key == s.file
    editor = await in_copy.api.resource_roles.get(s.file, "editor")
    assert [(d.role, d.on_resource) for d in editor.granted_to.users_with_role] == [("editor", s.folder)]
    assert (await in_copy.api.resource_relations.get(s.file, s.parent)).subject_resource == s.folder
    # ... and not the directory data.
    assert await in_copy.api.resource_instances.list(resource_key=s.folder) == []


async def test_copy_with_facts_takes_the_directory_too(
    permit: Permit, org_permit: Permit, service: Service, unique_key, client_for_environment
) -> None:
    s = await folder_file_schema(permit, unique_key)
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    alice = unique_key("alice")
    await permit.api.role_assignments.assign({"user": alice, "role": "editor", "resource_instance": f"{s.folder}:docs"})

    target = unique_key("copy")
    # `scope.facts` is the service's extension; the SDK's EnvironmentCopyScope passes unknown fields on.
    await org_permit.api.environments.copy(
        service.project, service.environment, {"target_env": {"new": {"key": target, "name": "Copy"}}, "scope": {"facts": True}}
    )
    in_copy = await client_for_environment(service.project, target)
    assert [i.key for i in await in_copy.api.resource_instances.list(resource_key=s.folder)] == ["docs"]
    assert [a.role for a in await in_copy.api.role_assignments.list(user_key=alice)] == ["editor"]
    assert await in_copy.check(alice, "write", f"{s.folder}:docs") is True

    # The copy is independent of its source.
    await in_copy.api.role_assignments.unassign(
        {"user": alice, "role": "editor", "tenant": s.tenant, "resource_instance": f"{s.folder}:docs"}
    )
    assert await in_copy.check(alice, "write", f"{s.folder}:docs") is False
    assert await permit.check(alice, "write", f"{s.folder}:docs") is True
