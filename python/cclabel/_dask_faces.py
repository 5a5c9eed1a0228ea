"""The tree of :mod:`cclabel.dask` joined over chunk *faces*: for seams that are not runs of one key.

The run-based merge of ``cclabel.dask`` (python/src/tree_merge.cpp) joins border runs of equal
keys along the seams of a 2-D chunk grid. Two cases do not fit it, and take this tree instead:

* **tolerance joining** (``tolerance=T``): two neighbours join when every channel differs by at
  most T, a rule per *pair of pixels*, so the seams must see the border pixels' values, not keys
  of runs;
* **(Z, Y, X) volumes** (connectivity 6, 18, 26; RGB/RGBA volumes too): the seams are planes, and
  the chunk grid's edges and corners are where up to eight chunks meet. Both at once (a volume
  with a tolerance) is the same tree: the pairs across a cut are the connectivity's, and each is
  judged by its values.

The same four steps as the run-based tree, in any number of dimensions (2 or 3 here):

1. one task per chunk labels it on its own (``label_tolerance`` or the volume labeller): local
   labels 1..n in raster order of the chunk, and each label's *id*, the global raster index of its
   first pixel. The chunk's summary is its *faces* (the first and last slice along each axis, as
   the ids of their pixels, -1 for the background, and their values), except faces on the
   array's own border, which face nothing; and its *closed* ids, the regions on none of its faces;
2. a tree reduction over the chunk grid: each merge takes a block of neighbouring groups (2 x 2 or
   2 x 2 x 2 and more, as many as keep its faces within :data:`_BUDGET` pixels). For every inner
   cut of the block it lays the faces on either side of the cut side by side into two whole
   planes, so that the pairs across the cut at the chunk grid's edges and corners are pairs of
   one plane like any other; pairs of foreground pixels that join (values equal, or within the
   tolerance in every channel; with diagonal steps as the connectivity allows) give id pairs,
   joined by a union-find whose roots are the smallest ids. The group passes up its outer faces
   (ids renamed to their roots) and its closed ids (the children's and the roots no longer on any
   face), and aside, for the chunks below it, the ids it renamed;
3. the root holds every region's id (all closed by then): a region's number is the rank of its id;
4. one task per chunk relabels it: each local label's id, renamed by the merges above the chunk,
   ranked among the roots.

Every step is NumPy; a merge is linear in its faces' pixels apart from sorts of their ids.
"""
from __future__ import annotations

import itertools
import math
from functools import partial
from operator import getitem

import numpy as np

from .tiles import relabel_tile

# How many face pixels one merge reads: as many neighbouring groups as keep their faces within
# this (at least 2 per axis where the grid allows, at most _MAX_CHILDREN).
_BUDGET = 1 << 21
_MAX_CHILDREN = 512

# In-plane steps across a cut: a neighbour pair across a cut along one axis differs by one on that
# axis and on at most this many of the others (4 and 6: none; 8 and 18: one; 26: two).
_DIAGONALS = {4: 0, 8: 1, 6: 0, 18: 1, 26: 2}


# --- a chunk ---------------------------------------------------------------------------------------

def first_pixels(labels) -> np.ndarray:
    """Flat positions (int64) of the first pixel of each label 1..n of raster-ordered labels. Each
    label first appears right after the previous one did, so a running maximum steps up by one
    exactly there; it is run only along the rows that hold a first appearance (a row whose maximum
    exceeds every earlier row's), the other rows cost one vectorised maximum each."""
    if labels.size == 0:
        return np.zeros(0, np.int64)
    rows = labels.reshape(-1, labels.shape[-1])
    top = rows.max(axis=1)
    before = np.zeros(top.size, top.dtype)  # the largest label of the rows above
    np.maximum.accumulate(top[:-1], out=before[1:])
    new = np.flatnonzero(top > before)
    run = np.concatenate([before[new, None], rows[new]], axis=1)
    np.maximum.accumulate(run, axis=1, out=run)
    r, x = np.nonzero(run[:, 1:] != run[:, :-1])
    return new[r].astype(np.int64) * rows.shape[1] + x


