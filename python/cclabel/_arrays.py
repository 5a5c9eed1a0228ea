"""Arrays of every dtype made into what the compiled core reads, with the array's own library.

The core (python/src/module.cpp) labels 32-bit equality keys: bool, (u)int8, (u)int16 and
(u)int32 are read in place (signed values as the unsigned bits of the same width, cc3d's view).
Everything else becomes such keys here, losslessly (two pixels get equal keys exactly when their
values are equal), with NumPy, CuPy or PyTorch so that host and GPU arrays take the same path:

* float16 / float32: one copy in C order with -0.0 made +0.0 and every NaN made one NaN, then the
  unsigned integer view of the same width (so 0.0 == -0.0 and NaN joins NaN, as the docs promise);
* int64 / uint64 / float64 (float64 canonicalised as above first): seen as int64 bits; when
  max - min < 2**32 the keys are ``bits - min`` as uint32 (one copy), else the dense ids of
  ``unique(bits, return_inverse=True)`` (a sort).

The background goes through the same map; a value that no pixel can have (outside min..max, or
not among the unique values) means no pixel is background, which is background=None.
Label images (regions(), remove_small(), keep_largest()) of any integer dtype become uint32.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

MAX_PIXELS = 2**32 - 1
NATIVE = ("bool", "uint8", "int8", "uint16", "int16", "uint32", "int32")
FLOATS = {"float16": 16, "float32": 32}
WIDE = ("int64", "uint64", "float64")
CONVERTED = tuple(FLOATS) + WIDE  # dtypes that become keys here (a copy)
SIGNED = {"int8": 8, "int16": 16, "int32": 32}
DENSE_SEARCH_MAX = 1 << 20  # distinct values up to which NumPy keys are found by binary search


_DTYPE_NAMES: dict = {}


def hex_colour(text: str) -> list:
    """'#rrggbb' or '#rrggbbaa' as its channels; ValueError naming the argument otherwise."""
    s = text[1:]
    if text.startswith("#") and len(s) in (6, 8):
        try:
            return [int(s[i:i + 2], 16) for i in range(0, len(s), 2)]
        except ValueError:
            pass
    raise ValueError(f"background: '{text}' is not '#rrggbb' or '#rrggbbaa'")


def dtype_name(a) -> Optional[str]:
    """'int64', 'float32', ... for NumPy, CuPy and PyTorch arrays; None without a dtype."""
    d = getattr(a, "dtype", None)
    if d is None:
        return None
    try:  # NumPy 2 computes str(dtype) and dtype.name in Python: 9 us, a third of a small call
        return _DTYPE_NAMES[d]
    except (KeyError, TypeError):
        pass
    s = str(d)
    name = s[6:] if s.startswith("torch.") else getattr(d, "name", s)
    try:
        if len(_DTYPE_NAMES) < 256:  # dtypes with metadata or odd fields are not kept forever
            _DTYPE_NAMES[d] = name
    except TypeError:  # an unhashable dtype
        pass
    return name


def xp_of(lib: str):
    if lib == "cupy":
        import cupy
        return cupy
    if lib == "torch":
        import torch
        return torch
    return np


class Keys(NamedTuple):
    """What the core is handed for an image, and how to read a key back as the image's value."""
    image: Any  # the array the core reads (the image itself where it can)
    background: Any  # the background in the core's terms (None: no pixel is background)
    unsigned: bool  # PyTorch: int16/int32 view of uint16/uint32 keys
    decode: Optional[Callable[[Any], Any]]  # uint32 keys (numpy/cupy) -> values; None: native dtype


def _check_shape(image, name: str) -> None:
    shape = tuple(int(s) for s in image.shape)
    if len(shape) not in (2, 3):
        raise ValueError(f"image: expected shape (H, W) or (B, H, W) for {name}, got {shape}")
    h, w = shape[-2:]
    if h * w > MAX_PIXELS:
        raise ValueError(f"image: {w} x {h} has more than {MAX_PIXELS} (2^32 - 1) pixels, more than uint32 "
                         "labels can number")


def _number(bg, name: str, integral: bool):
    """A scalar background for a one-channel image of dtype name, as a Python int or float."""
    if isinstance(bg, (bool, np.bool_)):
        raise TypeError(f"background: value must be a number for a {name} image, got bool")
    if isinstance(bg, numbers.Integral):
        return int(bg)
    if isinstance(bg, numbers.Real):
        x = float(bg)
        if integral:
            if not x.is_integer():
                raise ValueError(f"background: value {x!r} is not a whole number, and this {name} image holds "
                                 "integers only")
            return int(x)
        return x
    if isinstance(bg, (str, tuple, list)):
        raise TypeError(f"background: a {name} image takes one number, got {type(bg).__name__}")
    raise TypeError(f"background: expected None or a number, got {type(bg).__name__}")


