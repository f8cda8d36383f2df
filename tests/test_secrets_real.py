"""Key round-trip against a real Secret Service (gnome-keyring); tests/run.sh provides one."""

from __future__ import annotations

import os
import uuid

import pytest

from app.secrets import SERVICE, KeyStore

pytestmark = pytest.mark.secretservice


@pytest.fixture
def secret_service():
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        pytest.skip("no D-Bus session bus: run through tests/run.sh (dbus-run-session)")
    from keyring.backends import SecretService

    # Explicit backend, so the test cannot pass on a fallback.
    backend = SecretService.Keyring()
    try:
        backend.get_password(SERVICE, "probe-" + uuid.uuid4().hex)
    except Exception as exc:  # the D-Bus stack raises several unrelated types when absent
        pytest.skip(f"no usable Secret Service on this bus: {type(exc).__name__}: {exc}")
    return backend


def test_round_trip_through_gnome_keyring(secret_service) -> None:
    store = KeyStore(secret_service)
    assert store.secure
    assert "SecretService" in store.status().backend
    name = "ci-profile-" + uuid.uuid4().hex[:8]
    assert store.set(name, "sk-real-round-trip") is True
    # A fresh store (a new session of the app) reads it back from the daemon.
    assert KeyStore(secret_service).get(name) == "sk-real-round-trip"
    store.rename(name, name + "-renamed")
    assert secret_service.get_password(SERVICE, name) is None
    assert secret_service.get_password(SERVICE, name + "-renamed") == "sk-real-round-trip"
    store.delete(name + "-renamed")
    assert secret_service.get_password(SERVICE, name + "-renamed") is None
