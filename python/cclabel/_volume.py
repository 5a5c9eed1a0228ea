"""3-D volumes: a ``(Z, Y, X)`` array with connectivity 6, 18 or 26 (scikit-image's 3), labelled on
the CPU by the compiled core (``cclabel/volume.hpp``).

Every dtype is handed to the core as it is (the core turns signed, float and 64-bit values into
keys itself); layouts whose rows are not runs of adjacent voxels at increasing addresses (Fortran
order, transposes, reversed axes) are copied once to C order. GPU arrays are refused: volumes are
labelled on the CPU for now, and device data is never copied to the host silently.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _arrays, _cclabel

# connectivity argument -> the volume's neighbourhood; scikit-image's 3 on 3-D input is 26 (its 1
# and 2 keep their meaning of 4 and 8 for (B, H, W) batches).
CONNECTIVITY = {6: 6, 18: 18, 26: 26, 3: 26}

# dtype -> cclabel::PixelFormat
_FORMATS = {"bool": 0, "uint8": 1, "uint16": 2, "uint32": 3, "int8": 6, "int16": 7, "int32": 8, "int64": 9,
            "uint64": 10, "float16": 11, "float32": 12, "float64": 13}

_ON_CPU = "3-D volumes are labelled on the CPU for now"


def is_volume(image, connectivity) -> bool:
    """True for a 3-D array with a volume's connectivity (6, 18, 26, or scikit-image's 3)."""
    if isinstance(connectivity, (bool, np.bool_)) or not isinstance(connectivity, numbers.Integral):
        return False
    if int(connectivity) not in CONNECTIVITY:
        return False
    shape = getattr(image, "shape", None)
    if shape is None and isinstance(image, (list, tuple)):
        shape = np.shape(image)
    return shape is not None and len(shape) == 3


def _host_array(image, lib: str):
    """The volume as a NumPy array on the host, without copying device data."""
    if lib == "cupy":
        raise ValueError(f"image: {_ON_CPU}; pass a NumPy array (cupy.asnumpy(image)) or a 2-D image or batch")
    if lib == "torch":
        if image.device.type != "cpu":
            raise ValueError(f"image: {_ON_CPU}; pass a CPU tensor (tensor.cpu()) or a 2-D image or batch")
        image = image.detach()
        try:
            return image.numpy()
        except (TypeError, RuntimeError):
            raise TypeError(f"image: dtype {image.dtype} is not supported for 3-D volumes") from None
    if isinstance(image, (list, tuple)):
        return np.asarray(image)
    if not isinstance(image, np.ndarray):
        if hasattr(image, "__dlpack_device__") and int(image.__dlpack_device__()[0]) not in (1, 3):
            raise ValueError(f"image: {_ON_CPU}; pass a host array")
        image = np.asarray(image)
    return image


def _in_place(a: np.ndarray) -> bool:
    """True when the core reads a as it is: adjacent voxels in rows, rows and slices that follow
    each other at increasing, non-overlapping addresses."""
    z, y, x = a.shape
    if a.size == 0:
        return True
    item = a.itemsize
    sz, sy, sx = a.strides
    return ((x == 1 or sx == item) and (y == 1 or sy >= x * item) and
            (z == 1 or sz >= (y * sy if y > 1 else x * item)))


def _background(bg, a: np.ndarray):
    """The background as a Python int or float of the volume's dtype (None: none)."""
    if bg is None:
        return None
    name = a.dtype.name
    if name == "bool":
        if isinstance(bg, (bool, np.bool_, numbers.Integral)) and not bg:
            return 0
        raise ValueError("background: a bool image's background is always False (zero); got " + repr(bg))
    if name.startswith("float"):
        x = _arrays._number(bg, name, False)
        with np.errstate(over="ignore"):
            v = np.array(x, dtype=name)
        if np.isinf(v) and not np.isinf(x):
            raise ValueError(f"background: value {x!r} is out of range for {name}")
        return float(v)
    v = _arrays._number(bg, name, True)
    info = np.iinfo(name)
    if not info.min <= v <= info.max:
        raise ValueError(f"background: value {v} is out of range for {name} ({info.min}..{info.max})")
    return v


def label(image, lib, *, connectivity, background, backend, return_num, out, target, stats, threads, tolerance):
    """cclabel.label for a volume (see its docstring)."""
    from . import _check_out, _narrow  # the 2-D path's helpers for out= and out_dtype=
    if not (type(tolerance) is int and tolerance == 0):
        raise ValueError("tolerance: not yet supported for 3-D volumes")
    if stats:
        raise ValueError("stats: regions() of 3-D volumes are not there yet")
    a = _host_array(image, lib)
    name = a.dtype.name
    if name not in _FORMATS:
        raise TypeError(f"image: dtype {name} is not supported for 3-D volumes (supported: " +
                        ", ".join(_FORMATS) + ")")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not _in_place(a):
        a = np.ascontiguousarray(a)  # Fortran order, transposes, reversed axes: one copy
    bg = _background(background, a)
    threads = _cclabel._threads(threads)
    shape = tuple(int(s) for s in a.shape)
    out_lib = "numpy" if lib != "torch" else "torch"
    direct = None
    if out is not None:
        if target == "uint32":
            host_out = out.numpy() if out_lib == "torch" and hasattr(out, "numpy") else out
            if not isinstance(host_out, np.ndarray) or host_out.dtype != np.uint32:
                raise TypeError("out: expected a writable uint32 array")
            if tuple(host_out.shape) != shape:
                raise ValueError(f"out: shape must be {shape} for this image, got {tuple(host_out.shape)}")
            if not host_out.flags.c_contiguous:
                raise ValueError("out: must be C-contiguous")
            if not host_out.flags.writeable:
                raise ValueError("out: the array is read-only")
            if np.shares_memory(host_out, a):
                raise ValueError("out: must not overlap the image")
            direct = host_out
        else:
            _check_out(out, shape, out_lib, target)
    labels = np.empty(shape, np.uint32) if direct is None else direct
    n = _cclabel._label_volume(a, _FORMATS[name], labels, int(CONNECTIVITY[int(connectivity)]), bg, backend, threads)
    if out is not None and target == "uint32":
        result = out
    elif lib == "torch":
        import torch
        result = torch.from_numpy(labels)
        if target != "uint32":
            result = _narrow(result, n, target, out, "torch")
    else:
        result = labels if target == "uint32" else _narrow(labels, n, target, out, "numpy")
    return (result, n) if return_num else result
