"""Where a command's API key comes from: a named variable, a profile's keyring entry, env."""

from __future__ import annotations

import os

from app.bench.http.auth import key_problem

DEFAULT_KEY_ENVS = ("OPENAI_API_KEY", "API_KEY")


class UsageError(ValueError):
    """Bad flags or inputs: one line, exit code 2."""


def find_api_key(api_key_env: str | None, profile: str | None) -> tuple[str | None, str]:
    """The key and a phrase saying where it came from (never the key itself).

    Order: the variable named by --api-key-env, the profile's keyring entry, then the variables
    users already export for OpenAI-style clients. A named variable that is unset or empty gives
    (None, what is wrong) so the caller can refuse it or diagnose it.
    """
    if api_key_env:
        value = os.environ.get(api_key_env)
        if value is None:
            return None, f"environment variable {api_key_env} is not set"
        if not value.strip():
            return None, f"environment variable {api_key_env} is empty"
        return value, f"from ${api_key_env}"
    if profile:
        from app.secrets import KeyStore

        value = KeyStore().get(profile)
        if value:
            return value, f"from the keyring entry of profile '{profile}'"
    for name in DEFAULT_KEY_ENVS:
        value = os.environ.get(name)
        if value:
            return value, f"from ${name}"
    return None, ""


def require_api_key(api_key_env: str | None, profile: str | None) -> str | None:
    """find_api_key for commands that send: a named but missing variable is a usage error."""
    value, origin = find_api_key(api_key_env, profile)
    if api_key_env and value is None:
        raise UsageError(f"--api-key-env: {origin}")
    if problem := key_problem(value):
        # `origin` names the variable or profile, never the key
        raise UsageError(f"{problem} ({origin.removeprefix('from ')})")
    return value
