"""regions(), remove_small() and keep_largest() of ``(Z, Y, X)`` label volumes, on the CPU
(``cclabel/volume_stats.hpp``).

regions() reads the volume's values with every dtype as it is (as ``_volume`` hands them to
cclabel.label), from C order (other layouts are copied once); an RGB or RGBA volume
``(Z, Y, X, 3|4)`` of uint8 is read as RGB8 / RGBA8, its value a colour of 3 or 4 channels. The
filters need no volume of their own: a region is a label value, and the raster order of a
C-ordered ``(Z, Y, X)`` array is that of the same labels seen as a ``(Z * Y, X)`` picture, so they
run the picture filters on that view (in place where the labels are C-contiguous).
"""
from __future__ import annotations

import numpy as np

from . import _arrays, _cclabel, _volume

# Columns of a volume's regions(): name, word of a VolumeRegionStats row, dtype.
COLUMNS = (("voxels", 0, "uint64"), ("left", 1, "int64"), ("top", 2, "int64"), ("front", 3, "int64"),
           ("width", 4, "int64"), ("height", 5, "int64"), ("depth", 6, "int64"), ("centroid_x", 7, "float64"),
           ("centroid_y", 8, "float64"), ("centroid_z", 9, "float64"), ("surface", 10, "uint64"))
_VALUE_WORD = 11  # value[0] | value[1] << 32: the value's bits


def _labels_volume(labels) -> np.ndarray:
    """The label volume as a C-contiguous uint32 NumPy array (a checked copy unless it is one)."""
    if isinstance(labels, (list, tuple)):
        labels = np.asarray(labels)
    lib = _volume_lib(labels)
    if lib == "cupy" or (lib == "torch" and labels.device.type != "cpu"):
        raise ValueError("labels: region statistics of 3-D volumes run on the CPU for now; pass host arrays")
    if lib == "torch":
        labels = labels.detach().numpy()
    if not isinstance(labels, np.ndarray):
        raise TypeError(f"labels: expected an integer array, got {type(labels).__name__}")
    name = labels.dtype.name
    if name == "uint32" and labels.flags.c_contiguous and labels.dtype.isnative:
        return labels
    if name not in _arrays.NATIVE + ("int64", "uint64") or name.startswith("float"):
        raise TypeError(f"labels: dtype must be an integer type (uint32 is read in place), got {name}")
    if labels.size and name.startswith("int") and int(labels.min()) < 0:
        raise ValueError(f"labels: label {int(labels.min())} is negative (labels are 0..N)")
    if labels.size and name in ("int64", "uint64") and int(labels.max()) > _arrays.MAX_PIXELS:
        raise ValueError(f"labels: label {int(labels.max())} exceeds 2**32 - 1, more than any volume of uint32 "
                         "labels holds")
    return np.ascontiguousarray(labels, dtype=np.uint32)


def _volume_lib(a) -> str:
    module = type(a).__module__.split(".")[0]
    return module if module in ("cupy", "torch") else "numpy"


def regions(labels, image, *, connectivity, backend, threads):
    """cclabel.regions for a volume (see its docstring)."""
    lab = _labels_volume(labels)
    a = _volume._host_array(image, _volume_lib(image))
    if a.ndim == 4 and a.shape[3] in (3, 4):
        return _regions_colour(lab, a, connectivity=connectivity, backend=backend, threads=threads)
    if a.ndim != 3:
        raise ValueError(f"image: expected the (Z, Y, X) volume of the labels or a (Z, Y, X, 3|4) RGB or RGBA "
                         f"volume, got shape {tuple(a.shape)}")
    name = a.dtype.name
    if name not in _volume._FORMATS:
        raise TypeError(f"image: dtype {name} is not supported for 3-D volumes (supported: " +
                        ", ".join(_volume._FORMATS) + ")")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    a = np.ascontiguousarray(a)  # the core reads it packed (see python/src/volume_stats.cpp)
    if not isinstance(backend, str):
        raise TypeError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    rows = _cclabel._regions_volume(lab, a, _volume._FORMATS[name], int(_volume.CONNECTIVITY[int(connectivity)]),
                                    backend, _cclabel._threads(threads))
    table = _table(rows)
    bits = np.ascontiguousarray(rows[:, _VALUE_WORD])
    if name == "bool":
        values = bits.astype(bool)
    else:
        values = bits.astype(f"uint{8 * a.dtype.itemsize}").view(a.dtype)
    table["value"] = np.ascontiguousarray(values.reshape(-1, 1))
    return table


def _table(rows) -> dict:
    """The columns of COLUMNS from the raw (N + 1, 13) uint64 rows, after ``label``."""
    table = {"label": np.arange(rows.shape[0], dtype=np.uint32)}
    for col, word, dtype in COLUMNS:
        table[col] = np.ascontiguousarray(rows[:, word]).view(dtype)
    return table


def _regions_colour(lab, a, *, connectivity, backend, threads):
    """regions() of an RGB or RGBA volume (Z, Y, X, C) of uint8: the core reads it as RGB8 / RGBA8
    (C-contiguous, as its (Z, Y, X * C) bytes); ``value`` is ``(N + 1, C)`` uint8, the colour at
    the region's first voxel, as regions() of a 2-D RGB picture gives it (0 for empty labels)."""
    c = int(a.shape[3])
    fmt = _volume._colour_format(a.dtype.name, a.shape)
    if not isinstance(backend, str):
        raise TypeError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    a = np.ascontiguousarray(a)
    z, y, x = (int(s) for s in a.shape[:3])
    rows = _cclabel._regions_volume(lab, a.reshape(z, y, x * c), fmt, int(_volume.CONNECTIVITY[int(connectivity)]),
                                    backend, _cclabel._threads(threads), c)
    table = _table(rows)
    # value[0..3] are the words 11 (channels 0, 1) and 12 (channels 2, 3), one channel a uint32
    channels = np.ascontiguousarray(rows[:, _VALUE_WORD:_VALUE_WORD + 2]).view(np.uint32)[:, :c]
    table["value"] = np.ascontiguousarray(channels.astype(np.uint8))
    return table


def is_label_volume(labels) -> bool:
    """True for 3-D labels: the filters' volumes."""
    shape = getattr(labels, "shape", None)
    if shape is None and isinstance(labels, (list, tuple)):
        shape = np.shape(labels)
    return shape is not None and len(shape) == 3


def filter_volume(labels, run, in_place):
    """remove_small / keep_largest of a (Z, Y, X) label volume: @p run(picture, in_place) filters the
    (Z * Y, X) picture of the same labels and returns (result, M)."""
    if isinstance(labels, (list, tuple)):
        labels = np.asarray(labels)
    if in_place and isinstance(labels, np.ndarray) and not labels.flags.writeable:
        raise ValueError("labels: the array is read-only")
    z, y, x = (int(s) for s in labels.shape)
    picture = labels.reshape(z * y, x)
    out, m = run(picture, in_place)
    if in_place:
        if not (isinstance(labels, np.ndarray) and np.may_share_memory(out, labels)):
            labels[...] = out.reshape(z, y, x)  # the reshape had to copy (labels not C-contiguous)
        return labels, m
    return out.reshape(z, y, x), m
