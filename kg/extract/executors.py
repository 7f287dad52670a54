"""Where the per-paper map runs: in this process, or on a Dask cluster.

Extraction is a pure map from a batch of papers to their mentions; the
concept merge and the edges after it are reductions over all the mentions and
run where the build runs. An executor takes the batches and yields each
batch's result as it finishes, so that :func:`~kg.extract.cache.extract_cached`
stores it at once and a killed build keeps what it finished.

- :class:`LocalExecutor`: one :class:`~kg.extract.extractor.Extractor` in this
  process, made on the first batch (a build whose papers are all cached never
  loads the model).
- :class:`DaskExecutor`: every batch a task on a ``distributed`` cluster, an
  existing one by its scheduler address or a ``LocalCluster`` started for the
  build. Each worker process loads the model once (from its own installed,
  hash-checked package) and keeps its extractor for the tasks after.

The same batches give the same mentions wherever they run: batch boundaries
are fixed by :func:`~kg.extract.cache.extract_cached`, not by the executor, and
each task embeds with one thread, as the workers of a cluster do.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from kg.defaults import WORKERS
from kg.errors import KGError
from kg.extract.cache import ExtractionCache
from kg.extract.embed import Embedder, MiniLM, load_model
from kg.extract.extractor import Extractor, Settings
from kg.model import Mention, Paper
from kg.taxonomy import Taxonomy

__all__ = [
    "Executor",
    "LocalExecutor",
    "DaskExecutor",
    "Cluster",
    "ExtractorSpec",
    "executor_for",
    "DASK_EXTRA",
]

Result = dict[str, tuple[Mention, ...]]
#: Called with the number of papers done since its last call.
Advance = Callable[[int], None]

#: How to install what the Dask executor needs.
DASK_EXTRA = "pip install 'kg[dask]'"
#: Seconds to wait for a scheduler to answer before saying it cannot be reached.
CONNECT_TIMEOUT = 10


class Executor(Protocol):
    def map(
        self, batches: Sequence[Sequence[Paper]], progress: Advance | None = None
    ) -> Iterator[tuple[int, Result]]:
        """Each batch's mentions by paper id, with the batch's index, as batches finish.

        ``progress`` is told of papers done inside a batch where the executor
        sees them finish (in this process); the caller reports the rest of a
        batch when its result comes back.
        """
        ...


@dataclass(frozen=True)
class LocalExecutor:
    """Every batch in this process, in order, by the extractor ``make_extractor`` makes."""

    make_extractor: Callable[[], Extractor]

    def map(
        self, batches: Sequence[Sequence[Paper]], progress: Advance | None = None
    ) -> Iterator[tuple[int, Result]]:
        extractor = None
        for i, batch in enumerate(batches):
            if extractor is None:
                extractor = self.make_extractor()  # loads the model: seconds to a minute
                if progress:
                    progress(0)  # extraction itself starts now
            yield i, extractor.extract(list(batch), progress, batch_size=max(len(batch), 1))


@dataclass(frozen=True)
class Cluster:
    """Which Dask cluster runs the map (``kg build --executor dask``).

    Attributes:
        scheduler: An existing scheduler's address (``tcp://host:8786``); None
            starts a ``distributed.LocalCluster`` for the build and stops it after.
        workers: Worker processes of that local cluster, one thread each.
    """

    scheduler: str | None = None
    workers: int = WORKERS


@dataclass(frozen=True)
class ExtractorSpec:
    """What a worker needs to make the build's extractor; sent to each worker once.

    ``embedder`` None means the packaged model, which each worker loads itself;
    ``key`` is the build's :func:`~kg.extract.cache.extraction_key`, which
    tells a worker whether the extractor it holds is this build's.
    """

    key: str
    taxonomy: Taxonomy
    settings: Settings
    embedder: Embedder | None = None


@dataclass(frozen=True)
class DaskExecutor:
    """Every batch a task on a Dask cluster; results come back as tasks finish."""

    spec: ExtractorSpec
    cluster: Cluster = Cluster()

    def map(
        self, batches: Sequence[Sequence[Paper]], progress: Advance | None = None
    ) -> Iterator[tuple[int, Result]]:
        # A task's papers are reported when it comes back: a worker cannot call here.
        if not batches:
            return
        distributed = _distributed()
        with _client(distributed, self.cluster) as client:
            futures: dict[Any, int] = {}
            try:
                [spec] = client.scatter([self.spec], broadcast=True)
                futures = {
                    client.submit(_extract_on_worker, spec, list(batch), pure=False): i
                    for i, batch in enumerate(batches)
                }
                for future in distributed.as_completed(futures):
                    yield futures[future], future.result()
            # The scheduler gone: the client's call fails, or it cancels every task.
            except (CancelledError, distributed.comm.CommClosedError) as exc:
                raise _lost(self.cluster.scheduler) from exc
            except distributed.KilledWorker as exc:
                raise KGError(
                    f"Dask workers died while extracting a batch of papers ({exc}); "
                    "give the workers more memory or pass a smaller --batch-size "
                    "(the batches finished before are in the extraction cache)"
                ) from exc
            finally:
                client.cancel(list(futures))


def executor_for(
    embedder: Embedder,
    taxonomy: Taxonomy,
    settings: Settings,
    key: str,
    cluster: Cluster | None = None,
    cache: ExtractionCache | None = None,
) -> LocalExecutor | DaskExecutor:
    """The executor of a build: this process, or ``cluster``.

    Here, the extractor's set-up vectors come from ``cache`` when it has them
    under ``key`` and are stored there when it has not. On a cluster, each
    worker loads the packaged model itself (its files are checked there); any
    other embedder travels to the workers with the spec.
    """
    if cluster is None:
        return LocalExecutor(lambda: _prepared(embedder, taxonomy, settings, key, cache))
    shipped = None if isinstance(embedder, MiniLM) else embedder
    return DaskExecutor(ExtractorSpec(key, taxonomy, settings, shipped), cluster)


def _prepared(
    embedder: Embedder,
    taxonomy: Taxonomy,
    settings: Settings,
    key: str,
    cache: ExtractionCache | None,
) -> Extractor:
    """An extractor whose set-up vectors (about 3 s of the model's time) the cache keeps."""
    known = cache.prepared(key) if cache is not None else None
    extractor = Extractor(embedder, taxonomy, settings, prepared=known)
    if cache is not None and known is None:
        cache.put_prepared(key, extractor.prepared)
    return extractor


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise KGError(f"--executor dask needs Dask's distributed scheduler: {DASK_EXTRA}") from exc
    return distributed


@contextmanager
def _client(distributed: Any, cluster: Cluster) -> Iterator[Any]:
    """A client of the cluster, closed (and a local cluster stopped) on leaving."""
    # Workers' start-up chatter is not the user's business, nor the client's log of a
    # lost scheduler, which :meth:`DaskExecutor.map` raises as a KGError.
    quiet = {"distributed": logging.ERROR, "distributed.client": logging.CRITICAL}
    levels = {name: logging.getLogger(name).level for name in quiet}
    for name, level in quiet.items():
        logging.getLogger(name).setLevel(level)
    try:
        if cluster.scheduler is None:
            with (
                distributed.LocalCluster(
                    n_workers=cluster.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port, never a clash
                ) as local,
                distributed.Client(local) as client,
            ):
                yield client
        else:
            _check_scheduler(distributed, cluster.scheduler)
            try:
                client = distributed.Client(cluster.scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                raise _unreachable(cluster.scheduler, str(exc)) from exc
            with client:
                yield client
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def _check_scheduler(distributed: Any, address: str) -> None:
    """Refuse ``address`` unless a Dask scheduler there answers within :data:`CONNECT_TIMEOUT`.

    distributed bounds the connection by its timeout but not the handshake
    after it, so ``Client`` waits for ever on a listener that accepts and says
    nothing (or an HTTP server); here the handshake is bounded too.
    """

    async def handshake() -> None:
        comm = await distributed.comm.connect(address, timeout=CONNECT_TIMEOUT)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), CONNECT_TIMEOUT))
    except TimeoutError as exc:
        why = f"no Dask scheduler answered within {CONNECT_TIMEOUT} s"
        raise _unreachable(address, why) from exc
    except (OSError, ValueError) as exc:
        raise _unreachable(address, str(exc)) from exc
    except Exception as exc:  # what answered does not speak Dask's protocol
        raise _unreachable(address, "what answers there is not a Dask scheduler") from exc


def _lost(address: str | None) -> KGError:
    where = f"at {address}" if address else "of the local cluster"
    return KGError(
        f"lost the connection to the Dask scheduler {where} part-way through extraction; "
        "the batches finished before are in the extraction cache, so run the build again "
        "once the scheduler is back (or without --executor dask)"
    )


def _unreachable(address: str, why: str) -> KGError:
    return KGError(
        f"cannot reach the Dask scheduler at {address} ({why}); "
        "check the address (tcp://HOST:8786) and that the scheduler is running"
    )


# One extractor per worker process, for the build whose spec made it.
_held: dict[str, Extractor] = {}


def _extract_on_worker(spec: ExtractorSpec, papers: list[Paper]) -> Result:
    """One task: the batch's mentions, by the worker's extractor for ``spec``."""
    extractor = _held.get(spec.key)
    if extractor is None:
        _held.clear()
        embedder = spec.embedder if spec.embedder is not None else load_model()
        extractor = _held[spec.key] = Extractor(embedder, spec.taxonomy, spec.settings)
    return extractor.extract(papers, batch_size=max(len(papers), 1))
