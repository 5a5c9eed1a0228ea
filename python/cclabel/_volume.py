"""3-D volumes: a ``(Z, Y, X)`` array with connectivity 6, 18 or 26 (scikit-image's 3), labelled by
the compiled core: host arrays by ``cclabel::label_volume`` (``cclabel/volume.hpp``), CuPy arrays and
CUDA tensors by ``cclabel::cuda::label_volume_device`` (``cclabel/cuda_volume.hpp``) on the array's
GPU and its library's current stream, with no host copy and no wait for the GPU.

Every dtype is handed to the core as it is (the core turns signed, float and 64-bit values into
keys itself); layouts whose rows are not runs of adjacent voxels at increasing addresses (Fortran
order, transposes, reversed axes) are copied once to C order, on the array's own device.
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


# dtypes whose tolerance is a number of their values (cclabel::Options::tolerance_value): compared
# as values on the CPU and the GPU, never through keys
_BY_VALUE = ("int8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64")


def _value_tolerance(tolerance, name: str):
    """The tolerance as the core takes it for dtype @p name: a typed dtype's checked float (None for
    0: exact labelling); the unsigned dtypes' int as given (checked by the core's binding)."""
    if tolerance is None or name not in _BY_VALUE:
        return tolerance
    from .graph import value_tolerance
    t = value_tolerance(tolerance, name)
    return None if t == 0 else t


def is_volume(image, connectivity) -> bool:
    """True for a 3-D array with a volume's connectivity (6, 18, 26, or scikit-image's 3), or a
    4-D one whose last axis holds 3 or 4 channels (an RGB or RGBA volume)."""
    if isinstance(connectivity, (bool, np.bool_)) or not isinstance(connectivity, numbers.Integral):
        return False
    if int(connectivity) not in CONNECTIVITY:
        return False
    shape = getattr(image, "shape", None)
    if shape is None and isinstance(image, (list, tuple)):
        shape = np.shape(image)
    return shape is not None and (len(shape) == 3 or (len(shape) == 4 and shape[3] in (3, 4)))


def _on_gpu(image, lib: str) -> bool:
    """True for a CuPy array or a CUDA tensor."""
    return lib == "cupy" or (lib == "torch" and image.device.type == "cuda")


def _host_array(image, lib: str):
    """The volume as a NumPy array on the host (a host array or CPU tensor: device data is never
    copied to the host behind the caller's back)."""
    if lib == "cupy":
        raise ValueError("image: this call takes a host volume; pass a NumPy array (cupy.asnumpy(image))")
    if lib == "torch":
        if image.device.type != "cpu":
            raise ValueError(f"image: this call takes a host volume; pass a CPU tensor (tensor.cpu()), "
                             f"not one on {image.device.type}")
        image = image.detach()
        try:
            return image.numpy()
        except (TypeError, RuntimeError):
            raise TypeError(f"image: dtype {image.dtype} is not supported for 3-D volumes") from None
    if isinstance(image, (list, tuple)):
        return np.asarray(image)
    if not isinstance(image, np.ndarray):
        if hasattr(image, "__dlpack_device__") and int(image.__dlpack_device__()[0]) not in (1, 3):
            raise ValueError("image: GPU arrays other than CuPy arrays and CUDA tensors are not supported for "
                             "3-D volumes; pass a host array")
        image = np.asarray(image)
    return image


def _in_place(a) -> bool:
    """True when the core reads a (NumPy or CuPy) as it is: adjacent voxels in rows, rows and slices
    that follow each other at increasing, non-overlapping addresses."""
    return _readable(tuple(a.shape), tuple(a.strides), a.itemsize)


def _readable(shape, strides, item) -> bool:
    """_in_place for a (Z, Y, X) shape and its byte strides."""
    z, y, x = shape
    if z * y * x == 0:
        return True
    sz, sy, sx = strides
    return ((x == 1 or sx == item) and (y == 1 or sy >= x * item) and
            (z == 1 or sz >= (y * sy if y > 1 else x * item)))


def _background(bg, name: str):
    """The background as a Python int or float of dtype @p name (None: none)."""
    if bg is None:
        return None
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


def label(image, lib, *, connectivity, background, backend, return_num, out, target, stats, threads, tolerance,
          num_as_int=False):
    """cclabel.label for a volume (see its docstring)."""
    from . import _check_out, _narrow  # the 2-D path's helpers for out= and out_dtype=
    exact = tolerance is None or (type(tolerance) is int and tolerance == 0)
    if stats:
        raise ValueError("stats: regions() of 3-D volumes are not there yet")
    if _on_gpu(image, lib):
        return _label_device(image, lib, connectivity=connectivity, background=background, backend=backend,
                             return_num=return_num, out=out, target=target, threads=threads, num_as_int=num_as_int,
                             tolerance=None if exact else tolerance)
    a = _host_array(image, lib)
    name = a.dtype.name
    if a.ndim == 4:
        return _label_colour(a, connectivity=connectivity, background=background, backend=backend,
                             return_num=return_num, out=out, target=target, threads=threads,
                             tolerance=None if exact else tolerance, lib=lib)
    if name not in _FORMATS:
        raise TypeError(f"image: dtype {name} is not supported for 3-D volumes (supported: " +
                        ", ".join(_FORMATS) + ")")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not _in_place(a):
        a = np.ascontiguousarray(a)  # Fortran order, transposes, reversed axes: one copy
    bg = _background(background, name)
    tolerance = _value_tolerance(None if exact else tolerance, name)
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
    # A new result reuses the buffer of one given up (cclabel.free_cached_memory says why).
    labels = _cclabel._host_labels(list(shape), threads) if direct is None else direct
    n = _cclabel._label_volume(a, _FORMATS[name], labels, int(CONNECTIVITY[int(connectivity)]), bg, backend, threads,
                               tolerance)
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


def _unsupported(name):
    return TypeError(f"image: dtype {name} is not supported for 3-D volumes (supported: " + ", ".join(_FORMATS) + ")")


def _colour_background(background, c: int):
    """An RGB (c = 3) or RGBA (c = 4) volume's background as a tuple of c channels, or None."""
    if background is None:
        return None
    if isinstance(background, str):
        background = _arrays.hex_colour(background)
    if not isinstance(background, (tuple, list)) or len(background) != c:
        raise ValueError(f"background: an RGB{'A' if c == 4 else ''} volume takes a tuple of {c} channels or "
                         f"'#rrggbb{'aa' if c == 4 else ''}', got {background!r}")
    background = tuple(int(v) for v in background)
    if not all(0 <= v <= 255 for v in background):
        raise ValueError(f"background: channels must lie in 0..255, got {background!r}")
    return background


def _colour_format(name: str, shape) -> int:
    """The core's RGB8 (4) or RGBA8 (5) for a (Z, Y, X, 3|4) uint8 array."""
    if name != "uint8":
        raise TypeError(f"image: an RGB or RGBA volume must be uint8, got {name}")
    return 4 if int(shape[3]) == 3 else 5


def _label_colour(a, *, connectivity, background, backend, return_num, out, target, threads, tolerance, lib):
    """An RGB or RGBA volume (Z, Y, X, 3|4) of uint8 on the host: each colour a value, as for pictures."""
    from . import _check_out, _narrow
    if a.dtype != np.uint8:
        raise TypeError(f"image: an RGB or RGBA volume must be uint8, got {a.dtype.name}")
    c = int(a.shape[3])
    background = _colour_background(background, c)
    a = np.ascontiguousarray(a)
    shape = tuple(int(s) for s in a.shape[:3])
    if out is not None:
        _check_out(out, shape, "numpy" if lib != "torch" else "torch", target)
    labels = _cclabel._host_labels(list(shape), _cclabel._threads(threads))
    n = _cclabel._label_volume(a.reshape(shape[0], shape[1], shape[2] * c), 4 if c == 3 else 5, labels,
                               int(CONNECTIVITY[int(connectivity)]), background, backend, _cclabel._threads(threads),
                               tolerance, c)
    if lib == "torch":
        import torch
        result = torch.from_numpy(labels)
        if target != "uint32" or out is not None:
            result = _narrow(result, n, target, out, "torch")
    else:
        result = labels if target == "uint32" and out is None else _narrow(labels, n, target, out, "numpy")
    return (result, n) if return_num else result


def _label_device(image, lib, *, connectivity, background, backend, return_num, out, target, threads, num_as_int,
                  tolerance=None):
    """cclabel.label for a CuPy array or CUDA tensor volume: labelled on its GPU, on its library's
    current stream. N comes back as a 0-d array on the GPU (as for 2-D device arrays) unless
    num_as_int; only that and out_dtype=uint16/uint64 wait for the GPU (to learn N). A tolerance
    is checked as for host volumes: an int for bool, uint8, uint16, uint32, RGB and RGBA (by the
    core), a number of the values for the signed, 64-bit and float dtypes, read where they lie."""
    from . import _check_out, _narrow, _torch_uint32
    if backend == "cpu":
        raise ValueError("backend: 'cpu' cannot label an array on the GPU; copy it to the host first, "
                         "or use backend='auto' or 'cuda'")
    if backend not in ("auto", "cuda"):
        raise ValueError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    _cclabel._threads(threads)  # checked as for host arrays; the GPU ignores it
    if not hasattr(_cclabel, "_label_volume_device"):
        raise ValueError("image: is on the GPU, but this cclabel was built without CUDA (nvcc was not found "
                         "when it was installed); copy the array to the host or reinstall with nvcc on PATH")
    conn = int(CONNECTIVITY[int(connectivity)])
    # An RGB or RGBA volume (Z, Y, X, 3|4) of uint8: each colour a value, its voxels C-ordered bytes.
    colour = len(image.shape) == 4
    shape = tuple(int(s) for s in image.shape[:3])
    if out is not None and target != "uint32":
        _check_out(out, shape, lib, target)
    if lib == "cupy":
        import cupy
        name = image.dtype.name
        if colour:
            fmt, bg = _colour_format(name, image.shape), _colour_background(background, int(image.shape[3]))
        elif name not in _FORMATS:
            raise _unsupported(name)
        else:
            fmt, bg = _FORMATS[name], _background(background, name)
            tolerance = _value_tolerance(tolerance, name)
        device = image.device.id
        with cupy.cuda.Device(device):
            if colour:
                image = cupy.ascontiguousarray(image)  # channels and voxels packed (a copy only if not)
                strides = _core_strides(shape, tuple(image.strides[:3]), int(image.shape[3]))
            else:
                if not image.dtype.isnative:
                    image = image.astype(image.dtype.newbyteorder("="))
                if not _in_place(image):
                    image = cupy.ascontiguousarray(image)  # on the GPU: one copy to C order
                strides = _core_strides(shape, tuple(image.strides), image.itemsize)
            data = image.data.ptr
            stream = cupy.cuda.get_current_stream().ptr
            labels = _device_out(out, target, shape, lambda: cupy.empty(shape, dtype=cupy.uint32),
                                 lambda o: isinstance(o, cupy.ndarray) and o.dtype == cupy.uint32 and
                                 o.device.id == device and o.flags.c_contiguous, lib)
            count = cupy.empty((), dtype=cupy.uint32)
            ws_bytes = _cclabel._volume_workspace(*shape, strides[0], strides[1], fmt, conn, bg, tolerance)
            workspace = cupy.empty(max(ws_bytes, 1), dtype=cupy.uint8)
            _cclabel._label_volume_device(data, *shape, strides[0], strides[1], fmt, labels.data.ptr,
                                          count.data.ptr, conn, bg, stream, workspace.data.ptr, ws_bytes, tolerance)
            host_n = lambda: int(count)  # noqa: E731
    else:
        import torch
        name = str(image.dtype).replace("torch.", "")
        if colour:
            fmt, bg = _colour_format(name, image.shape), _colour_background(background, int(image.shape[3]))
        elif name not in _FORMATS:
            raise _unsupported(name)
        else:
            fmt, bg = _FORMATS[name], _background(background, name)
            tolerance = _value_tolerance(tolerance, name)
        image = image.detach()
        item = image.element_size()
        if colour:
            image = image.contiguous()
            strides = _core_strides(shape, tuple(image.stride()[:3]), int(image.shape[3]))
        else:
            if not _readable(shape, tuple(s * item for s in image.stride()), item):
                image = image.contiguous()  # on the GPU: one copy to C order
            strides = _core_strides(shape, tuple(s * item for s in image.stride()), item)
        device = image.device
        u32 = _torch_uint32(torch)
        stream = torch.cuda.current_stream(device).cuda_stream
        labels = _device_out(out, target, shape, lambda: torch.empty(shape, dtype=u32, device=device),
                             lambda o: isinstance(o, torch.Tensor) and o.dtype == u32 and o.device == device and
                             o.is_contiguous(), lib)
        count = torch.empty((), dtype=u32, device=device)
        ws_bytes = _cclabel._volume_workspace(*shape, strides[0], strides[1], fmt, conn, bg, tolerance)
        workspace = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=device)
        with torch.cuda.device(device):  # the launches go to the tensor's GPU
            _cclabel._label_volume_device(image.data_ptr(), *shape, strides[0], strides[1], fmt,
                                          labels.data_ptr(), count.data_ptr(), conn, bg, stream, workspace.data_ptr(),
                                          ws_bytes, tolerance)
        host_n = lambda: int(count.view(torch.int32).cpu()) & 0xFFFFFFFF  # noqa: E731
    # The workspace goes back to the library's pool here; the pool reuses it in stream order.
    if target != "uint32":  # waits for the GPU: N decides whether uint16 holds the labels
        labels = _narrow(labels, host_n(), target, out, lib)
    if not return_num:
        return labels
    return labels, (host_n() if num_as_int else count)


def _core_strides(shape, strides, item):
    """(slice, row) byte strides as the core takes them: packed where an axis has one element (its
    stride means nothing), 0 for an empty volume."""
    z, y, x = shape
    if z * y * x == 0:
        return 0, 0
    row = strides[1] if y > 1 else x * item
    return (strides[0] if z > 1 else y * row), row


def _device_out(out, target, shape, make, fits, lib):
    """The uint32 labels the GPU writes: out= itself for out_dtype uint32, else a new array."""
    if out is None or target != "uint32":
        return make()
    if not fits(out):
        raise TypeError("out: expected a C-contiguous uint32 array on the image's GPU (" + lib + ")")
    if tuple(int(s) for s in out.shape) != shape:
        raise ValueError(f"out: shape must be {shape} for this image, got {tuple(int(s) for s in out.shape)}")
    return out
