"""What a record says of the person who acted, for every app that records one."""

from __future__ import annotations


def actor_name(user: object) -> str:
    """The user's username, or "" when no user acted (a command) or the user is anonymous."""
    return str(getattr(user, "get_username", lambda: "")())