def global_index(pos, chunk_shape, origin, shape) -> np.ndarray:
    """Raster indices in the whole array (``shape``) of flat positions in a chunk at ``origin``."""
    coords = np.unravel_index(pos, chunk_shape)
    out = np.zeros(pos.size, np.int64)
    for c, o, n in zip(coords, origin, shape):
        out = out * np.int64(n) + (c.astype(np.int64) + np.int64(o))
    return out


def first_pixels_scatter(labels, xp, scatter_min) -> np.ndarray:
    """first_pixels() of labels on a GPU (CuPy: ``xp`` cupy, ``scatter_min`` cupyx.scatter_min):
    each label's smallest flat position by one atomic minimum a pixel, with no host copy of the
    labels; only the n positions come back (NumPy int64). The labels must be uint32 (a chunk of at
    most 2^32 - 1 pixels, as cclabel.label gives them). With NumPy and ``np.minimum.at`` it is the
    same computation on the host, which is how the tests check it without a GPU."""
    flat = labels.reshape(-1)
    if flat.size == 0:
        return np.zeros(0, np.int64)
    n = int(flat.max())  # waits for the GPU: the positions are n long
    pos = xp.full(n + 1, 0xFFFFFFFF, dtype=xp.uint32)
    scatter_min(pos, flat, xp.arange(flat.size, dtype=xp.uint32))
    return to_host(pos[1:]).astype(np.int64)


def is_cupy(a) -> bool:
    return type(a).__module__.split(".", 1)[0] == "cupy"


def to_host(a) -> np.ndarray:
    """A face (or positions) as a NumPy array: CuPy arrays are copied from their GPU (the faces are
    the small part of a chunk; its labels and voxels stay where they are)."""
    return a.get() if is_cupy(a) else np.asarray(a)


def leaf(labels, values, origin, shape, key=None):
    """A labelled chunk's (first ids, summary). ``labels``: local labels 1..n in raster order of
    the chunk (0: background); ``values``: its pixels (a trailing channel axis allowed), each face
    made comparable by ``key`` (None: as they are); ``origin``: the chunk's first pixel;
    ``shape``: the whole array's. CuPy labels and values (a chunk labelled on its GPU) give the
    same summary, all NumPy: the first pixels are found on the GPU and only the faces are copied."""
    nd = labels.ndim
    if is_cupy(labels):
        import cupy
        import cupyx
        pos = first_pixels_scatter(labels, cupy, cupyx.scatter_min)
    else:
        pos = first_pixels(labels)
    first = global_index(pos, labels.shape, origin, shape)
    ids = np.empty(first.size + 1, np.int64)
    ids[0] = -1
    ids[1:] = first
    seen = np.zeros(first.size + 1, bool)
    faces = []
    for a in range(nd):
        sides = []
        for at, border in ((0, origin[a] == 0), (labels.shape[a] - 1, origin[a] + labels.shape[a] == shape[a])):
            if border:  # the array's own border: nothing lies beyond it
                sides.append(None)
                continue
            lab = to_host(labels.take(at, axis=a))
            seen[lab] = True
            face = to_host(values.take(at, axis=a))
            sides.append((ids[lab], face if key is None else key(face)))
        faces.append(tuple(sides))
    return first, (tuple(faces), first[~seen[1:]])


# --- a merge ---------------------------------------------------------------------------------------

def _lay(parts, grid, axis=0):
    """Arrays laid side by side over a grid (C order), joined along their first len(grid) axes."""
    if not grid:
        return parts[0]
    step = math.prod(grid[1:])
    blocks = [_lay(parts[i * step:(i + 1) * step], grid[1:], axis + 1) for i in range(grid[0])]
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=axis)


