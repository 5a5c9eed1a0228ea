"""Labelling a ``dask.array`` chunk by chunk: the tile steps (:mod:`cclabel.tiles`) as a Dask graph.

``label(array)`` gives lazily exactly ``cclabel.label(array.compute())``: labels 1..N in global
raster order of each region's first pixel. The graph:

1. one task per chunk: local labels and a table (:func:`cclabel.tiles.label_tile`, on the CPU or,
   for CuPy chunks, on the chunk's GPU). The chunk's *leaf summary* is its border ring: each
   border pixel's key and the global index of its region's first pixel in the chunk (its *id*);
2. a tree reduction over the chunk grid: neighbouring groups of chunks are merged two at a time,
   alternately across columns and rows, so that each merge joins two rectangles along one whole
   side (8-connectivity: the seam's diagonals include the corners where four chunks meet).
   A merge reads only the two groups' outer borders: it finds their equivalences
   (:func:`cclabel.tiles.seam_equivalences`), joins them (:func:`cclabel.tiles.resolve_tiles`),
   and passes up the new group's border (ids of the regions still open on it, each region's id the
   smallest first-pixel index it has reached) and its roots (ids of all regions that are still
   their own root), and aside, for the chunks below it, the ids it renamed. No task ever sees
   more than two groups' borders and root lists;
3. the root of the tree holds every region's id, sorted: a region's global number is the rank of
   its id;
4. one task per chunk relabels its local labels: each local label's first-pixel index, renamed by
   the merges above the chunk, ranked among the roots.

Labels are ``uint32`` when ``H * W <= 2**32 - 1`` (N cannot exceed it) and ``uint64`` otherwise:
a dask array's dtype is fixed when the graph is built, before N is known, so it is chosen from
the bound N <= H * W rather than by computing the image twice. ``dtype=np.uint32`` forces 32-bit
labels on larger images (the relabel tasks raise ValueError if N does not fit).
"""
from __future__ import annotations

from functools import partial
from operator import getitem

import numpy as np

from . import _cclabel
from .tiles import TileTable, label_tile, relabel_tile, resolve_tiles, seam_equivalences

__all__ = ["label", "label_files"]

_U32_MAX = 0xFFFFFFFF


# --- the graph's task functions (module level: they pickle by name) ---------------------------------

def _chunk(block, *, x0, y0, image_width, connectivity, background, backend):
    """Task 1: (local labels, first_index) for the relabel task; the leaf summary for the tree."""
    labels, table = label_tile(block, x0, y0, image_width, connectivity=connectivity, background=background,
                               backend=backend)
    first = table.first_index
    lab = np.asarray(table.edge_labels).astype(np.int64)
    ids = np.zeros(lab.size, np.uint64)
    on = lab > 0
    ids[on] = first[lab[on] - 1] + np.uint64(1)  # ids on the border are index + 1 (0: background)
    leaf = (int(y0), int(x0), table.height, table.width, np.asarray(table.edge_keys, np.uint32), ids, first.copy())
    return (labels, first), leaf


def _ring(h, w, keys):
    """A border ring's four sides (top, bottom, left, right), as views."""
    return keys[:w], keys[w:2 * w], keys[2 * w:2 * w + h], keys[2 * w + h:]


def _as_tile(group, image_width):
    """A group as a tile for seam_equivalences: its open ids as first_index, border ids as labels."""
    y0, x0, h, w, keys, ids, _ = group
    open_ids = np.unique(ids[ids > 0])
    labels = np.zeros(ids.size, np.uint32)
    on = ids > 0
    labels[on] = (np.searchsorted(open_ids, ids[on]) + 1).astype(np.uint32)
    return TileTable(x0, y0, w, h, image_width, open_ids - np.uint64(1), keys, labels)


