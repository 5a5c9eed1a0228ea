"""regions(), remove_small() and keep_largest() of ``(Z, Y, X)`` label volumes: on the CPU
(``cclabel/volume_stats.hpp``) for host arrays, on their GPU (``cclabel/cuda_volume_stats.hpp``)
for CuPy arrays and CUDA tensors, where the columns stay (CuPy arrays) and only N is read back.

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


def _checked_uint32(labels, xp):
    """@p labels (a NumPy or CuPy array, @p xp its module) as C-contiguous uint32, checked: integer
    dtype, no negative label, none above 2**32 - 1 (on the GPU the checks wait for it)."""
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
    return xp.ascontiguousarray(labels, dtype=xp.uint32)


def _labels_volume(labels) -> np.ndarray:
    """The label volume as a C-contiguous uint32 NumPy array (a checked copy unless it is one)."""
    if isinstance(labels, (list, tuple)):
        labels = np.asarray(labels)
    lib = _volume_lib(labels)  # GPU arrays took _regions_device
    if lib == "torch":
        labels = labels.detach().numpy()
    if not isinstance(labels, np.ndarray):
        raise TypeError(f"labels: expected an integer array, got {type(labels).__name__}")
    return _checked_uint32(labels, np)


def _volume_lib(a) -> str:
    module = type(a).__module__.split(".")[0]
    return module if module in ("cupy", "torch") else "numpy"


def regions(labels, image, *, connectivity, backend, threads):
    """cclabel.regions for a volume (see its docstring)."""
    if isinstance(labels, (list, tuple)):
        labels = np.asarray(labels)
    if _volume._on_gpu(labels, _volume_lib(labels)):
        return _regions_device(labels, image, connectivity=connectivity, backend=backend, threads=threads)
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
    table["value"] = _value_column(rows, np, a.dtype, 0)
    return table


def _table(rows, xp=np) -> dict:
    """The columns of COLUMNS from the raw (N + 1, 13) uint64 rows (NumPy, or CuPy: @p xp), after
    ``label``."""
    table = {"label": xp.arange(rows.shape[0], dtype=xp.uint32)}
    for col, word, dtype in COLUMNS:
        table[col] = xp.ascontiguousarray(rows[:, word]).view(dtype)
    return table


def _value_column(rows, xp, dtype, channels):
    """The ``value`` column from the raw rows: the volume's dtype (a colour volume's channels as
    uint8), as the host path decodes it."""
    if channels:
        # value[0..3] are the words 11 (channels 0, 1) and 12 (channels 2, 3), one channel a uint32
        words = xp.ascontiguousarray(rows[:, _VALUE_WORD:_VALUE_WORD + 2]).view(xp.uint32)[:, :channels]
        return xp.ascontiguousarray(words.astype(xp.uint8))
    bits = xp.ascontiguousarray(rows[:, _VALUE_WORD])
    if dtype.name == "bool":
        values = bits.astype(bool)
    else:
        values = bits.astype(f"uint{8 * dtype.itemsize}").view(dtype)
    return xp.ascontiguousarray(values.reshape(-1, 1))


def _device_labels(labels, cupy):
    """The label volume as a C-contiguous uint32 CuPy array on its GPU (checked as _labels_volume
    checks host labels; the checks of other dtypes wait for the GPU)."""
    return _checked_uint32(labels, cupy)


def _as_cupy(a, cupy):
    """A CUDA tensor as a CuPy array sharing its memory (DLPack); CuPy arrays as they are."""
    if _volume_lib(a) == "torch":
        return cupy.from_dlpack(a.detach())
    return a


def _regions_device(labels, image, *, connectivity, backend, threads):
    """regions() of a label volume on the GPU (CuPy arrays; CUDA tensors through CuPy, sharing
    their memory): the statistics run on the labels' GPU on CuPy's current stream with no host copy
    of the labels or the volume. The call waits once, for N (the columns are N + 1 long); the
    columns are CuPy arrays on that GPU."""
    if backend == "cpu":
        raise ValueError("backend: 'cpu' cannot process arrays on the GPU; copy them to the host first, "
                         "or use backend='auto' or 'cuda'")
    if backend not in ("auto", "cuda"):
        raise ValueError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    _cclabel._threads(threads)  # checked as for host arrays; the GPU ignores it
    if not hasattr(_cclabel, "_regions_volume_device"):
        raise ValueError("labels: are on the GPU, but this cclabel was built without CUDA; copy them to the host")
    try:
        import cupy
    except ImportError:  # a CUDA tensor without CuPy
        raise ValueError("labels: region statistics of a volume on the GPU need CuPy (its columns are CuPy "
                         "arrays); install cupy or pass host arrays") from None
    if isinstance(image, (list, tuple)) or _volume_lib(image) == "numpy" or not _volume._on_gpu(image, _volume_lib(image)):
        raise ValueError("image: must be on the labels' GPU (a CuPy array or CUDA tensor), got a host array")
    labels, image = _as_cupy(labels, cupy), _as_cupy(image, cupy)
    device = labels.device.id
    if image.device.id != device:
        raise ValueError(f"image: must be on the labels' device (cuda:{device}), got cuda:{image.device.id}")
    conn = int(_volume.CONNECTIVITY[int(connectivity)])
    with cupy.cuda.Device(device):
        lab = _device_labels(labels, cupy)
        shape = tuple(int(s) for s in lab.shape)
        colour = image.ndim == 4 and int(image.shape[3]) in (3, 4)
        if not colour and image.ndim != 3:
            raise ValueError(f"image: expected the (Z, Y, X) volume of the labels or a (Z, Y, X, 3|4) RGB or RGBA "
                             f"volume, got shape {tuple(image.shape)}")
        if tuple(int(s) for s in image.shape[:3]) != shape:
            raise ValueError(f"image: shape {tuple(int(s) for s in image.shape)} does not match the labels' {shape}")
        name = image.dtype.name
        if colour:
            fmt, channels = _volume._colour_format(name, image.shape), int(image.shape[3])
            image = cupy.ascontiguousarray(image)  # channels and voxels packed (a copy only if not)
            strides = _volume._core_strides(shape, tuple(image.strides[:3]), channels)
        else:
            if name not in _volume._FORMATS:
                raise TypeError(f"image: dtype {name} is not supported for 3-D volumes (supported: " +
                                ", ".join(_volume._FORMATS) + ")")
            fmt, channels = _volume._FORMATS[name], 0
            if not image.dtype.isnative:
                image = image.astype(image.dtype.newbyteorder("="))
            if not _volume._in_place(image):
                image = cupy.ascontiguousarray(image)  # on the GPU: one copy to C order
            strides = _volume._core_strides(shape, tuple(image.strides), image.itemsize)
        n_dev = lab.max() if lab.size else cupy.zeros((), dtype=cupy.uint32)
        n = int(n_dev)  # waits: the columns are N + 1 long
        if n > lab.size:
            raise ValueError(f"label value {n} exceeds the number of voxels ({lab.size}): not a label volume of "
                             f"this {shape[2]} x {shape[1]} x {shape[0]} volume")
        rows = cupy.empty((n + 1, 13), dtype=cupy.uint64)
        ws_bytes = _cclabel._regions_volume_workspace()
        workspace = cupy.empty(max(ws_bytes, 1), dtype=cupy.uint8)
        _cclabel._regions_volume_device(lab.data.ptr, image.data.ptr, *shape, strides[0], strides[1], fmt, conn,
                                        n_dev.data.ptr, n + 1, rows.data.ptr, cupy.cuda.get_current_stream().ptr,
                                        workspace.data.ptr, ws_bytes)
        table = _table(rows, cupy)
        table["value"] = _value_column(rows, cupy, image.dtype, channels)
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
    table["value"] = _value_column(rows, np, a.dtype, c)
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
