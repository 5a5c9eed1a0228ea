"""Every dtype users hand to `cclabel.label` (issue 23): bool, int8..int64, uint8..uint64 and
float16..float64, in every layout, against two references that share nothing with cclabel:

- cc3d on the dense value ids of the image (`np.unique(image, return_inverse=True)`, which joins
  -0.0 with 0.0 and every NaN with every other NaN, as cclabel promises), offset by one so that 0
  is only the background;
- a flood fill in plain Python over the values themselves (`a == b or both NaN`).

Also: the background in every dtype (present, absent, NaN, ±0.0) and the bad ones, values equal in
their low 32 bits, both key paths of 64-bit values (value - min, dense ids), argmax outputs,
strided / Fortran / negative-stride views, batches, `out_dtype` and `out=`, `return_N`, `threads`
(labels equal for 1, 2, 3, 0 and None), `regions()` values in the image's own dtype, the filters
on label images of any integer dtype, and `__version__`. GPU variants (CuPy, PyTorch) skip
themselves without the library, a CUDA build and a device.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_same, bfs_labels, cc3d, measure

if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
DTYPES = INTS + FLOATS
SIZES = [(1, 1), (1, 37), (23, 1), (17, 31), (40, 33)]
NAN_BITS = {np.float16: (np.uint16, [0x7E00, 0x7E01, 0xFE00, 0x7C01]),
            np.float32: (np.uint32, [0x7FC00000, 0x7FC00001, 0xFFC00000, 0x7F800001]),
            np.float64: (np.uint64, [0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000,
                                     0x7FF0000000000001])}


def name(dtype) -> str:
    return np.dtype(dtype).name


# --- references ----------------------------------------------------------------------------------

def same(a, b) -> bool:
    return a == b or (a != a and b != b)  # NaN joins NaN; -0.0 == 0.0 already


def flood_fill(image: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    """Breadth-first labelling over the values (Python scalars), raster order of first pixels."""
    vals = image.tolist()
    bg = None if background is None else image.dtype.type(background).item()
    return bfs_labels(*image.shape, lambda y, x, y2, x2: same(vals[y2][x2], vals[y][x]), connectivity,
                      lambda y, x: bg is not None and same(vals[y][x], bg))


def cc3d_ids(image: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    """cc3d multilabel on the dense value ids (+1), the background's id made 0."""
    flat = image.reshape(-1)
    if flat.size == 0:
        return np.zeros(image.shape, np.uint32)
    uniq, inverse = np.unique(flat, return_inverse=True)
    ids = inverse.reshape(image.shape).astype(np.uint64) + np.uint64(1)
    if background is not None:
        b = image.dtype.type(background)
        ids[(image == b) | (np.isnan(image) & np.isnan(b)) if image.dtype.kind == "f" else image == b] = 0
    return cc3d.connected_components(np.ascontiguousarray(ids), connectivity=connectivity).astype(np.uint32)


# --- images (seeded) -----------------------------------------------------------------------------

def value_set(dtype) -> np.ndarray:
    """The adversarial values of a dtype: its ends, negatives, zero, and for 64-bit types values
    equal in their low 32 bits; for floats ±0.0, ±inf, subnormals and NaNs of several bit patterns."""
    if dtype in FLOATS:
        fi = np.finfo(dtype)
        vals = np.array([-np.inf, -fi.max, -1.5, -0.0, 0.0, fi.smallest_subnormal, 1.5, fi.max, np.inf], dtype)
        ubits, nans = NAN_BITS[dtype]
        return np.concatenate([vals, np.array(nans, ubits).view(dtype)])
    info = np.iinfo(dtype)
    vals = {int(info.min), int(info.min) + 1, 0, 1, int(info.max) - 1, int(info.max)}
    if info.min < 0:
        vals |= {-1, -2}
    if info.bits == 64:
        vals |= {5, 5 + 2**32, 2**33 + 5}
        if info.min < 0:
            vals |= {5 - 2**32, -(2**32)}
        else:
            vals |= {2**63 + 5, 2**63 + 5 + 2**32}
    return np.array(sorted(vals), dtype)


