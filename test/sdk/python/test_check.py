"""The PDP calls: permit.check, bulk_check, get_user_permissions, authorized_users."""

from permit import Permit

from _schema import FolderFile, folder_file_schema


async def _docs_and_readme(permit: Permit, unique_key) -> tuple[FolderFile, str, str]:
    """alice is editor on folder docs, bob viewer on it; readme's parent is docs (alice derives editor on it)."""
    s = await folder_file_schema(permit, unique_key)
    alice, bob = unique_key("alice"), unique_key("bob")
    await permit.api.resource_instances.create({"key": "docs", "resource": s.folder, "tenant": s.tenant})
    await permit.api.resource_instances.create({"key": "readme", "resource": s.file, "tenant": s.tenant})
    await permit.api.relationship_tuples.create({"subject": f"{s.folder}:docs", "relation": s.parent, "object": f"{s.file}:readme"})
    await permit.api.role_assignments.assign({"user": alice, "role": "editor", "resource_instance": f"{s.folder}:docs"})
    await permit.api.role_assignments.assign({"user": bob, "role": "viewer", "resource_instance": f"{s.folder}:docs"})
    return s, alice, bob


async def test_check(permit: Permit, unique_key) -> None:
    s, alice, bob = await _docs_and_readme(permit, unique_key)
    assert await permit.check(alice, "write", f"{s.folder}:docs") is True
    assert await permit.check(bob, "read", f"{s.folder}:docs") is True
    assert await permit.check(bob, "write", f"{s.folder}:docs") is False
    # Derived through file#parent: alice is editor on the folder, so on its file.
    assert await permit.check(alice, "write", f"{s.file}:readme") is True
    assert await permit.check(bob, "read", f"{s.file}:readme") is False
    # The object form, with the tenant given explicitly, and a user object.
    assert await permit.check({"key": alice}, "write", {"type": s.file, "key": "readme", "tenant": s.tenant}) is True
    assert await permit.check(unique_key("nobody"), "read", f"{s.folder}:docs") is False
    # A type-level check (the SDK sends "key": null) needs a tenant role: alice has none.
    assert await permit.check(alice, "read", s.folder) is False


async def test_filter_objects(permit: Permit, unique_key) -> None:
    # filter_objects asks /allowed/bulk once and keeps the resources the user may act on.
    s, alice, bob = await _docs_and_readme(permit, unique_key)
    resources = [
        {"type": s.folder, "key": "docs", "tenant": s.tenant},
        {"type": s.file, "key": "readme", "tenant": s.tenant},
    ]
    assert await permit.filter_objects(alice, "write", {}, resources) == resources
    assert await permit.filter_objects(bob, "read", {}, resources) == resources[:1]


async def test_bulk_check(permit: Permit, unique_key) -> None:
    s, alice, bob = await _docs_and_readme(permit, unique_key)
    decisions = await permit.bulk_check(
        [
            {"user": alice, "action": "write", "resource": f"{s.file}:readme"},
            {"user": bob, "action": "write", "resource": f"{s.folder}:docs"},
            {"user": {"key": bob}, "action": "read", "resource": {"type": s.folder, "key": "docs", "tenant": s.tenant}},
        ]
    )
    assert decisions == [True, False, True]


async def test_get_user_permissions(permit: Permit, unique_key) -> None:
    s, alice, bob = await _docs_and_readme(permit, unique_key)
    permissions = await permit.get_user_permissions(alice, tenants=[s.tenant])
    docs = permissions[f"{s.folder}:docs"]
    assert sorted(docs["permissions"]) == [f"{s.folder}:read", f"{s.folder}:write"]
    assert docs["resource"] == {"type": s.folder, "key": "docs", "attributes": {}}
    assert docs["roles"] == ["editor"]
    # No tenant-level entry: alice holds no role on the tenant itself.
    assert f"__tenant:{s.tenant}" not in permissions
    readme = permissions[f"{s.file}:readme"]
    assert sorted(readme["permissions"]) == [f"{s.file}:read", f"{s.file}:write"]

    only_files = await permit.get_user_permissions(alice, tenants=[s.tenant], resource_types=[s.file])
    assert list(only_files) == [f"{s.file}:readme"]
    bobs = await permit.get_user_permissions(bob, tenants=[s.tenant])
    assert sorted(bobs[f"{s.folder}:docs"]["permissions"]) == [f"{s.folder}:read"]
    assert f"{s.file}:readme" not in bobs


async def test_authorized_users(permit: Permit, unique_key) -> None:
    s, alice, bob = await _docs_and_readme(permit, unique_key)
    readers = await permit.authorized_users("read", {"type": s.folder, "key": "docs", "tenant": s.tenant})
    assert readers.resource == f"{s.folder}:docs"
    assert readers.tenant == s.tenant
    assert sorted(readers.users) == sorted([alice, bob])
    # As Permit's PDP names a resource role: `<type>#<role>`, on the assignment's own instance.
    assert [(a.role, a.resource) for a in readers.users[bob]] == [(f"{s.folder}#viewer", f"{s.folder}:docs")]

    writers = await permit.authorized_users("write", f"{s.folder}:docs", {"tenant": s.tenant})
    assert list(writers.users) == [alice]
