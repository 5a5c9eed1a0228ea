"""The Python package (`pip install .`) against real peers, value for value, and its argument handling.

- cc3d (multilabel, offset values, connectivity 4/8 explicit) for every one-channel dtype and for
  colours packed into integers; OpenCV SAUF (CV_32S) for bool masks; scikit-image for colours.
- Batches, slices, transposes, Fortran order and upside-down views give the labels of the
  C-contiguous copy; out= is written in place; a NumPy input is not copied (peak memory).
- Every bad argument raises TypeError/ValueError with its message checked.
- CuPy and PyTorch GPU inputs: skipped without the library, a CUDA device or a CUDA build; run on
  the GPU machine.

The parity conditions of the peers are in conftest.py. test.sh's python stage installs the package
into a private folder and sets CCLABEL_PYTHON_REQUIRED=1, so there a missing package fails instead
of skipping.
"""
from __future__ import annotations

import doctest
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import assert_same, cc3d_labels, opencv_labels, pack, skimage_labels

if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")

SIZES = [(1, 1), (1, 70), (70, 1), (17, 31), (9, 32), (40, 33), (33, 65), (64, 64)]
ONE_CHANNEL = [np.uint8, np.uint16, np.uint32, np.int32]


# --- images (all seeded) --------------------------------------------------------------------------

