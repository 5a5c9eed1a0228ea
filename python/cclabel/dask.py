"""Labelling a ``dask.array`` chunk by chunk: the tile steps (:mod:`cclabel.tiles`) as a Dask graph.

``label(array)`` gives lazily exactly ``cclabel.label(array.compute())``: labels 1..N in global
raster order of each region's first pixel. The graph:

1. one task per chunk: local labels and a table (:func:`cclabel.tiles.label_tile`, on the CPU or,
   for CuPy chunks, on the chunk's GPU). The chunk's *leaf summary* is its border ring as runs
   (stretches of one key and one region along a side; background pixels have none), each with
   the global index of its region's first pixel in the chunk (its *id*), and its *closed* ids
   (regions that do not reach its border), packed in one int64 array (:func:`_pack`);
2. a tree reduction over the chunk grid: at each level, blocks of neighbouring groups (up to
   16 x 16, fewer where their borders are long: :func:`_block`) are merged by one task each.
   A merge reads only its children's border runs: it finds the equivalences across all the
   block's inner seams in one sorted pass (runs that face each other with equal keys; for
   8-connectivity also one step along the seam, which covers the corners where four chunks meet),
   joins them by one union-find, and passes up the new group's border runs (each region's id the
   smallest first-pixel index it has reached) and its closed ids, and aside, for the chunks below
   it, the ids it renamed. No task sees more than one block's borders; a merge is one C++ call
   (python/src/tree_merge.cpp), linear in its children's runs and closed ids apart from two sorts;
3. the root of the tree holds every region's id, sorted: a region's global number is the rank of
   its id;
4. one task per chunk relabels its local labels: each local label's first-pixel index, renamed by
   the merges above the chunk, ranked among the roots.

Every dtype :func:`cclabel.label` takes, with its meaning; seams compare 32-bit keys that must be
the same in every chunk (:mod:`cclabel.tiles`). ``float16``/``float32`` chunks key their canonical
bits on their own. ``int64``/``uint64``/``float64`` arrays need one map for all chunks, which
``label()`` makes when it is called (:func:`_value_keys`): one Dask reduction for the smallest and
largest canonical bits, and only when they span 2**32 or more, the array's distinct values (sorted
per chunk, merged by a tree). The map is one value of the graph that every chunk task reads.

Labels are ``uint32`` when ``H * W <= 2**32 - 1`` (N cannot exceed it) and ``uint64`` otherwise:
a dask array's dtype is fixed when the graph is built, before N is known, so it is chosen from
the bound N <= H * W rather than by computing the image twice. ``dtype=np.uint32`` forces 32-bit
labels on larger images (the relabel tasks raise ValueError if N does not fit).

Two cases take the same four steps with another summary (:mod:`cclabel._dask_faces`): labelling
with ``tolerance=T`` (joining across a seam is decided per pair of pixels by their values, so the
summaries carry the border pixels' values, not runs of keys) and ``(Z, Y, X)`` volumes with
connectivity 6, 18 or 26, RGB/RGBA volumes and volumes with a tolerance among them (the seams are
planes, with edges and corners where four and eight chunks meet). :func:`adjacency` sums each
chunk's region adjacency graph and the pairs across its seams (:mod:`cclabel._dask_adjacency`).
"""
from __future__ import annotations

import math
import os
from functools import partial
from operator import getitem

import numpy as np

from . import _arrays, _cclabel, _dask_faces, _volume
from ._piece_keys import ValueKeys, ordered_bits
from .tiles import label_tile, relabel_tile

__all__ = ["label", "adjacency", "label_files"]

_U32_MAX = 0xFFFFFFFF


# --- the graph's task functions (module level: they pickle by name) ---------------------------------

# A border run: one stretch of a group's border ring on one side, of one key and one region, as a
# column of an int64 (6, n) array: side (0 top, 1 bottom, 2 left, 3 right), line (the side's y for
# top/bottom, x for left/right), lo and hi (the stretch [lo, hi) along the side, absolute x for
# top/bottom, absolute y for left/right), key (the pixels' equality key) and id (the smallest
# first-pixel index of the region's parts joined so far). Background pixels have no run.
# A group's *summary* is one int64 array: [m, its m border runs as a (6, m) array, its closed ids]
# (one array rather than a tuple: a merge reads up to 256 of them, and every object costs it).
_SIDE, _LINE, _LO, _HI, _KEY, _ID = range(6)

