"""permit.api.users: create, get, list (a paginated answer)."""

import pytest
from permit import Permit
from permit.exceptions import PermitApiError


async def test_user_round_trip(permit: Permit, unique_key) -> None:
    key = unique_key("user")
    created = await permit.api.users.create(
        {"key": key, "email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace", "attributes": {"dept": "math"}}
    )
    assert (created.key, created.email, created.first_name, created.last_name) == (key, "ada@example.com", "Ada", "Lovelace")
    assert created.attributes == {"dept": "math"}

    fetched = await permit.api.users.get(key)
    assert fetched.id == created.id
    assert fetched.email == "ada@example.com"

    # A page with its count: walk every page (other tests make users too) and find ours once.
    first = await permit.api.users.list(per_page=100)
    assert first.page_count == -(-first.total_count // 100)
    keys = [u.key for u in first.data]
    for page in range(2, first.page_count + 1):
        keys += [u.key for u in (await permit.api.users.list(page=page, per_page=100)).data]
    assert len(keys) == first.total_count
    assert keys.count(key) == 1


async def test_an_unknown_user_is_not_found(permit: Permit, unique_key) -> None:
    with pytest.raises(PermitApiError) as missing:
        await permit.api.users.get(unique_key("nobody"))
    assert missing.value.status_code == 404
