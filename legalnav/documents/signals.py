"""Moments in a document's life that higher layers act on, without documents importing them.

``documents`` sits below ``retrieval`` (the layer contract in pyproject.toml), yet indexing must
store a document's passage vectors and deleting it must remove them. So documents announces these
moments and retrieval connects its receivers in ``RetrievalConfig.ready()``.

Both are sent with ``send()``, not ``send_robust()``: receivers run synchronously in the sender's
process, and an exception from one is the sender's failure. Indexing fails the document with its
reason, like any other indexing error (a receiver that means to be best-effort catches its own).
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent by the indexing job once the document's nodes and navindex files are written, before it is
# marked indexed, with ``document`` and ``progress(percent, note)``, which reports progress on the
# job and raises ``JobLost`` once the job was cancelled or taken over.
document_indexed = Signal()

# Sent by ``document_delete`` with ``document`` just before its row is deleted.
document_deleting = Signal()