# How many neighbouring groups one merge joins: as many as keep the children's border rings within
# _MERGE_BORDER pixels in all (a run is at most one pixel of it: a merge's input is bounded whatever
# the image), at least 2 x 2 and at most _MAX_CHILDREN (a 16 x 16 block; a grid one group high or
# wide takes them in a row). Fewer, larger merges: their NumPy passes cost per run, not per call.
_MERGE_BORDER = 1 << 18
_MAX_CHILDREN = 256
_MIN_CHILDREN = 4


def _block(gr, gc, perimeter):
    """The block (rows, columns) of groups one merge joins, on a gr x gc grid of groups whose
    largest border ring has ``perimeter`` pixels."""
    k = max(_MIN_CHILDREN, min(_MAX_CHILDREN, _MERGE_BORDER // max(perimeter, 1)))
    br = min(gr, max(1, math.isqrt(k)))
    bc = min(gc, k // br)
    br = min(gr, max(br, k // bc))
    return br, bc


def _pack(runs, closed):
    """A summary from (6, m) runs and closed ids."""
    out = np.empty(1 + runs.size + closed.size, np.int64)
    out[0] = runs.shape[1]
    out[1:1 + runs.size] = runs.ravel()
    out[1 + runs.size:] = closed
    return out


def _unpack(summary):
    """(runs (6, m) int64, closed ids uint64) of a summary (views)."""
    m = int(summary[0])
    return summary[1:1 + 6 * m].reshape(6, m), summary[1 + 6 * m:].view(np.uint64)


def _leaf(keys, lab, first, y0, x0, h, w):
    """A chunk's summary: its border ring (top row, bottom row, left column, right column) as runs,
    and its closed ids: the first-pixel indices of its regions that do not reach its border."""
    keys = np.asarray(keys).astype(np.int64)
    lab = np.asarray(lab).astype(np.int64)
    first = np.asarray(first, np.uint64)
    n = keys.size
    if n == 0:
        return _pack(np.zeros((6, 0), np.int64), first)
    brk = np.empty(n, bool)
    brk[0] = True
    np.not_equal(keys[1:], keys[:-1], out=brk[1:])
    brk[1:] |= lab[1:] != lab[:-1]
    brk[[w, 2 * w, 2 * w + h]] = True  # the sides' starts
    starts = np.flatnonzero(brk)
    ends = np.append(starts[1:], n)
    lab_s = lab[starts]
    on = lab_s > 0
    starts, ends, lab_s = starts[on], ends[on], lab_s[on]
    side = np.searchsorted(np.array([w, 2 * w, 2 * w + h]), starts, side="right")
    shift = np.array([x0, x0 - w, y0 - 2 * w, y0 - 2 * w - h], np.int64)[side]  # ring position -> absolute
    runs = np.empty((6, starts.size), np.int64)
    runs[_SIDE] = side
    runs[_LINE] = np.array([y0, y0 + h - 1, x0, x0 + w - 1], np.int64)[side]
    runs[_LO] = starts + shift
    runs[_HI] = ends + shift
    runs[_KEY] = keys[starts]
    runs[_ID] = first[lab_s - 1].astype(np.int64)
    closed = np.ones(first.size, bool)
    closed[lab_s - 1] = False
    return _pack(runs, first[closed])


def _task_threads(threads):
    """CPU threads for one chunk task. Given: as given. None: on a dask.distributed worker, its share
    of the cores (usable cores / the worker's task slots), so that workers x tasks x threads stay
    within the machine; elsewhere (the threaded scheduler, whose tasks share one process and its
    pool's core budget) the library's rule."""
    if threads is not None:
        return threads
    try:
        from distributed import get_worker
        slots = int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // max(1, slots))


def _chunk(block, keys=None, *, x0, y0, image_width, connectivity, background, backend, threads=None):
    """Task 1: (local labels, first_index) for the relabel task; the leaf summary for the tree.
    ``keys``: the array's ValueKeys for 64-bit dtypes (one graph value shared by every chunk)."""
    labels, table = label_tile(block, x0, y0, image_width, connectivity=connectivity, background=background,
                               backend=backend, threads=_task_threads(threads), keys=keys)
    first = np.asarray(table.first_index, np.uint64)
    leaf = _leaf(table.edge_keys, table.edge_labels, first, int(y0), int(x0), table.height, table.width)
    return (labels, first), leaf


def _merge(*children, y0, x0, h, w, seams, connectivity):
    """Task 2: joins a grid of neighbouring groups (children, row-major; their summaries) into the
    group (y0, x0, h, w). ``seams``: the grid's inner seams, ascending, each as 2 * y for the row
    of groups that starts at y and 2 * x + 1 for the column that starts at x. Returns (summary,
    (renamed, to)): the new group's summary, and aside, for the chunks below it, the ids it renamed
    (ascending) and their new ids.

    One C++ call (``_cclabel._tree_merge``, python/src/tree_merge.cpp), linear in the children's
    runs and closed ids apart from two sorts: the equivalences across every inner seam at once
    (runs that face each other with equal keys; for 8-connectivity also one step along the seam,
    which covers the corners where four groups meet), one union-find whose roots are the smallest
    ids, the outer sides' runs renamed, sorted and joined where they continue one another, and the
    closed ids: the children's, then the roots left without a run on the new border, ascending.
    (It replaced some forty NumPy calls a merge, whose fixed cost made the merge time grow faster
    than the seam labels with the chunk count.)"""
    summary, renamed, to = _cclabel._tree_merge(children, y0, x0, h, w, seams, connectivity)
    return summary, (renamed, to)


def _top(group):
    """Task 3: every region's id in raster order; N is its length."""
    runs, closed = _unpack(group)
    return np.sort(np.concatenate([closed, np.unique(runs[_ID]).astype(np.uint64)]))


def _count(roots):
    return np.int64(roots.size)


def _relabel(local, renames, roots, *, dtype):
    """Task 4: a chunk's global labels."""
    labels, first = local
    return relabel_tile(labels, _dask_faces.rank_map(first, renames, roots), dtype=dtype)


# --- tolerance and volumes: the tree over chunk faces (cclabel/_dask_faces.py) ------------------------

def _is_volume(array, connectivity):
    """As cclabel.label decides: a 3-D array, or a 4-D one of 3 or 4 channels (RGB, RGBA), with a
    volume's connectivity is one (Z, Y, X) volume."""
    return _volume.is_volume(array, connectivity)


def _native(block):
    """A chunk in native byte order: NumPy, or CuPy where it lives (on its GPU)."""
    if not _dask_faces.is_cupy(block):
        block = np.asarray(block)
    return block if block.dtype.isnative else block.astype(block.dtype.newbyteorder("="))


def _tolerance_chunk(block, *, origin, shape, tolerance, connectivity, background, backend, threads):
    """A chunk labelled with a tolerance (cclabel.graph.label_tolerance; a CuPy chunk by cclabel.label
    on its GPU, the same labels); its faces carry the pixels' values, since joining across a seam is
    decided pixel pair by pixel pair."""
    img = _native(block)
    if _dask_faces.is_cupy(img):
        from . import label as label_image
        labels = label_image(img, connectivity=connectivity, background=background, backend=backend,
                             threads=_task_threads(threads), tolerance=tolerance)
    else:
        from .graph import label_tolerance
        labels = label_tolerance(img, tolerance, connectivity=connectivity, background=background, backend=backend,
                                 threads=_task_threads(threads) or 0)
    first, summary = _dask_faces.leaf(labels, img, origin, shape)
    return (labels, first), summary


def _equality_key(face):
    """A volume face's values as keys whose equality is cclabel.label's: floats by their canonical
    bits (-0.0 is 0.0, every NaN one NaN), everything else as it is."""
    if face.dtype.kind != "f":
        return face
    face = np.where(face == 0, face.dtype.type(0), face)
    face[np.isnan(face)] = np.nan
    return face.view("u" + str(face.dtype.itemsize))


def _volume_chunk(block, *, origin, shape, connectivity, background, backend, threads, tolerance=None):
    """A chunk of a (Z, Y, X) volume (a trailing channel axis for RGB/RGBA) labelled on its own
    (cclabel.label, 6/18/26, with the tolerance if one is given: its faces carry the voxels' values
    either way, compared pair by pair by the merges). A CuPy chunk is labelled on its GPU; its
    labels stay there and only its faces come to the host (_dask_faces.leaf)."""
    from . import label as label_image
    vol = _native(block)
    labels = label_image(vol, connectivity=connectivity, background=background, backend=backend,
                         threads=_task_threads(threads), tolerance=tolerance)
    first, summary = _dask_faces.leaf(labels, vol, origin, shape, key=_equality_key)
    return (labels, first), summary


def _check_faces(array, volume, connectivity, background, backend, threads, tolerance):
    """The checks of the tolerance and volume paths: the in-memory call's own, on a one-pixel sample
    of the array's dtype, so the errors are the same."""
    meta_lib = type(array._meta).__module__.split(".", 1)[0]
    if meta_lib == "cupy" and not volume and np.dtype(array.dtype).name not in ("bool", "uint8", "uint16", "uint32"):
        # A CuPy picture with a tolerance is labelled by cclabel.label on the GPU, which takes these.
        raise TypeError(f"array: CuPy chunks with a tolerance take bool, uint8, uint16 and uint32 (RGB/RGBA "
                        f"uint8), got {np.dtype(array.dtype).name}; pass NumPy chunks")
    if any(np.isnan(c) for cs in array.chunks for c in cs):
        raise ValueError("array: has chunks of unknown size; call array.compute_chunk_sizes() first")
    dtype = np.dtype(array.dtype).newbyteorder("=")
    sample_backend = "cpu" if backend == "auto" else backend  # the sample must not time the backends
    nd = 3 if volume else 2
    if not (volume or array.ndim == 2 or (array.ndim == 3 and dtype == np.uint8 and array.shape[2] in (3, 4))):
        raise ValueError(f"array: expected shape (H, W), or (H, W, 3|4) of uint8, got {array.shape} of {array.dtype} "
                         "with a tolerance")
    if array.ndim == nd + 1 and len(array.chunks[nd]) != 1:  # RGB, RGBA
        raise ValueError(f"array: the colour axis (length {array.shape[nd]}) is split across chunks "
                         f"{array.chunks[nd]}; a {'voxel' if volume else 'pixel'}'s channels must lie in one chunk: "
                         f"array.rechunk({{{nd}: -1}})")
    if volume:
        from . import label as label_image
        label_image(np.zeros((1, 1, 1) + tuple(array.shape[3:]), dtype), connectivity=connectivity,
                    background=background, backend=sample_backend, threads=threads, tolerance=tolerance)
        return
    from .graph import label_tolerance
    _cclabel._check_threads(threads)
    label_tolerance(np.zeros((1, 1) + tuple(array.shape[2:]), dtype), tolerance, connectivity=connectivity,
                    background=background, backend=sample_backend)


def _label_faces(array, volume, connectivity, background, backend, dtype, threads, tolerance):
    """label() of a volume, or of a picture with a tolerance: the tree over faces."""
    import dask.array as da
    from dask.base import tokenize

    _check_faces(array, volume, connectivity, background, backend, threads, tolerance)
    if (not volume or tolerance not in (None, 0)) and np.dtype(array.dtype).name in (
            "int64", "uint64", "float16", "float32", "float64"):
        # The seams compare int64 steps against int(tolerance): exact for the narrower integers only;
        # these compare values in the core only (pictures and volumes alike).
        raise TypeError(f"tolerance: cclabel.dask.label takes it for bool and integer chunks of up to 32 bits, not "
                        f"{np.dtype(array.dtype).name} yet; cclabel.label labels such a "
                        f"{'volume' if volume else 'picture'} in memory")
    nd = 3 if volume else 2
    shape = tuple(int(s) for s in array.shape[:nd])
    if dtype is None:
        dtype = np.uint32 if math.prod(shape) <= _U32_MAX else np.uint64
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.uint32), np.dtype(np.uint64)):
        raise TypeError(f"dtype: expected numpy.uint32 or numpy.uint64, got {dtype}")
    if type(array._meta).__module__.split(".", 1)[0] == "cupy":  # CuPy chunks give CuPy labels
        import cupy
        meta = cupy.empty((0,) * nd, dtype=dtype)
    else:
        meta = np.empty((0,) * nd, dtype=dtype)
    if math.prod(shape) == 0:
        return da.zeros(shape, dtype=dtype, chunks=array.chunks[:nd], meta=meta), da.zeros((), dtype=np.int64)
    original_chunks = array.chunks[:nd]
    if any(c == 0 for cs in original_chunks for c in cs):  # no faces to join: dropped, and put back below
        array = array.rechunk(tuple(tuple(c for c in cs if c) for cs in original_chunks) + array.chunks[nd:])
    if volume:
        connectivity = _volume.CONNECTIVITY[int(connectivity)]
        exact = tolerance is None or (type(tolerance) is int and tolerance == 0)  # as cclabel.label reads it
        task = partial(_volume_chunk, shape=shape, connectivity=connectivity, background=background,
                       backend=backend, threads=threads, tolerance=None if exact else tolerance)
        if exact or array.dtype == np.bool_:
            tolerance = 0  # equal values join (a bool volume's True voxels, whatever the tolerance)
    else:
        connectivity = {1: 4, 2: 8}.get(int(connectivity), int(connectivity))
        task = partial(_tolerance_chunk, shape=shape, tolerance=tolerance, connectivity=connectivity,
                       background=background, backend=backend, threads=threads)
        if array.dtype == np.bool_:
            tolerance = 0  # a bool picture ignores the tolerance: only True pixels are labelled
    token = tokenize(array, volume, connectivity, background, backend, dtype, threads, tolerance)
    labels, n = _dask_faces.build(array, task, nd=nd, connectivity=connectivity, tolerance=int(tolerance),
                                  dtype=dtype, meta=meta, token=token)
    if labels.chunks != original_chunks:
        labels = labels.rechunk(original_chunks)
    return labels, n


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
                         "(label a stack of images one 2-D array at a time; a (Z, Y, X) volume takes "
                         "connectivity 6, 18 or 26)")
    if any(np.isnan(c) for cs in array.chunks for c in cs):
        raise ValueError("array: has chunks of unknown size; call array.compute_chunk_sizes() first")
    # The same checks as cclabel.label (dtype, connectivity, background, backend) on a 1 x 1 sample.
    dtype = np.dtype(array.dtype).newbyteorder("=")  # chunks of big-endian arrays are read in native order
    name = dtype.name
    if name in _arrays.FLOATS:
        _arrays.to_keys(np.zeros((1, 1), dtype=dtype), background, "numpy")
        _cclabel._inspect(np.zeros((1, 1), np.uint8), connectivity, None, backend)
    elif name in _arrays.WIDE:
        _arrays._wide_background(background, name)
        _cclabel._inspect(np.zeros((1, 1), np.uint8), connectivity, None, backend)
    else:
        _cclabel._inspect(np.zeros((1, 1) + tuple(shape[2:]), dtype=dtype), connectivity, background, backend)


# --- the key map of a 64-bit array: made once, when label() is called ----------------------------

def _bits(block):
    """A chunk's int64 bits (_piece_keys.ordered_bits) as NumPy."""
    lib = type(block).__module__.split(".", 1)[0]
    lib = lib if lib == "cupy" else "numpy"
    bits = ordered_bits(block if lib == "cupy" else np.asarray(block), lib, np.dtype(block.dtype).name)
    return bits.get() if lib == "cupy" else bits


def _distinct(*parts):
    """Sorted distinct int64 bits of some chunks' bits (or of sorted distinct parts)."""
    return _arrays._sorted_unique(np.concatenate([np.asarray(p, np.int64).reshape(-1) for p in parts]))


def _value_keys(array):
    """The ValueKeys of a 64-bit dask array: its smallest and largest canonical bits (one
    reduction), and only when they span 2**32 or more, its distinct values, found by sorting each
    chunk and merging the sorted sets by a tree of up to 16 at a time. Computed here, on the
    scheduler in use, so that every chunk task reads the same map (a lazy map would hold every
    chunk in memory until the whole array had been reduced)."""
    import dask
    import dask.array as da

    bits = array.map_blocks(_bits, dtype=np.int64, meta=np.empty((0, 0), np.int64))
    lo, hi = dask.compute(bits.min(), bits.max())

    def unique():
        parts = [dask.delayed(_distinct)(b) for b in bits.to_delayed().ravel()]
        while len(parts) > 1:
            parts = [dask.delayed(_distinct)(*parts[i:i + 16]) for i in range(0, len(parts), 16)]
        return dask.compute(parts[0])[0]

    return ValueKeys.from_bits(np.dtype(array.dtype).name, int(lo), int(hi), unique)


def label(array, connectivity=8, background=None, *, backend="auto", dtype=None, threads=None, tolerance=0):
    """Label a ``dask.array`` chunk by chunk; lazily equal to ``cclabel.label(array.compute(), ...)``.

    Parameters
    ----------
    array : dask.array.Array
        ``(H, W)`` of ``bool``, ``int8``..``int64``, ``uint8``..``uint64`` or ``float16``..``float64``,
        or ``(H, W, 3|4)`` ``uint8`` RGB/RGBA whose colour axis is one chunk; chunks of any shape
        (ragged, one pixel wide, ...), backed by NumPy (labelled by the C++ tile API) or CuPy
        (labelled on the chunk's GPU). Each chunk may hold at most 2**32 - 1 pixels. Values as in
        :func:`cclabel.label`: equal values join, ``0.0`` and ``-0.0`` are one value and all NaNs
        one value (``background=float("nan")`` leaves them unlabelled), and 64-bit values that
        differ only above bit 32 never join. ``int64``, ``uint64`` and ``float64`` arrays are read
        once more when ``label()`` is called, to make the value-to-key map that all chunks share
        (the module's docstring); the other dtypes are read only when the labels are computed.

        Or a ``(Z, Y, X)`` volume, with ``connectivity`` 6, 18 or 26 (as :func:`cclabel.label`
        reads a 3-D array), chunked along any axes, every dtype the volume labeller takes, or a
        ``(Z, Y, X, 3|4)`` ``uint8`` RGB/RGBA volume whose colour axis is one chunk; NumPy or
        CuPy chunks (each CuPy chunk labelled on its GPU, only its faces copied to the host, its
        labels CuPy): labels equal to ``cclabel.label(volume, connectivity=..., tolerance=...)``,
        numbered in raster order z, then y, then x. The seams are joined over the chunks' faces,
        edges and corners (:mod:`cclabel._dask_faces`).
    connectivity, background, backend
        As in :func:`cclabel.label`; the background is a value of the array's dtype.
    dtype : None, numpy.uint32 or numpy.uint64
        The labels' dtype. None: ``uint32`` when the array has at most ``2**32 - 1`` pixels
        (voxels), else ``uint64``.
    threads : None or int
        CPU threads a chunk task may use. None: on a ``dask.distributed`` worker, the cores it may
        use divided by its task slots (``nthreads``), so that tasks running side by side never
        oversubscribe the machine; with the threaded scheduler, the library's rule (its tasks share
        one process, whose calls share the cores). Labels never depend on it.
    tolerance : int
        0 (default): equal values join. Above 0, neighbours join when every channel differs by at
        most this much: the labels equal ``cclabel.label(image, tolerance=...)``
        (:func:`cclabel.graph.label_tolerance`) value for value, for the pictures and dtypes it
        takes (integers of up to 32 bits and bool, RGB/RGBA; CuPy chunks of bool, uint8, uint16,
        uint32 and RGB/RGBA uint8, labelled on their GPU). Each chunk is
        labelled with the tolerance, and the seams compare the border pixels' values pair by
        pair. Volumes likewise, for the dtypes ``cclabel.label`` takes a tolerance for in a
        volume (bool, uint8, uint16, uint32, RGB/RGBA); the pairs across a seam are the
        connectivity's (faces, edges, corners). None is 0 for a volume, as in memory.

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
        As :func:`cclabel.label` for dtype, connectivity, background, backend and tolerance (the
        in-memory call's own checks, when ``label()`` is called); a colour axis split across
        chunks (``array.rechunk({2: -1})``, ``{3: -1}`` for a volume); chunks of unknown size;
        CuPy chunks of a picture with a tolerance and a signed or 64-bit dtype (``TypeError``). Chunk-level
        errors (a chunk of more than 2**32 - 1 pixels, N beyond a forced uint32) are raised by
        ``compute()``, except that an ``int64``/``uint64``/``float64`` picture is read by
        ``label()`` itself (its key map), so errors reading it come from there.

    Examples
    --------
    >>> import numpy as np, dask, dask.array as da, cclabel, cclabel.dask
    >>> img = np.array([[1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1]], dtype=np.uint8)
    >>> labels, n = cclabel.dask.label(da.from_array(img, chunks=2), background=0)
    >>> got, n = dask.compute(labels, n)
    >>> int(n), bool(np.array_equal(got, cclabel.label(img, background=0)))
    (2, True)
    """
    import dask
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    if not isinstance(array, da.Array):
        raise TypeError("array: expected a dask.array.Array, got " + type(array).__name__ +
                        " (use cclabel.label for NumPy / CuPy arrays, or dask.array.from_array)")
    volume = _is_volume(array, connectivity)
    if volume or not (type(tolerance) is int and tolerance == 0):  # anything else is checked there
        return _label_faces(array, volume, connectivity, background, backend, dtype, threads, tolerance)
    _check(array, connectivity, background, backend)
    _cclabel._check_threads(threads)
    wide = np.dtype(array.dtype).name in _arrays.WIDE
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
    value_keys = _value_keys(array) if wide else None
    rows, cols = array.chunks[0], array.chunks[1]
    y0s, x0s = np.cumsum((0,) + rows[:-1]), np.cumsum((0,) + cols[:-1])
    R, C = len(rows), len(cols)
    # A plain task graph (one dict, keys are tuples), built in O(chunks): the tasks' fixed arguments
    # ride in functools.partial so that no literal is mistaken for a key.
    token = tokenize(array, connectivity, background, backend, dtype, threads)
    name = "cclabel-label-" + token
    keys_k = "cclabel-keys-" + token
    chunk_k, local_k, leaf_k = "cclabel-chunk-" + token, "cclabel-local-" + token, "cclabel-leaf-" + token
    merge_k, group_k, ren_k = "cclabel-merge-" + token, "cclabel-group-" + token, "cclabel-rename-" + token
    roots_k, n_k = "cclabel-roots-" + token, "cclabel-n-" + token
    tail = (0,) if array.ndim == 3 else ()
    dsk = {}
    if wide:
        dsk[keys_k] = value_keys  # one value (not a tuple: never read as a task) that every chunk reads
    for i in range(R):
        for j in range(C):
            f = partial(_chunk, x0=int(x0s[j]), y0=int(y0s[i]), image_width=W, connectivity=connectivity,
                        background=background, backend=backend, threads=threads)
            dsk[(chunk_k, i, j)] = (f, (array.name, i, j) + tail) + ((keys_k,) if wide else ())
            dsk[(local_k, i, j)] = (getitem, (chunk_k, i, j), 0)
            dsk[(leaf_k, i, j)] = (getitem, (chunk_k, i, j), 1)

    # The tree: at each level the grid of groups is cut into blocks of neighbouring groups (_block:
    # up to 16 x 16, fewer where the groups' borders are long); each block of two or more becomes
    # one merge task, a block of one passes up as it is.
    # A group is the chunk rows [r0, r1) and columns [c0, c1); renames[(i, j)] = the merges above.
    ys = [int(v) for v in np.cumsum((0,) + rows)]
    xs = [int(v) for v in np.cumsum((0,) + cols)]
    groups = [[((leaf_k, i, j), (i, i + 1, j, j + 1)) for j in range(C)] for i in range(R)]
    renames = {(i, j): [] for i in range(R) for j in range(C)}
    level = 0
    while len(groups) > 1 or len(groups[0]) > 1:
        gr, gc = len(groups), len(groups[0])
        perimeter = max(2 * (ys[r1] - ys[r0] + xs[c1] - xs[c0]) for row in groups for _, (r0, r1, c0, c1) in row)
        br, bc = _block(gr, gc, perimeter)
        new_groups = []
        for I in range(0, gr, br):
            new_row = []
            for J in range(0, gc, bc):
                block = [row[J:J + bc] for row in groups[I:I + br]]
                if len(block) == 1 and len(block[0]) == 1:
                    new_row.append(block[0][0])
                    continue
                r0, c0 = block[0][0][1][0], block[0][0][1][2]
                r1, c1 = block[-1][-1][1][1], block[-1][-1][1][3]
                seams = sorted([2 * ys[row[0][1][0]] for row in block[1:]] +
                               [2 * xs[g[1][2]] + 1 for g in block[0][1:]])
                f = partial(_merge, y0=ys[r0], x0=xs[c0], h=ys[r1] - ys[r0], w=xs[c1] - xs[c0], seams=tuple(seams),
                            connectivity=connectivity)
                key = (merge_k, level, I // br, J // bc)
                dsk[key] = (f,) + tuple(g[0] for row in block for g in row)
                dsk[(group_k,) + key[1:]] = (getitem, key, 0)
                dsk[(ren_k,) + key[1:]] = (getitem, key, 1)
                for i in range(r0, r1):
                    for j in range(c0, c1):
                        renames[(i, j)].append((ren_k,) + key[1:])
                new_row.append(((group_k,) + key[1:], (r0, r1, c0, c1)))
            new_groups.append(new_row)
        groups = new_groups
        level += 1

    dsk[roots_k] = (_top, groups[0][0][0])
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


def adjacency(labels, connectivity=8, background=False, *, backend="auto", threads=None):
    """The region adjacency graph of a dask label array; lazily equal to
    ``cclabel.adjacency(labels.compute(), connectivity, background)``.

    Parameters
    ----------
    labels : dask.array.Array
        ``(H, W)`` labels (any integer dtype or bool, values below 2**32; 0 is the background),
        chunks of any shape, NumPy or CuPy; e.g. the labels of :func:`label`.
    connectivity, background, backend, threads
        As in :func:`cclabel.adjacency`; ``threads`` per chunk task as in :func:`label`.

    Returns
    -------
    edges : dask.array.Array
        ``(E, 3)`` ``uint64`` rows ``(a, b, contacts)``, ``a < b``, sorted, as one chunk of unknown
        length (``edges.compute()`` is a NumPy array): each chunk's own pairs
        (:func:`cclabel.adjacency` on the chunk) plus the neighbour pairs across the seams between
        chunks (each counted once, corner pairs too with ``connectivity=8``), summed by a tree
        (:mod:`cclabel._dask_adjacency`).

    Raises
    ------
    TypeError, ValueError
        As :func:`cclabel.adjacency` (dtype, shape, connectivity, background, backend, threads);
        chunks of unknown size. Negative labels or labels of 2**32 and above are found by
        ``compute()``.

    Examples
    --------
    >>> import numpy as np, dask.array as da, cclabel, cclabel.dask
    >>> lab = np.array([[1, 1, 2], [3, 3, 2]], dtype=np.uint32)
    >>> cclabel.dask.adjacency(da.from_array(lab, chunks=1), connectivity=4).compute()
    array([[1, 2, 1],
           [1, 3, 2],
           [2, 3, 1]], dtype=uint64)
    """
    from ._dask_adjacency import adjacency as graph
    return graph(labels, connectivity, background, backend=backend, threads=threads)


def label_files(*args, **kwargs):
    """Label many files over a Dask cluster: see :func:`cclabel.dask_files.label_files`."""
    from .dask_files import label_files as run
    return run(*args, **kwargs)
