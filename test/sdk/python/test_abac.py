"""ABAC: attribute schemas, condition sets, set rules, then permit.check with attributes and context."""

from permit import Permit
from permit.exceptions import PermitApiError
import pytest


async def _report_schema(permit: Permit, unique_key) -> tuple[str, str]:
    report, tenant = unique_key("report"), unique_key("tenant")
    await permit.api.resources.create(
        {
            "key": report,
            "name": "Report",
            "actions": {"read": {}, "approve": {}},
            "attributes": {"cost": {"type": "number"}, "department": {"type": "string"}},
        }
    )
    await permit.api.tenants.create({"key": tenant, "name": "Tenant"})
    return report, tenant


async def test_condition_sets_round_trip(permit: Permit, unique_key) -> None:
    report, _ = await _report_schema(permit, unique_key)
    users, docs = unique_key("seniors"), unique_key("cheap")
    created = await permit.api.condition_sets.create(
        {"key": users, "name": "Seniors", "type": "userset", "conditions": {"allOf": [{"user.level": {"greater-than-equals": 3}}]}}
    )
    assert created.key == users and created.type == "userset"
    child = await permit.api.condition_sets.create({"key": unique_key("child"), "name": "Child", "parent_id": users})
    assert str(child.parent_id) == str(created.id)
    resource_set = await permit.api.condition_sets.create(
        {
            "key": docs,
            "name": "Cheap reports",
            "type": "resourceset",
            "resource_id": report,
            "conditions": {"allOf": [{"resource.cost": {"less-than": 1000}}]},
        }
    )
    assert resource_set.type == "resourceset"
    assert (await permit.api.condition_sets.get(docs)).key == docs
    updated = await permit.api.condition_sets.update(users, {"description": "Level 3 and up"})
    assert updated.description == "Level 3 and up"
    keys = [s.key for s in await permit.api.condition_sets.list(per_page=100)]
    assert users in keys and docs in keys
    await permit.api.condition_sets.delete(users)
    with pytest.raises(PermitApiError) as error:
        await permit.api.condition_sets.get(child.key)
    assert error.value.status_code == 404


async def test_wrong_type_is_refused(permit: Permit, unique_key) -> None:
    report, _ = await _report_schema(permit, unique_key)
    with pytest.raises(PermitApiError) as error:
        await permit.api.condition_sets.create(
            {
                "key": unique_key("broken"),
                "name": "Broken",
                "type": "resourceset",
                "resource_id": report,
                "conditions": {"allOf": [{"resource.cost": {"contains": "x"}}]},
            }
        )
    assert error.value.status_code == 422


async def test_set_rules_and_checks(permit: Permit, unique_key) -> None:
    report, tenant = await _report_schema(permit, unique_key)
    seniors, same_dept, vpn = unique_key("seniors"), unique_key("same-dept"), unique_key("vpn")
    fin, eng = unique_key("fin"), unique_key("eng")
    await permit.api.users.create({"key": fin, "attributes": {"department": "finance", "level": 3}})
    await permit.api.users.create({"key": eng, "attributes": {"department": "engineering", "level": 5}})
    await permit.api.resource_instances.create(
        {"key": "q3", "resource": report, "tenant": tenant, "attributes": {"cost": 500, "department": "finance"}}
    )
    await permit.api.condition_sets.create(
        {"key": seniors, "name": "Seniors", "conditions": {"allOf": [{"user.level": {"greater-than-equals": 3}}]}}
    )
    await permit.api.condition_sets.create(
        {
            "key": same_dept,
            "name": "Same department, cheap",
            "type": "resourceset",
            "resource_id": report,
            "conditions": {"allOf": [{"resource.cost": {"less-than": 1000}}, {"resource.department": {"equals": {"ref": "user.department"}}}]},
        }
    )
    rules = await permit.api.condition_set_rules.create({"user_set": seniors, "permission": f"{report}:read", "resource_set": same_dept})
    assert [(r.user_set, r.permission, r.resource_set) for r in rules] == [(seniors, f"{report}:read", same_dept)]
    listed = await permit.api.condition_set_rules.list(user_set_key=seniors)
    assert len(listed) == 1

    q3 = {"type": report, "key": "q3", "tenant": tenant}
    assert await permit.check(fin, "read", q3) is True
    assert await permit.check(eng, "read", q3) is False
    assert await permit.check({"key": eng, "attributes": {"department": "finance"}}, "read", q3) is True
    assert await permit.check(fin, "read", {**q3, "attributes": {"cost": 5000}}) is False

    await permit.api.condition_sets.create({"key": vpn, "name": "On VPN", "conditions": {"allOf": [{"context.vpn": {"equals": True}}]}})
    await permit.api.condition_set_rules.create({"user_set": vpn, "permission": f"{report}:approve", "resource_set": report, "is_resource": True})
    assert await permit.check(eng, "approve", q3) is False
    assert await permit.check(eng, "approve", q3, {"vpn": True}) is True

    await permit.api.condition_set_rules.delete({"user_set": seniors, "permission": f"{report}:read", "resource_set": same_dept})
    assert await permit.check(fin, "read", q3) is False