def blobs(rng: np.random.Generator, h: int, w: int, values: np.ndarray, blob: int) -> np.ndarray:
    """Values painted in blob x blob cells, shifted so cell edges do not align with the origin."""
    idx = rng.integers(0, values.size, size=(-(-h // blob) + 1, -(-w // blob) + 1))
    idx = np.repeat(np.repeat(idx, blob, axis=0), blob, axis=1)
    oy, ox = (int(rng.integers(0, blob)), int(rng.integers(0, blob))) if blob > 1 else (0, 0)
    return values[idx[oy:oy + h, ox:ox + w]]


def extremes(dtype) -> np.ndarray:
    """A few values of dtype including its smallest and largest (the adversarial ends)."""
    info = np.iinfo(dtype)
    vals = {int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1, 0, 1}
    return np.array(sorted(vals), dtype=dtype)


def one_channel_images(dtype, seed: int):
    rng = np.random.default_rng(seed)
    for h, w in SIZES:
        vals = extremes(dtype)
        yield f"{h}x{w} extremes", blobs(rng, h, w, vals, 1)
        yield f"{h}x{w} blobs", blobs(rng, h, w, vals[:3], 3)
        yy, xx = np.mgrid[0:h, 0:w]
        yield f"{h}x{w} checkerboard", np.where((yy + xx) % 2 == 0, vals[0], vals[-1]).astype(dtype)
    info = np.iinfo(dtype)
    h, w = (16, 16) if info.bits == 8 else (23, 19)
    distinct = rng.choice(min(int(info.max) - int(info.min) + 1, 1 << 30), size=h * w, replace=False)
    yield "distinct", (distinct + int(info.min)).astype(dtype).reshape(h, w)


def colour_images(channels: int, seed: int):
    rng = np.random.default_rng(seed)
    for h, w in SIZES:
        palette = rng.integers(0, 256, size=(5, channels), dtype=np.uint8)
        palette[0] = 255
        palette[1] = palette[0]
        palette[1, -1] = 254  # differs from palette[0] in the last channel only
        yield f"{h}x{w} palette", palette[blobs(rng, h, w, np.arange(5), 2)]
        yield f"{h}x{w} noise", palette[blobs(rng, h, w, np.arange(5), 1)]


def as_unsigned(image: np.ndarray) -> np.ndarray:
    """int32 as the uint32 of the same bits (what cclabel compares), for the peers."""
    return image.view(np.uint32) if image.dtype == np.int32 else image


# --- peers ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("dtype", ONE_CHANNEL, ids=lambda d: np.dtype(d).name)
def test_one_channel_vs_cc3d(dtype, connectivity):
    for name, img in one_channel_images(dtype, seed=connectivity * 10 + i_seed(dtype)):
        for background in (None, int(img.flat[0])):
            labels, n = cclabel.label(img, connectivity=connectivity, background=background, return_num=True)
            bg = None if background is None else int(as_unsigned(np.array([background], dtype))[0])
            want = cc3d_labels(pack(as_unsigned(img)), connectivity, bg)
            assert_same(labels, want, f"{np.dtype(dtype).name} {name} conn {connectivity} background {background}")
            assert n == int(want.max(initial=0))


def i_seed(dtype) -> int:
    return np.dtype(dtype).itemsize * (2 if np.dtype(dtype).kind == "i" else 1)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_bool_vs_opencv_and_cc3d(connectivity):
    rng = np.random.default_rng(connectivity)
    for h, w in SIZES:
        for density in (0.3, 0.5, 0.7):
            mask = rng.random((h, w)) < density
            labels, n = cclabel.label(mask, connectivity=connectivity, return_num=True)
            assert_same(labels, opencv_labels(mask, connectivity), f"bool {h}x{w} {density} vs OpenCV")
            assert_same(labels, cc3d_labels(mask.astype(np.int64), connectivity, background=0),
                        f"bool {h}x{w} {density} vs cc3d")
            assert n == int(labels.max(initial=0))
            # background=0 / False is the same thing for a mask
            assert_same(cclabel.label(mask, connectivity=connectivity, background=False), labels, "background=False")


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("channels", [3, 4])
def test_colours_vs_skimage_and_cc3d(channels, connectivity):
    for name, img in colour_images(channels, seed=channels * 10 + connectivity):
        first = tuple(int(c) for c in img[0, 0])
        hexed = "#" + "".join(f"{c:02x}" for c in first)
        packed = pack(img)
        for background in (None, first, hexed):
            labels, n = cclabel.label(img, connectivity=connectivity, background=background, return_num=True)
            bg = None if background is None else int(packed[0, 0])
            what = f"{'rgba' if channels == 4 else 'rgb'} {name} conn {connectivity} background {background}"
            assert_same(labels, skimage_labels(packed, connectivity, bg), what + " vs skimage")
            assert_same(labels, cc3d_labels(packed, connectivity, bg), what + " vs cc3d")
            assert n == int(labels.max(initial=0))


def test_connectivity_aliases_and_alias_function():
    img = np.random.default_rng(1).integers(0, 3, size=(31, 29)).astype(np.uint8)
    np.testing.assert_array_equal(cclabel.label(img, connectivity=1), cclabel.label(img, connectivity=4))
    np.testing.assert_array_equal(cclabel.label(img, connectivity=2), cclabel.label(img, connectivity=8))
    np.testing.assert_array_equal(cclabel.label(img, connectivity=np.int64(4)), cclabel.label(img, connectivity=4))
    np.testing.assert_array_equal(cclabel.connected_components(img, connectivity=4, background=0),
                                  cclabel.label(img, connectivity=4, background=0))
    assert_same(cclabel.label(img), cc3d_labels(pack(img), 8), "default connectivity is 8")


# --- batches --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,dtype", [((5, 17, 23), np.uint8), ((3, 9, 32), np.uint16), ((4, 12, 7), np.int32),
                                         ((6, 10, 11), bool), ((3, 13, 14, 3), np.uint8),
                                         ((2, 8, 9, 4), np.uint8), ((0, 4, 5), np.uint8), ((3, 0, 5), np.uint16)])
def test_batches(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    batch = rng.integers(0, 3, size=shape).astype(dtype)
    bg = None if dtype is bool else (0 if len(shape) == 3 else (0,) * shape[3])
    labels, counts = cclabel.label(batch, connectivity=4, background=bg, return_num=True)
    assert labels.shape == shape[:3] and labels.dtype == np.uint32
    assert isinstance(counts, np.ndarray) and counts.dtype == np.uint32 and counts.shape == (shape[0],)
    for b in range(shape[0]):
        one, n = cclabel.label(batch[b], connectivity=4, background=bg, return_num=True)
        assert_same(labels[b], one, f"batch image {b}")
        assert counts[b] == n
    assert cclabel.label(batch, num_as_int=True, return_num=True)[1] == \
        [int(c) for c in cclabel.label(batch, return_num=True)[1]]


# --- layouts --------------------------------------------------------------------------------------

def views(base: np.ndarray):
    """Views of base that cclabel reads in place or copies once, with the names of the layouts."""
    yield "slice", base[3:-2, 2:-5]
    yield "every other row", base[::2]
    yield "rows upside down", base[::-1]
    yield "transpose", base.swapaxes(0, 1)
    yield "transpose upside down", base.swapaxes(0, 1)[::-1]
    yield "Fortran order", np.asfortranarray(base)
    yield "offset by one byte", np.frombuffer(b"\0" + base.tobytes(), dtype=base.dtype,
                                              offset=1).reshape(base.shape) if base.dtype.itemsize == 1 else base
    yield "read-only", np.broadcast_to(base, base.shape)


@pytest.mark.parametrize("kind", ["uint8", "uint16", "int32", "bool", "rgb", "rgba"])
def test_layouts_give_the_labels_of_the_contiguous_copy(kind):
    rng = np.random.default_rng(len(kind))
    if kind in ("rgb", "rgba"):
        palette = rng.integers(0, 256, size=(4, 3 if kind == "rgb" else 4), dtype=np.uint8)
        base = palette[rng.integers(0, 4, size=(37, 41))]
    else:
        base = rng.integers(0, 3, size=(37, 41)).astype(kind)
    for name, view in views(base):
        for connectivity in (4, 8):
            got = cclabel.label(view, connectivity=connectivity)
            want = cclabel.label(np.ascontiguousarray(view), connectivity=connectivity)
            assert_same(got, want, f"{kind} {name} conn {connectivity}")
            bg = 0 if kind == "bool" else None  # a mask's False is background
            assert_same(got, cc3d_labels(pack(as_unsigned(np.ascontiguousarray(view))), connectivity, bg),
                        f"{kind} {name} conn {connectivity} vs cc3d")


def test_batch_views():
    rng = np.random.default_rng(7)
    batch = rng.integers(0, 3, size=(6, 19, 23)).astype(np.uint8)
    for name, view in [("every other image", batch[::2]), ("images reversed", batch[::-1]),
                       ("rows sliced", batch[:, 2:-3, 1:]), ("rows upside down", batch[:, ::-1]),
                       ("Fortran order", np.asfortranarray(batch))]:
        got, counts = cclabel.label(view, return_num=True)
        want, want_counts = cclabel.label(np.ascontiguousarray(view), return_num=True)
        assert_same(got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1]), name)
        np.testing.assert_array_equal(counts, want_counts)


