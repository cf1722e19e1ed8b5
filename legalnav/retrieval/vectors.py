"""The vector store behind dense retrieval: one small interface, two Qdrant backends.

``EdgeVectorStore`` runs the Qdrant engine in-process (PyPI ``qdrant-edge-py``), one shard folder
per collection, so a single machine needs no Qdrant server. ``ServerVectorStore`` talks to a Qdrant
server through qdrant-client. ``get_vector_store()`` picks one from ``settings.QDRANT_URL``.

Points are passages: integer ids (Passage row ids), unit float32 vectors compared by cosine, and a
small payload (``document_id``, ``matter_id``, ``node_id``) that searches filter on.

Neither engine is imported here at module level: the web process imports this module to render
pages and must not pay for (or depend on) ``qdrant_client`` / ``qdrant_edge`` until it searches.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

# Payload fields that searches and deletions filter on; both backends index them as integers so a
# filtered search walks the matching points only instead of checking every payload.
FILTER_FIELDS: tuple[str, ...] = ("matter_id", "document_id", "node_id")
UPSERT_BATCH = 1_000
# With int8 quantization the engine ranks by the quantized vectors and re-scores the best
# ``limit * oversampling`` candidates with the original float32 ones: 3x gave recall@10 = 1.000
# against a numpy brute force on 200k random 384-d vectors (1x gave 0.95).
EDGE_OVERSAMPLING = 3.0

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
T = TypeVar("T")

Where = dict[str, int | str | list[int]]
Condition = tuple[str, int | str | list[int] | list[str]]  # (payload field, value or any-of list)


@dataclass(frozen=True)
class VectorHit:
    id: int  # point id (we use Passage row ids / integers)
    score: float  # cosine similarity
    payload: dict[str, Any]


class VectorStore(Protocol):
    def ensure_collection(self, name: str, dimension: int) -> None:
        """Create the collection if missing; ValueError if it exists with another dimension."""
        ...

    def upsert(
        self,
        name: str,
        ids: Sequence[int],
        vectors: np.ndarray,
        payloads: Sequence[dict[str, Any]],
    ) -> None:
        """Insert or replace points; they are searchable when this returns."""
        ...

    def delete_where(self, name: str, *, field: str, value: int | str) -> None:
        """Delete every point whose payload ``field`` equals ``value`` (no-op if no collection)."""
        ...

    def search(
        self,
        name: str,
        vector: np.ndarray,
        *,
        limit: int,
        where: Where | None = None,
    ) -> list[VectorHit]:
        """Nearest points by cosine, best first; ``where`` is equality on payload fields, a list
        value meaning "any of". A missing or empty collection gives []."""
        ...

    def count(self, name: str) -> int:
        """Number of points (0 for a missing collection)."""
        ...

    def close(self) -> None:
        """Release files and connections; the store reopens them if used again."""
        ...


class VectorStoreLocked(RuntimeError):
    """An Edge shard folder is held open by another EdgeShard (this process or another one)."""


# ---------------------------------------------------------------------------------------------
# Input checks shared by both backends: the engines either accept bad input silently (a NaN query
# returns no hits) or fail with messages that do not say which argument was wrong.


def _check_name(name: str) -> None:
    # The name becomes a folder for Edge; the same rule on the server keeps the backends swappable.
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"collection name {name!r} must be 1-64 letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )


def _check_dimension(dimension: int) -> int:
    if isinstance(dimension, bool) or not isinstance(dimension, int | np.integer) or dimension < 1:
        raise ValueError(f"dimension must be a positive integer, got {dimension!r}")
    return int(dimension)


def _check_points(
    ids: Sequence[int],
    vectors: np.ndarray,
    payloads: Sequence[dict[str, Any]],
    dimension: int | None,
) -> tuple[list[int], np.ndarray, list[dict[str, Any]]]:
    id_array = np.asarray(ids)
    if id_array.ndim != 1:
        raise ValueError("ids must be a flat sequence of integers")
    if id_array.size and id_array.dtype.kind not in "iu":
        raise ValueError(f"ids must be non-negative integers, got dtype {id_array.dtype}")
    if id_array.size and int(id_array.min()) < 0:
        raise ValueError(f"ids must be non-negative integers, got {int(id_array.min())}")
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(
            f"vectors must be a 2-D array (points x dimension), got shape {matrix.shape}"
        )
    if matrix.shape[0] != len(id_array):
        raise ValueError(f"got {len(id_array)} ids but {matrix.shape[0]} vectors")
    if len(payloads) != len(id_array):
        raise ValueError(f"got {len(id_array)} ids but {len(payloads)} payloads")
    if dimension is not None and matrix.shape[1] != dimension:
        raise ValueError(f"vectors have dimension {matrix.shape[1]}, the collection {dimension}")
    _check_finite_nonzero(matrix, what="vectors")
    if not all(isinstance(p, dict) for p in payloads):
        raise ValueError("each payload must be a dict")
    return [int(i) for i in id_array.tolist()], matrix, list(payloads)


def _batches(
    point_ids: list[int], matrix: np.ndarray, payloads: list[dict[str, Any]]
) -> Iterator[tuple[list[int], list[list[float]], list[dict[str, Any]]]]:
    """Checked points in runs of ``UPSERT_BATCH``: ids, vectors as lists (one C-level conversion
    per batch, not per point) and payloads."""
    for start in range(0, len(point_ids), UPSERT_BATCH):
        stop = start + UPSERT_BATCH
        yield point_ids[start:stop], matrix[start:stop].tolist(), payloads[start:stop]


def _no_collection(name: str) -> ValueError:
    return ValueError(f"collection {name!r} does not exist: call ensure_collection first")


def _check_same_dimension(name: str, existing: int | None, dimension: int) -> None:
    if existing is not None and existing != dimension:
        raise ValueError(f"collection {name!r} has dimension {existing}, not {dimension}")


def _check_query(vector: np.ndarray, dimension: int | None, limit: int) -> np.ndarray:
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    query = np.asarray(vector, dtype=np.float32)
    if query.ndim != 1:
        raise ValueError(f"the query vector must be 1-D, got shape {query.shape}")
    if dimension is not None and query.shape[0] != dimension:
        raise ValueError(
            f"the query vector has dimension {query.shape[0]}, the collection {dimension}"
        )
    _check_finite_nonzero(query[None, :], what="the query vector")
    return query


def _check_finite_nonzero(matrix: np.ndarray, *, what: str) -> None:
    if not np.isfinite(matrix).all():
        bad = int(np.flatnonzero(~np.isfinite(matrix).all(axis=1))[0])
        raise ValueError(f"{what} contain NaN or infinity (row {bad})")
    # Cosine of a zero vector is undefined; the engines would store NaNs and never return it.
    zero = ~matrix.any(axis=1)
    if zero.any():
        raise ValueError(f"{what} contain an all-zero vector (row {int(np.flatnonzero(zero)[0])})")


def _check_match_value(field: str, value: object) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str | np.integer):
        raise ValueError(f"filter value for {field!r} must be an int or str, got {value!r}")
    return int(value) if isinstance(value, np.integer) else value


def _conditions(where: Where | None) -> list[Condition] | None:
    """(field, value or list of values) pairs, or None if the filter can match nothing."""
    out: list[Condition] = []
    for field, value in (where or {}).items():
        if not isinstance(field, str) or not field:
            raise ValueError(f"filter field names must be non-empty strings, got {field!r}")
        if isinstance(value, list | tuple | set | frozenset | np.ndarray):
            values = [_check_match_value(field, v) for v in value]
            if not values:
                return None  # "any of nothing": skip the engine, it would scan for no match
            numbers = [v for v in values if isinstance(v, int)]
            words = [v for v in values if isinstance(v, str)]
            if numbers and words:
                raise ValueError(f"filter values for {field!r} mix integers and strings")
            out.append((field, numbers or words))
        else:
            out.append((field, _check_match_value(field, value)))
    return out


# ---------------------------------------------------------------------------------------------
# Edge: the Qdrant engine in-process.


class EdgeVectorStore:
    """Qdrant Edge shards under ``folder``, one per collection, persistent across processes.

    Index choice, measured on the 2-core dev machine with 384-d random unit vectors (numbers from
    ``manage.py bench_vectors`` and scratch runs of the same engine):

    * defaults, never optimized (one appendable float32 segment): p50 24 ms at 200k points;
    * defaults, optimized (HNSW m=16, ef_construct=100): the build took 17 s for 20k points and
      had not finished after 8 minutes for 200k; at 20k, recall@10 was 0.40 at the default ef
      and 0.88 at ef=512, by which point a search cost more than an exact scan (2.8 vs 1.9 ms).
      Random high-dimensional points are HNSW's worst case, but a legal corpus searched one
      matter at a time stays small enough that a graph buys little and risks missed passages;
    * chosen: no graph (``m=0``) and int8 scalar quantization held in RAM. A search scans the
      int8 codes (a quarter of the float32 memory traffic) and re-scores the best
      ``limit x EDGE_OVERSAMPLING`` with the original vectors: at 200k, p50 3.8 ms unfiltered and
      1.2 ms filtered by matter, recall@10 = 1.000, index build part of 10k points/s upserts.
      The scan grows linearly (~20 ms at a million points, extrapolated); past that, give the
      segments a graph again (``m=16``) and search with ``hnsw_ef``.

    Edge has no background optimizer: ``upsert`` and ``delete_where`` run ``optimize()`` before
    they return, which quantizes a segment once it passes the indexing threshold (~6.5k points of
    dimension 384) and vacuums deleted points; below it the appendable segment is scanned as is.

    A shard folder can be open in one EdgeShard at a time (the engine locks its WAL): a second
    store on the same folder, in this process or another, waits ``lock_timeout`` seconds and then
    raises VectorStoreLocked. Processes that must share a collection (web and a Celery worker) need
    the server backend, or must close() the store between uses.
    """

    def __init__(self, folder: Path, *, lock_timeout: float = 5.0) -> None:
        self.folder = Path(folder)
        self.lock_timeout = lock_timeout
        self._shards: dict[str, Any] = {}  # name -> qdrant_edge.EdgeShard
        self._dimensions: dict[str, int] = {}
        self._lock = threading.Lock()

    # -- shards ------------------------------------------------------------------------------

    def _path(self, name: str) -> Path:
        _check_name(name)
        return self.folder / name

    @staticmethod
    def _exists(path: Path) -> bool:
        # create() persists edge_config.json before it returns; a folder without it holds no shard.
        return (path / "edge_config.json").is_file()

    @staticmethod
    def _config(dimension: int) -> Any:
        import qdrant_edge as qe

        return qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine),
            # m=0: no graph; full_scan_threshold and payload_m are then unused but required.
            hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
            quantization_config=qe.ScalarQuantizationConfig(
                type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Pinned
            ),
            # The automatic target on 2 cores is 2 segments, so every upsert that filled a new
            # segment re-merged (and re-quantized) the whole collection: 2.9k points/s when
            # loading 200k in 10k upserts. Letting 8 segments stand took it to 11.7k/s, and the
            # extra segments are searched in parallel, so search got no slower.
            optimizers=qe.EdgeOptimizersConfig(default_segment_number=8),
        )

    def _retry_locked(self, path: Path, open_shard: Callable[[], T]) -> T:
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                return open_shard()
            except Exception as exc:  # the engine raises a bare Exception; WouldBlock = locked
                if "WouldBlock" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise VectorStoreLocked(
                        f"the Qdrant Edge shard {path} is open elsewhere (another process or "
                        "another EdgeVectorStore); only one may hold it at a time"
                    ) from exc
                time.sleep(0.05)

    def _shard(self, name: str, *, create_dimension: int | None = None) -> Any | None:
        """The open shard for ``name``, loading it from disk, or creating it when a dimension is
        given; None if it does not exist."""
        path = self._path(name)
        with self._lock:
            shard = self._shards.get(name)
            if shard is not None:
                return shard
            import qdrant_edge as qe

            if self._exists(path):
                shard = self._retry_locked(path, lambda: qe.EdgeShard.load(str(path)))
                dimension = self._persisted_dimension(path)
            elif create_dimension is not None:
                path.mkdir(parents=True, exist_ok=True)
                config = self._config(create_dimension)
                shard = self._retry_locked(path, lambda: qe.EdgeShard.create(str(path), config))
                for field in FILTER_FIELDS:
                    shard.update(
                        qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Integer)
                    )
                shard.flush()
                dimension = create_dimension
            else:
                return None
            self._shards[name] = shard
            if dimension is not None:
                self._dimensions[name] = dimension
            return shard

    @staticmethod
    def _persisted_dimension(path: Path) -> int | None:
        # edge_config.json is the engine's documented record of the shard's config; if its shape
        # ever changes we lose only our friendlier dimension message, not correctness (below).
        try:
            config = json.loads((path / "edge_config.json").read_text(encoding="utf-8"))
            return int(config["vectors"][""]["size"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    @contextmanager
    def _engine_errors() -> Iterator[None]:
        """The engine's own dimension check (a bare Exception) as the ValueError we promise."""
        try:
            yield
        except Exception as exc:
            if "dimension" in str(exc).lower():
                raise ValueError(str(exc)) from exc
            raise

    # -- the interface -----------------------------------------------------------------------

    def ensure_collection(self, name: str, dimension: int) -> None:
        dimension = _check_dimension(dimension)
        self._shard(name, create_dimension=dimension)
        _check_same_dimension(name, self._dimensions.get(name), dimension)

    def upsert(
        self,
        name: str,
        ids: Sequence[int],
        vectors: np.ndarray,
        payloads: Sequence[dict[str, Any]],
    ) -> None:
        shard = self._shard(name)
        if shard is None:
            raise _no_collection(name)
        # None only if edge_config.json could not be read: the engine then checks the dimension.
        dimension = self._dimensions.get(name)
        point_ids, matrix, payload_list = _check_points(ids, vectors, payloads, dimension)
        if not point_ids:
            return
        import qdrant_edge as qe

        for batch_ids, rows, batch_payloads in _batches(point_ids, matrix, payload_list):
            points = [
                qe.Point(pid, row, payload)
                for pid, row, payload in zip(batch_ids, rows, batch_payloads, strict=True)
            ]
            with self._engine_errors():
                shard.update(qe.UpdateOperation.upsert_points(points))
        self._settle(shard)

    def delete_where(self, name: str, *, field: str, value: int | str) -> None:
        conditions = _conditions({field: value})
        shard = self._shard(name)
        if shard is None or conditions is None:
            return
        import qdrant_edge as qe

        shard.update(qe.UpdateOperation.delete_points_by_filter(_edge_filter(conditions)))
        self._settle(shard)

    def search(
        self,
        name: str,
        vector: np.ndarray,
        *,
        limit: int,
        where: Where | None = None,
    ) -> list[VectorHit]:
        conditions = _conditions(where)
        shard = self._shard(name)
        query = _check_query(vector, self._dimensions.get(name), limit)  # known once opened
        if shard is None or conditions is None:
            return []
        import qdrant_edge as qe

        request = qe.QueryRequest(
            limit=int(limit),
            query=qe.Query.Nearest(query.tolist()),
            filter=_edge_filter(conditions) if conditions else None,
            with_payload=True,
            params=qe.SearchParams(
                quantization=qe.QuantizationSearchParams(
                    rescore=True, oversampling=EDGE_OVERSAMPLING
                )
            ),
        )
        with self._engine_errors():
            points = shard.query(request)
        return [
            VectorHit(id=int(p.id), score=float(p.score), payload=p.payload or {}) for p in points
        ]

    def count(self, name: str) -> int:
        shard = self._shard(name)
        if shard is None:
            return 0
        import qdrant_edge as qe

        return int(shard.count(qe.CountRequest(exact=True)))

    def close(self) -> None:
        with self._lock:
            shards, self._shards = self._shards, {}
            self._dimensions.clear()
        for shard in shards.values():
            shard.close()  # flushes; releases the WAL lock for other processes

    @staticmethod
    def _settle(shard: Any) -> None:
        # Edge runs no optimizer thread: without this the appendable segment grows unquantized
        # forever and deleted points are never vacuumed; it is a no-op when nothing is due.
        # The flush writes the segments so that a restart does not replay a long WAL; it costs
        # ~20 ms per call at 50k points (measured), fine for one call per indexed document.
        shard.optimize()
        shard.flush()


