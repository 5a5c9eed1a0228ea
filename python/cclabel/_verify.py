"""cclabel.verify: the certificate of a labelling, for pictures and volumes in host memory.

The library checks in one pass, with no second labeller, that labels are exactly what
cclabel.label gives for the image (src/core/verify.cpp, verify_volume.cpp); this layer picks the
pixel format from the dtype and the channels, as cclabel.label does, and says where a wrong
labelling first goes wrong.
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from . import _arrays, _cclabel
from ._volume import CONNECTIVITY as _VOLUME_CONNECTIVITY

_GRAY = {"bool": 0, "uint8": 1, "uint16": 2, "uint32": 3}
_PICTURE_CONNECTIVITY = {1: 4, 2: 8, 4: 4, 8: 8}


class Verdict(NamedTuple):
    """What verify() found. True in a boolean context when the labels are right."""

    ok: bool
    message: str  #: empty when ok, else the first problem found
    where: tuple | None  #: (y, x) or (z, y, x) of the pixel where it was found, or None
    count: int  #: N read off the labels when ok (0 otherwise)

    def __bool__(self) -> bool:
        return self.ok


def verify(image, labels, *, connectivity=8, background=None) -> Verdict:
    """Checks that ``labels`` is exactly ``cclabel.label(image, connectivity=..., background=...)``.

    Background pixels, and only they, are 0; every label's pixels share one value; neighbouring
    pixels of one value share a label; every label is connected; labels are 1..N numbered in
    raster order of their first pixels. O(pixels), on the CPU, without labelling again.

    Parameters
    ----------
    image : array
        A host picture ``(H, W)`` of bool, uint8, uint16 or uint32, or ``(H, W, 3|4)`` uint8
        (RGB, RGBA); or a volume ``(Z, Y, X)`` of bool, uint8, uint16 or uint32 with
        ``connectivity`` 6, 18 or 26.
    labels : array of integers
        The labels, of the image's (spatial) shape; values must fit uint32.
    connectivity : int
        4 or 8 (scikit-image's 1 and 2) for pictures, 6, 18 or 26 (or 3) for volumes.
    background : None, int, tuple of ints or str
        The value labelled 0, as given to ``cclabel.label`` (``"#rrggbb"`` or ``"#rrggbbaa"`` for
        colour pictures).

    Returns
    -------
    Verdict
        ``(ok, message, where, count)``; a wrong labelling is a Verdict with ``ok`` False, never
        an exception. Bad arguments raise ``TypeError`` or ``ValueError``.
    """
    if isinstance(connectivity, (bool, np.bool_)) or not isinstance(connectivity, numbers.Integral):
        raise TypeError(f"connectivity: must be an int, got {connectivity!r}")
    if not isinstance(image, np.ndarray):
        image = np.asarray(image)
    if not isinstance(labels, np.ndarray):
        labels = np.asarray(labels)
    name = image.dtype.name
    c = int(connectivity)
    volume = image.ndim == 3 and c in _VOLUME_CONNECTIVITY
    if volume:
        conn, shape, fmt = _VOLUME_CONNECTIVITY[c], image.shape, _GRAY.get(name)
    elif c in _PICTURE_CONNECTIVITY and (image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (3, 4))):
        conn, shape = _PICTURE_CONNECTIVITY[c], image.shape[:2]
        if image.ndim == 2:
            fmt = _GRAY.get(name)
        else:
            fmt = (4 if image.shape[2] == 3 else 5) if name == "uint8" else None
    else:
        raise ValueError(f"connectivity {connectivity!r} does not fit an image of shape {image.shape}: pictures "
                         "(H, W) or (H, W, 3|4) take 4 or 8, volumes (Z, Y, X) take 6, 18 or 26")
    if fmt is None:
        raise TypeError(f"image: verify checks bool, uint8, uint16 and uint32 images (and uint8 RGB or RGBA "
                        f"pictures), got {name} of shape {image.shape}")
    if labels.dtype.kind not in "iu" or labels.dtype.itemsize > 8:
        raise TypeError(f"labels: expected an integer array, got {labels.dtype}")
    if tuple(labels.shape) != tuple(shape):
        raise ValueError(f"labels: shape {tuple(labels.shape)} does not match the image's {tuple(shape)}")
    if labels.size and (labels.min() < 0 or int(labels.max()) > 0xFFFFFFFF):
        raise ValueError("labels: values must lie in 0..4294967295")
    if background is not None:
        if isinstance(background, str):
            background = tuple(_arrays.hex_colour(background))
        elif isinstance(background, (tuple, list)):
            background = tuple(int(v) for v in background)
        elif isinstance(background, (bool, np.bool_)) or not isinstance(background, numbers.Integral):
            raise TypeError(f"background: expected None, an int or a tuple of ints, got {background!r}")
        else:
            background = int(background)
    a = np.ascontiguousarray(image)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    lab = np.ascontiguousarray(labels, dtype=np.uint32)
    depth, height, width = (shape if volume else (0, *shape))
    ok, message, x, y, z, count = _cclabel._verify(a.reshape(-1).view(np.uint8), fmt, depth, height, width,
                                                  lab.reshape(-1), conn, background)
    where = None
    if not ok and x >= 0:
        where = (z, y, x) if volume else (y, x)
    return Verdict(bool(ok), message, where, int(count))