def _face(children, grid, axis, index, side):
    """The face ``side`` (0 first, 1 last slice) along ``axis`` of the children at ``index`` along it,
    laid out as one face of the block: (ids, values), or None on the array's border."""
    others = tuple(g for a, g in enumerate(grid) if a != axis)
    picked = [faces[axis][side] for pos, (faces, _) in zip(np.ndindex(*grid), children) if pos[axis] == index]
    if picked[0] is None:
        return None
    return _lay([p[0] for p in picked], others), _lay([p[1] for p in picked], others)


def _steps(m, diagonals):
    """In-plane offsets of the pairs across a cut: vectors in {-1, 0, 1}^m with at most ``diagonals``
    nonzero entries."""
    return [o for o in itertools.product((-1, 0, 1), repeat=m) if sum(map(bool, o)) <= diagonals]


def _pairs(lo, hi, steps, tolerance):
    """Id pairs (a, b) of the foreground pixels that join across a cut, ``lo`` the plane before it
    and ``hi`` the plane after it (each (ids, values))."""
    (ia, va), (ib, vb) = lo, hi
    m = ia.ndim
    out_a, out_b = [], []
    for o in steps:
        sa = tuple(slice(1, None) if d < 0 else slice(None, -1) if d > 0 else slice(None) for d in o)
        sb = tuple(slice(None, -1) if d < 0 else slice(1, None) if d > 0 else slice(None) for d in o)
        a, b = ia[sa], ib[sb]
        keep = (a >= 0) & (b >= 0)
        x, y = va[sa], vb[sb]
        if tolerance:
            close = np.abs(x.astype(np.int64) - y.astype(np.int64)) <= tolerance
        else:
            close = x == y
        if close.ndim > m:  # channels: every one must be close
            close = close.all(axis=tuple(range(m, close.ndim)))
        keep &= close
        a, b = a[keep], b[keep]
        # Along a face a region's pixels lie side by side: drop a pair equal to the one before it
        # (a linear pass that leaves far fewer pairs to the sorts and searches of the merge).
        new = np.ones(a.size, bool)
        np.logical_or(a[1:] != a[:-1], b[1:] != b[:-1], out=new[1:])
        out_a.append(a[new])
        out_b.append(b[new])
    return np.concatenate(out_a), np.concatenate(out_b)


def _union(n, a, b):
    """Each node's root (its component's smallest node) for nodes 0..n-1 joined by pairs (a, b):
    rounds of hooking every root that has a pair to a smaller root under the smallest such root,
    then pointer jumping to the roots; a node's parent is never above it, so the forest has no
    cycles, and every round hooks at least one root, so it ends."""
    parent = np.arange(n, dtype=np.int64)
    while a.size:
        ra, rb = parent[a], parent[b]
        differ = ra != rb
        if not differ.any():
            break
        a, b, ra, rb = a[differ], b[differ], ra[differ], rb[differ]
        np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
        while True:
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up
    return parent


def _runs(ids):
    """A face's ids with each repeat of the one before it dropped (the same set, a fraction of it)."""
    ids = ids.reshape(-1)
    new = np.ones(ids.size, bool)
    np.not_equal(ids[1:], ids[:-1], out=new[1:])
    return ids[new]


