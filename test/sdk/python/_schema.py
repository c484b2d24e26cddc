"""A small folder/file schema each facts or check test builds under its own keys."""

from dataclasses import dataclass
from typing import Callable

from permit import Permit


@dataclass(frozen=True)
class FolderFile:
    folder: str  # resource type keys
    file: str
    tenant: str
    parent: str = "parent"  # file -> folder relation


async def folder_file_schema(permit: Permit, unique_key: Callable[[str], str]) -> FolderFile:
    """folder and file types with `editor` (read, write) and `viewer` (read) roles on each,
    file#parent -> folder, file editor granted to folder editors through parent, and a tenant."""
    s = FolderFile(folder=unique_key("folder"), file=unique_key("file"), tenant=unique_key("tenant"))
    for resource in (s.folder, s.file):
        await permit.api.resources.create({"key": resource, "name": resource, "actions": {"read": {}, "write": {}}})
        await permit.api.resource_roles.create(resource, {"key": "editor", "name": "Editor", "permissions": ["read", "write"]})
        await permit.api.resource_roles.create(resource, {"key": "viewer", "name": "Viewer", "permissions": ["read"]})
    await permit.api.resource_relations.create(s.file, {"key": s.parent, "name": "Parent", "subject_resource": s.folder})
    await permit.api.resource_roles.create_role_derivation(
        s.file, "editor", {"role": "editor", "on_resource": s.folder, "linked_by_relation": s.parent}
    )
    await permit.api.tenants.create({"key": s.tenant, "name": "Tenant"})
    return s
