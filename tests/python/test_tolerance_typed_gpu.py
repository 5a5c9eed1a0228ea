"""cclabel.label(picture, tolerance=T) of CuPy arrays and CUDA tensors of signed, 64-bit and float
dtypes: labelled on their GPU by cclabel::cuda::label_device comparing the values where they lie
(no host copy), against the host's labels (which tests/python/test_graph.py and the C++ tests
compare with flood fills) and a 2-D flood fill of its own; out=, out_dtype=, views, the bad
tolerances and the refusals; batches image by image. Skipped without CuPy / PyTorch, a CUDA device or a
CUDA build of cclabel; the checks that need no device run everywhere."""
from __future__ import annotations

import math

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from conftest import bfs_labels  # noqa: E402
from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)

DTYPES = ["int8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64"]


def picture(dtype: str, shape=(61, 77), seed=1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.cumsum(rng.integers(-2, 3, size=shape), axis=1).astype(np.float64)
    a = np.where(rng.random(shape) < 0.04, rng.integers(-100, 100, size=shape), a)
    if dtype.startswith("float"):
        a = np.round(a * 0.75 * 4) / 4
        s = rng.random(shape)
        a = np.where(s < 0.02, np.nan, np.where(s < 0.03, -0.0, np.where(s < 0.035, -np.inf, a)))
        return a.astype(dtype)
    if dtype == "int8":
        return np.clip(a, -128, 127).astype(np.int8)
    if dtype == "int64":
        return a.astype(np.int64) * (1 << 33)
    if dtype == "uint64":
        return (a.astype(np.int64) + 1000).astype(np.uint64) + np.uint64(1 << 63)
    return a.astype(dtype)


def tolerance_of(dtype):
    return 2 * (1 << 33) if dtype == "int64" else 1.5 if dtype.startswith("float") else 2


def reference(a: np.ndarray, tol, connectivity: int, background=None) -> np.ndarray:
    v = a.tolist()
    is_float = a.dtype.kind == "f"

    def is_bg(y, x):
        if background is None:
            return False
        return math.isnan(v[y][x]) if is_float and math.isnan(background) else v[y][x] == background

    def joins(y1, x1, y2, x2):  # conftest.bfs_labels's signature
        x, y = v[y1][x1], v[y2][x2]
        if is_float and (math.isnan(x) or math.isnan(y)):
            return math.isnan(x) and math.isnan(y)
        d = abs(x - y)
        return not (is_float and math.isnan(d)) and d <= tol

    return bfs_labels(a.shape[0], a.shape[1], joins, connectivity, is_bg)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_pictures_match_the_host_and_the_flood_fill(cupy, dtype):
    a = picture(dtype)
    tol = tolerance_of(dtype)
    for conn in (4, 8):
        for bg in (None, 0):
            want = cclabel.label(a, connectivity=conn, tolerance=tol, background=bg, backend="cpu")
            labels, n = cclabel.label(cupy.asarray(a), connectivity=conn, tolerance=tol, background=bg, return_num=True)
            assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.uint32
            np.testing.assert_array_equal(cupy.asnumpy(labels), want)
            assert int(n) == int(want.max())
    small = a[:13, :17]
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(small), tolerance=tol)),
                                  reference(small, tol, 8))
    # A view (every other column) and a transpose: copied to C order on the GPU.
    d = cupy.asarray(a)
    for view, host in ((d[:, ::2], a[:, ::2]), (d.T, a.T), (d[3:40, 5:], a[3:40, 5:])):
        np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(view, tolerance=tol)),
                                      cclabel.label(np.ascontiguousarray(host), tolerance=tol, backend="cpu"))


