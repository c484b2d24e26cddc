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

    page = await permit.api.users.list(per_page=100)
    assert key in [u.key for u in page.data]  # the suite makes far fewer than 100 users
    assert page.total_count >= len(page.data)


async def test_an_unknown_user_is_not_found(permit: Permit, unique_key) -> None:
    with pytest.raises(PermitApiError) as missing:
        await permit.api.users.get(unique_key("nobody"))
    assert missing.value.status_code == 404
