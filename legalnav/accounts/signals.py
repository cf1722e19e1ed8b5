"""Signals of the accounts app, for the apps above it."""

from __future__ import annotations

import django.dispatch

# A person was deactivated (by staff, or found inactive at sign-in): every session of theirs has
# ended; receivers end the rest of their access (the API app revokes their tokens). Sent with
# ``user`` and ``by`` (who deactivated them, or None).
user_deactivated = django.dispatch.Signal()