def merge(*children, grid, connectivity, tolerance):
    """Joins a block of neighbouring groups (children: their summaries, C order over ``grid``) into
    one group. Returns (summary, (renamed, to)): the new group's summary, and aside, for the
    chunks below it, the ids it renamed (ascending) and their roots."""
    nd = len(grid)
    steps = _steps(nd - 1, _DIAGONALS[connectivity])
    ids = [_runs(faces[a][s][0]) for faces, _ in children for a in range(nd) for s in (0, 1)
           if faces[a][s] is not None]
    nodes = np.unique(np.concatenate(ids)) if ids else np.zeros(0, np.int64)
    nodes = nodes[nodes >= 0]
    pa, pb = [], []
    for axis in range(nd):
        for k in range(1, grid[axis]):
            a, b = _pairs(_face(children, grid, axis, k - 1, 1), _face(children, grid, axis, k, 0), steps, tolerance)
            pa.append(a)
            pb.append(b)
    a = np.searchsorted(nodes, np.concatenate(pa)) if pa else np.zeros(0, np.int64)
    b = np.searchsorted(nodes, np.concatenate(pb)) if pb else np.zeros(0, np.int64)
    if a.size:  # one pair per pair of ids is enough
        key = np.unique(a.astype(np.int64) * np.int64(nodes.size) + b)
        a, b = key // np.int64(nodes.size), key % np.int64(nodes.size)
    root = _union(nodes.size, a, b)
    on_face = np.zeros(nodes.size, bool)
    faces = []
    for axis in range(nd):
        sides = []
        for side in (0, 1):
            f = _face(children, grid, axis, 0 if side == 0 else grid[axis] - 1, side)
            if f is not None:
                fid, values = f
                fg = fid >= 0
                r = root[np.searchsorted(nodes, fid[fg])]
                on_face[r] = True
                fid = fid.copy()
                fid[fg] = nodes[r]
                f = (fid, values)
            sides.append(f)
        faces.append(tuple(sides))
    moved = root != np.arange(nodes.size)
    closed = [c for _, c in children] + [nodes[~moved & ~on_face]]
    return (tuple(faces), np.concatenate(closed)), (nodes[moved], nodes[root[moved]])


# --- the root and the relabelling ------------------------------------------------------------------

def top(group):
    """Every region's id, ascending (at the root every face lies on the array's border: all closed)."""
    faces, closed = group
    open_ids = [f[0].reshape(-1) for sides in faces for f in sides if f is not None]
    ids = np.concatenate([closed] + [i[i >= 0] for i in open_ids])
    return np.unique(ids)


def count(roots):
    return np.int64(roots.size)


def rank_map(first, renames, roots):
    """The map (uint64, index: local label) of a chunk's local labels to their global numbers: each
    label's id (``first``) renamed by the merges above the chunk, bottom-up, and ranked among the
    roots (0 stays 0). Shared with the run-based tree of cclabel.dask."""
    ids = first.copy()
    for renamed, to in renames:
        if renamed.size and ids.size:
            i = np.minimum(np.searchsorted(renamed, ids), renamed.size - 1)
            hit = renamed[i] == ids
            ids[hit] = to[i[hit]]
    rank = np.searchsorted(roots, ids)
    if ids.size and not np.array_equal(roots[np.minimum(rank, roots.size - 1)], ids):
        raise RuntimeError("cclabel.dask: internal error: a region's id is not among the roots")
    m = np.zeros(ids.size + 1, np.uint64)
    m[1:] = rank.astype(np.uint64) + np.uint64(1)
    return m


def relabel(local, renames, roots, *, dtype):
    """Step 4: a chunk's global labels (any number of dimensions)."""
    labels, first = local
    shape = labels.shape
    m = rank_map(first, renames, roots)
    return relabel_tile(labels.reshape(-1, shape[-1]), m, dtype=dtype).reshape(shape)


# --- the graph -------------------------------------------------------------------------------------