def test_cupy_out_out_dtype_and_graph_entry(cupy):
    a = picture("float32", seed=5)
    want = cclabel.label(a, tolerance=1.5, backend="cpu")
    out = cupy.empty(a.shape, cupy.uint32)
    assert cclabel.label(cupy.asarray(a), tolerance=1.5, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), want)
    small = cclabel.label(cupy.asarray(a), tolerance=1.5, out_dtype=np.uint16)
    assert small.dtype == cupy.uint16
    np.testing.assert_array_equal(cupy.asnumpy(small), want)
    labels, n = cclabel.label(cupy.asarray(a), tolerance=1.5, return_num=True, num_as_int=True)
    assert n == int(want.max())
    from cclabel.graph import label_tolerance
    np.testing.assert_array_equal(cupy.asnumpy(label_tolerance(cupy.asarray(a), 1.5)), want)
    # Tolerance 0 is exact labelling (through the keys).
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(a), tolerance=0.0)),
                                  cclabel.label(a, backend="cpu"))


def test_cupy_extremes_and_refusals(cupy):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    a = np.array([[lo, hi, lo + 1], [hi - 1, 0, -1]], np.int64)
    for conn in (4, 8):
        np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(a), connectivity=conn, tolerance=2)),
                                      reference(a, 2, conn))
    f = cupy.zeros((4, 4), cupy.float32)
    with pytest.raises(ValueError, match="must be a finite number of at least 0"):
        cclabel.label(f, tolerance=-1.0)
    with pytest.raises(TypeError, match="must be a number"):
        cclabel.label(f, tolerance="1")
    with pytest.raises(ValueError, match="not a whole number"):
        cclabel.label(f.astype(cupy.int32), tolerance=0.5)
    with pytest.raises(ValueError, match="backend"):
        cclabel.label(f, tolerance=1.0, backend="cpu")
    with pytest.raises(ValueError, match="stats"):
        cclabel.label(f, tolerance=1.0, stats=True)


def test_torch_pictures_match_the_host(torch_cuda):
    for dtype in ("float32", "int16", "int64", "float64"):
        a = picture(dtype, seed=7)
        tol = tolerance_of(dtype)
        t = torch_cuda.from_numpy(a).cuda()
        labels, n = cclabel.label(t, tolerance=tol, connectivity=4, return_num=True)
        assert labels.is_cuda
        want = cclabel.label(a, tolerance=tol, connectivity=4, backend="cpu")
        np.testing.assert_array_equal(labels.cpu().numpy(), want)
        assert int(n.view(torch_cuda.int32).cpu()) == int(want.max())
        np.testing.assert_array_equal(cclabel.label(t.T, tolerance=tol).cpu().numpy(),
                                      cclabel.label(np.ascontiguousarray(a.T), tolerance=tol, backend="cpu"))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_batches_are_each_picture_as_alone(cupy, torch_cuda, dtype):
    """A (B, H, W) batch of a by-value dtype with a tolerance: each image labelled on the GPU as it
    would be alone, counts stacked on the device, out= and out_dtype= as for one picture."""
    batch = np.stack([picture(dtype, shape=(23, 29), seed=s) for s in range(3)])
    tol = tolerance_of(dtype)
    want = [cclabel.label(batch[b], tolerance=tol, backend="cpu") for b in range(3)]
    labels, n = cclabel.label(cupy.asarray(batch), tolerance=tol, return_num=True)
    assert isinstance(labels, cupy.ndarray) and labels.shape == batch.shape and n.shape == (3,)
    for b in range(3):
        np.testing.assert_array_equal(cupy.asnumpy(labels[b]), want[b])
        assert int(n[b]) == int(want[b].max())
    out = cupy.zeros(batch.shape, dtype=cupy.uint64)
    got, ints = cclabel.label(cupy.asarray(batch), tolerance=tol, out=out, return_num=True, num_as_int=True)
    assert got is out and ints == [int(w.max()) for w in want]
    np.testing.assert_array_equal(cupy.asnumpy(out[2]), want[2])
    t, tn = cclabel.label(torch_cuda.from_numpy(batch).cuda(), tolerance=tol, connectivity=8, return_num=True)
    assert t.is_cuda and tuple(tn.shape) == (3,)
    np.testing.assert_array_equal(t[1].cpu().numpy(), want[1])