def _float_bits(x, name: str) -> int:
    """The canonical bits (as the signed int of the width for float64, unsigned otherwise) of x
    rounded to the float type name, as the pixels' keys have them."""
    try:
        f = float(x)
    except OverflowError:
        raise ValueError(f"background: value {x} is out of range for {name}") from None
    with np.errstate(over="ignore"):
        v = np.array(f, dtype=name)
    if np.isinf(v) and not math.isinf(f):
        raise ValueError(f"background: value {x!r} is out of range for {name} (largest finite value "
                         f"{float(np.finfo(name).max)!r})")
    v = np.array(np.nan, dtype=name) if np.isnan(v) else v + np.array(0, dtype=name)
    bits = {"float16": np.uint16, "float32": np.uint32, "float64": np.int64}[name]
    return int(v.view(bits))


_FLOAT_BITS = {2: ("int16", 0x7C00, 0x7E00), 4: ("int32", 0x7F800000, 0x7FC00000),
               8: ("int64", 0x7FF0000000000000, 0x7FF8000000000000)}


def _canonical_float(image, lib: str):
    """A C-ordered copy with -0.0 -> +0.0 and every NaN -> one NaN (one bit pattern per value).

    Done on the bits with integer operations: float arithmetic may flush subnormals to zero on a
    GPU (CuPy's float32 kernels do), which would join a subnormal's pixels to zero's."""
    ints, inf, nan = _FLOAT_BITS[image.dtype.itemsize]
    if lib == "torch":
        import torch
        it = getattr(torch, ints)
        k = image.contiguous().clone().view(it)
        top = torch.iinfo(it).max
        k = torch.where(k == torch.iinfo(it).min, torch.zeros_like(k), k)
        k = torch.where((k & top) > inf, torch.full_like(k, nan), k)
        return k.view(image.dtype)
    xp = xp_of(lib)
    it = getattr(xp, ints)
    k = xp.array(image, order="C", copy=True).view(it)
    info = np.iinfo(ints)
    k = xp.where(k == info.min, it(0), k)
    k = xp.where((k & it(info.max)) > it(inf), it(nan), k)
    return xp.ascontiguousarray(k).view(image.dtype)


def _float_keys(image, background, lib: str, name: str) -> Keys:
    _check_shape(image, name)
    bits = FLOATS[name]
    bg = None if background is None else _float_bits(_number(background, name, False), name)
    k = _canonical_float(image, lib)
    if lib == "torch":
        import torch
        return Keys(k.view(torch.int16 if bits == 16 else torch.int32), bg, True, None)
    xp = xp_of(lib)
    ukey = xp.uint16 if bits == 16 else xp.uint32
    fdt = k.dtype

    def decode(keys):
        return keys.astype(ukey).view(fdt)

    return Keys(k.view(ukey), bg, False, decode)


def _wide_background(background, name: str) -> Optional[int]:
    """The background as the int64 bits the pixels' keys are made from."""
    if background is None:
        return None
    if name == "float64":
        return _float_bits(_number(background, name, False), name)
    v = _number(background, name, True)
    lo, hi = (-(2**63), 2**63 - 1) if name == "int64" else (0, 2**64 - 1)
    if not lo <= v <= hi:
        raise ValueError(f"background: value {v} is out of range for {name} ({lo}..{hi})")
    return v - 2**64 if v > 2**63 - 1 else v


def wide_bits(image, lib: str, name: str):
    """An int64/uint64/float64 image as int64 bits, one bit pattern per value (float64: a
    canonical copy; the integers: a view). Equal values have equal bits and no others do."""
    if lib == "torch":
        import torch
        i64 = torch.int64
    else:
        i64 = xp_of(lib).int64
    return _canonical_float(image, lib).view(i64) if name == "float64" else image.view(i64)


def _sorted_unique(bits: np.ndarray) -> np.ndarray:
    """np.unique(bits) through one sort (NumPy 2.4's unique without an inverse took 9 s on 4 Mpx
    of distinct int64 values where the sort took 0.07 s)."""
    s = np.sort(bits, axis=None)
    first = np.empty(s.size, bool)
    first[:1] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    return s[first]


