"""Internal requests are signed with the session key and refused as Kafka refuses them."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from conveyor.errors import BadRequestError, ForbiddenError, NotReadyError
from conveyor.herder.distributed.request_signature import (
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    RequestSignature,
    signature_headers,
    verify_signature,
)
from conveyor.herder.distributed.session_keys import SessionKey

KEY = SessionKey(b"k" * 32, "HmacSHA256", 1_700_000_000_000)
OTHER_KEY = SessionKey(b"o" * 32, "HmacSHA256", 1_700_000_000_000)
BODY = b'[{"task.class":"Source","topic":"t"}]'
VERIFIED = ["HmacSHA256"]


def received(body: bytes, key: SessionKey = KEY, algorithm: str = "HmacSHA256") -> RequestSignature:
    """The signature of a request that arrives carrying ``body`` with headers that sign ``BODY``."""
    signature = RequestSignature.from_headers(body, signature_headers(key, BODY, algorithm))
    assert signature is not None
    return signature


def test_the_signature_header_is_the_base64_hmac_of_the_body() -> None:
    headers = signature_headers(KEY, BODY, "HmacSHA256")
    expected = base64.b64encode(hmac.new(KEY.key, BODY, hashlib.sha256).digest()).decode()
    assert headers == {SIGNATURE_HEADER: expected, SIGNATURE_ALGORITHM_HEADER: "HmacSHA256"}


def test_the_same_body_signed_with_the_same_key_verifies() -> None:
    verify_signature(received(BODY), KEY, VERIFIED)


def test_a_signature_of_another_body_is_forbidden() -> None:
    with pytest.raises(ForbiddenError, match="invalid signature"):
        verify_signature(received(b"[]"), KEY, VERIFIED)


def test_a_signature_made_with_another_key_is_forbidden() -> None:
    with pytest.raises(ForbiddenError):
        verify_signature(received(BODY, key=OTHER_KEY), KEY, VERIFIED)


def test_a_request_without_signature_headers_has_no_signature() -> None:
    headers = signature_headers(KEY, BODY, "HmacSHA256")
    del headers[SIGNATURE_HEADER]
    assert RequestSignature.from_headers(BODY, headers) is None


def test_a_missing_signature_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError, match="missing required signature"):
        verify_signature(None, KEY, VERIFIED)


def test_an_algorithm_outside_the_verification_list_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError, match="'HmacSHA512' key signing algorithm"):
        verify_signature(received(BODY, algorithm="HmacSHA512"), KEY, VERIFIED)


def test_an_algorithm_the_worker_cannot_compute_is_a_bad_request() -> None:
    headers = {SIGNATURE_HEADER: "AAAA", SIGNATURE_ALGORITHM_HEADER: "HmacWhirlpool"}
    with pytest.raises(BadRequestError, match="HmacWhirlpool"):
        RequestSignature.from_headers(BODY, headers)


def test_a_signature_that_is_not_base64_is_a_bad_request() -> None:
    headers = {SIGNATURE_HEADER: "not base64!", SIGNATURE_ALGORITHM_HEADER: "HmacSHA256"}
    with pytest.raises(BadRequestError):
        RequestSignature.from_headers(BODY, headers)


def test_a_worker_without_a_session_key_is_unavailable() -> None:
    with pytest.raises(NotReadyError, match="session key"):
        verify_signature(received(BODY), None, VERIFIED)


def test_a_signature_with_a_non_default_verified_algorithm_verifies() -> None:
    verify_signature(received(BODY, algorithm="HmacSHA512"), KEY, ["HmacSHA256", "HmacSHA512"])
