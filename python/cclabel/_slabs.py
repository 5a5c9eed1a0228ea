"""A volume larger than memory, labelled as a stack of z-slabs (cclabel.label_slabs).

The volume arrives as slabs ``(z_i, Y, X)`` in z order (slices of a np.memmap, pages of a TIFF)
and is labelled in two passes over its *labels*, never twice over its voxels:

1. each slab is labelled alone by the in-memory volume labeller (every core): local labels 1..n in
   raster order of the slab, written at once into ``out`` as provisional labels. Only what the
   seams need is kept: the previous slab's last slice (labels and values), which is paired with
   this slab's first slice (6: the voxel across the seam; 18: it and its four face neighbours in
   the plane; 26: the nine voxels of the 3 x 3 square) by the CLI's seam (core/slab_seam.hpp);
2. the tile API's resolve (cclabel/tiles.hpp, a union-find over (slab, local label) whose roots
   keep the smallest first index) numbers the regions 1..N, and each slab of ``out`` is read back,
   mapped and written again (the tile API's relabel).

A label's *first index* here is its ordinal over the slabs (the labels before its slab, plus its
local label), not its first voxel's raster index: slabs follow each other in z and local labels
are in raster order of their slab, so both sort alike and the ranks (the global numbers) are the
same, without a pass over each slab to find its first voxels.

Seams compare the voxels' values themselves (floats by their canonical bits: -0.0 is 0.0, every
NaN one NaN), which any two slabs agree on; 64-bit values need no key map.
"""
from __future__ import annotations

import numpy as np

from . import _cclabel, _volume
from .tiles import relabel_tile, resolve_tiles

# Labels fit uint32 up to here; beyond it a volume's default labels are uint64 (a module constant,
# so that tests can lower it instead of making a volume of 2**32 voxels).
_U32_MAX = 2**32 - 1

_LABEL_DTYPES = (np.dtype(np.uint32), np.dtype(np.uint64))


def _connectivity(connectivity) -> int:
    bad = isinstance(connectivity, (bool, np.bool_)) or not isinstance(connectivity, (int, np.integer))
    if bad or int(connectivity) not in _volume.CONNECTIVITY:
        raise ValueError(f"connectivity: slabs are a volume's: 6, 18 or 26 (scikit-image's 3), got {connectivity!r}"
                         + (" (4 and 8 label pictures; cclabel.label takes them)" if not bad else ""))
    return _volume.CONNECTIVITY[int(connectivity)]


def _label_dtype(dtype, what):
    d = np.dtype(dtype)
    if d not in _LABEL_DTYPES:
        raise TypeError(f"{what}: labels are uint32 or uint64, got {d}")
    return d


def _check_out(out, dtype):
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out: expected a NumPy array (e.g. a np.memmap) of shape (Z, Y, X), got {type(out).__name__}")
    d = _label_dtype(out.dtype, "out")
    if dtype is not None and np.dtype(dtype) != d:
        raise ValueError(f"dtype: {np.dtype(dtype)} asked, but out is {d}; give one or make them agree")
    if out.ndim != 3:
        raise ValueError(f"out: expected shape (Z, Y, X), got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out: the array is read-only")


def _seam_key(plane):
    """Values of a slice, comparable with == as cclabel.label compares them."""
    from .dask import _equality_key
    return _equality_key(np.array(plane))  # a copy: the slab it comes from may be gone or reused


def _seam_pairs(before, after, connectivity):
    """(k, 2) uint32 pairs (local label before the seam, local label after it) of the regions that
    continue across it; ``before``/``after``: (labels, keys) of the last slice before it and the
    first after it. The CLI's seams (core/slab_seam.hpp), joining equal keys."""
    return _cclabel._slab_seam(before[0], before[1], after[0], after[1], connectivity)


def _place(out, z0, z1):
    """out[z0:z1] when the labeller can write its uint32 labels straight into it, else None."""
    if out is None or out.dtype != np.uint32:
        return None
    view = out[z0:z1]
    return view if view.flags.c_contiguous else None


def _relabel_slab(local, m, dest):
    """dest[...] = m[local] for a (z, Y, X) slab; dest may be local itself (in place)."""
    if local.size == 0:
        return
    rows = np.ascontiguousarray(local, np.uint32).reshape(-1, local.shape[-1])
    if dest.flags.c_contiguous:  # straight into dest (a view of its rows)
        relabel_tile(rows, m, dtype=dest.dtype, out=dest.reshape(rows.shape))
    else:
        dest[...] = relabel_tile(rows, m, dtype=dest.dtype).reshape(local.shape)


