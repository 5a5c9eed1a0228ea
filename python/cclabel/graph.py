"""Labelling what a drawing means: tolerance joining and the region adjacency graph (CPU).

``label_tolerance`` joins neighbouring pixels whose every channel differs by at most
``tolerance`` (cc3d's ``delta``), so an anti-aliased stroke and its fringe become one region: a
region is everything reachable through such steps, numbered 1..N in raster order of its first
pixel, the background joining nothing. ``adjacency`` lists which labels touch, and how much.

>>> import numpy as np
>>> from cclabel.graph import label_tolerance, adjacency
>>> img = np.array([[0, 3, 6, 200],
...                 [0, 3, 6, 200]], dtype=np.uint8)
>>> label_tolerance(img, 3)
array([[1, 1, 1, 2],
       [1, 1, 1, 2]], dtype=uint32)
>>> adjacency(label_tolerance(img, 3), connectivity=4)
array([[1, 2, 2]], dtype=uint64)

See docs/tolerance_and_adjacency.md for how this differs from cc3d.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _arrays, _cclabel, _volume

__all__ = ["label_tolerance", "adjacency"]

_SIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16, np.dtype(np.int32): np.uint32}


# dtypes labelled by value in the core (cclabel::PixelFormat), the tolerance a number of their values
_BY_VALUE = {"int64": 9, "uint64": 10, "float16": 11, "float32": 12, "float64": 13}


def value_tolerance(tolerance, dtype_name):
    """A tolerance in the values of a typed dtype (signed, 64-bit or float) as a float: TypeError
    for anything but a real number (bool included), ValueError below 0, NaN, infinite, or not whole
    for an integer dtype. Pictures and volumes, host and GPU arrays check it alike."""
    if isinstance(tolerance, (bool, np.bool_)) or not isinstance(tolerance, (numbers.Real, np.number)):
        raise TypeError(f"tolerance: must be a number, got {tolerance!r}")
    t = float(tolerance)
    if not (t >= 0) or t == float("inf"):
        raise ValueError(f"tolerance: must be a finite number of at least 0, got {tolerance!r}")
    if not dtype_name.startswith(("float", "bfloat")) and not t.is_integer():
        raise ValueError(f"tolerance: {tolerance!r} is not a whole number, but the image is {dtype_name}")
    return t


def _by_value(img, tolerance, connectivity, background, backend, threads, return_num):
    """A 64-bit or float picture: |a - b| <= tolerance on the values (floats: -0 == +0, a NaN joins
    only a NaN), the background one value of the dtype."""
    t = value_tolerance(tolerance, img.dtype.name)
    if isinstance(background, (bool, np.bool_)) or not (background is None or isinstance(background, (numbers.Real, np.number))):
        raise TypeError(f"background: expected None or a number of the image's dtype, got {background!r}")
    if background is not None:
        background = float(background) if img.dtype.kind == "f" else int(background)
    if img.ndim != 2:
        raise ValueError(f"image: expected shape (H, W), got {img.shape}")
    a = np.ascontiguousarray(img)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    out = np.empty(a.shape, dtype=np.uint32)
    n = _cclabel._label_tolerance_value(a, _BY_VALUE[a.dtype.name], out, t, connectivity, background, backend, threads)
    return (out, n) if return_num else out


def _label_device_by_value(image, lib, tolerance, *, connectivity, background, backend, return_num, out, target,
                           num_as_int, threads):
    """A CuPy array or CUDA tensor picture (H, W) of a signed, 64-bit or float dtype with a tolerance
    in its values: labelled on its GPU by ``cclabel::cuda::label_device`` comparing the values where
    they lie (no host copy, no keys), on the library's current stream. N comes back as a 0-d array
    on the GPU unless num_as_int; only that and out_dtype=uint16/uint64 wait for the GPU."""
    from . import _check_out, _narrow, _torch_uint32, _volume
    name = _arrays.dtype_name(image)
    if backend == "cpu":
        raise ValueError("backend: 'cpu' cannot label an array on the GPU; copy it to the host first, "
                         "or use backend='auto' or 'cuda'")
    if backend not in ("auto", "cuda"):
        raise ValueError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    _cclabel._threads(threads)  # checked as for host arrays; the GPU ignores it
    if len(image.shape) != 2:
        raise ValueError(f"image: a tolerance on the GPU takes one (H, W) picture of {name}, got shape "
                         f"{tuple(image.shape)} (batches of {name} with a tolerance are not supported yet)")
    t = value_tolerance(tolerance, name)
    if not hasattr(_cclabel, "_label_tolerance_value_device"):
        raise ValueError("image: is on the GPU, but this cclabel was built without CUDA (nvcc was not found "
                         "when it was installed); copy the array to the host or reinstall with nvcc on PATH")
    fmt, bg = _volume._FORMATS[name], _volume._background(background, name)
    shape = tuple(int(s) for s in image.shape)
    if out is not None and target != "uint32":
        _check_out(out, shape, lib, target)

    def row_stride(strides, item):  # bytes; a layout the core cannot read in place gives None
        h, w = shape
        if h * w == 0:
            return 0
        if w > 1 and strides[1] != item:
            return None
        row = strides[0] if h > 1 else w * item
        return row if row >= w * item else None

    if lib == "cupy":
        import cupy
        device = image.device.id
        with cupy.cuda.Device(device):
            if not image.dtype.isnative:
                image = image.astype(image.dtype.newbyteorder("="))
            rs = row_stride(tuple(image.strides), image.itemsize)
            if rs is None:
                image = cupy.ascontiguousarray(image)  # on the GPU: one copy to C order
                rs = row_stride(tuple(image.strides), image.itemsize)
            stream = cupy.cuda.get_current_stream().ptr
            labels = _volume._device_out(out, target, shape, lambda: cupy.empty(shape, dtype=cupy.uint32),
                                         lambda o: isinstance(o, cupy.ndarray) and o.dtype == cupy.uint32 and
                                         o.device.id == device and o.flags.c_contiguous, lib)
            count = cupy.empty((), dtype=cupy.uint32)
            ws_bytes = _cclabel._tolerance_value_workspace(*shape, rs, fmt, connectivity, t, bg)
            workspace = cupy.empty(max(ws_bytes, 1), dtype=cupy.uint8)
            _cclabel._label_tolerance_value_device(image.data.ptr, *shape, rs, fmt, labels.data.ptr, count.data.ptr,
                                                   connectivity, t, bg, stream, workspace.data.ptr, ws_bytes)
            host_n = lambda: int(count)  # noqa: E731
    else:
        import torch
        image = image.detach()
        item = image.element_size()
        rs = row_stride(tuple(s * item for s in image.stride()), item)
        if rs is None:
            image = image.contiguous()  # on the GPU: one copy to C order
            rs = row_stride(tuple(s * item for s in image.stride()), item)
        device = image.device
        u32 = _torch_uint32(torch)
        stream = torch.cuda.current_stream(device).cuda_stream
        labels = _volume._device_out(out, target, shape, lambda: torch.empty(shape, dtype=u32, device=device),
                                     lambda o: isinstance(o, torch.Tensor) and o.dtype == u32 and o.device == device and
                                     o.is_contiguous(), lib)
        count = torch.empty((), dtype=u32, device=device)
        ws_bytes = _cclabel._tolerance_value_workspace(*shape, rs, fmt, connectivity, t, bg)
        workspace = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=device)
        with torch.cuda.device(device):  # the launches go to the tensor's GPU
            _cclabel._label_tolerance_value_device(image.data_ptr(), *shape, rs, fmt, labels.data_ptr(),
                                                   count.data_ptr(), connectivity, t, bg, stream,
                                                   workspace.data_ptr(), ws_bytes)
        host_n = lambda: int(count.view(torch.int32).cpu()) & 0xFFFFFFFF  # noqa: E731
    # The workspace goes back to the library's pool here; the pool reuses it in stream order.
    if target != "uint32":  # waits for the GPU: N decides whether uint16 holds the labels
        labels = _narrow(labels, host_n(), target, out, lib)
    if not return_num:
        return labels
    return labels, (host_n() if num_as_int else count)


def _channels(background, image):
    """The background as a list of channel values in the (unsigned) format graph.cpp receives."""
    if background is None:
        return None
    if isinstance(background, str):
        return _arrays.hex_colour(background)
    values = list(background) if isinstance(background, (tuple, list)) else [background]
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) and image.dtype != np.bool_:
            raise TypeError(f"background: expected ints, got {background!r}")
        if isinstance(v, (float, np.floating)):
            if not float(v).is_integer():
                raise ValueError(f"background: {v!r} is not an integer value")
            v = int(v)
        try:
            v = int(v)
        except (TypeError, ValueError):
            raise TypeError(f"background: expected an int, a tuple of ints or '#rrggbb', got {background!r}") from None
        if image.dtype in _SIGNED:
            bits = image.dtype.itemsize * 8
            if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
                raise ValueError(f"background: {v} is out of range for {image.dtype}")
            v += 1 << (bits - 1)  # the same shift as the pixels (sign bit flipped)
        elif v < 0:
            raise ValueError(f"background: {v} is negative, but the image is {image.dtype}")
        out.append(v)
    return out


def label_tolerance(image, tolerance, *, connectivity=8, background=None, backend="auto", threads=0,
                    return_num=False):
    """Label the regions of an image joining neighbours that differ by at most ``tolerance``.

    Parameters
    ----------
    image : array_like
        ``(H, W)`` of ``bool``, ``uint8``, ``uint16``, ``uint32``, ``int8``, ``int16``,
        ``int32``, ``int64``, ``uint64`` or a float dtype, or ``(H, W, 3|4)`` of ``uint8`` (RGB /
        RGBA, every channel compared on its own): a host array (other layouts are copied once to
        C order; 64-bit and float pictures are labelled on the CPU unless ``backend="cuda"``), or
        a CuPy array or CUDA tensor of any of these dtypes but RGB, labelled on its GPU (labels of
        the same library; signed, 64-bit and float values compared as values where they lie).
    tolerance : int or float
        Two neighbours join when every channel differs by at most this: 0 is exact-value
        labelling (as :func:`cclabel.label`), at most 255 for 8-bit channels, 65535 for 16-bit
        and 4294967295 for 32-bit values. A bool image ignores it. Float pictures take any finite
        number (``-0.0`` equals ``0.0``; a NaN joins only a NaN), 64-bit integer ones a whole
        number. ``TypeError`` for a non-number, ``ValueError`` below 0 or above the range.
    connectivity : int
        8 (default) or 4; scikit-image's 2 and 1 mean the same.
    background : None, int, tuple of ints or str
        A value whose pixels get 0 and join nothing, even pixels within the tolerance of it.
    backend : {"auto", "cpu", "cuda"}
        "cuda" labels on the GPU (the array is copied there and back; the labels equal the
        CPU's); "auto" takes whichever this machine's rates say is faster, as :func:`cclabel.label`.
    threads : int
        CPU threads, 0 (default) for every core this process may use. Labels never depend on it.
    return_num : bool
        Also return N, the number of regions (background excluded).

    Returns
    -------
    labels : numpy.ndarray, or (labels, N) with ``return_num=True``
        ``uint32`` labels of shape ``(H, W)``, 1..N in raster order of each region's first pixel.
    """
    if not isinstance(image, np.ndarray) and type(image).__module__.split(".", 1)[0] in ("cupy", "torch"):
        if getattr(image, "device", None) is not None and "cpu" not in str(image.device):
            from . import label  # a GPU array is labelled where it is, through the device API
            if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, numbers.Integral) or threads < 0:
                raise TypeError(f"threads: expected an int of at least 0, got {threads!r}")
            return label(image, connectivity=connectivity, background=background, backend=backend,
                         return_num=return_num, tolerance=tolerance)
    img = np.asarray(image)
    if img.dtype.name in _BY_VALUE:
        return _by_value(img, tolerance, connectivity, background, backend, threads, return_num)
    bg = _channels(background, img)
    if img.dtype in _SIGNED:
        # Flipping the sign bit maps signed order onto unsigned order and keeps every difference.
        unsigned = _SIGNED[img.dtype]
        img = np.ascontiguousarray(img).view(unsigned) ^ unsigned(1 << (img.dtype.itemsize * 8 - 1))
    img = np.ascontiguousarray(img)
    if img.ndim not in (2, 3):
        raise ValueError(f"image: expected shape (H, W) or (H, W, 3|4), got {img.shape}")
    out = np.empty(img.shape[:2], dtype=np.uint32)
    n = _cclabel._label_tolerance(img, out, tolerance, connectivity, bg, backend, threads)
    return (out, n) if return_num else out


def adjacency(labels, connectivity=8, background=False, *, backend="auto", threads=None):
    """The region adjacency graph of a label image: which labels touch, and how much.

    Parameters
    ----------
    labels : array_like
        An ``(H, W)`` label image of non-negative integers below 2**32 (any integer dtype or
        bool); 0 is the background. A NumPy array goes to the CPU or the GPU, whichever this
        machine's rates say is faster; a CuPy array or CUDA tensor is read where it is, on the GPU
        (the call waits for the current stream first). Or a ``(Z, Y, X)`` label volume, with
        ``connectivity`` 6, 18 or 26, the same way (host or GPU arrays).
    connectivity : int
        8 (default: corner neighbours touch too) or 4; scikit-image's 2 and 1 mean the same.
        A volume takes 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners;
        scikit-image's 3), as :func:`cclabel.label` does; 4 and 8 are a ``ValueError`` there, and
        6, 18, 26 and 3 are one for a picture.
    background : bool
        Include the pairs with label 0 (default: left out, as cc3d does).
    backend : {"auto", "cpu", "cuda"}
        For a NumPy array: "auto" (default) takes whichever backend is faster on this machine,
        "cpu" or "cuda" demand one (pictures and volumes alike; "cuda" without a GPU is a
        ``ValueError``). GPU arrays are read on the GPU ("cpu" is a ``ValueError``:
        device data is never copied to the host behind your back).
    threads : None or int
        CPU threads (None or 0: every core this process may use, at most one a 65,536 pixels);
        the edges never depend on it.

    Returns
    -------
    edges : numpy.ndarray
        ``(E, 3)`` ``uint64`` rows ``(a, b, contacts)``, ``a < b``, sorted: labels a and b touch
        through ``contacts`` pairs of neighbouring pixels (each pair counted once, corner pairs
        too with ``connectivity=8``; of voxels for a volume). ``{(int(a), int(b)): int(n) for a,
        b, n in edges}`` is cc3d's ``contacts(labels, connectivity=4 or 26, surface_area=False)``
        (a volume: the same connectivity), and the pairs are its ``region_graph``.

    Examples
    --------
    >>> import numpy as np, cclabel
    >>> v = np.zeros((2, 2, 2), np.uint32)
    >>> v[0, 0, 0], v[1, 1, 1], v[1, 0, 0] = 1, 2, 3   # 1 and 2 touch at a corner only
    >>> cclabel.adjacency(v, connectivity=26).tolist()
    [[1, 2, 1], [1, 3, 1], [2, 3, 1]]
    >>> cclabel.adjacency(v, connectivity=6).tolist()
    [[1, 3, 1]]
    """
    if threads is not None and (isinstance(threads, (bool, np.bool_)) or not isinstance(threads, numbers.Integral)):
        raise TypeError(f"threads: expected None or an int, got {threads!r}")
    threads = 0 if threads is None else int(threads)
    if threads < 0:
        raise ValueError(f"threads: must not be negative, got {threads}")
    if backend not in ("auto", "cpu", "cuda"):
        raise ValueError(f"backend: expected 'auto', 'cpu' or 'cuda', got {backend!r}")
    if hasattr(labels, "__cuda_array_interface__"):
        if backend == "cpu":
            raise ValueError("backend: the labels are on the GPU; 'cpu' reads host arrays (use 'auto' or 'cuda', "
                             "or copy them to the host first)")
        return _adjacency_on_gpu(labels, connectivity, background)
    lab = np.asarray(labels)
    volume = lab.ndim == 3
    if lab.ndim not in (2, 3):
        raise ValueError(f"labels: expected an (H, W) image or a (Z, Y, X) volume, got shape {lab.shape}")
    connectivity = _graph_connectivity(connectivity, volume)
    if lab.dtype.kind not in "biu":
        raise TypeError(f"labels: expected an integer or bool label image, got dtype {lab.dtype}")
    if lab.dtype != np.uint32:
        if lab.size and lab.dtype.kind == "i" and lab.min() < 0:
            raise ValueError("labels: must not be negative")
        if lab.size and lab.dtype.itemsize > 4 and lab.max() > 0xFFFFFFFF:
            raise ValueError("labels: values above 4294967295 are not supported")
        lab = lab.astype(np.uint32)
    if not isinstance(background, (bool, np.bool_)):
        raise TypeError(f"background: must be a bool, got {background!r}")
    if volume:
        return _cclabel._adjacency_volume(np.ascontiguousarray(lab), connectivity, bool(background), backend, threads)
    return _cclabel._adjacency(np.ascontiguousarray(lab), connectivity, bool(background), backend, threads)


def _graph_connectivity(connectivity, volume):
    """The connectivity the core takes: 4 or 8 for a picture, 6, 18 or 26 for a volume (3 is
    scikit-image's 26 on 3-D input, as cclabel.label reads it); a ValueError naming the shape the
    value is meant for otherwise."""
    if isinstance(connectivity, (bool, np.bool_)) or not isinstance(connectivity, numbers.Integral):
        raise TypeError(f"connectivity: expected an int, got {connectivity!r}")
    c = int(connectivity)
    if volume:
        if c in _volume.CONNECTIVITY:
            return _volume.CONNECTIVITY[c]
        if c in (1, 2, 4, 8):
            raise ValueError(f"connectivity: {c} is for (H, W) pictures; a (Z, Y, X) label volume takes 6, 18 or 26 "
                             "(or 3, scikit-image's 26)")
        raise ValueError(f"connectivity: a (Z, Y, X) label volume takes 6, 18 or 26 (or 3), got {c}")
    if c in (6, 18, 26, 3):
        raise ValueError(f"connectivity: {c} is for (Z, Y, X) label volumes; an (H, W) picture takes 4 or 8 "
                         "(or 1 or 2 as in scikit-image)")
    return c


def _adjacency_on_gpu(labels, connectivity, background):
    """adjacency() of a CuPy array or a CUDA tensor, an (H, W) picture or a (Z, Y, X) volume: read in
    place when it is C-contiguous uint32, else converted once on the GPU; the edges come back as a
    NumPy array."""
    import cupy as cp

    lab = cp.asarray(labels)  # a view of a CUDA tensor through __cuda_array_interface__
    if lab.ndim not in (2, 3):
        raise ValueError(f"labels: expected an (H, W) image or a (Z, Y, X) volume, got shape {lab.shape}")
    volume = lab.ndim == 3
    if volume:
        connectivity = _graph_connectivity(connectivity, True)
    if lab.dtype.kind not in "biu":
        raise TypeError(f"labels: expected an integer or bool label image, got dtype {lab.dtype}")
    if lab.dtype != cp.uint32:
        if lab.size and lab.dtype.kind == "i" and bool((lab < 0).any()):
            raise ValueError("labels: must not be negative")
        if lab.size and lab.dtype.itemsize > 4 and bool((lab > 0xFFFFFFFF).any()):
            raise ValueError("labels: values above 4294967295 are not supported")
        lab = lab.astype(cp.uint32)
    lab = cp.ascontiguousarray(lab)
    if not isinstance(background, (bool, np.bool_)):
        raise TypeError(f"background: must be a bool, got {background!r}")
    cp.cuda.get_current_stream().synchronize()  # the library reads on its own stream
    if volume:
        z, y, x = (int(n) for n in lab.shape)
        return _cclabel._adjacency_volume_device(int(lab.data.ptr), z, y, x, connectivity, bool(background))
    h, w = (int(n) for n in lab.shape)
    return _cclabel._adjacency_device(int(lab.data.ptr), h, w, connectivity, bool(background))
