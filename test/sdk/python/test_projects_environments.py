"""permit.api.projects and permit.api.environments: list, get, create (organisation key)."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiError

from conftest import Service, every_page


async def test_projects_list_get_create(org_permit: Permit, service: Service, unique_key) -> None:
    default = await org_permit.api.projects.get(service.project)
    assert default.key == service.project
    key = unique_key("proj")
    created = await org_permit.api.projects.create({"key": key, "name": "Project", "description": "made by the SDK"})
    assert (created.key, created.name, created.description) == (key, "Project", "made by the SDK")
    assert created.organization_id == default.organization_id

    listed = {p.key: p for p in await every_page(lambda page: org_permit.api.projects.list(page=page))}
    assert listed[key].id == created.id
    assert (await org_permit.api.projects.get(key)).id == created.id
    assert (await org_permit.api.projects.get_by_id(str(created.id))).key == key


async def test_environments_list_get_create(org_permit: Permit, service: Service, unique_key) -> None:
    project = await org_permit.api.projects.get(service.project)
    current = await org_permit.api.environments.get(service.project, service.environment)
    assert current.key == service.environment
    assert current.project_id == project.id

    key = unique_key("env")
    created = await org_permit.api.environments.create(service.project, {"key": key, "name": "Staging", "description": "s"})
    assert (created.key, created.name, created.project_id) == (key, "Staging", project.id)

    listed = {e.key: e for e in await every_page(lambda page: org_permit.api.environments.list(service.project, page=page))}
    assert service.environment in listed
    assert listed[key].id == created.id
    assert (await org_permit.api.environments.get(service.project, key)).id == created.id

    # What was not given reads back null, as Permit answers (EnvironmentRead's Optional fields), not ''.
    bare = await org_permit.api.environments.create(service.project, {"key": unique_key("bare"), "name": "Bare"})
    read = await org_permit.api.environments.get(service.project, bare.key)
    assert (read.description, read.custom_branch_name, read.avp_policy_store_id) == (None, None, None)


async def test_an_unknown_project_is_not_found(org_permit: Permit, unique_key) -> None:
    with pytest.raises(PermitApiError) as missing:
        await org_permit.api.projects.get(unique_key("nowhere"))
    assert missing.value.status_code == 404


async def test_the_environment_key_reads_its_own_project(permit: Permit, service: Service) -> None:
    # An environment key reaches its own project's environments: the SDK allows these calls to it.
    envs = await every_page(lambda page: permit.api.environments.list(service.project, page=page))
    assert service.environment in [e.key for e in envs]
