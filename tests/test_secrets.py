"""The key store: OS keyring when secure, session memory otherwise, never plaintext."""

from __future__ import annotations

import logging

import keyring
import keyring.backend
import keyring.backends.chainer
import keyring.backends.fail
import pytest
from keyring.errors import KeyringLocked

from app.secrets import SERVICE, KeyStore, is_secure_backend, pick_secure_backend
from tests.keyring_double import MemoryKeyring


class LockedKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("collection is locked")


class PlaintextKeyring(MemoryKeyring):
    """Pretends to be keyrings.alt's plaintext file backend (module name is what is checked)."""


PlaintextKeyring.__module__ = "keyrings.alt.file"


def test_secure_backend_stores_under_service_and_profile_name() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend)
    assert store.secure
    assert store.set("Local vLLM", "sk-abc123") is True
    assert backend.entries == {(SERVICE, "Local vLLM"): "sk-abc123"}
    assert store.get("Local vLLM") == "sk-abc123"
    assert "keyring" in store.status().message


def test_delete_and_rename_move_the_key() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend)
    store.set("a", "k1")
    store.rename("a", "b")
    assert backend.entries == {(SERVICE, "b"): "k1"}
    store.delete("b")
    store.delete("b")  # deleting twice is not an error
    assert backend.entries == {}
    assert store.get("b") == ""


def test_empty_key_deletes_the_entry() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend)
    store.set("a", "k1")
    store.set("a", "")
    assert backend.entries == {}


def test_fail_backend_keeps_key_in_session_memory_only() -> None:
    store = KeyStore(keyring.backends.fail.Keyring())
    assert not store.secure
    assert store.set("TaoToken", "sk-secret") is False
    assert store.get("TaoToken") == "sk-secret"
    status = store.status()
    assert status.secure is False
    assert "session only" in status.message
    # A new session (a new store) has forgotten it.
    assert KeyStore(keyring.backends.fail.Keyring()).get("TaoToken") == ""


def test_plaintext_and_empty_chainer_backends_are_refused() -> None:
    assert not is_secure_backend(PlaintextKeyring())
    assert KeyStore(PlaintextKeyring()).secure is False
    chainer = keyring.backends.chainer.ChainerBackend()
    # On this machine without D-Bus the chain holds nothing secure.
    if not any(is_secure_backend(b) for b in chainer.backends):
        assert pick_secure_backend(chainer) is None


def test_locked_keyring_falls_back_to_session_and_says_so(caplog) -> None:
    store = KeyStore(LockedKeyring())
    with caplog.at_level(logging.WARNING):
        assert store.set("p", "sk-never-logged") is False
    assert store.get("p") == "sk-never-logged"
    assert "session only" in store.status().message
    assert "sk-never-logged" not in caplog.text
    assert "sk-never-logged" not in repr(store)


def test_default_keyring_is_used_when_none_given() -> None:
    backend = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        store = KeyStore()
        store.set("x", "k")
        assert backend.entries[(SERVICE, "x")] == "k"
    finally:
        keyring.set_keyring(previous)


@pytest.mark.parametrize("name", ["a", "名字 with space"])
def test_profile_names_are_usernames(name: str) -> None:
    backend = MemoryKeyring()
    KeyStore(backend).set(name, "k")
    assert (SERVICE, name) in backend.entries
