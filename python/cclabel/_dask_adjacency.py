"""The region adjacency graph of a dask label array (:func:`cclabel.dask.adjacency`).

Every neighbour pair of pixels lies either inside one chunk or across a seam between chunks, so the
graph is the sum of two kinds of tables:

1. one task per chunk: :func:`cclabel.adjacency` of the chunk (its inside pairs, on the CPU or the
   chunk's GPU) and the chunk's border ring (first and last row and column, copied to the host);
2. one task per chunk for the pairs across its right and lower seams, read from its ring and its
   neighbours' rings only: across its right seam within its rows (straight, and with
   8-connectivity the two diagonals that stay within its rows), across its lower seam within its
   columns (likewise), and with 8-connectivity the two diagonals through the grid corner at its
   lower right: its last pixel with the first of the chunk below right, and the first pixel of the
   bottom row of the chunk to the right with the last of the top row of the chunk below. Each pair
   across a seam is counted by exactly one chunk, once;
3. a tree of sums, 16 tables a task: rows of one pair of labels added up.

The result equals ``cclabel.adjacency(labels.compute(), connectivity, background)``.
"""
from __future__ import annotations

from functools import partial

import numpy as np

_FAN_IN = 16
_EMPTY = np.zeros((0, 3), np.uint64)


def _host(a):
    if type(a).__module__.split(".", 1)[0] == "cupy":
        import cupy
        return cupy.asnumpy(a)
    return np.asarray(a)


def _chunk(block, *, connectivity, background, backend, threads):
    """Task 1: (the chunk's own edges, its ring: top row, bottom row, left column, right column)."""
    from .graph import adjacency
    from .dask import _task_threads
    edges = adjacency(block, connectivity, background, backend=backend, threads=_task_threads(threads))
    ring = tuple(_host(x).astype(np.uint64) for x in (block[0], block[-1], block[:, 0], block[:, -1]))
    return edges, ring


def _table(a, b, background):
    """Edges (a, b, contacts) of the neighbour pairs a[k], b[k] (label arrays of one shape)."""
    a, b = a.reshape(-1), b.reshape(-1)
    keep = a != b
    if not background:
        keep &= (a != 0) & (b != 0)
    lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    pairs, counts = np.unique((lo << np.uint64(32)) | hi, return_counts=True)
    return np.stack([pairs >> np.uint64(32), pairs & np.uint64(0xFFFFFFFF), counts.astype(np.uint64)], axis=1)


def _seams(own, right, below, corner, *, connectivity, background):
    """Task 2: the chunk's own edges plus the pairs across its right and lower seams. ``right``,
    ``below``, ``corner``: the task-1 results of the chunks to the right, below and below right
    (None at the array's border)."""
    edges, (_, bottom, _, last) = own
    pairs = []
    if right is not None:  # the seam on the right, within this chunk's rows
        first = right[1][2]
        pairs.append((last, first))
        if connectivity == 8:
            pairs += [(last[:-1], first[1:]), (last[1:], first[:-1])]
    if below is not None:  # the seam below, within this chunk's columns
        top = below[1][0]
        pairs.append((bottom, top))
        if connectivity == 8:
            pairs += [(bottom[:-1], top[1:]), (bottom[1:], top[:-1])]
    if connectivity == 8 and corner is not None:  # the two diagonals through the grid corner
        pairs.append((bottom[-1:], corner[1][0][:1]))
        pairs.append((right[1][1][:1], below[1][0][-1:]))
    return _sum(edges, *(_table(a, b, background) for a, b in pairs))


def _sum(*tables):
    """Task 3: edge tables summed: one row per pair of labels, sorted."""
    t = np.concatenate([np.asarray(x, np.uint64).reshape(-1, 3) for x in tables])
    if t.shape[0] == 0:
        return _EMPTY
    key = (t[:, 0] << np.uint64(32)) | t[:, 1]
    order = np.argsort(key, kind="stable")
    key, t = key[order], t[order]
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    out = t[starts].copy()
    out[:, 2] = np.add.reduceat(t[:, 2], starts)
    return out


def adjacency(labels, connectivity=8, background=False, *, backend="auto", threads=None):
    """The graph of :func:`cclabel.dask.adjacency` (see its docstring)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    from . import _cclabel
    from .graph import adjacency as adjacency_in_memory

    if not isinstance(labels, da.Array):
        raise TypeError("labels: expected a dask.array.Array, got " + type(labels).__name__ +
                        " (use cclabel.adjacency for NumPy / CuPy arrays)")
    if labels.ndim != 2:
        raise ValueError(f"labels: expected shape (H, W), got {labels.shape}")
    if any(np.isnan(c) for cs in labels.chunks for c in cs):
        raise ValueError("labels: has chunks of unknown size; call labels.compute_chunk_sizes() first")
    # The in-memory call's own checks (dtype, connectivity, background, backend, threads) on one pixel.
    adjacency_in_memory(np.zeros((1, 1), np.dtype(labels.dtype).newbyteorder("=")), connectivity, background,
                        backend="cpu" if backend == "auto" else backend, threads=threads)
    _cclabel._check_threads(threads)
    connectivity = {1: 4, 2: 8}.get(int(connectivity), int(connectivity))
    background = bool(background)
    if labels.size == 0:
        return da.from_array(_EMPTY, chunks=(0, 3))
    if any(c == 0 for cs in labels.chunks for c in cs):  # no pixels, no pairs: dropped
        labels = labels.rechunk(tuple(tuple(c for c in cs if c) for cs in labels.chunks))

    token = tokenize(labels, connectivity, background, backend, threads)
    name = "cclabel-adjacency-" + token
    chunk_k, seam_k, sum_k = ("cclabel-adjacency-" + s + "-" + token for s in ("chunk", "seams", "sum"))
    R, C = len(labels.chunks[0]), len(labels.chunks[1])
    dsk = {}
    chunk = partial(_chunk, connectivity=connectivity, background=background, backend=backend, threads=threads)
    seams = partial(_seams, connectivity=connectivity, background=background)
    for i in range(R):
        for j in range(C):
            dsk[(chunk_k, i, j)] = (chunk, (labels.name, i, j))
    parts = []
    for i in range(R):
        for j in range(C):
            right = (chunk_k, i, j + 1) if j + 1 < C else None
            below = (chunk_k, i + 1, j) if i + 1 < R else None
            corner = (chunk_k, i + 1, j + 1) if right and below else None
            dsk[(seam_k, i, j)] = (seams, (chunk_k, i, j), right, below, corner)
            parts.append((seam_k, i, j))
    level = 0
    while len(parts) > 1:
        nxt = []
        for k in range(0, len(parts), _FAN_IN):
            key = (sum_k, level, k // _FAN_IN)
            dsk[key] = (_sum,) + tuple(parts[k:k + _FAN_IN])
            nxt.append(key)
        parts, level = nxt, level + 1
    dsk[(name, 0, 0)] = (_sum, parts[0])
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[labels])
    return da.Array(graph, name, chunks=((np.nan,), (3,)), dtype=np.uint64, meta=_EMPTY)
