"""expires_at (docs/expiring-access.md) from the Python SDK, whose models do not declare it.

Its request models allow extra fields (pydantic `extra = allow`), so `expires_at` rides along in a
dict body (or as a keyword of the model) and the answers carry it back as an extra attribute.
"""

import asyncio
from datetime import datetime, timedelta, timezone

from permit import Permit
from permit.api.models import RoleAssignmentCreate

from _schema import folder_file_schema


def _in(seconds: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


async def test_expires_at(permit: Permit, unique_key) -> None:
    s = await folder_file_schema(permit, unique_key)
    alice, bob = unique_key("alice"), unique_key("bob")
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": s.tenant})
    end = _in(3)
    assigned = await permit.api.role_assignments.assign(
        RoleAssignmentCreate(user=alice, role="editor", resource_instance=f"{s.folder}:docs", expires_at=end)
    )
    assert datetime.fromisoformat(assigned.expires_at.replace("Z", "+00:00")) == datetime.fromisoformat(end)
    await permit.api.relationship_tuples.create(
        {"subject": f"{s.folder}:docs", "relation": s.parent, "object": f"{s.file}:readme", "expires_at": _in(60)}
    )
    await permit.api.role_assignments.bulk_assign(
        [{"user": bob, "role": "viewer", "resource_instance": f"{s.folder}:docs", "expires_at": _in(60)}]
    )
    assert await permit.check(alice, "write", f"{s.file}:readme") is True
    assert await permit.check(bob, "read", f"{s.folder}:docs") is True
    await asyncio.sleep(3.2)
    assert await permit.check(alice, "write", f"{s.file}:readme") is False
    assert await permit.check(alice, "write", f"{s.folder}:docs") is False
    assert await permit.check(bob, "read", f"{s.folder}:docs") is True