def label_slabs(slabs, *, connectivity=26, background=None, out=None, dtype=None, return_num=False, threads=None):
    """Label a volume given as a stack of z-slabs, with exactly ``cclabel.label(whole, connectivity=...)``'s labels.

    For volumes larger than memory: the slabs are read once, in order, and only one slab, its
    labels and small tables are in memory at a time besides ``out``.

    >>> import numpy as np, cclabel
    >>> v = np.zeros((4, 3, 3), np.uint8)
    >>> v[0, 0, 0] = v[3, 0, 2] = 5                 # two regions that join only in the last slab ...
    >>> v[1:4, 0, 0] = 5; v[3, 0, 1] = 5            # ... through a column and a step
    >>> v[1, 2, 2] = 7
    >>> labels, n = cclabel.label_slabs((v[z:z + 2] for z in range(0, 4, 2)), background=0, return_num=True)
    >>> n, bool((labels == cclabel.label(v, connectivity=26, background=0)).all())
    (2, True)

    Parameters
    ----------
    slabs : iterable of arrays
        ``(z_i, Y, X)`` host arrays (NumPy arrays, np.memmap slices such as
        ``(mm[z:z + 64] for z in range(0, mm.shape[0], 64))``, TIFF pages stacked ``[None]``), in z
        order, all of one dtype and one ``(Y, X)``; slabs may differ in depth (an empty one is
        skipped). Every dtype the volume labeller takes: ``bool``, ``(u)int8`` to ``(u)int64``,
        ``float16/32/64``, equal values joining as in :func:`cclabel.label` (``0.0`` and ``-0.0``
        one value, all NaNs one value). The seams compare the voxels' values themselves, so 64-bit
        values need no key map (:func:`cclabel.tiles.value_keys` is for tiles labelled apart).
        Each slab may hold at most 2**32 - 1 voxels; the volume any number.
    connectivity : int
        6, 18 or 26 (default; scikit-image's 3): faces, edges, corners.
    background : None or number
        As in :func:`cclabel.label`: voxels of this value get 0.
    out : numpy.ndarray, optional
        ``(Z, Y, X)`` ``uint32`` or ``uint64`` array to write the labels into, e.g. a
        ``np.memmap`` on disk; any layout (C order writes the labeller's output in place). Pass 1
        writes each slab's local labels into it, pass 2 reads them back slab by slab and writes
        the global ones, so memory beside ``out`` is one slab of voxels and labels, two slices for
        the seams and the tables: 8 bytes a local label, 24 while the regions are numbered. On an
        error after the first slab, ``out`` holds provisional labels. Without ``out`` the labels
        are returned in a new array, and each slab's labels are held until the numbering is known.
    dtype : numpy.uint32, numpy.uint64 or None
        Of the labels made without ``out`` (with ``out``: None or its dtype). None: ``uint32``,
        or ``uint64`` when the volume has more than 2**32 - 1 voxels.
    return_num : bool
        Also return N, the number of regions (an int).
    threads : int or None
        CPU threads for each slab, as in :func:`cclabel.label`.

    Returns
    -------
    labels : numpy.ndarray, or (labels, N) with ``return_num=True``
        ``out`` when given; N an int.

    Raises
    ------
    TypeError
        Slabs that are not an iterable of host arrays, differ in dtype or are of a dtype the volume
        labeller does not take; a label dtype other than uint32/uint64.
    ValueError
        No slabs, a slab that is not 3-D, slabs that differ in ``(Y, X)``, a connectivity other than
        6/18/26, ``out`` of the wrong shape or read-only, N above a uint32 ``out``'s or ``dtype``'s
        range, and what :func:`cclabel.label` refuses (a background out of range, ...).
    """
    from . import label

    conn = _connectivity(connectivity)
    if dtype is not None:
        _label_dtype(dtype, "dtype")
    if out is not None:
        _check_out(out, dtype)
    if isinstance(slabs, np.ndarray):
        raise TypeError("slabs: got one array; pass an iterable of (z, Y, X) slabs, e.g. "
                        "(v[z:z + 64] for z in range(0, v.shape[0], 64)), or label it whole with cclabel.label")
    try:
        it = iter(slabs)
    except TypeError:
        raise TypeError(f"slabs: expected an iterable of (z, Y, X) arrays, got {type(slabs).__name__}") from None

    first_indices, seams, kept = [], [], []  # kept: (z0, z1, local labels or None when they are in out)
    kind = plane = None  # the first slab's dtype and (Y, X)
    z = labelled = 0
    before = None  # (labels, keys) of the last slice so far
    buffer = None
    for i, slab in enumerate(it):
        if not isinstance(slab, np.ndarray):
            if hasattr(slab, "__cuda_array_interface__") or type(slab).__module__.split(".", 1)[0] in ("cupy", "torch"):
                raise TypeError(f"slabs: slab {i} is a {type(slab).__name__}; label_slabs takes host (NumPy) arrays")
            slab = np.asarray(slab)
        if slab.ndim != 3:
            raise ValueError(f"slabs: slab {i} has shape {slab.shape}; each slab is (z, Y, X)"
                             + (" (one slice: slice[None])" if slab.ndim == 2 else ""))
        if kind is None:
            kind, plane = slab.dtype, slab.shape[1:]
            if out is not None and out.shape[1:] != plane:
                raise ValueError(f"out: shape {out.shape}, but the slabs' slices are {plane[0]} x {plane[1]}: "
                                 f"expected (Z, {plane[0]}, {plane[1]})")
        elif slab.dtype != kind:
            raise TypeError(f"slabs: slab {i} is {slab.dtype}, slab 0 was {kind}; all slabs must have one dtype")
        elif slab.shape[1:] != plane:
            raise ValueError(f"slabs: slab {i} has slices of {slab.shape[1]} x {slab.shape[2]}, slab 0 had "
                             f"{plane[0]} x {plane[1]}; all slabs must have one (Y, X)")
        depth = int(slab.shape[0])
        if depth == 0:
            continue
        z0, z1 = z, z + depth
        if out is not None and z1 > out.shape[0]:
            raise ValueError(f"out: shape {out.shape}, but the slabs have at least {z1} slices")
        dest = _place(out, z0, z1)
        if dest is None:
            if out is None or buffer is None or buffer.shape != slab.shape:
                buffer = np.empty(slab.shape, np.uint32)
            dest = buffer
        n = label(slab, connectivity=conn, background=background, out=dest, return_num=True, threads=threads)[1]
        first_indices.append(np.arange(labelled, labelled + n, dtype=np.uint64))
        labelled += n
        here = len(first_indices) - 1
        key = None
        if before is not None:
            key = _seam_key(slab[0])
            pairs = _seam_pairs(before, (np.ascontiguousarray(dest[0]), key), conn)
            if pairs.size:
                seams.append((here - 1, here, pairs))
        # copies: dest may be reused for the next slab
        before = (np.array(dest[-1]), key if key is not None and depth == 1 else _seam_key(slab[-1]))
        if out is None:
            kept.append((z0, z1, dest))
            buffer = None
        else:
            if dest is buffer:
                out[z0:z1] = buffer
            kept.append((z0, z1, None))
        z = z1
    if kind is None:
        raise ValueError("slabs: empty; give at least one (z, Y, X) slab")
    if out is not None and out.shape[0] != z:
        raise ValueError(f"out: shape {out.shape}, but the slabs have {z} slices")

    count, maps = resolve_tiles(first_indices, seams)
    del first_indices, seams
    shape = (z,) + tuple(int(s) for s in plane)
    if out is None:
        target = np.dtype(dtype) if dtype is not None else \
            np.dtype(np.uint64 if shape[0] * shape[1] * shape[2] > _U32_MAX else np.uint32)
    else:
        target = out.dtype
    if target == np.uint32 and count > _U32_MAX:
        raise ValueError(f"labels: {count} regions do not fit uint32 labels; use uint64 (dtype=numpy.uint64)")
    result = np.empty(shape, target) if out is None else out
    for k, (z0, z1, local) in enumerate(kept):
        m = maps[k]
        if local is None:
            if np.array_equal(m, np.arange(m.size, dtype=m.dtype)):
                continue  # out holds these labels already
            dest = out[z0:z1]
            local = dest if dest.dtype == np.uint32 else np.array(dest, np.uint32)
        else:
            kept[k] = None  # pages of the result are touched as the local labels are let go
            dest = result[z0:z1]
        _relabel_slab(local, m, dest)
    return (result, int(count)) if return_num else result
