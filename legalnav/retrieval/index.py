"""Per-document retrieval indexes, cached on disk by content hash.

A ``DocIndex`` holds what retrieval needs from one parsed document: light node records (for the
navindex planner and for expansions), the passages, and their embedding vectors, filled in lazily
and kept across runs. The cache is keyed by the file's sha256, the parser version and this
module's version, so a changed parser never serves stale nodes.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from legalnav.documents.models import PARSER_VERSION
from legalnav.documents.parsing import parse_document
from legalnav.retrieval.passages import Passage, build_passages, heading_path, passage_sizes
from legalnav.retrieval.vector_cache import PassageVectorCache, passage_key

INDEX_VERSION = 1


@dataclass(slots=True)
class NodeInfo:
    node_id: str
    kind: str
    ref: str
    heading: str
    label: str
    start: int
    end: int
    subtree_end: int
    parent: int | None
    children: list[int]
    flags: dict[str, bool]
    summary: str
    keywords: list[str]
    path: str  # heading path, for the planner's view of the index
    refs: list[int] = field(default_factory=list)  # resolved cross-reference targets
    terms: list[int] = field(default_factory=list)  # definitions of the terms the node uses


@dataclass(slots=True)
class DocIndex:
    sha256: str
    length: int
    title: str
    kind: str
    nodes: list[NodeInfo]
    passages: list[Passage]
    vectors: np.ndarray | None = None  # float32 [len(passages), dim]; NaN rows not yet embedded
    embedder: str = ""


def build_doc_index(text: str, sha256: str) -> DocIndex:
    parsed = parse_document(text)
    nodes = parsed.nodes
    infos = [
        NodeInfo(
            node_id=nd.node_id,
            kind=nd.kind,
            ref=nd.ref,
            heading=nd.heading,
            label=nd.label,
            start=nd.start,
            end=nd.end,
            subtree_end=max(nd.subtree_end, nd.end),
            parent=nd.parent,
            children=list(nd.children),
            flags=dict(nd.flags),
            summary=nd.summary,
            keywords=list(nd.keywords),
            path=heading_path(nodes, i),
        )
        for i, nd in enumerate(nodes)
    ]
    for ref in parsed.refs:
        if ref.target is not None and ref.target != ref.source:
            lst = infos[ref.source].refs
            if ref.target not in lst:
                lst.append(ref.target)
    for term in parsed.terms:
        for use in term.uses:
            if term.node not in infos[use].terms:
                infos[use].terms.append(term.node)
    return DocIndex(
        sha256=sha256,
        length=len(text),
        title=parsed.title,
        kind=parsed.kind,
        nodes=infos,
        passages=build_passages(nodes, text),
    )


class IndexCache:
    """Document indexes on disk (pickles) and in memory, keyed by content hash.

    New indexes and new vectors are held in memory ("dirty") until ``flush`` writes them. The
    product's cache (``retrieval.services.index_cache``) is flushed for its callers at the end of
    every request and job and at process exit; commands that keep a cache of their own flush it
    when they choose. Vectors are also written through to ``passages`` as they are computed, so
    an index that was never flushed loses its parse, never its embeddings."""

    def __init__(self, folder: Path, *, keep: int = 500) -> None:
        self.folder = folder
        self.keep = keep  # documents held in memory; older clean ones are dropped (a long-lived
        # worker would otherwise hold every document it ever indexed)
        self.memory: OrderedDict[str, DocIndex] = OrderedDict()
        self.dirty: set[str] = set()
        # A web process flushes from its request threads while its job thread computes vectors:
        # ``_lock`` guards ``dirty``, ``_writing`` lets one flush write at a time.
        self._lock = threading.Lock()
        self._writing = threading.Lock()
        # Vectors by passage text, across document versions (see vector_cache.py).
        self.passages = PassageVectorCache(folder / "passage-vectors.sqlite3")

    def _key(self, sha: str) -> str:
        """An index's name in memory and on disk: the text, the parser, this module and the
        passage sizes (settings, which a test may change between two calls)."""
        target, limit = passage_sizes()
        return f"{sha}-p{PARSER_VERSION}-i{INDEX_VERSION}-s{target}.{limit}"

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pkl"

    def get(self, text: str) -> DocIndex:
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        key = self._key(sha)
        if key in self.memory:
            self.memory.move_to_end(key)
            return self.memory[key]
        path = self._path(key)
        index: DocIndex | None = None
        if path.exists():
            try:
                with path.open("rb") as fh:
                    index = pickle.load(fh)
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                index = None  # a damaged cache entry is rebuilt
        if index is None:
            index = build_doc_index(text, sha)
            self.mark_dirty(index)
        self.memory[key] = index
        if len(self.memory) > self.keep:
            for old in [k for k in self.memory if k not in self.dirty][
                : len(self.memory) - self.keep
            ]:
                del self.memory[old]
        return index

    def forget(self, text: str) -> int:
        """Remove every cached index of this text (any parser or passage-size version), in memory
        and on disk, and its passages' vectors: what a deleted document leaves behind. Returns how
        many entries went (index files and vectors)."""
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        prefix = f"{sha}-"
        with self._lock:
            found = [self.memory.pop(k) for k in list(self.memory) if k.startswith(prefix)]
            self.dirty = {k for k in self.dirty if not k.startswith(prefix)}
        files = sorted(self.folder.glob(f"{sha}-*.pkl")) if self.folder.exists() else []
        for path in files:
            if not found:
                try:
                    with path.open("rb") as fh:
                        found.append(pickle.load(fh))
                except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                    pass  # damaged: its vectors (if any) are found by another version's passages
            path.unlink(missing_ok=True)
        passages = [p for index in found for p in index.passages]
        keys = {passage_key(p.indexed_text) for p in passages}
        # ... and the vectors of their sentences: the matrix kept from the passage's pass
        # (pooled.py) and those embedded one by one (evidence.unit_vectors).
        from legalnav.retrieval.evidence import unit_key
        from legalnav.retrieval.pooled import passage_units, pooled_key

        for p in passages:
            keys.add(pooled_key(p))
            keys.update(unit_key(p, text[a:b]) for a, b in passage_units(text, p))
        return len(files) + self.passages.delete_many(keys)

    def mark_dirty(self, index: DocIndex) -> None:
        with self._lock:
            self.dirty.add(self._key(index.sha256))

    def flush(self) -> int:
        """Write changed indexes (new documents, new vectors) atomically; returns how many.

        Safe from several threads: an index that changes while it is being written is dirty
        again afterwards and is written by the next flush."""
        if not self.dirty:  # the common case, once per request: no lock, no I/O
            return 0
        with self._writing:
            with self._lock:
                keys, self.dirty = sorted(self.dirty), set()
                # Taken now: ``get`` may drop an index from memory once it is no longer dirty.
                todo = [(key, self.memory.get(key)) for key in keys]
            done = 0  # position in todo
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                for key, index in todo:
                    if index is not None:
                        path = self._path(key)
                        tmp = path.with_suffix(f".{os.getpid()}.tmp")
                        with tmp.open("wb") as fh:
                            pickle.dump(index, fh, protocol=pickle.HIGHEST_PROTOCOL)
                        os.replace(tmp, path)
                    done += 1
            except BaseException:
                with self._lock:  # a full disk, say: keep what was not written for next time
                    self.dirty.update(keys[done:])
                raise
            return sum(1 for _, index in todo if index is not None)
