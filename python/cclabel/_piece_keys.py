"""Equality keys that agree across the pieces of one image (tiles, Dask chunks).

Pieces are labelled apart and joined where the 32-bit keys of neighbouring border pixels are equal
(cclabel.tiles), so a pixel's key must depend on its value alone, never on the piece it lies in:
the dense ids or ``value - min`` that :mod:`cclabel._arrays` gives a whole image would differ from
piece to piece. Per dtype:

* bool, (u)int8, (u)int16, (u)int32: read in place by the core; the key is the value's bits;
* float16 / float32: the canonical bits of :mod:`cclabel._arrays` (-0.0 is +0.0, every NaN one
  NaN) as uint16 / uint32: exact, piece by piece, with no pass over the whole image;
* int64 / uint64 / float64: 64 bits do not fit a 32-bit key, so a :class:`ValueKeys` made from the
  whole image's values maps them, the same for every piece: ``bits - lo`` when the image's values
  span fewer than 2**32 bit patterns (``lo`` the smallest), else the rank of the bits among the
  image's distinct values. The bits are _arrays.wide_bits (float64 canonical), with uint64's top
  bit flipped so that their order is the values' order: the span of integers is ``max - min``. A piece holding a value the map was not made from is an error (its key
  could collide with another value's), never a silent join.

The background goes through the same map (a value the map cannot hold is no pixel's: no background).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import _arrays

WIDE = _arrays.WIDE


class ValueKeys:
    """A map from the int64/uint64/float64 values of one image to 32-bit keys, shared by its pieces.

    ``dtype``: the image's dtype name; ``lo``, ``hi``: the smallest and largest of its values'
    bits (:func:`ordered_bits`); ``table``: None when ``hi - lo <= 2**32 - 1`` (keys are ``bits - lo``), else the
    sorted distinct bits (keys are ranks in it). Plain data: it pickles, and Dask holds it as one
    graph value rather than mistaking it for a task.
    """
    __slots__ = ("dtype", "lo", "hi", "table")

    def __init__(self, dtype: str, lo: int, hi: int, table: Optional[np.ndarray] = None):
        self.dtype, self.lo, self.hi, self.table = str(dtype), int(lo), int(hi), table

    def __getstate__(self):
        return (self.dtype, self.lo, self.hi, self.table)

    def __setstate__(self, state):
        self.dtype, self.lo, self.hi, self.table = state

    def __repr__(self):
        how = f"{self.table.size} distinct values" if self.table is not None else "bits - lo"
        return f"ValueKeys({self.dtype}, lo={self.lo}, hi={self.hi}, {how})"

    @classmethod
    def from_bits(cls, dtype: str, lo: int, hi: int, unique=None) -> "ValueKeys":
        """The map for an image whose canonical bits span lo..hi; ``unique()`` (called only when
        the span exceeds 2**32 - 1) gives its sorted distinct bits as NumPy int64."""
        if hi - lo <= _arrays.MAX_PIXELS:
            return cls(dtype, lo, hi)
        table = np.ascontiguousarray(unique(), dtype=np.int64)
        if table.size > _arrays.MAX_PIXELS + 1:
            raise ValueError(f"image: {table.size} distinct {dtype} values, more than 32-bit keys can tell apart")
        return cls(dtype, lo, hi, table)

    def keys(self, bits, lib: str = "numpy"):
        """uint32 keys of an array (NumPy or CuPy, as lib says) of canonical bits; ValueError when a
        value is not one the map was made from."""
        xp = _arrays.xp_of(lib)
        if bits.size == 0:
            return xp.zeros(tuple(bits.shape), dtype=xp.uint32)
        if self.table is None:
            lo, hi = int(bits.min()), int(bits.max())
            if lo < self.lo or hi > self.hi:
                bad = lo if lo < self.lo else hi
                raise ValueError(f"keys: the tile holds a value (int64 bits {bad}) outside the range the "
                                 f"{self.dtype} key map was made from (bits {self.lo}..{self.hi}); make it from "
                                 "the whole image's values")
            out = xp.empty(tuple(bits.shape), dtype=xp.uint32)
            if lib == "numpy":
                np.subtract(bits, np.int64(self.lo), out=out, casting="unsafe")  # exact: 0 <= bits - lo < 2**32
            else:
                out[...] = bits - self.lo
            return out
        table = self.table if lib == "numpy" else xp.asarray(self.table)
        queries, order = bits, None
        if lib == "numpy" and table.size > _arrays.DENSE_SEARCH_MAX:
            # Past the cache, a search in pixel order misses on every step (2.3 s for a 1 Mpx chunk
            # into 16.7 M values); in sorted order the steps follow one another (0.14 s + the sort).
            order = np.argsort(bits, axis=None)
            queries = bits.reshape(-1)[order]
        where = xp.searchsorted(table, queries)
        found = table[xp.minimum(where, table.size - 1)] == queries
        if not bool(found.all()):
            raise ValueError(f"keys: the tile holds a value that is not among the {table.size} {self.dtype} "
                             "values the key map was made from; make it from the whole image's values")
        if order is None:
            return where.astype(xp.uint32)
        out = np.empty(bits.size, np.uint32)
        out[order] = where
        return out.reshape(bits.shape)

    def background(self, bits: Optional[int]) -> Optional[int]:
        """The key of a background given as canonical bits; None where no pixel can hold it."""
        if bits is None or not self.lo <= bits <= self.hi:
            return None
        if self.table is None:
            return bits - self.lo
        i = int(np.searchsorted(self.table, np.int64(bits)))
        return i if i < self.table.size and int(self.table[i]) == bits else None


_TOP = -(2**63)  # int64 with only the top bit set


def ordered_bits(image, lib: str, name: str):
    """_arrays.wide_bits of an int64/uint64/float64 image, uint64's in the values' order (top bit
    flipped: a copy). A big-endian NumPy image is read in native order first."""
    if lib == "numpy" and not image.dtype.isnative:
        image = image.astype(image.dtype.newbyteorder("="))
    bits = _arrays.wide_bits(image, lib, name)
    return bits ^ _arrays.xp_of(lib).int64(_TOP) if name == "uint64" else bits


def _background_bits(background, name: str) -> Optional[int]:
    bits = _arrays._wide_background(background, name)
    return bits ^ _TOP if bits is not None and name == "uint64" else bits


def value_keys(values, dtype=None) -> ValueKeys:
    """The key map for an int64/uint64/float64 image holding ``values`` (array-like): the whole
    image, its distinct values (e.g. the union of each tile's ``np.unique``) or, for integers
    with ``max - min < 2**32``, just ``[min, max]`` (float64 values seldom lie so close in bits)."""
    v = np.asarray(values) if dtype is None else np.asarray(values, dtype=dtype)
    name = _arrays.dtype_name(v)
    if name not in WIDE:
        raise TypeError(f"values: dtype must be int64, uint64 or float64 (other dtypes need no key map), got {name}")
    if v.size == 0:
        raise ValueError("values: empty; give the values of the whole image")
    bits = ordered_bits(np.ascontiguousarray(v).reshape(-1), "numpy", name)
    return ValueKeys.from_bits(name, int(bits.min()), int(bits.max()), lambda: _arrays._sorted_unique(bits))


def piece_keys(piece, background, keys: Optional[ValueKeys], lib: str):
    """(array the core reads, background in its terms) for one piece (NumPy or CuPy, as lib says)
    of an image: keys that agree with every other piece's (see the module's docstring)."""
    name = _arrays.dtype_name(piece)
    if name in WIDE:
        if keys is None:
            raise TypeError(f"keys: {name} tiles need the key map of the whole image "
                            "(keys=cclabel.tiles.value_keys(values of the image)): tiles are joined by "
                            "32-bit keys, which 64-bit values only get from the whole image's values")
        if not isinstance(keys, ValueKeys):
            raise TypeError(f"keys: expected a cclabel.tiles.ValueKeys, got {type(keys).__name__}")
        if keys.dtype != name:
            raise ValueError(f"keys: the map was made from {keys.dtype} values, the tile is {name}")
        bg = keys.background(_background_bits(background, name))
        if lib == "cupy":
            with piece.device:
                return keys.keys(ordered_bits(piece, lib, name), lib), bg
        return keys.keys(ordered_bits(piece, lib, name), lib), bg
    if keys is not None:
        raise ValueError(f"keys: only int64, uint64 and float64 tiles take a key map, this one is {name}")
    if name in _arrays.FLOATS:
        k = _arrays.to_keys(piece, background, lib)
        return k.image, k.background
    return piece, background