def _merge(a, b, *, across_columns, image_width, connectivity):
    """Task 2: joins group b (right of a, or below it) to a. Returns (group, (renamed, to))."""
    ta, tb = _as_tile(a, image_width), _as_tile(b, image_width)
    pairs = seam_equivalences(ta, tb, connectivity)
    n, maps = resolve_tiles([ta.first_index, tb.first_index], [(0, 1, pairs)])
    ids = np.concatenate([ta.first_index, tb.first_index])
    ranks = np.concatenate([maps[0][1:], maps[1][1:]]).astype(np.int64) - 1
    root = np.full(n, np.iinfo(np.uint64).max, np.uint64)
    np.minimum.at(root, ranks, ids)  # a region's id: the smallest index among its joined parts
    new = root[ranks]
    moved = new != ids
    order = np.argsort(ids[moved], kind="stable")
    renamed, to = ids[moved][order], new[moved][order]

    def rename(border):  # border ids are index + 1
        out = border.copy()
        on = out > 0
        if renamed.size and on.any():
            v = out[on] - np.uint64(1)
            i = np.minimum(np.searchsorted(renamed, v), renamed.size - 1)
            hit = renamed[i] == v
            v[hit] = to[i[hit]]
            out[on] = v + np.uint64(1)
        return out

    ay0, ax0, ah, aw, akeys, aids, aroots = a
    by0, bx0, bh, bw, bkeys, bids, broots = b
    ka, kb = _ring(ah, aw, akeys), _ring(bh, bw, bkeys)
    ia, ib = _ring(ah, aw, rename(aids)), _ring(bh, bw, rename(bids))
    if across_columns:  # b right of a: same rows
        h, w = ah, aw + bw
        sides = lambda ra, rb: [np.concatenate([ra[0], rb[0]]), np.concatenate([ra[1], rb[1]]), ra[2], rb[3]]
    else:  # b below a: same columns
        h, w = ah + bh, aw
        sides = lambda ra, rb: [ra[0], rb[1], np.concatenate([ra[2], rb[2]]), np.concatenate([ra[3], rb[3]])]
    keys = np.concatenate(sides(ka, kb)).astype(np.uint32)
    border = np.concatenate(sides(ia, ib)).astype(np.uint64)
    roots = np.concatenate([aroots, broots])
    if renamed.size:
        roots = roots[~np.isin(roots, renamed, assume_unique=True)]
    return (ay0, ax0, h, w, keys, border, roots), (renamed, to)


def _top(group):
    """Task 3: every region's id in raster order; N is its length."""
    return np.sort(group[6])


def _count(roots):
    return np.int64(roots.size)


def _relabel(local, renames, roots, *, dtype):
    """Task 4: a chunk's global labels."""
    labels, first = local
    ids = first.copy()
    for renamed, to in renames:  # bottom-up: each merge renames the ids of the one below it
        if renamed.size and ids.size:
            i = np.minimum(np.searchsorted(renamed, ids), renamed.size - 1)
            hit = renamed[i] == ids
            ids[hit] = to[i[hit]]
    rank = np.searchsorted(roots, ids)
    if ids.size and not np.array_equal(roots[np.minimum(rank, roots.size - 1)], ids):
        raise RuntimeError("cclabel.dask: internal error: a region's id is not among the roots")
    m = np.zeros(ids.size + 1, np.uint64)
    m[1:] = rank.astype(np.uint64) + np.uint64(1)
    return relabel_tile(labels, m, dtype=dtype)


# --- the public function --------------------------------------------------------------------------

def _check(array, connectivity, background, backend):
    """The shape, chunks and dtype of a dask array, checked before any task exists."""
    import dask.array as da

    if not isinstance(array, da.Array):
        raise TypeError("array: expected a dask.array.Array, got " + type(array).__name__ +
                        " (use cclabel.label for NumPy / CuPy arrays, or dask.array.from_array)")
    shape = array.shape
    if array.ndim == 3 and array.dtype == np.uint8 and shape[2] in (3, 4):
        if len(array.chunks[2]) != 1:
            raise ValueError(f"array: the colour axis (length {shape[2]}) is split across chunks "
                             f"{array.chunks[2]}; a pixel's channels must lie in one chunk: "
                             "array.rechunk({2: -1})")
    elif array.ndim != 2:
        raise ValueError(f"array: expected shape (H, W), or (H, W, 3|4) of uint8, got {shape} of {array.dtype} "
                         "(label a stack of images one 2-D array at a time)")
    if any(np.isnan(c) for cs in array.chunks for c in cs):
        raise ValueError("array: has chunks of unknown size; call array.compute_chunk_sizes() first")
    # The same checks as cclabel.label (dtype, connectivity, background, backend) on a 1 x 1 sample.
    _cclabel._inspect(np.zeros((1, 1) + tuple(shape[2:]), dtype=array.dtype), connectivity, background, backend)