@pytest.mark.parametrize("name,view", [
    ("pixels apart", lambda a: a[:, ::2]),
    ("gaps both ways", lambda a: a[::2, ::3]),
    ("pixels backwards", lambda a: a[:, ::-1]),
    ("channels backwards", lambda a: np.repeat(a[:, :, None], 3, axis=2)[..., ::-1]),
    ("overlapping rows", lambda a: np.lib.stride_tricks.as_strided(a, shape=(5, 10), strides=(2, 1))),
    ("broadcast rows", lambda a: np.broadcast_to(a[:1], (5, 41))),
])
def test_layouts_with_gaps_are_copied_once(name, view):
    base = np.random.default_rng(3).integers(0, 3, size=(37, 41)).astype(np.uint8)
    v = view(base)
    for connectivity in (4, 8):
        got = cclabel.label(v, connectivity=connectivity)
        assert_same(got, cclabel.label(np.ascontiguousarray(v), connectivity=connectivity), name)
        assert_same(got, cc3d_labels(pack(np.ascontiguousarray(v)), connectivity), name + " vs cc3d")


# --- zero copy, out=, return types -----------------------------------------------------------------

def test_out_is_written_in_place_and_returned():
    img = np.random.default_rng(3).integers(0, 4, size=(30, 40)).astype(np.uint16)
    out = np.full((30, 40), 0xDEADBEEF, dtype=np.uint32)
    ptr = out.ctypes.data
    got, n = cclabel.label(img, out=out, return_num=True)
    assert got is out and got.ctypes.data == ptr
    assert_same(out, cc3d_labels(pack(img), 8), "out=")
    batch = np.stack([img, img[::-1]])
    bout = np.empty((2, 30, 40), np.uint32)
    assert cclabel.label(batch, out=bout) is bout
    np.testing.assert_array_equal(bout[1], cclabel.label(img[::-1]))