def blobs(rng, h, w, values, blob):
    idx = rng.integers(0, values.size, size=(-(-h // blob) + 1, -(-w // blob) + 1))
    idx = np.repeat(np.repeat(idx, blob, axis=0), blob, axis=1)
    oy, ox = (int(rng.integers(0, blob)), int(rng.integers(0, blob))) if blob > 1 else (0, 0)
    return values[idx[oy:oy + h, ox:ox + w]]


def images(dtype, seed):
    rng = np.random.default_rng(seed)
    vals = value_set(dtype)
    for h, w in SIZES:
        yield f"{h}x{w} noise", blobs(rng, h, w, vals, 1)
        yield f"{h}x{w} blobs", blobs(rng, h, w, vals, 3)
        yield f"{h}x{w} few", blobs(rng, h, w, vals[rng.choice(vals.size, 3, replace=False)], 2)


def check(img, connectivity, background, what, **kw):
    labels, n = cclabel.label(img, connectivity=connectivity, background=background, return_num=True, **kw)
    want = cc3d_ids(img, connectivity, background)
    assert_same(labels, want, what + " vs cc3d")
    assert_same(labels, flood_fill(img, connectivity, background), what + " vs flood fill")
    assert n == int(want.max(initial=0)), what
    return labels


# --- every dtype ---------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_every_dtype_vs_cc3d_and_flood_fill(dtype, connectivity):
    for what, img in images(dtype, seed=connectivity + 3 * DTYPES.index(dtype)):
        backgrounds = [None, img.flat[0], img.flat[-1]]
        if dtype in FLOATS:
            backgrounds.append(np.nan)
        for background in backgrounds:
            check(img, connectivity, background, f"{name(dtype)} {what} conn {connectivity} background {background}")


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64], ids=name)
def test_both_key_paths_of_64_bit_values(dtype):
    """Keys are value - min when the range fits 32 bits (up to a range of exactly 2**32 - 1) and
    dense ids beyond it; both give the same labels as cc3d."""
    rng = np.random.default_rng(5)
    if dtype is np.float64:
        lo = np.float64(1e300)
        sets = {"narrow": np.array([1.0, 1.0 + 2**-52, 1.0 + 2**-51], dtype),  # bit patterns 1 apart
                "wide": np.array([1.0, -1.0, lo], dtype)}
    else:
        base = 2**40 if dtype is np.int64 else 2**63
        sets = {"narrow": np.array([base, base + 1, base + 7], dtype),
                "range 2**32 - 1": np.array([base, base + 2**32 - 1, base + 3], dtype),
                "range 2**32": np.array([base, base + 2**32, base + 3], dtype),
                "low bits equal": np.array([base + 9, base + 9 + 2**32, base + 9 - 2**32], dtype)}
    for what, vals in sets.items():
        for blob in (1, 2):
            img = blobs(rng, 29, 31, vals, blob)
            for connectivity in (4, 8):
                for background in (None, vals[1]):
                    check(img, connectivity, background, f"{name(dtype)} {what} blob {blob} conn {connectivity}")


def test_dense_ids_by_search_and_by_unique_inverse(monkeypatch):
    """NumPy finds dense ids by binary search up to DENSE_SEARCH_MAX distinct values and through
    unique()'s inverse beyond; both branches give cc3d's labels."""
    from cclabel import _arrays
    rng = np.random.default_rng(6)
    img = blobs(rng, 45, 39, value_set(np.int64), 2)
    for limit in (0, 1 << 20):
        monkeypatch.setattr(_arrays, "DENSE_SEARCH_MAX", limit)
        for connectivity in (4, 8):
            check(img, connectivity, img.flat[3], f"int64 dense ids, search limit {limit}")


def test_values_equal_in_their_low_32_bits_do_not_join():
    for dtype, a, b in ((np.int64, 7, 7 + 2**32), (np.int64, -1, 2**32 - 1), (np.uint64, 3, 3 + 2**63),
                        (np.uint64, 0, 2**64 - 2**32)):
        img = np.array([[a, b], [b, a]], dtype)
        labels, n = cclabel.label(img, connectivity=4, return_num=True)
        assert n == 4, (dtype, a, b)
        np.testing.assert_array_equal(cclabel.label(img, connectivity=4, background=b), [[1, 0], [0, 2]])


def test_float_zero_signs_and_nans():
    for dtype in FLOATS:
        ubits, nans = NAN_BITS[dtype]
        nan_a, nan_b, nan_c, nan_d = np.array(nans, ubits).view(dtype)
        img = np.array([[-0.0, 0.0, 1.0], [nan_a, nan_b, 1.0], [nan_c, nan_d, -0.0]], dtype)
        labels, n = cclabel.label(img, connectivity=4, return_num=True)
        np.testing.assert_array_equal(labels, [[1, 1, 2], [3, 3, 2], [3, 3, 4]], err_msg=name(dtype))
        np.testing.assert_array_equal(cclabel.label(img, connectivity=4, background=np.nan),
                                      [[1, 1, 2], [0, 0, 2], [0, 0, 3]], err_msg=name(dtype))
        for zero in (0.0, -0.0, 0, np.float32(-0.0)):  # every zero is the one value 0
            np.testing.assert_array_equal(cclabel.label(img, connectivity=4, background=zero),
                                          [[0, 0, 1], [2, 2, 1], [2, 2, 0]], err_msg=f"{name(dtype)} {zero}")
        # float16: 0.1 means the float16 nearest to it, as NumPy compares
        near = np.array([[0.1, 0.2]], dtype)
        np.testing.assert_array_equal(cclabel.label(near, background=0.1), [[0, 1]])
    original = np.array([[-0.0, np.nan]], np.float32)
    cclabel.label(original, background=0.0)
    assert np.signbit(original[0, 0]), "the image itself was changed"


def test_background_that_no_pixel_has_means_none():
    rng = np.random.default_rng(2)
    for dtype, absent in ((np.int64, 2**40), (np.int64, -5), (np.uint64, 2**64 - 1), (np.float64, 0.25),
                          (np.float32, np.nan), (np.int8, -128), (np.uint16, 65535), (np.float16, -np.inf)):
        for spread in (3, 2**50):  # the offset key path and the dense-id path
            vals = np.array([1, 2, 3 if spread == 3 else spread], dtype=dtype) if dtype in (np.int64, np.uint64) \
                else np.array([1, 2, 3], dtype)
            img = blobs(rng, 20, 21, vals, 2)
            np.testing.assert_array_equal(cclabel.label(img, background=absent), cclabel.label(img),
                                          err_msg=f"{name(dtype)} {absent}")


def test_argmax_and_skimage_outputs():
    rng = np.random.default_rng(8)
    logits = rng.random((5, 61, 47))
    classes = logits.argmax(axis=0)  # int64, as NumPy and PyTorch return it
    assert classes.dtype == np.int64
    for connectivity in (4, 8):
        labels = check(classes, connectivity, None, f"argmax conn {connectivity}")
        assert_same(labels, cclabel.label(classes.astype(np.uint8), connectivity=connectivity), "argmax as uint8")
        check(classes, connectivity, 0, f"argmax background 0 conn {connectivity}")
    sk = measure.label(classes > 2).astype(np.int64)  # a label image of another tool, as int64
    check(sk, 8, 0, "relabel scikit-image's labels")


# --- layouts and batches -------------------------------------------------------------------------

def views(base):
    yield "every other row and third column", base[::2, ::3]
    yield "rows upside down", base[::-1]
    yield "columns backwards", base[:, ::-1]
    yield "transpose", base.T
    yield "Fortran order", np.asfortranarray(base)
    yield "slice", base[2:-3, 1:-2]
    yield "broadcast", np.broadcast_to(base[:1], base.shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_layouts_of_every_dtype(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    base = blobs(rng, 37, 41, value_set(dtype), 2)
    for what, view in views(base):
        for connectivity in (4, 8):
            got = check(view, connectivity, None, f"{name(dtype)} {what} conn {connectivity}")
            assert_same(got, cclabel.label(np.ascontiguousarray(view), connectivity=connectivity), what)
            out = np.full(view.shape, 7, np.uint32)
            assert cclabel.label(view, connectivity=connectivity, out=out) is out
            assert_same(out, got, what + " out=")


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_batches_of_every_dtype(dtype):
    rng = np.random.default_rng(40 + DTYPES.index(dtype))
    vals = value_set(dtype)
    batch = np.stack([blobs(rng, 19, 23, vals, 2) for _ in range(4)])
    for what, b in (("C order", batch), ("images reversed", batch[::-1]), ("strided", batch[:, ::2, ::-1]),
                    ("Fortran", np.asfortranarray(batch))):
        bg = b.flat[0]
        labels, counts = cclabel.label(b, connectivity=4, background=bg, return_num=True)
        assert labels.shape == b.shape and counts.dtype == np.uint32
        for i in range(b.shape[0]):
            want = cc3d_ids(b[i], 4, bg)
            assert_same(labels[i], want, f"{name(dtype)} {what} image {i}")
            assert counts[i] == want.max(initial=0)


# --- cc3d's keywords: out_dtype, return_N -------------------------------------------------------

def checkerboard(h, w):
    yy, xx = np.mgrid[0:h, 0:w]
    return ((yy + xx) % 2).astype(np.uint8)


def test_out_dtype():
    img = np.random.default_rng(1).integers(0, 4, size=(50, 60)).astype(np.int64)
    want = cclabel.label(img)
    for dt in (np.uint16, "uint16", np.dtype(np.uint64), "uint64", np.uint32, None):
        got = cclabel.label(img, out_dtype=dt)
        assert got.dtype == np.dtype(dt or np.uint32) and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    out = np.zeros(img.shape, np.uint16)
    got, n = cclabel.label(img, out=out, return_num=True)
    assert got is out and n == want.max()
    np.testing.assert_array_equal(out, want)
    out64 = np.zeros(img.shape, np.uint64)
    assert cclabel.label(img, out=out64, out_dtype="uint64") is out64
    np.testing.assert_array_equal(out64, want)
    batch = np.stack([img, img[::-1]])
    lab, counts = cclabel.label(batch, out_dtype=np.uint16, return_num=True)
    assert lab.dtype == np.uint16 and counts.dtype == np.uint32
    np.testing.assert_array_equal(lab[1], cclabel.label(img[::-1]))


def test_out_dtype_too_small_is_a_value_error():
    board = checkerboard(300, 300)  # 90,000 regions under 4-connectivity
    labels, n = cclabel.label(board, connectivity=4, return_num=True)
    assert n == 90000
    with pytest.raises(ValueError, match=r"out_dtype: uint16 holds labels up to 65535, but this image has 90000"):
        cclabel.label(board, connectivity=4, out_dtype=np.uint16)
    out = np.full(board.shape, 3, np.uint16)
    with pytest.raises(ValueError, match="out_dtype"):
        cclabel.label(board, connectivity=4, out=out)
    assert (out == 3).all(), "a refused out= was written"
    with pytest.raises(ValueError, match="out_dtype"):
        cclabel.label(np.stack([board, board]), connectivity=4, out_dtype=np.uint16)
    np.testing.assert_array_equal(cclabel.label(board, connectivity=8, out_dtype=np.uint16), board + 1)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(out_dtype=np.int32), ValueError, r"out_dtype: must be uint16, uint32 or uint64, got int32"),
    (dict(out_dtype="float32"), ValueError, r"out_dtype: must be uint16, uint32 or uint64, got float32"),
    (dict(out_dtype="nonsense"), TypeError, r"out_dtype: expected a dtype"),
    (dict(out_dtype=5), TypeError, r"out_dtype: expected a dtype"),
    (dict(out_dtype=True), TypeError, r"out_dtype: expected a dtype"),
    (dict(out_dtype=np.uint16, out=np.zeros((4, 5), np.uint64)), ValueError, r"out: dtype uint64 differs from out_dtype uint16"),
    (dict(out_dtype=np.uint16, out=np.zeros((4, 5), np.int32)), TypeError, r"out: dtype must be out_dtype uint16"),
    (dict(out=np.zeros((5, 4), np.uint16)), ValueError, r"out: shape must be \(4, 5\) for this image, got \(5, 4\)"),
    (dict(out=np.broadcast_to(np.zeros(5, np.uint16), (4, 5))), ValueError, r"out: the array is read-only"),
    (dict(return_N=True, return_num=True), TypeError, r"return_N is cc3d's name for return_num: give one of them"),
    (dict(return_N=1), TypeError, r"return_N: expected a bool"),
])
def test_bad_keyword_combinations(kwargs, error, message):
    with pytest.raises(error, match=message):
        cclabel.label(np.zeros((4, 5), np.int64), **kwargs)


