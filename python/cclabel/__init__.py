"""cclabel: exact-value connected-component labelling of images, on the CPU or a CUDA GPU.

Pixels share a region when a path of 4- or 8-neighbours joins them on which every pixel has
exactly the same value (all channels). Regions are numbered 1..N in raster order of each region's
first pixel (the numbering of cc3d's multilabel labeller and OpenCV's SAUF); background pixels are 0.

>>> import numpy as np, cclabel
>>> img = np.array([[1, 1, 0, 2],
...                 [0, 1, 0, 2],
...                 [3, 0, 0, 2]], dtype=np.uint8)
>>> cclabel.label(img, background=0)
array([[1, 1, 0, 2],
       [0, 1, 0, 2],
       [3, 0, 0, 2]], dtype=uint32)
>>> labels, n = cclabel.label(img, background=0, connectivity=4, return_num=True)
>>> n
3
"""
from __future__ import annotations

from . import _cclabel
from ._cclabel import built_with_cuda, cuda_available

__all__ = ["label", "connected_components", "cuda_available", "built_with_cuda"]
__version__ = "0.1.0"


def _library(image):
    """'numpy', 'cupy' or 'torch': whose arrays the result is made of."""
    mod = type(image).__module__.split(".", 1)[0]
    return mod if mod in ("cupy", "torch") else "numpy"


def _torch_uint32(torch):
    dtype = getattr(torch, "uint32", None)
    if dtype is None:
        raise TypeError("image: PyTorch " + torch.__version__ + " has no uint32 dtype for the labels; "
                        "cclabel needs PyTorch 2.3 or newer")
    return dtype


