"""The helpers the `permit` 3.0.0 sdist's e2e modules import from `tests.utils` (not shipped in
the sdist; see conftest.py). Written from what the modules ask of them."""

import uuid

import pytest
from loguru import logger

from permit.exceptions import PermitApiError


def _describe(error: PermitApiError, message: str) -> str:
    return (
        f"{message}: status={error.status_code}, url={error.request_url}, "
        f"method={error.response.method}, details={error.details}"
    )


def handle_api_error(error: PermitApiError, message: str):
    """An API error in a test's body fails the test, naming the request."""
    text = _describe(error, message)
    logger.error(text)
    pytest.fail(text)


def handle_cleanup_error(error: PermitApiError, message: str):
    """During teardown an object already gone (404) is fine; any other error fails the test."""
    if error.status_code == 404:
        logger.info(f"{message}: already gone")
        return
    handle_api_error(error, message)


def unique_key(prefix: str) -> str:
    """A key no other test or run uses: the modules share one environment."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