def label(array, connectivity=8, background=None, *, backend="auto", dtype=None):
    """Label a ``dask.array`` chunk by chunk; lazily equal to ``cclabel.label(array.compute())``.

    Parameters
    ----------
    array : dask.array.Array
        ``(H, W)`` of ``bool``, ``uint8``, ``uint16``, ``uint32`` or ``int32``, or ``(H, W, 3|4)``
        ``uint8`` RGB/RGBA whose colour axis is one chunk; chunks of any shape (ragged, one pixel
        wide, ...), backed by NumPy (labelled by the C++ tile API) or CuPy (labelled on the
        chunk's GPU). Each chunk may hold at most 2**32 - 1 pixels.
    connectivity, background, backend
        As in :func:`cclabel.label`.
    dtype : None, numpy.uint32 or numpy.uint64
        The labels' dtype. None: ``uint32`` when ``H * W <= 2**32 - 1``, else ``uint64``.

    Returns
    -------
    (labels, n) : (dask.array.Array, dask.array.Array)
        The labels with the chunks of ``array`` (colour axis dropped), NumPy or CuPy like its
        chunks, and N as a 0-d ``int64`` dask array (a lazy scalar). Compute both at once with
        ``dask.compute(labels, n)`` to run the graph once. Works with any Dask scheduler (threads, processes,
        ``dask.distributed``).

    Raises
    ------
    TypeError, ValueError
        As :func:`cclabel.label` for dtype, connectivity, background and backend; a colour axis
        split across chunks; chunks of unknown size. Chunk-level errors (a chunk of more than
        2**32 - 1 pixels, N beyond a forced uint32) are raised by ``compute()``.

    Examples
    --------
    >>> import numpy as np, dask, dask.array as da, cclabel, cclabel.dask
    >>> img = np.array([[1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1]], dtype=np.uint8)
    >>> labels, n = cclabel.dask.label(da.from_array(img, chunks=2), background=0)
    >>> got, n = dask.compute(labels, n)
    >>> n, np.array_equal(got, cclabel.label(img, background=0))
    (2, True)
    """
    import dask
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    _check(array, connectivity, background, backend)
    H, W = int(array.shape[0]), int(array.shape[1])
    if dtype is None:
        dtype = np.uint32 if H * W <= _U32_MAX else np.uint64
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.uint32), np.dtype(np.uint64)):
        raise TypeError(f"dtype: expected numpy.uint32 or numpy.uint64, got {dtype}")
    meta_lib = type(array._meta).__module__.split(".", 1)[0]
    if meta_lib == "cupy":
        import cupy
        meta = cupy.empty((0, 0), dtype=dtype)
    else:
        meta = np.empty((0, 0), dtype=dtype)
    if H == 0 or W == 0:
        empty = da.zeros((H, W), dtype=dtype, chunks=array.chunks[:2], meta=meta)
        return empty, da.zeros((), dtype=np.int64)

    # Zero-size chunks have no border ring to merge: drop them, and put them back on the result.
    original_chunks = array.chunks[:2]
    if any(c == 0 for cs in original_chunks for c in cs):
        array = array.rechunk(tuple(tuple(c for c in cs if c) for cs in original_chunks) + array.chunks[2:])
    rows, cols = array.chunks[0], array.chunks[1]
    y0s, x0s = np.cumsum((0,) + rows[:-1]), np.cumsum((0,) + cols[:-1])
    R, C = len(rows), len(cols)
    # A plain task graph (one dict, keys are tuples), built in O(chunks): the tasks' fixed arguments
    # ride in functools.partial so that no literal is mistaken for a key.
    token = tokenize(array, connectivity, background, backend, dtype)
    name = "cclabel-label-" + token
    chunk_k, local_k, leaf_k = "cclabel-chunk-" + token, "cclabel-local-" + token, "cclabel-leaf-" + token
    merge_k, group_k, ren_k = "cclabel-merge-" + token, "cclabel-group-" + token, "cclabel-rename-" + token
    roots_k, n_k = "cclabel-roots-" + token, "cclabel-n-" + token
    tail = (0,) if array.ndim == 3 else ()
    dsk = {}
    for i in range(R):
        for j in range(C):
            f = partial(_chunk, x0=int(x0s[j]), y0=int(y0s[i]), image_width=W, connectivity=connectivity,
                        background=background, backend=backend)
            dsk[(chunk_k, i, j)] = (f, (array.name, i, j) + tail)
            dsk[(local_k, i, j)] = (getitem, (chunk_k, i, j), 0)
            dsk[(leaf_k, i, j)] = (getitem, (chunk_k, i, j), 1)

    # The tree: groups[r][c] = a group's key; members = its chunks; renames[(i, j)] = merges above.
    groups = [[(leaf_k, i, j) for j in range(C)] for i in range(R)]
    members = [[[(i, j)] for j in range(C)] for i in range(R)]
    renames = {(i, j): [] for i in range(R) for j in range(C)}
    level = 0
    while len(groups) > 1 or len(groups[0]) > 1:
        across_columns = len(groups[0]) >= len(groups) and len(groups[0]) > 1
        if not across_columns:  # transpose so that pairs are always neighbours in a row of groups
            groups, members = [list(r) for r in zip(*groups)], [list(r) for r in zip(*members)]
        f = partial(_merge, across_columns=across_columns, image_width=W, connectivity=connectivity)
        new_groups, new_members = [], []
        for r, (grow, mrow) in enumerate(zip(groups, members)):
            ng, nm = [], []
            for k in range(0, len(grow) - 1, 2):
                key = (merge_k, level, r, k)
                dsk[key] = (f, grow[k], grow[k + 1])
                dsk[(group_k, level, r, k)] = (getitem, key, 0)
                dsk[(ren_k, level, r, k)] = (getitem, key, 1)
                for ij in mrow[k] + mrow[k + 1]:
                    renames[ij].append((ren_k, level, r, k))
                ng.append((group_k, level, r, k))
                nm.append(mrow[k] + mrow[k + 1])
            if len(grow) % 2:
                ng.append(grow[-1])
                nm.append(mrow[-1])
            new_groups.append(ng)
            new_members.append(nm)
        groups, members = new_groups, new_members
        if not across_columns:
            groups, members = [list(r) for r in zip(*groups)], [list(r) for r in zip(*members)]
        level += 1

    dsk[roots_k] = (_top, groups[0][0])
    relabel = partial(_relabel, dtype=dtype)
    for i in range(R):
        for j in range(C):
            dsk[(name, i, j)] = (relabel, (local_k, i, j), list(renames[(i, j)]), roots_k)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[array])
    labels = da.Array(graph, name, chunks=(rows, cols), meta=meta)
    # N as a 0-d dask array (not a Delayed: dask.compute of arrays mixed with Delayeds can return
    # the results out of order in dask 2026.8).
    n = da.Array(HighLevelGraph.from_collections(n_k, {(n_k,): (_count, roots_k)}, dependencies=[labels]), n_k,
                 chunks=(), meta=np.empty((), np.int64))
    if labels.chunks != original_chunks:
        labels = labels.rechunk(original_chunks)
    return labels, n


def label_files(*args, **kwargs):
    """Label many files over a Dask cluster: see :func:`cclabel.dask_files.label_files`."""
    from .dask_files import label_files as run
    return run(*args, **kwargs)
