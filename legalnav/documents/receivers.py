"""The documents app's part in what happens elsewhere, connected in ``DocumentsConfig.ready()``.

- A matter is purged (``matters.signals.matter_purging``): delete its documents with every trace
  of them (``services.matter_documents_purge``).

Nothing heavy is imported at start-up: the services (the parsers) come in only when there is a
purge to do.
"""

from __future__ import annotations

from typing import Any


def purge_matter_documents(sender: Any, *, matter: Any, **kwargs: Any) -> dict[str, int]:
    from legalnav.documents.services import matter_documents_purge

    return matter_documents_purge(sender, matter=matter)