def _wide_keys(image, background, lib: str, name: str) -> Keys:
    _check_shape(image, name)
    bg = _wide_background(background, name)
    xp = xp_of(lib)
    if lib == "torch":
        import torch
        i64, u32 = torch.int64, torch.int32  # keys travel as int32 views of uint32
    else:
        i64, u32 = xp.int64, xp.uint32
    bits = wide_bits(image, lib, name)
    dtype = image.dtype
    shape = tuple(image.shape)

    def empty(dt):
        return xp.empty(shape, dtype=dt, device=image.device) if lib == "torch" else xp.empty(shape, dtype=dt)

    if (bits.numel() if lib == "torch" else bits.size) == 0:
        return Keys(empty(u32), None, lib == "torch", lambda keys: keys.astype(dtype))
    lo, hi = int(bits.min()), int(bits.max())  # a GPU array waits here
    if hi - lo <= MAX_PIXELS:
        keys = empty(u32)
        if lib == "numpy":
            np.subtract(bits, np.int64(lo), out=keys, casting="unsafe")  # exact: 0 <= bits - lo < 2**32
        else:
            keys[...] = bits - lo  # casts to the keys' type (int32 wraps to the uint32 bits)
        key_bg = bg - lo if bg is not None and lo <= bg <= hi else None

        def decode(keys):
            values = keys.astype(xp.int64) + lo
            return values.view(dtype)

        return Keys(keys, key_bg, lib == "torch", decode)
    # Dense ids. A search in the sorted values is several times faster than unique()'s inverse
    # (an argsort of every pixel) while the table stays in cache; past that, unique()'s inverse.
    keys = empty(u32)
    if lib == "torch":
        uniq = torch.unique(bits, sorted=True)
        keys[...] = torch.searchsorted(uniq, bits)
    else:
        uniq = _sorted_unique(bits) if lib == "numpy" else xp.unique(bits)
        if lib != "numpy" or uniq.size <= DENSE_SEARCH_MAX:
            keys[...] = xp.searchsorted(uniq, bits)
        else:
            keys[...] = xp.unique(bits, return_inverse=True)[1].reshape(shape)
    key_bg = None
    if bg is not None:
        if lib == "torch":
            where = torch.searchsorted(uniq, torch.tensor([bg], dtype=i64, device=uniq.device))
        else:
            where = xp.searchsorted(uniq, xp.asarray([bg], dtype=i64))
        i = int(where[0])
        if i < int(uniq.shape[0]) and int(uniq[i]) == bg:
            key_bg = i

    def decode(keys):
        return uniq[keys.astype(xp.int64)].view(dtype)

    return Keys(keys, key_bg, lib == "torch", decode)


def _native_decode(name: str, lib: str):
    """Keys of a dtype the core reads in place, back to values of that dtype."""
    xp = xp_of(lib)
    if name == "bool":
        return lambda keys: keys != 0
    if name in SIGNED:
        u = getattr(xp, "uint" + str(SIGNED[name]))
        s = getattr(xp, name)
        return lambda keys: keys.astype(u).view(s)
    if name in ("uint8", "uint16", "uint32"):
        return lambda keys: keys.astype(getattr(xp, name))
    return None


def to_keys(image, background, lib: str) -> Keys:
    """The image as the core reads it (see the module's docstring)."""
    name = dtype_name(image)
    if lib == "numpy" and isinstance(image, np.ndarray) and not image.dtype.isnative:
        image = image.astype(image.dtype.newbyteorder("="))  # big-endian: the core reads native order
    if name in FLOATS or name in WIDE:
        make = _float_keys if name in FLOATS else _wide_keys
        if lib == "cupy":
            with image.device:  # the keys go where the image is, whatever device is current
                return make(image, background, lib, name)
        return make(image, background, lib, name)
    unsigned = False
    if lib == "torch":
        # PyTorch's unsigned dtypes have few operations: uint16/uint32 tensors travel as signed views
        # of the same bits (no DLPack export of them needed).
        import torch
        alias = {getattr(torch, "uint16", None): torch.int16, getattr(torch, "uint32", None): torch.int32}
        if image.dtype in alias and image.dtype is not None:
            image, unsigned = image.view(alias[image.dtype]), True
    return Keys(image, background, unsigned, _native_decode(name, lib) if lib != "torch" else None)


def label_image(labels, lib: str):
    """A label image of any integer (or bool) dtype as (uint32 C-ordered array, converted): the
    array itself when it already is one, else a checked copy (labels must lie in 0..2**32 - 1)."""
    name = dtype_name(labels)
    if name is None or lib == "torch":
        return labels, False  # the core says what is wrong with it
    if name == "uint32" and (labels.ndim != 2 or labels.flags.c_contiguous):
        return labels, False
    if name not in NATIVE + ("int64", "uint64"):
        raise TypeError(f"labels: dtype must be an integer type (uint32 is read in place), got {name}")
    if labels.ndim != 2:
        return labels, False  # the core names the shape
    xp = xp_of(lib)
    if labels.size and name in ("int8", "int16", "int32", "int64"):
        lo = int(labels.min())
        if lo < 0:
            raise ValueError(f"labels: label {lo} is negative (labels are 0..N)")
    if labels.size and name in ("int64", "uint64"):
        hi = int(labels.max())
        if hi > MAX_PIXELS:
            raise ValueError(f"labels: label {hi} exceeds 2**32 - 1, more than any image of uint32 labels holds")
    return xp.ascontiguousarray(labels, dtype=xp.uint32), True