def test_return_N_is_return_num():
    img = np.array([[1, 0, 2], [1, 0, 2]], np.int64)
    labels, n = cclabel.label(img, background=0, return_N=True)
    assert n == 2 and labels.dtype == np.uint32
    assert isinstance(cclabel.connected_components(img, return_N=False), np.ndarray)
    assert cclabel.connected_components(img, return_N=True, out_dtype=np.uint16)[1] == 3


@pytest.mark.parametrize("image,background,error,message", [
    (np.zeros((3, 3), np.int64), 2.5, ValueError, r"background: value 2.5 is not a whole number, and this int64"),
    (np.zeros((3, 3), np.int64), np.nan, ValueError, r"background: value nan is not a whole number"),
    (np.zeros((3, 3), np.int64), 2**63, ValueError, r"background: value 9223372036854775808 is out of range for int64"),
    (np.zeros((3, 3), np.uint64), -1, ValueError, r"background: value -1 is out of range for uint64"),
    (np.zeros((3, 3), np.uint64), 2.0**64, ValueError, r"out of range for uint64"),
    (np.zeros((3, 3), np.int8), 128, ValueError, r"background: value 128 is out of range for int8 \(-128\.\.127\)"),
    (np.zeros((3, 3), np.int16), -32769, ValueError, r"out of range for int16 \(-32768\.\.32767\)"),
    (np.zeros((3, 3), np.int16), 0.5, ValueError, r"background: value 0.5 is not a whole number"),
    (np.zeros((3, 3), np.float32), 1e39, ValueError, r"background: value 1e\+39 is out of range for float32"),
    (np.zeros((3, 3), np.float16), 70000, ValueError, r"background: value 70000 is out of range for float16"),
    (np.zeros((3, 3), np.float64), 10**400, ValueError, r"out of range for float64"),
    (np.zeros((3, 3), np.float32), True, TypeError, r"background: value must be a number for a float32 image, got bool"),
    (np.zeros((3, 3), np.int64), False, TypeError, r"got bool"),
    (np.zeros((3, 3), np.float32), (1.0,), TypeError, r"background: a float32 image takes one number, got tuple"),
    (np.zeros((3, 3), np.float64), "#ffffff", TypeError, r"background: a float64 image takes one number, got str"),
    (np.zeros((3, 3), np.uint64), 1j, TypeError, r"background: expected None or a number, got complex"),
])
def test_bad_backgrounds(image, background, error, message):
    with pytest.raises(error, match=message):
        cclabel.label(image, background=background)