def _edge_filter(conditions: list[Condition]) -> Any:
    import qdrant_edge as qe

    return qe.Filter(
        must=[
            qe.FieldCondition(
                key=field,
                match=qe.MatchAny(value) if isinstance(value, list) else qe.MatchValue(value),
            )
            for field, value in conditions
        ]
    )


# ---------------------------------------------------------------------------------------------
# Server: qdrant-client.


class ServerVectorStore:
    """A Qdrant server through qdrant-client (HNSW with the server's defaults, cosine, integer
    payload indexes on FILTER_FIELDS, ``query_points``).

    ``client=`` takes a ready QdrantClient instead of ``url``/``api_key``. The project ships no
    Qdrant server binary, so the tests pass ``QdrantClient(location=":memory:")``: qdrant-client's
    local mode behind the same client methods and models (it brute-forces in numpy and ignores
    payload indexes, so it checks this adapter, not the server's index).
    """

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        client: QdrantClient | None = None,
        timeout: int = 30,
    ) -> None:
        if client is None and not url:
            raise ValueError("ServerVectorStore needs a url or a client")
        self.url = url
        self._api_key = api_key or None
        self._timeout = timeout
        self._client = client
        self._owns_client = client is None
        self._dimensions: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def client(self) -> QdrantClient:
        """Built on first use: constructing one imports qdrant-client and asks the server for its
        version, neither of which a process that never searches should pay for."""
        with self._lock:
            if self._client is None:
                from qdrant_client import QdrantClient

                self._client = QdrantClient(
                    url=self.url, api_key=self._api_key, timeout=self._timeout
                )
            return self._client

    def _dimension(self, name: str) -> int | None:
        _check_name(name)
        dimension = self._dimensions.get(name)
        if dimension is None and self.client.collection_exists(name):
            vectors = self.client.get_collection(name).config.params.vectors
            size = getattr(vectors, "size", None)
            if size is None:
                raise ValueError(f"collection {name!r} does not have one unnamed dense vector")
            dimension = self._dimensions[name] = int(size)
        return dimension

    def ensure_collection(self, name: str, dimension: int) -> None:
        dimension = _check_dimension(dimension)
        existing = self._dimension(name)
        if existing is not None:
            _check_same_dimension(name, existing, dimension)
            return
        from qdrant_client import models

        self.client.create_collection(
            name,
            vectors_config=models.VectorParams(size=dimension, distance=models.Distance.COSINE),
        )
        for field in FILTER_FIELDS:
            self.client.create_payload_index(
                name, field, field_schema=models.PayloadSchemaType.INTEGER, wait=True
            )
        self._dimensions[name] = dimension

    def upsert(
        self,
        name: str,
        ids: Sequence[int],
        vectors: np.ndarray,
        payloads: Sequence[dict[str, Any]],
    ) -> None:
        dimension = self._dimension(name)
        if dimension is None:
            raise _no_collection(name)
        point_ids, matrix, payload_list = _check_points(ids, vectors, payloads, dimension)
        from qdrant_client import models

        for batch_ids, rows, batch_payloads in _batches(point_ids, matrix, payload_list):
            ids_: list[models.ExtendedPointId] = list(batch_ids)
            self.client.upsert(
                name,
                points=models.Batch(ids=ids_, vectors=rows, payloads=batch_payloads),
                wait=True,  # searchable on return, as the interface promises
            )

    def delete_where(self, name: str, *, field: str, value: int | str) -> None:
        conditions = _conditions({field: value})
        if conditions is None or self._dimension(name) is None:
            return
        from qdrant_client import models

        self.client.delete(
            name,
            points_selector=models.FilterSelector(filter=_server_filter(conditions)),
            wait=True,
        )

    def search(
        self,
        name: str,
        vector: np.ndarray,
        *,
        limit: int,
        where: Where | None = None,
    ) -> list[VectorHit]:
        conditions = _conditions(where)
        known = self._dimension(name)
        query = _check_query(vector, known, limit)
        if known is None or conditions is None:
            return []
        response = self.client.query_points(
            name,
            query=query.tolist(),
            limit=int(limit),
            query_filter=_server_filter(conditions) if conditions else None,
            with_payload=True,
        )
        return [
            VectorHit(id=int(p.id), score=float(p.score), payload=dict(p.payload or {}))
            for p in response.points
        ]

    def count(self, name: str) -> int:
        if self._dimension(name) is None:
            return 0
        return int(self.client.count(name, exact=True).count)

    def close(self) -> None:
        with self._lock:
            client = self._client
            if self._owns_client:
                self._client = None  # a later call reconnects
        if client is not None:
            client.close()
        self._dimensions.clear()


def _server_filter(conditions: list[Condition]) -> Any:
    from qdrant_client import models

    return models.Filter(
        must=[
            models.FieldCondition(
                key=field,
                match=models.MatchAny(any=value)
                if isinstance(value, list)
                else models.MatchValue(value=value),
            )
            for field, value in conditions
        ]
    )


@cache
def get_vector_store() -> VectorStore:
    """The process's vector store: a Qdrant server when ``QDRANT_URL`` is set, else Edge shards
    under ``VAR_DIR/qdrant-edge``. Cached: an Edge shard may be open only once per folder."""
    from django.conf import settings

    if settings.QDRANT_URL:
        return ServerVectorStore(settings.QDRANT_URL, settings.QDRANT_API_KEY)
    return EdgeVectorStore(Path(settings.VAR_DIR) / "qdrant-edge")