def _block(grid, surface):
    """The block of groups one merge joins on a grid of groups whose largest has ``surface`` face
    pixels: at least 2 along each axis where the grid has 2, doubling the shortest side while the
    block's faces stay within the budget."""
    k = max(2 ** len(grid), min(_MAX_CHILDREN, _BUDGET // max(surface, 1)))
    b = [1] * len(grid)
    while True:
        open_axes = [a for a in range(len(grid)) if b[a] < grid[a]]
        if not open_axes:
            return tuple(b)
        a = min(open_axes, key=lambda i: b[i])
        grown = min(2 * b[a], grid[a])
        if math.prod(b) // b[a] * grown > k and math.prod(b) > 1:
            return tuple(b)
        b[a] = grown


def build(array, chunk_task, *, nd, connectivity, tolerance, dtype, meta, token):
    """The graph of the four steps over an array's first ``nd`` axes (a trailing colour axis must be
    one chunk): ``chunk_task(block, origin=...)`` returns ((labels, first ids), leaf summary).
    Returns (labels, n) as dask arrays."""
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph

    chunks = array.chunks[:nd]
    shape = tuple(int(s) for s in array.shape[:nd])
    starts = [np.cumsum((0,) + c) for c in chunks]
    grid = tuple(len(c) for c in chunks)
    name = "cclabel-label-" + token
    chunk_k, local_k, leaf_k = "cclabel-chunk-" + token, "cclabel-local-" + token, "cclabel-leaf-" + token
    merge_k, group_k, ren_k = "cclabel-merge-" + token, "cclabel-group-" + token, "cclabel-rename-" + token
    roots_k, n_k = "cclabel-roots-" + token, "cclabel-n-" + token
    tail = (0,) * (array.ndim - nd)
    dsk = {}
    for idx in np.ndindex(*grid):
        origin = tuple(int(starts[a][i]) for a, i in enumerate(idx))
        dsk[(chunk_k,) + idx] = (partial(chunk_task, origin=origin), (array.name,) + idx + tail)
        dsk[(local_k,) + idx] = (getitem, (chunk_k,) + idx, 0)
        dsk[(leaf_k,) + idx] = (getitem, (chunk_k,) + idx, 1)

    # groups: grid index -> (key, lo, hi), lo and hi the group's chunk indices per axis (hi exclusive)
    groups = {idx: ((leaf_k,) + idx, idx, tuple(i + 1 for i in idx)) for idx in np.ndindex(*grid)}
    renames = {idx: [] for idx in np.ndindex(*grid)}
    g = grid
    level = 0
    while math.prod(g) > 1:
        def extent(lo, hi, a):
            return int(starts[a][hi[a]] - starts[a][lo[a]])
        surface = max(sum(2 * math.prod(extent(lo, hi, o) for o in range(nd) if o != a) for a in range(nd))
                      for _, lo, hi in groups.values())
        b = _block(g, surface)
        ng = tuple(-(-g[a] // b[a]) for a in range(nd))
        new = {}
        for J in np.ndindex(*ng):
            members = [tuple(J[a] * b[a] + d[a] for a in range(nd))
                       for d in np.ndindex(*b)]
            members = [m for m in members if all(m[a] < g[a] for a in range(nd))]
            lo = groups[members[0]][1]
            hi = groups[members[-1]][2]
            if len(members) == 1:
                new[J] = groups[members[0]]
                continue
            sub = tuple(min(b[a], g[a] - J[a] * b[a]) for a in range(nd))
            key = (merge_k, level) + J
            dsk[key] = (partial(merge, grid=sub, connectivity=connectivity, tolerance=tolerance),) + \
                tuple(groups[m][0] for m in members)
            dsk[(group_k, level) + J] = (getitem, key, 0)
            dsk[(ren_k, level) + J] = (getitem, key, 1)
            for idx in np.ndindex(*(hi[a] - lo[a] for a in range(nd))):
                renames[tuple(lo[a] + idx[a] for a in range(nd))].append((ren_k, level) + J)
            new[J] = ((group_k, level) + J, lo, hi)
        groups, g = new, ng
        level += 1

    root = next(iter(groups.values()))[0]
    dsk[roots_k] = (top, root)
    task = partial(relabel, dtype=dtype)
    for idx in np.ndindex(*grid):
        dsk[(name,) + idx] = (task, (local_k,) + idx, list(renames[idx]), roots_k)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[array])
    labels = da.Array(graph, name, chunks=chunks, meta=meta)
    n = da.Array(HighLevelGraph.from_collections(n_k, {(n_k,): (count, roots_k)}, dependencies=[labels]), n_k,
                 chunks=(), meta=np.empty((), np.int64))
    return labels, n