def test_whole_float_backgrounds_of_integer_images():
    img = np.array([[-3, -3, 4], [4, 9, 9]])
    for dtype in INTS:
        a = img.astype(dtype) if np.iinfo(dtype).min < 0 else np.abs(img).astype(dtype)
        bg = a[0, 0]
        np.testing.assert_array_equal(cclabel.label(a, background=float(bg)), cclabel.label(a, background=int(bg)),
                                      err_msg=name(dtype))
        np.testing.assert_array_equal(cclabel.label(a, background=np.float32(bg)),
                                      cclabel.label(a, background=int(bg)), err_msg=name(dtype))


def test_wrong_shapes_of_converted_dtypes():
    with pytest.raises(ValueError, match=r"image: expected shape \(H, W\) or \(B, H, W\) for float32, got \(5,\)"):
        cclabel.label(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match=r"more than 4294967295 \(2\^32 - 1\) pixels"):
        cclabel.label(np.broadcast_to(np.zeros(1, np.int64), (1 << 16, (1 << 16) + 1)))
    with pytest.raises(TypeError, match="dtype complex128 is not supported"):
        cclabel.label(np.zeros((2, 2), np.complex128))


# --- threads -------------------------------------------------------------------------------------

def test_threads_do_not_change_results():
    rng = np.random.default_rng(12)
    img = blobs(rng, 700, 650, np.arange(5, dtype=np.int64) * 2**33, 3)  # ~14 auto threads' worth
    labels = cclabel.label(img, threads=1)
    u32 = np.ascontiguousarray(labels)
    for threads in (2, 3, 0, None, np.int64(2)):
        assert_same(cclabel.label(img, threads=threads), labels, f"threads={threads}")
        assert_same(cclabel.connected_components(img, threads=threads), labels, f"threads={threads}")
        assert_same(cclabel.label(img[None].repeat(2, axis=0), threads=threads)[1], labels, "batch")
    want = cclabel.regions(u32, img, threads=1)
    for threads in (2, 3, 0, None):
        got = cclabel.regions(u32, img, threads=threads)
        for col in want:
            np.testing.assert_array_equal(got[col], want[col], err_msg=f"{col} threads={threads}")
        assert_same(cclabel.remove_small(u32, 5, threads=threads), cclabel.remove_small(u32, 5, threads=1), "dust")
        assert_same(cclabel.keep_largest(u32, 3, threads=threads), cclabel.keep_largest(u32, 3, threads=1), "k")
    _, table = cclabel.label(img, stats=True, threads=2)
    np.testing.assert_array_equal(table["area"], want["area"])


