"""Small helpers that read settings from the environment and fail loudly on bad values.

Modelled on healthchecks' ``hc/settings.py``: every outside service has a switch whose default is
the embedded one, so an unset variable always means "run on one machine".
"""

from __future__ import annotations

import os

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ConfigError(ValueError):
    """An environment variable holds a value that cannot be used."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name} must be one of {sorted(_TRUE | _FALSE - {''})}, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from exc


def env_secret(name: str) -> str:
    """A secret, read from ``NAME`` or from the file named by ``NAME_FILE`` (Docker secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read().strip()
        except OSError as exc:
            raise ConfigError(
                f"{name}_FILE points at {path!r}, which cannot be read: {exc}"
            ) from exc
    return os.environ.get(name, "")


# Values that are not secret whatever their length: the development default in settings.py and
# the placeholder that docker/compose.yml once fell back to.
KNOWN_SECRET_KEYS = frozenset({"legalnav-dev-only-not-secret", "change-me", "changeme"})


def secret_key_problem(key: str) -> str | None:
    """Why ``key`` must not sign a production site's sessions, or None when it may.

    The same bar as Django's ``check --deploy`` (security.W009: at least 50 characters, at least 5
    distinct ones, not ``startproject``'s "django-insecure-" key), plus the known placeholders.
    """
    if not key:
        return "not set"
    if key in KNOWN_SECRET_KEYS:
        return f"the published placeholder {key!r}"
    if key.startswith("django-insecure-"):
        return "a key Django generated for development (it starts with 'django-insecure-')"
    if len(key) < 50:
        return f"only {len(key)} characters long (at least 50 are needed)"
    if len(set(key)) < 5:
        return "made of fewer than 5 distinct characters"
    return None
