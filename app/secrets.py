"""API keys in the OS keyring (service "tpotbench", one entry per profile), never in a file."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import keyring
import keyring.backend
from keyring.errors import KeyringError, PasswordDeleteError

SERVICE = "tpotbench"

log = logging.getLogger(__name__)

# Backends that would put a key somewhere readable (or nowhere at all): refused as "not secure".
# keyrings.alt's file backends keep base64 "plaintext" or prompt for a password on the terminal.
_INSECURE_PREFIXES = (
    "keyring.backends.fail.",
    "keyring.backends.null.",
    "keyrings.alt.file.",
    "keyrings.alt.file_base.",
)


def _qualified_name(backend: object) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def is_secure_backend(backend: keyring.backend.KeyringBackend) -> bool:
    """True for a backend that keeps keys encrypted by the OS (Secret Service, Keychain, ...)."""
    name = _qualified_name(backend)
    if name.startswith(_INSECURE_PREFIXES):
        return False
    # A chainer is only as good as the backends it chains; we pick one of those ourselves.
    return not name.startswith("keyring.backends.chainer.")


def pick_secure_backend(
    backend: keyring.backend.KeyringBackend | None = None,
) -> keyring.backend.KeyringBackend | None:
    """The backend keys go to: the configured one if secure, else the best secure one it chains.

    A chainer would fall through to a plaintext backend after a secure one fails, so we never
    hand it keys; we use its first secure member directly.
    """
    backend = backend if backend is not None else keyring.get_keyring()
    if _qualified_name(backend).startswith("keyring.backends.chainer."):
        members: list[keyring.backend.KeyringBackend] = list(getattr(backend, "backends", []))
        for member in members:
            if is_secure_backend(member):
                return member
        return None
    return backend if is_secure_backend(backend) else None


def backend_label(backend: keyring.backend.KeyringBackend) -> str:
    """A short human name such as "SecretService Keyring" or "macOS Keyring"."""
    name = getattr(backend, "name", "")
    return str(name) if name else type(backend).__name__


@dataclass(frozen=True)
class KeyStatus:
    """Where a key lives: in the OS keyring (named) or only in memory for this session."""

    secure: bool
    backend: str
    message: str


class KeyStore:
    """Reads and writes API keys; falls back to session memory when no secure keyring exists.

    Keys are never logged, never part of repr(), never written to a file by this class.
    """

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        self._backend = pick_secure_backend(backend)
        self._session: dict[str, str] = {}
        self._last_error = ""

    def __repr__(self) -> str:
        return f"KeyStore(backend={self.status().backend!r}, session_keys={len(self._session)})"

    @property
    def secure(self) -> bool:
        return self._backend is not None

    def status(self) -> KeyStatus:
        if self._backend is None:
            return KeyStatus(
                secure=False,
                backend="",
                message=(
                    "No secure keyring is available: keys are kept in memory for this session "
                    "only and must be entered again next time."
                ),
            )
        label = backend_label(self._backend)
        if self._last_error:
            return KeyStatus(True, label, self._last_error)
        return KeyStatus(True, label, f"Keys are stored in the OS keyring ({label}).")

    def get(self, profile: str) -> str:
        """The key for a profile, or "" when none is stored."""
        if profile in self._session:
            return self._session[profile]
        if self._backend is None:
            return ""
        try:
            return self._backend.get_password(SERVICE, profile) or ""
        except KeyringError as exc:
            self._note_failure("read", exc)
            return ""

    def set(self, profile: str, key: str) -> bool:
        """Store a key; an empty key deletes it. Returns True if it reached the OS keyring."""
        if not key:
            self.delete(profile)
            return self._backend is not None
        if self._backend is not None:
            try:
                self._backend.set_password(SERVICE, profile, key)
            except KeyringError as exc:
                self._note_failure("store", exc)
            else:
                self._session.pop(profile, None)
                self._last_error = ""
                return True
        self._session[profile] = key
        return False

    def delete(self, profile: str) -> None:
        """Forget a profile's key everywhere; a missing key is not an error."""
        self._session.pop(profile, None)
        if self._backend is None:
            return
        try:
            self._backend.delete_password(SERVICE, profile)
        except PasswordDeleteError:
            pass
        except KeyringError as exc:
            self._note_failure("delete", exc)

    def rename(self, old: str, new: str) -> None:
        """Move a key when its profile is renamed."""
        if old == new:
            return
        key = self.get(old)
        self.delete(old)
        if key:
            self.set(new, key)

    def _note_failure(self, action: str, exc: KeyringError) -> None:
        # The exception text comes from the backend and never contains the key itself.
        self._last_error = (
            f"The keyring could not {action} the key ({type(exc).__name__}); "
            "it is kept in memory for this session only."
        )
        log.warning("keyring %s failed: %s: %s", action, type(exc).__name__, exc)
