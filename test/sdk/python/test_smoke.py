"""The infrastructure works: both keys reach the service through the SDK."""

from permit import Permit

from conftest import Service, every_page


async def test_env_key_creates_and_reads_a_tenant(permit: Permit, unique_key) -> None:
    key = unique_key("tenant")
    created = await permit.api.tenants.create({"key": key, "name": "Smoke"})
    assert created.key == key
    assert (await permit.api.tenants.get(key)).name == "Smoke"
    await permit.api.tenants.delete(key)


async def test_org_key_lists_the_projects(org_permit: Permit, service: Service) -> None:
    projects = await every_page(lambda page: org_permit.api.projects.list(page=page))
    assert service.project in [p.key for p in projects]