@pytest.mark.parametrize("threads,error,message", [
    (-1, ValueError, r"threads: must not be negative, got -1"),
    (-(2**70), ValueError, r"threads: must not be negative"),
    (2**70, ValueError, r"threads: 1180591620717411303424 is too many"),
    (True, TypeError, r"threads: expected None or an int, got bool"),
    (2.0, TypeError, r"threads: expected None or an int, got float"),
    ("4", TypeError, r"threads: expected None or an int, got str"),
])
def test_bad_threads(threads, error, message):
    img = np.zeros((4, 5), np.uint8)
    labels = np.zeros((4, 5), np.uint32)
    for call in (lambda: cclabel.label(img, threads=threads),
                 lambda: cclabel.label(img.astype(np.float64), threads=threads),
                 lambda: cclabel.regions(labels, img, threads=threads),
                 lambda: cclabel.remove_small(labels, 2, threads=threads),
                 lambda: cclabel.keep_largest(labels, 2, threads=threads)):
        with pytest.raises(error, match=message):
            call()


# --- regions() and the filters -------------------------------------------------------------------

def first_values(labels: np.ndarray, image: np.ndarray) -> dict:
    """Each label's value at its first pixel in raster order, read off the image."""
    first = {}
    flat_l, flat_i = labels.ravel(), image.reshape(labels.size, -1)
    for i, lab in enumerate(flat_l.tolist()):
        if lab not in first:
            first[lab] = flat_i[i]
    return first


