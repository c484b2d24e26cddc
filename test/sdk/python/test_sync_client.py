"""permit.sync.Permit: the blocking client runs the same calls (each on its own event loop)."""

from permit.sync import Permit as SyncPermit

from conftest import Service


def test_the_sync_client_writes_reads_and_checks(service: Service, unique_key) -> None:
    permit = SyncPermit(token=service.env_key, api_url=service.url, pdp=service.url)
    doc, tenant, user = unique_key("doc"), unique_key("tenant"), unique_key("user")
    permit.api.resources.create({"key": doc, "name": "Doc", "actions": {"read": {}}})
    permit.api.resource_roles.create(doc, {"key": "reader", "name": "Reader", "permissions": ["read"]})
    permit.api.tenants.create({"key": tenant, "name": "Tenant"})
    permit.api.resource_instances.create({"key": "one", "resource": doc, "tenant": tenant})
    permit.api.role_assignments.assign({"user": user, "role": "reader", "resource_instance": f"{doc}:one"})

    assert permit.api.resources.get(doc).key == doc
    assert [a.role for a in permit.api.role_assignments.list(user_key=user)] == ["reader"]
    assert permit.check(user, "read", f"{doc}:one") is True
    assert permit.bulk_check([{"user": user, "action": "read", "resource": f"{doc}:one"}]) == [True]
