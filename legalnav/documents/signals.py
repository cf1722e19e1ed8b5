"""Moments in a document's life that higher layers act on, without documents importing them.

``documents`` sits below ``retrieval`` and ``research`` (the layer contract in pyproject.toml), yet
indexing must store a document's passage vectors and, for a judgment, build its case card, and
deleting a document must remove its vectors. So documents announces these moments and those apps
connect their receivers in their ``AppConfig.ready()``.

Each is sent with ``send()``, not ``send_robust()``: receivers run synchronously in the sender's
process, and an exception from one is the sender's failure. Indexing fails the document with its
reason, like any other indexing error (a receiver that means to be best-effort catches its own).
"""

from __future__ import annotations

from django.dispatch import Signal

# Sent by the indexing job once the document's text and nodes are saved, with ``document`` (its
# new text read back), before its optional Claude summaries and its navindex files. Research builds
# a judgment's case card here, which may set the document's kind, title and date (on the row and
# on the ``document`` sent, which the later steps read); reading errors never fail indexing.
document_text_saved = Signal()

# Sent by the indexing job once the document's nodes and navindex files are written, before it is
# marked indexed, with ``document`` and ``progress(percent, note)``, which reports progress on the
# job and raises ``JobLost`` once the job was cancelled or taken over.
document_indexed = Signal()

# Sent by ``document_delete`` with ``document`` just before its row is deleted.
document_deleting = Signal()