@pytest.mark.parametrize("dtype", DTYPES + [bool], ids=name)
def test_regions_values_in_the_image_dtype(dtype):
    rng = np.random.default_rng(60)
    vals = np.array([False, True]) if dtype is bool else value_set(dtype)
    img = blobs(rng, 33, 35, vals, 2)
    labels, n = cclabel.label(img, connectivity=4, return_num=True)
    t = cclabel.regions(labels, img, connectivity=4)
    assert t["value"].dtype == img.dtype and t["value"].shape == (n + 1, 1)
    for lab, v in first_values(labels, img).items():
        got = t["value"][lab]
        assert (np.isnan(got[0]) and np.isnan(v[0])) if img.dtype.kind == "f" and np.isnan(v[0]) else \
            got[0] == v[0], (name(dtype), lab, got, v)
    assert np.array_equal(t["area"], np.bincount(labels.ravel(), minlength=n + 1))
    # Labels with no pixel read 0 (not min or the first unique value), in the image's dtype too.
    gaps = labels * 2
    t2 = cclabel.regions(gaps, img, connectivity=4)
    assert t2["value"].dtype == img.dtype and (t2["value"][1::2] == 0).all()
    # Strided and Fortran images give the same table.
    t3 = cclabel.regions(np.asfortranarray(labels), np.asfortranarray(img), connectivity=4)
    for col in t:
        np.testing.assert_array_equal(t3[col], t[col], err_msg=col)