def label(image, *, connectivity=8, background=None, backend="auto", return_num=False, out=None,
          num_as_int=False):
    """Label the connected regions of equal value of an image, or of each image of a batch.

    Parameters
    ----------
    image : array
        A NumPy array, a CuPy array or a PyTorch tensor (host or GPU), or any array that speaks
        DLPack or the buffer protocol, read in place (never copied, except in the two layouts
        noted below). Shapes and dtypes:

        * ``(H, W)`` of ``bool`` (False is background), ``uint8``, ``uint16``, ``uint32`` or
          ``int32``: every value is its own colour;
        * ``(H, W, 3)`` / ``(H, W, 4)`` of ``uint8``: RGB / RGBA, all channels compared;
        * ``(B, H, W)`` / ``(B, H, W, 3|4)``: a batch, each image labelled on its own.

        A 3-D ``uint8`` array whose last axis is 3 or 4 is one colour image, not a batch.
        Rows may be any positive distance apart (slices such as ``a[10:20, 5:50]`` and
        ``a[::2]`` are read in place); pixels and channels must be adjacent in memory, otherwise
        (``a[:, ::2]``, ``rgb[..., ::-1]``) a ``ValueError`` says to pass a contiguous copy.
        Fortran-ordered arrays, transposes (``a.T``, ``rgb.transpose(1, 0, 2)``) and upside-down
        views (``a[::-1]``) are copied once to C order, so the labels are the same as for
        ``np.ascontiguousarray(a)``: raster order of the array as indexed, never memory order.
    connectivity : int
        8 (default: edge and corner neighbours) or 4 (edge neighbours only); scikit-image's 2
        and 1 mean the same.
    background : None, int, tuple of ints or str
        A value whose pixels get label 0 and join nothing. None (default): every value is a
        region, zeros included (bool images: False is always background). One-channel images
        take an int in the dtype's range (``int32``: negative values too); RGB/RGBA images a
        tuple of 3/4 ints or a string ``"#rrggbb"`` / ``"#rrggbbaa"``.
    backend : {"auto", "cpu", "cuda"}
        Host arrays: "auto" picks the GPU for large images when one is present (same labels),
        "cuda" demands it. GPU arrays are always labelled on their GPU ("cpu" is an error).
    return_num : bool
        Also return N, the number of regions (background excluded).
    out : array, optional
        A writable, C-contiguous ``uint32`` array of shape ``(H, W)`` (or ``(B, H, W)``) of the
        same library and on the same device as ``image``, to write the labels into. It is
        returned as the result.
    num_as_int : bool
        GPU arrays only: return N as a Python int (a list of ints for a batch), which waits for
        the GPU. By default N stays on the GPU as a 0-d ``uint32`` array (``(B,)`` for a batch)
        of the image's library, so nothing synchronises the host.

    Returns
    -------
    labels : array, or (labels, N) with ``return_num=True``
        ``uint32`` labels of shape ``(H, W)`` or ``(B, H, W)``, an array of the image's library
        on its device (NumPy for other host arrays). N: for a host image an int (a ``(B,)``
        ``uint32`` array of the image's library for a batch); for a GPU image a device array
        (see ``num_as_int``).

    GPU arrays are labelled asynchronously on the current stream of their library
    (``cupy.cuda.get_current_stream()``, ``torch.cuda.current_stream()``).

    Raises
    ------
    TypeError
        A wrong kind of argument (not an array, unsupported dtype, a float connectivity, ...).
    ValueError
        A wrong value (shape, layout, connectivity, background out of range, bad ``out``, more
        than 2**32 - 1 pixels, no CUDA device for ``backend="cuda"``, ...).

    Examples
    --------
    >>> import numpy as np, cclabel
    >>> rgb = np.zeros((2, 3, 3), np.uint8); rgb[:, 2] = (255, 0, 0)
    >>> cclabel.label(rgb, background="#000000", return_num=True)
    (array([[0, 0, 1],
           [0, 0, 1]], dtype=uint32), 1)
    >>> batch = np.array([[[1, 0], [0, 1]], [[1, 1], [0, 0]]], dtype=bool)
    >>> labels, counts = cclabel.label(batch, connectivity=4, return_num=True)
    >>> counts
    array([2, 1], dtype=uint32)
    """
    for name, flag in (("return_num", return_num), ("num_as_int", num_as_int)):
        if not isinstance(flag, bool) and type(flag).__name__ != "bool_":  # Python or NumPy bool
            raise TypeError(name + ": expected a bool, got " + type(flag).__name__)
    lib = _library(image)
    if isinstance(image, (list, tuple)):
        import numpy as np
        image = np.asarray(image)
    if lib == "torch" and getattr(image, "requires_grad", False):
        image = image.detach()

    # PyTorch's unsigned dtypes have few operations: its tensors travel as signed views of the same
    # bits (no DLPack export of uint16/uint32 needed), the labels as an int32 view of uint32.
    unsigned = False
    if lib == "torch":
        import torch
        u32 = _torch_uint32(torch)
        if out is not None and getattr(out, "dtype", None) != u32:
            raise TypeError("out: dtype must be torch.uint32, got " + str(getattr(out, "dtype", type(out).__name__)))
        alias = {getattr(torch, "uint16", None): torch.int16, u32: torch.int32}.get(image.dtype)
        if alias is not None:
            image, unsigned = image.view(alias), True

    info = _cclabel._inspect(image, connectivity, background, backend, unsigned)
    if info["gpu"] and lib == "numpy":
        raise TypeError("image: GPU arrays of " + type(image).__module__.split(".", 1)[0] +
                        " are not supported; pass a CuPy array or a PyTorch tensor")
    if info["needs_copy"]:  # Fortran order or rows upside down: one copy to C order
        if lib == "torch":
            image = image.contiguous()
        elif lib == "cupy":
            import cupy
            with cupy.cuda.Device(info["device_id"]) if info["gpu"] else _nullcontext():
                image = cupy.ascontiguousarray(image)
        else:
            import numpy as np
            image = np.ascontiguousarray(image if hasattr(image, "__array_interface__") or
                                         not hasattr(image, "__dlpack__") else np.from_dlpack(image))
        info = _cclabel._inspect(image, connectivity, background, backend, unsigned)

    shape = info["shape"]
    count_shape = (shape[0],) if info["batch"] else ()
    if not info["gpu"]:
        if lib == "torch":
            labels = torch.empty(shape, dtype=u32) if out is None else out
            counts = torch.empty(count_shape, dtype=u32)
            _cclabel._label(image, labels.view(torch.int32), counts.view(torch.int32), connectivity, background,
                            backend, 0, None, unsigned, True)
            host_counts = counts.view(torch.int32).numpy().view("uint32")
        else:
            import numpy as np
            labels = np.empty(shape, dtype=np.uint32) if out is None else out
            counts = host_counts = np.empty(count_shape, dtype=np.uint32)
            _cclabel._label(image, labels, counts, connectivity, background, backend, 0, None)
        if not return_num:
            return labels
        if info["batch"]:
            return labels, (host_counts.tolist() if num_as_int else counts)
        return labels, int(host_counts)

    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(info["device_id"]):
            stream = cupy.cuda.get_current_stream().ptr
            labels = cupy.empty(shape, dtype=cupy.uint32) if out is None else out
            counts = cupy.empty(count_shape, dtype=cupy.uint32)
            ws_bytes = info["workspace_bytes"]
            workspace = cupy.empty(ws_bytes, dtype=cupy.uint8) if ws_bytes else None
            _cclabel._label(image, labels, counts, connectivity, background, backend, stream, workspace)
    else:
        device = image.device
        stream = torch.cuda.current_stream(device).cuda_stream
        labels = torch.empty(shape, dtype=u32, device=device) if out is None else out
        counts = torch.empty(count_shape, dtype=u32, device=device)
        ws_bytes = info["workspace_bytes"]
        workspace = torch.empty(ws_bytes, dtype=torch.uint8, device=device) if ws_bytes else None
        _cclabel._label(image, labels.view(torch.int32), counts.view(torch.int32), connectivity, background,
                        backend, stream, workspace, unsigned, True)
    # The workspace goes back to the library's pool here; the pool reuses it in stream order.
    if not return_num:
        return labels
    if num_as_int:  # waits for the GPU
        host = cupy.asnumpy(counts) if lib == "cupy" else counts.view(torch.int32).cpu().numpy().view("uint32")
        return labels, (host.tolist() if info["batch"] else int(host))
    return labels, counts


def connected_components(image, *, connectivity=8, background=None, backend="auto", return_num=False,
                         out=None, num_as_int=False):
    """Alias of :func:`label` under cc3d's name (``cc3d.connected_components``); same arguments."""
    return label(image, connectivity=connectivity, background=background, backend=backend,
                 return_num=return_num, out=out, num_as_int=num_as_int)


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
