"""The tile steps of cclabel/tiles.hpp for Python: label an image piece by piece anywhere (another
process, another machine, a GPU) and join the pieces into exactly the labels of the whole image.

1. :func:`label_tile` on every tile: local labels 1..n and a small :class:`TileTable`;
2. :func:`seam_equivalences` on every pair of tiles that touch (faces, and corners for 8-connectivity);
3. :func:`resolve_tiles` over every tile's ``first_index`` and every seam: global numbers 1..N in
   raster order of each region's first pixel, as a map per tile;
4. :func:`relabel_tile` on every tile through its map.

Tables are tuples of plain NumPy arrays, so they pickle as they are (Dask, multiprocessing).
:mod:`cclabel.dask` drives these steps over a ``dask.array``.

>>> import numpy as np, cclabel.tiles as T
>>> img = np.array([[1, 1, 2, 1]], dtype=np.uint8)
>>> la, ta = T.label_tile(img[:, :2], 0, 0, 4)
>>> lb, tb = T.label_tile(img[:, 2:], 2, 0, 4)
>>> n, maps = T.resolve_tiles([ta.first_index, tb.first_index], [(0, 1, T.seam_equivalences(ta, tb))])
>>> n, np.hstack([T.relabel_tile(la, maps[0]), T.relabel_tile(lb, maps[1])])
(3, array([[1, 1, 2, 3]], dtype=uint32))

Tiles take every dtype :func:`cclabel.label` takes, with its meaning (equal values join; ``0.0``
and ``-0.0`` are one value, all NaNs one value). Seams compare 32-bit keys of the tiles' borders, so
a value's key must be the same in every tile: ``bool`` and 8- to 32-bit integers are their own keys,
``float16``/``float32`` their canonical bits (each tile on its own). ``int64``, ``uint64`` and
``float64`` tiles take ``keys=``, one :class:`ValueKeys` made by :func:`value_keys` from the whole
image's values and passed to every tile: a tile alone cannot know which of its 64-bit values other
tiles hold, and per-tile numbering would join different values across a seam. For an integer
image with ``max - min < 2**32``, ``[min, max]`` is enough; otherwise give its distinct values (the
union of each tile's ``np.unique``):

>>> img64 = np.array([[2**40, 2**40, 5, 2**40]], dtype=np.int64)
>>> km = T.value_keys(np.unique(img64))
>>> la, ta = T.label_tile(img64[:, :2], 0, 0, 4, keys=km)
>>> lb, tb = T.label_tile(img64[:, 2:], 2, 0, 4, keys=km)
>>> n, maps = T.resolve_tiles([ta.first_index, tb.first_index], [(0, 1, T.seam_equivalences(ta, tb))])
>>> np.hstack([T.relabel_tile(la, maps[0]), T.relabel_tile(lb, maps[1])])
array([[1, 1, 2, 3]], dtype=uint32)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _arrays, _cclabel
from ._piece_keys import ValueKeys, piece_keys, value_keys

__all__ = ["TileTable", "label_tile", "seam_equivalences", "resolve_tiles", "relabel_tile", "edge_keys",
           "ValueKeys", "value_keys"]


class TileTable(NamedTuple):
    """What labelling one tile gives besides its labels (cclabel::TileInfo).

    ``first_index[l - 1]``: global index (y * image_width + x) of local label l's first pixel,
    strictly ascending. ``edge_keys`` / ``edge_labels``: the tile's border ring (top row, bottom
    row, left column, right column; 2 * (width + height) entries), each pixel's equality key and
    local label (0: background).
    """
    x0: int
    y0: int
    width: int
    height: int
    image_width: int
    first_index: np.ndarray  # uint64
    edge_keys: np.ndarray  # uint32
    edge_labels: np.ndarray  # uint32

    @property
    def count(self) -> int:
        return int(self.first_index.size)


def _u(a, dtype):
    return np.ascontiguousarray(np.asarray(a), dtype=dtype).reshape(-1)


def _as_tuple(t: TileTable):
    return (int(t.x0), int(t.y0), int(t.width), int(t.height), int(t.image_width), _u(t.first_index, np.uint64),
            _u(t.edge_keys, np.uint32), _u(t.edge_labels, np.uint32))


def edge_keys(pixels, keys: ValueKeys = None) -> np.ndarray:
    """Equality keys of a run of pixels (NumPy, shape (k,) or (k, 3|4) uint8), as label_tile
    writes them: the value (bool 0/1; signed integers as the unsigned bits of their width; floats
    as canonical bits; int64/uint64/float64 through ``keys``), r | g<<8 | b<<16 (| a<<24)."""
    p = np.asarray(pixels)
    if p.ndim == 2:
        k = np.zeros(p.shape[0], np.uint32)
        for c in range(p.shape[1]):
            k |= p[:, c].astype(np.uint32) << np.uint32(8 * c)
        return k
    key, _ = piece_keys(p.reshape(1, -1), None, keys, "numpy")
    key = np.asarray(key).reshape(-1)
    name = _arrays.dtype_name(key)
    if name in _arrays.SIGNED:
        key = key.view("uint" + str(_arrays.SIGNED[name]))
    return key.astype(np.uint32)


def _label_tile_gpu(tile, x0, y0, image_width, connectivity, background, backend, keys):
    """A CuPy tile: its keys (piece_keys, on its GPU) labelled there by cclabel.label; the table
    from the labels (one sort on the GPU for the first pixels) and the border (a ring of keys
    copied to the host)."""
    import cupy
    from . import label

    tile, background = piece_keys(tile, background, keys, "cupy")
    labels, n = label(tile, connectivity=connectivity, background=background, backend=backend, return_num=True,
                      num_as_int=True)
    h, w = int(labels.shape[0]), int(labels.shape[1])
    if n:
        values, first = cupy.unique(labels.ravel(), return_index=True)
        first = first[values > 0].astype(cupy.uint64)
        py, px = first // np.uint64(w), first % np.uint64(w)
        first_index = cupy.asnumpy((py + np.uint64(y0)) * np.uint64(image_width) + px + np.uint64(x0))
    else:
        first_index = np.zeros(0, np.uint64)
    if h == 0 or w == 0:
        ring_px = np.zeros(0, np.uint32)
        ring_lb = np.zeros(0, np.uint32)
    else:
        def ring(a):
            return [a[0], a[h - 1], a[:, 0], a[:, w - 1]]
        ring_px = edge_keys(np.concatenate([cupy.asnumpy(part) for part in ring(tile)]))
        ring_lb = np.concatenate([cupy.asnumpy(part) for part in ring(labels)]).astype(np.uint32)
    return labels, TileTable(x0, y0, w, h, image_width, first_index, ring_px, ring_lb)


def label_tile(tile, x0: int, y0: int, image_width: int, *, connectivity=8, background=None, backend="auto",
               threads=None, keys: ValueKeys = None):
    """Labels one tile whose top-left pixel is (x0, y0) of an image ``image_width`` pixels wide.

    ``tile``: the tile's pixels, any image :func:`cclabel.label` takes (one image, not a batch),
    of any dtype it takes: a NumPy array (labelled by the C++ label_tile) or a CuPy array
    (labelled on its GPU). Returns ``(labels, table)``: ``(h, w)`` ``uint32`` local labels 1..n in
    raster order of the tile (exactly ``cclabel.label(tile)``; the tile's library) and a
    :class:`TileTable`, whose ``edge_keys`` are the 32-bit keys of the module's docstring.
    ``threads``: CPU threads for a host tile, as in :func:`cclabel.label` (None: the library's rule).
    ``keys``: for ``int64``, ``uint64`` and ``float64`` tiles (and only those), the
    :class:`ValueKeys` of the whole image (:func:`value_keys`), the same for every tile; the
    background goes through it too. TypeError without it; ValueError when the tile holds a value
    the map was not made from.
    """
    if type(tile).__module__.split(".", 1)[0] == "cupy":
        return _label_tile_gpu(tile, int(x0), int(y0), int(image_width), connectivity, background, backend, keys)
    tile = np.asarray(tile)
    if _arrays.dtype_name(tile) in _arrays.CONVERTED:  # the other arguments first, before a copy
        _cclabel._inspect(np.zeros((1, 1), np.uint8), connectivity, None, backend)
    if not tile.dtype.isnative:
        tile = tile.astype(tile.dtype.newbyteorder("="))
    tile, background = piece_keys(tile, background, keys, "numpy")
    info = _cclabel._inspect(tile, connectivity, background, backend)
    if info["batch"]:
        raise ValueError(f"tile: expected one (H, W) or (H, W, 3|4) image, got shape {tile.shape} (a batch)")
    if info["needs_copy"]:
        tile = np.ascontiguousarray(tile)
    labels = np.empty(tile.shape[:2], np.uint32)
    first, keys, lab = _cclabel._label_tile(tile, labels, int(x0), int(y0), int(image_width), connectivity,
                                            background, backend, threads)
    return labels, TileTable(int(x0), int(y0), int(labels.shape[1]), int(labels.shape[0]), int(image_width),
                             first, keys, lab)


def seam_equivalences(a: TileTable, b: TileTable, connectivity=8) -> np.ndarray:
    """The ``(k, 2)`` ``uint32`` pairs (local label in a, local label in b) of regions that continue
    from tile a into tile b (faces; for 8-connectivity also diagonals and a corner-only contact).
    Sorted, no duplicates; empty when the tiles do not touch. ValueError for overlapping tiles."""
    return _cclabel._seam(_as_tuple(a), _as_tuple(b), connectivity)


def resolve_tiles(first_indices, seams):
    """Joins the tiles: ``first_indices[t]`` is tile t's ``first_index``; ``seams`` an iterable of
    ``(tile_a, tile_b, pairs)`` with pairs from :func:`seam_equivalences`. Returns ``(N, maps)``:
    ``maps[t][l]`` (``uint64``) is the global label 1..N of tile t's local label l (``maps[t][0]``
    is 0), numbered in raster order of each region's first pixel."""
    fi = [_u(f, np.uint64) for f in first_indices]
    ss = [(int(ta), int(tb), _u(p, np.uint32)) for ta, tb, p in seams]
    n, maps = _cclabel._resolve(fi, ss)
    return int(n), maps


def relabel_tile(local, map, *, dtype=np.uint32, out=None):
    """Global labels of a tile: ``map[local]`` as ``dtype`` (``uint32``, checked to fit, or
    ``uint64``), written into ``out`` when given. NumPy arrays through the C++ relabel_tile;
    CuPy arrays by a gather on their GPU."""
    if type(local).__module__.split(".", 1)[0] == "cupy":
        import cupy
        m = np.asarray(map, dtype=np.uint64)
        if np.dtype(dtype) == np.uint32 and m.size and int(m.max()) > 0xFFFFFFFF:
            raise ValueError(f"relabel: global label {int(m.max())} does not fit a uint32 label image "
                             "(use 64-bit labels)")
        res = cupy.asarray(m.astype(dtype))[local]
        if out is None:
            return res
        out[...] = res
        return out
    local = np.ascontiguousarray(local, dtype=np.uint32)
    if out is None:
        out = np.empty(local.shape, dtype=dtype)
    _cclabel._relabel(local, _u(map, np.uint64), out)
    return out