def test_regions_value_of_colour_and_signed_images():
    rgb = np.array([[[255, 0, 0], [0, 0, 255]]], np.uint8)
    t = cclabel.regions(cclabel.label(rgb), rgb)
    assert t["value"].dtype == np.uint8
    np.testing.assert_array_equal(t["value"][1:], rgb[0])
    img = np.array([[-128, 127], [-1, -1]], np.int8)
    t = cclabel.regions(cclabel.label(img, connectivity=4), img)
    np.testing.assert_array_equal(t["value"][1:, 0], [-128, 127, -1])


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint16, np.uint8, np.int8], ids=name)
def test_filters_take_label_images_of_any_integer_dtype(dtype):
    rng = np.random.default_rng(70)
    labels = cclabel.label(rng.integers(0, 3, size=(40, 45)).astype(np.uint8), connectivity=4)
    labels %= np.uint32(min(int(np.iinfo(dtype).max), 2**32 - 1))  # values that fit the dtype
    typed = labels.astype(dtype)
    ref = cc3d.dust(labels.copy(), 3, connectivity=4, precomputed_ccl=True)
    got, m = cclabel.remove_small(typed, 3, return_num=True)
    assert got.dtype == typed.dtype
    np.testing.assert_array_equal(got, cclabel.remove_small(labels, 3))
    np.testing.assert_array_equal(got > 0, ref > 0)
    assert m == int(got.max())
    k = cclabel.keep_largest(typed, 4)
    assert k.dtype == typed.dtype
    np.testing.assert_array_equal(k, cclabel.keep_largest(labels, 4))
    work = np.asfortranarray(typed.copy())
    assert cclabel.remove_small(work, 3, in_place=True) is work
    np.testing.assert_array_equal(work, cclabel.remove_small(labels, 3))
    np.testing.assert_array_equal(typed, labels.astype(dtype), err_msg="not in place by default")
    if np.iinfo(dtype).min < 0:
        with pytest.raises(ValueError, match="labels: label -1 is negative"):
            cclabel.remove_small(np.full((2, 2), -1, dtype), 3)


# --- __version__ ---------------------------------------------------------------------------------