def test_numpy_input_is_not_copied():
    """Peak memory of labelling a 32 MB uint32 image stays near input + labels (a copy adds 32 MB)."""
    code = textwrap.dedent("""
        import resource, numpy as np, cclabel
        img = np.zeros((2048, 4096), np.uint32); img[::7] = 5; img[:, ::11] = 9   # 32 MiB, touched
        out = np.zeros(img.shape, np.uint32); out[:] = 1                          # 32 MiB, touched
        peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        before = peak()
        cclabel.label(img, out=out, backend="cpu")                 # contiguous, into out
        first = peak()
        cclabel.label(img[:, :4000], backend="cpu")               # strided rows, new labels (31 MiB)
        print(first - before, peak() - before)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first, second = map(float, proc.stdout.split())
    # The labeller's own tables take a few MiB; a copy of the input would take 32 MiB more.
    assert first < 12, f"labelling into out= grew the peak memory by {first:.1f} MiB: the input was copied"
    assert second < 31.25 + 12, f"labelling a strided view grew the peak memory by {second:.1f} MiB"


def test_return_types():
    img = np.array([[1, 0, 1], [0, 0, 1]], dtype=np.uint8)
    labels = cclabel.label(img, background=0)
    assert type(labels) is np.ndarray and labels.dtype == np.uint32 and labels.shape == (2, 3)
    assert labels.flags.c_contiguous
    labels, n = cclabel.label(img, background=0, return_num=True)
    assert type(n) is int and n == 2
    labels, n = cclabel.label(img, background=0, return_num=True, num_as_int=True)
    assert type(n) is int and n == 2
    for empty in (np.zeros((0, 5), np.uint8), np.zeros((5, 0), np.uint8), np.zeros((0, 0, 3), np.uint8)):
        labels, n = cclabel.label(empty, return_num=True)
        assert labels.shape == empty.shape[:2] and n == 0


def test_lists_and_other_dlpack_arrays():
    img = [[1, 1, 0], [0, 2, 2]]
    np.testing.assert_array_equal(cclabel.label(np.array(img, np.int32), background=0),
                                  [[1, 1, 0], [0, 2, 2]])

    class OnlyDLPack:  # an array of an unknown library that speaks DLPack only
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = np.random.default_rng(0).integers(0, 3, size=(20, 30)).astype(np.uint16)
    got = cclabel.label(OnlyDLPack(a), connectivity=4)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, cclabel.label(a, connectivity=4))
    np.testing.assert_array_equal(cclabel.label(OnlyDLPack(np.asfortranarray(a))), cclabel.label(a))
    # a list becomes int64
    np.testing.assert_array_equal(cclabel.label(img, background=0), [[1, 1, 0], [0, 2, 2]])


def test_threads_label_concurrently():
    """The GIL is released while labelling; concurrent calls give the same labels."""
    rng = np.random.default_rng(11)
    imgs = [rng.integers(0, 3, size=(300, 400)).astype(np.uint8) for _ in range(4)]
    want = [cclabel.label(i) for i in imgs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(cclabel.label, imgs * 2))
    for g, w in zip(got, want * 2):
        np.testing.assert_array_equal(g, w)


def test_backends_on_the_host():
    img = np.random.default_rng(2).integers(0, 3, size=(50, 60)).astype(np.uint8)
    np.testing.assert_array_equal(cclabel.label(img, backend="cpu"), cclabel.label(img, backend="auto"))
    if not cclabel.cuda_available():
        with pytest.raises(ValueError, match="cuda"):
            cclabel.label(img, backend="cuda")
    else:
        np.testing.assert_array_equal(cclabel.label(img, backend="cuda"), cclabel.label(img, backend="cpu"))


def test_docstring_examples():
    failures, tried = doctest.testmod(cclabel, extraglobs={"np": np}, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 5 and failures == 0


def test_signed_views_of_unsigned_data():
    """The path PyTorch tensors take (no DLPack export of torch.uint16/uint32 needed): the image as an
    int16/int32 view of its bits, the labels and counts written through int32 views."""
    from cclabel import _cclabel
    rng = np.random.default_rng(9)
    for dtype, signed in ((np.uint16, np.int16), (np.uint32, np.int32)):
        top = int(np.iinfo(dtype).max)
        img = np.array([top, top - 1, 1], dtype)[rng.integers(0, 3, size=(3, 21, 17))]
        labels = np.empty(img.shape, np.uint32)
        counts = np.empty(3, np.uint32)
        _cclabel._label(img.view(signed), labels.view(np.int32), counts.view(np.int32), 4, top, "cpu", 0, None,
                        True, True)
        want, want_counts = cclabel.label(img, connectivity=4, background=top, return_num=True)
        np.testing.assert_array_equal(labels, want)
        np.testing.assert_array_equal(counts, want_counts)
        assert _cclabel._inspect(img[0].view(signed), 8, top, "auto", True)["shape"] == (21, 17)
    with pytest.raises(TypeError, match="out: dtype must be uint32, got int32"):
        cclabel.label(np.zeros((3, 3), np.uint32), out=np.zeros((3, 3), np.int32))


# --- bad arguments ---------------------------------------------------------------------------------

U8 = np.zeros((4, 5), np.uint8)
RGB = np.zeros((4, 5, 3), np.uint8)
BAD = [
    # image
    (dict(image=None), TypeError, r"image: expected an array, got None"),
    (dict(image="pic.png"), TypeError, r"image: expected an array .* got str"),
    (dict(image=np.zeros((4, 5), np.complex64)), TypeError,
     r"image: dtype complex64 is not supported \(supported: bool, int8/16/32/64, uint8/16/32/64, float16/32/64"),
    (dict(image=np.zeros(5, np.uint8)), ValueError, r"image: expected shape \(H, W\), .* got \(5,\)"),
    (dict(image=np.zeros((1, 2, 3, 4, 5), np.uint8)), ValueError, r"image: expected shape .* got \(1, 2, 3, 4, 5\)"),
    (dict(image=np.zeros((2, 4, 5, 2), np.uint8)), ValueError, r"image: a 4-D array must be a batch of uint8 RGB"),
    (dict(image=np.zeros((2, 4, 5, 3), np.uint16)), ValueError, r"image: a 4-D array must be a batch of uint8 RGB"),
    # connectivity
    *[(dict(connectivity=c), ValueError, rf"connectivity: must be 4 or 8 \(or 1 or 2 as in scikit-image\), got {c}")
      for c in (0, 3, 6, 26, -1)],
    (dict(connectivity=True), TypeError, r"connectivity: expected an int .* got bool"),
    (dict(connectivity=8.0), TypeError, r"connectivity: expected an int .* got float"),
    (dict(connectivity="8"), TypeError, r"connectivity: expected an int .* got str"),
    (dict(connectivity=2**70), ValueError, r"connectivity: must be 4 or 8"),
    # background
    (dict(background=256), ValueError, r"background: value 256 is out of range for uint8 \(0\.\.255\)"),
    (dict(background=-1), ValueError, r"background: value -1 is out of range for uint8"),
    (dict(background=2**80), ValueError, r"background: value 1208925819614629174706176 is out of range"),
    (dict(image=np.zeros((4, 5), np.uint16), background=65536), ValueError, r"out of range for uint16 \(0\.\.65535\)"),
    (dict(image=np.zeros((4, 5), np.int32), background=2**31), ValueError,
     r"out of range for int32 \(-2147483648\.\.2147483647\)"),
    (dict(image=np.zeros((4, 5), np.uint32), background=2**32), ValueError, r"out of range for uint32"),
    (dict(image=np.zeros((4, 5), bool), background=1), ValueError, r"bool image's background is always False"),
    (dict(background=1.5), ValueError, r"background: value 1.5 is not a whole number, and this uint8 image holds"),
    (dict(background=float("nan")), ValueError, r"background: value nan is not a whole number"),
    (dict(background=256.0), ValueError, r"background: value 256 is out of range for uint8"),
    (dict(background=1j), TypeError, r"background: expected None, an int, a tuple of ints .* got complex"),
    (dict(background=b"\0"), TypeError, r"background: expected None, an int, .* got bytes"),
    (dict(background=True), TypeError, r"background: value must be an int, got bool"),
    (dict(background="#ffffff"), TypeError, r"background: a colour string \('#ffffff'\) needs an RGB or RGBA image"),
    (dict(background=(1, 2)), ValueError, r"background: has 2 value\(s\), but a pixel of this uint8 image has 1"),
    (dict(image=RGB, background=255), ValueError, r"background: an RGB image needs 3 values"),
    (dict(image=RGB, background=(256, 0, 0)), ValueError, r"background: channel 0 256 is out of range for uint8"),
    (dict(image=RGB, background=(0, 0)), ValueError, r"background: has 2 value\(s\), but a pixel of this RGB image has 3"),
    (dict(image=RGB, background=(0, 0, 0.5)), ValueError, r"background: channel 2 0.5 is not a whole number"),
    (dict(image=RGB, background=(0, 0, "a")), TypeError, r"background: channel 2 must be an int"),
    (dict(image=RGB, background="#ff"), ValueError, r"background: '#ff' is not a colour of an RGB image; expected '#rrggbb'"),
    (dict(image=RGB, background="ffffff"), ValueError, r"not a colour of an RGB image"),
    (dict(image=RGB, background="#gggggg"), ValueError, r"not a colour of an RGB image"),
    (dict(image=RGB, background="#ffffffff"), ValueError, r"not a colour of an RGB image"),
    (dict(image=np.zeros((4, 5, 4), np.uint8), background="#ffffff"), ValueError,
     r"not a colour of an RGBA image; expected '#rrggbbaa'"),
    # backend
    (dict(backend="gpu"), ValueError, r"backend: expected 'auto', 'cpu' or 'cuda', got 'gpu'"),
    (dict(backend=None), TypeError, r"backend: expected 'auto', 'cpu' or 'cuda', got NoneType"),
    # out
    (dict(out=np.zeros((4, 5), np.int32)), TypeError, r"out: dtype must be uint32, got int32"),
    (dict(out=np.zeros((5, 4), np.uint32)), ValueError, r"out: shape must be \(4, 5\) for this image, got \(5, 4\)"),
    (dict(out=np.zeros((4, 5), np.uint32, order="F")), ValueError, r"out: must be C-contiguous"),
    (dict(out=np.zeros((4, 10), np.uint32)[:, ::2]), ValueError, r"out: must be C-contiguous"),
    (dict(out=np.broadcast_to(np.zeros(5, np.uint32), (4, 5))), ValueError, r"out: the array is read-only"),
    (dict(out=[[0] * 5] * 4), TypeError, r"out: expected a writable uint32 array, got list"),
    (dict(image=np.zeros((4, 5), np.uint32), out="self"), ValueError, r"out: must not overlap the image"),
    # flags
    (dict(return_num=1), TypeError, r"return_num: expected a bool"),
    (dict(return_num="yes"), TypeError, r"return_num: expected a bool"),
    (dict(num_as_int=None), TypeError, r"num_as_int: expected a bool"),
]


@pytest.mark.parametrize("kwargs,error,message", BAD, ids=[f"{i}-{e.__name__}" for i, (_, e, _) in enumerate(BAD)])
def test_bad_arguments(kwargs, error, message):
    kwargs = dict(kwargs)
    image = kwargs.pop("image", U8)
    if isinstance(kwargs.get("out"), str):
        kwargs["out"] = image
    with pytest.raises(error, match=message):
        cclabel.label(image, **kwargs)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        cclabel.label(U8, 4)  # OpenCV's trap: a positional 4 must not land anywhere
    with pytest.raises(TypeError):
        cclabel.connected_components(U8, 8)


def test_too_many_pixels_is_refused_before_allocating():
    huge = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape=(1 << 16, (1 << 16) + 1), strides=(0, 0))
    with pytest.raises(ValueError):
        cclabel.label(huge)
    tall = np.lib.stride_tricks.as_strided(np.zeros(1 << 17, np.uint8), shape=(1 << 16, (1 << 16) + 1),
                                           strides=(1, 1))
    with pytest.raises(ValueError, match=r"more than 4294967295 \(2\^32 - 1\) pixels"):
        cclabel.label(tall)  # a layout that needs a copy: refused before the copy


# --- GPU: CuPy and PyTorch -------------------------------------------------------------------------

def gpu_images(seed: int):
    """(name, host array, kwargs) covering every format, a batch and strided rows."""
    rng = np.random.default_rng(seed)
    for dtype in (np.uint8, np.uint16, np.uint32, np.int32, bool):
        img = rng.integers(0, 3, size=(67, 129)).astype(dtype)
        yield np.dtype(dtype).name, img, {}
        yield np.dtype(dtype).name + " background", img, {} if dtype is bool else {"background": 1}
    yield "rgb", rng.integers(0, 2, size=(45, 77, 3)).astype(np.uint8) * 255, {"background": "#000000"}
    yield "rgba", rng.integers(0, 2, size=(45, 77, 4)).astype(np.uint8), {"connectivity": 4}
    yield "batch", rng.integers(0, 3, size=(5, 33, 40)).astype(np.uint16), {"connectivity": 4}
    yield "rgb batch", rng.integers(0, 2, size=(3, 21, 22, 3)).astype(np.uint8), {}
    yield "large", (rng.random((1500, 1400)) < 0.5), {}
    yield "empty", np.zeros((0, 9), np.uint8), {}


def needs_gpu_build():
    if not cclabel.built_with_cuda:
        pytest.skip("cclabel was built without CUDA (no nvcc at install time)")


@pytest.fixture(scope="module")
def cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except Exception as e:  # CUDA driver missing
        pytest.skip(f"no CUDA device ({e})")
    needs_gpu_build()
    return cp


@pytest.fixture(scope="module")
def torch():
    th = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not hasattr(th, "uint32"):
        pytest.skip("PyTorch < 2.3 has no uint32")
    return th


@pytest.fixture(scope="module")
def torch_cuda(torch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    needs_gpu_build()
    return torch


def test_cupy_matches_the_cpu(cupy):
    for name, host, kw in gpu_images(1):
        d = cupy.asarray(host)
        labels, n = cclabel.label(d, return_num=True, **kw)
        want, want_n = cclabel.label(host, return_num=True, backend="cpu", **kw)
        assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.uint32, name
        assert labels.device.id == d.device.id
        assert isinstance(n, cupy.ndarray) and n.dtype == cupy.uint32, name  # N stays on the GPU
        assert n.shape == (() if host.ndim == 2 or (host.ndim == 3 and host.dtype == np.uint8
                                                     and host.shape[2] in (3, 4)) else (host.shape[0],))
        np.testing.assert_array_equal(cupy.asnumpy(labels), want, err_msg=name)
        np.testing.assert_array_equal(cupy.asnumpy(n), want_n, err_msg=name)
        as_int = cclabel.label(d, return_num=True, num_as_int=True, **kw)[1]
        assert as_int == (want_n.tolist() if isinstance(want_n, np.ndarray) else want_n)


def test_cupy_layouts_out_and_streams(cupy):
    host = np.random.default_rng(4).integers(0, 3, size=(90, 70)).astype(np.uint8)
    d = cupy.asarray(host)
    for name, view, hview in [("slice", d[5:-5, 3:], host[5:-5, 3:]), ("every other row", d[::2], host[::2]),
                              ("upside down", d[::-1], host[::-1]), ("transpose", d.T, host.T)]:
        np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(view)), cclabel.label(hview), err_msg=name)
    with pytest.raises(ValueError, match="cupy.ascontiguousarray"):
        cclabel.label(d[:, ::2])
    out = cupy.empty((90, 70), cupy.uint32)
    assert cclabel.label(d, out=out) is out
    with pytest.raises(ValueError, match="out: must be on the image's device"):
        cclabel.label(d, out=np.empty((90, 70), np.uint32))
    with pytest.raises(ValueError, match="backend: 'cpu' cannot label an array on the GPU"):
        cclabel.label(d, backend="cpu")
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        labels, n = cclabel.label(d, return_num=True)
    stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(labels), cclabel.label(host))
    assert int(n) == int(cclabel.label(host).max())


def test_torch_cpu_tensors(torch):
    host = np.random.default_rng(5).integers(0, 3, size=(4, 30, 40)).astype(np.uint8)
    t = torch.from_numpy(host)
    labels, counts = cclabel.label(t, return_num=True)
    assert isinstance(labels, torch.Tensor) and labels.dtype == torch.uint32 and labels.device.type == "cpu"
    want, want_counts = cclabel.label(host, return_num=True)
    np.testing.assert_array_equal(labels.numpy(), want)
    np.testing.assert_array_equal(counts.numpy(), want_counts)
    np.testing.assert_array_equal(cclabel.label(t[0].T).numpy(), cclabel.label(host[0].T))
    assert int(cclabel.label(t[0], return_num=True)[1]) == int(want_counts[0])
    grad = torch.zeros((3, 3), dtype=torch.int32)
    assert cclabel.label(grad).shape == (3, 3)


def test_torch_cuda_matches_the_cpu(torch_cuda):
    torch = torch_cuda
    for name, host, kw in gpu_images(2):
        t = torch.from_numpy(host.copy()).cuda()
        labels, n = cclabel.label(t, return_num=True, **kw)
        want, want_n = cclabel.label(host, return_num=True, backend="cpu", **kw)
        assert isinstance(labels, torch.Tensor) and labels.dtype == torch.uint32 and labels.device == t.device
        assert isinstance(n, torch.Tensor) and n.device == t.device, name
        np.testing.assert_array_equal(labels.cpu().numpy(), want, err_msg=name)
        np.testing.assert_array_equal(n.cpu().numpy(), want_n, err_msg=name)
    s = torch.cuda.Stream()
    t = torch.from_numpy(host.copy()).cuda() if host.size else torch.zeros((9, 9), dtype=torch.uint8, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        labels = cclabel.label(t)
    s.synchronize()
    np.testing.assert_array_equal(labels.cpu().numpy(), cclabel.label(t.cpu().numpy()))
    out = torch.empty(t.shape, dtype=torch.uint32, device=t.device)
    assert cclabel.label(t, out=out) is out
