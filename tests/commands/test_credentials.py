"""Where probe, sweep and doctor find the API key and extra headers."""

from __future__ import annotations

import keyring
import pytest

from app.commands.credentials import UsageError, find_api_key, require_api_key
from app.secrets import SERVICE
from tests.keyring_double import MemoryKeyring


@pytest.fixture
def memory_keyring():  # type: ignore[no-untyped-def]
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


def test_named_variable_wins_over_profile_and_defaults(monkeypatch, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.entries[(SERVICE, "gw")] = "from-keyring"
    monkeypatch.setenv("OPENAI_API_KEY", "from-default-env")
    monkeypatch.setenv("MY_KEY", "from-named-env")
    assert find_api_key("MY_KEY", "gw") == ("from-named-env", "from $MY_KEY")
    assert find_api_key(None, "gw") == ("from-keyring", "from the keyring entry of profile 'gw'")
    assert find_api_key(None, None) == ("from-default-env", "from $OPENAI_API_KEY")


def test_missing_named_variable_is_reported_not_replaced(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("TPOT_NOT_SET", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "would-be-a-silent-fallback")
    assert find_api_key("TPOT_NOT_SET", None) == (
        None,
        "environment variable TPOT_NOT_SET is not set",
    )
    with pytest.raises(UsageError, match="--api-key-env: environment variable TPOT_NOT_SET"):
        require_api_key("TPOT_NOT_SET", None)
    monkeypatch.setenv("TPOT_EMPTY", "  ")
    with pytest.raises(UsageError, match="is empty"):
        require_api_key("TPOT_EMPTY", None)


def test_no_key_anywhere_is_none(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for name in ("OPENAI_API_KEY", "API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert require_api_key(None, None) is None