def test_version_comes_from_the_library():
    from cclabel import _cclabel
    assert cclabel.__version__ == _cclabel.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", cclabel.__version__)
    top = Path(__file__).resolve().parents[2] / "CMakeLists.txt"
    if top.exists():  # the source tree: project(cclabel VERSION x.y.z) is the one place it is kept
        m = re.search(r"project\(cclabel VERSION (\d+\.\d+\.\d+)", top.read_text())
        assert m and m.group(1) == cclabel.__version__


# --- GPU: CuPy and PyTorch (skipped without them and a device) -----------------------------------

def _cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.built_with_cuda or not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    return cp


def _torch_cuda():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not hasattr(torch, "uint32"):
        pytest.skip("PyTorch < 2.3 has no uint32")
    if not torch.cuda.is_available() or not cclabel.built_with_cuda:
        pytest.skip("no CUDA device for PyTorch or a build without CUDA")
    return torch


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_cupy_every_dtype_matches_the_cpu(dtype):
    cp = _cupy()
    rng = np.random.default_rng(80)
    host = blobs(rng, 47, 53, value_set(dtype), 2)
    for what, h in (("C order", host), ("strided", host[::2, ::-1]), ("batch", np.stack([host, host[::-1]]))):
        for background in (None, h.flat[0]):
            want, n = cclabel.label(h, background=background, return_num=True)
            got, dn = cclabel.label(cp.asarray(h), background=background, return_num=True, num_as_int=True)
            np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=f"{name(dtype)} {what}")
            assert dn == (n.tolist() if isinstance(n, np.ndarray) else n)
    got16 = cclabel.label(cp.asarray(host), out_dtype=cp.uint16)
    assert got16.dtype == cp.uint16
    np.testing.assert_array_equal(cp.asnumpy(got16), cclabel.label(host))
    labels = cclabel.label(host)
    t = cclabel.regions(cp.asarray(labels), cp.asarray(host))
    want = cclabel.regions(labels, host)
    assert t["value"].dtype == host.dtype
    np.testing.assert_array_equal(cp.asnumpy(t["value"]), want["value"])


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_torch_cuda_every_dtype_matches_the_cpu(dtype):
    torch = _torch_cuda()
    rng = np.random.default_rng(81)
    host = blobs(rng, 47, 53, value_set(dtype), 2)
    t = torch.from_numpy(host.copy()).cuda()  # uint16/32/64 from PyTorch 2.3 on, as the fixture demands
    for background in (None, host.flat[0]):
        want = cclabel.label(host, background=background)
        got = cclabel.label(t, background=background)
        assert got.dtype == torch.uint32 and got.device == t.device
        np.testing.assert_array_equal(got.cpu().view(torch.int32).numpy().view(np.uint32), want, err_msg=name(dtype))
    got = cclabel.label(t.flip(0), out_dtype=torch.uint64)
    assert got.dtype == torch.uint64
    np.testing.assert_array_equal(got.cpu().view(torch.int64).numpy(), cclabel.label(host[::-1]))


def test_dlpack_only_host_arrays_of_every_dtype():
    class OnlyDLPack:  # an array of an unknown library that speaks DLPack only
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    rng = np.random.default_rng(90)
    for dtype in DTYPES:
        img = blobs(rng, 21, 19, value_set(dtype), 2)
        got = cclabel.label(OnlyDLPack(img), background=img.flat[0])
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, cclabel.label(img, background=img.flat[0]), err_msg=name(dtype))
        t = cclabel.regions(got, OnlyDLPack(img))
        assert t["value"].dtype == img.dtype


def test_the_core_tile_call_names_the_dtypes_only_python_converts():
    """The compiled tile step reads the native dtypes only; cclabel.tiles.label_tile makes keys of
    the others first (test_dtypes_dask.py)."""
    with pytest.raises(TypeError, match="dtype float32 is not supported by this call, .* cclabel.label converts"):
        cclabel._cclabel._label_tile(np.zeros((3, 3), np.float32), np.zeros((3, 3), np.uint32), 0, 0, 3, 8, None,
                                     "auto", None)
