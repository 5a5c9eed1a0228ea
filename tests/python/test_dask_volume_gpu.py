"""cclabel.dask.label on dask arrays of CuPy chunks: (Z, Y, X) volumes (6/18/26, with and without a
tolerance, RGB) and 2-D pictures with a tolerance. Each chunk is labelled on its GPU and only its
faces come to the host; the result chunks are CuPy and the labels equal cclabel.label of the whole
(the NumPy volume on the CPU), value for value. Skipped without CuPy, a CUDA device or a CUDA build.

The host half: the first pixel of each label found by one scatter-minimum a pixel (what a CuPy chunk
runs on its GPU) equals the running-maximum search of NumPy chunks, run here with NumPy's
minimum.at standing in for cupyx.scatter_min."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import dask_modules
from test_package import cupy  # noqa: F401  (the GPU fixture)

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402
from cclabel import _dask_faces  # noqa: E402


def chunk_labels(shape, seed, k=3):
    rng = np.random.default_rng(seed)
    return cclabel.label(rng.integers(0, k, size=shape).astype(np.uint8), connectivity=6, background=0)


@pytest.mark.parametrize("shape", [(5, 7, 9), (1, 1, 40), (40, 1, 1), (1, 6, 1), (3, 4, 5), (0, 3, 3), (8, 8)])
def test_first_pixels_by_scatter_min_equal_the_running_maximum(shape):
    for seed in range(4):
        labels = chunk_labels(shape, seed) if len(shape) == 3 else cclabel.label(
            np.random.default_rng(seed).integers(0, 3, size=shape).astype(np.uint8), background=0)
        got = _dask_faces.first_pixels_scatter(labels, np, np.minimum.at)
        want = _dask_faces.first_pixels(labels)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want, err_msg=f"{shape} seed {seed}")


def test_first_pixels_scatter_is_not_the_last_pixel():
    # Mutation guard: a scatter maximum (the last pixel of each label) must differ on these labels.
    labels = chunk_labels((4, 5, 6), 1)
    assert not np.array_equal(_dask_faces.first_pixels_scatter(labels, np, np.maximum.at),
                              _dask_faces.first_pixels(labels))


def test_leaf_of_host_chunks_is_numpy():
    labels = chunk_labels((4, 5, 6), 2)
    vol = np.arange(labels.size, dtype=np.uint16).reshape(labels.shape)
    first, (faces, closed) = _dask_faces.leaf(labels, vol, (2, 0, 3), (10, 5, 12))
    assert isinstance(first, np.ndarray) and isinstance(closed, np.ndarray)
    for sides in faces:
        for f in sides:
            assert f is None or all(isinstance(p, np.ndarray) for p in f)


def gpu_volume(cp, shape, dtype, k, seed):
    rng = np.random.default_rng(seed)
    host = rng.integers(0, k, size=shape).astype(dtype)
    return host, cp.asarray(host)


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("chunks", [(4, 4, 4), (1, 5, 3), (3, 1, 7), (100, 3, 100), (2, 2, 2)])
def test_cupy_volume_chunks_match_cclabel_label(cupy, connectivity, chunks):
    host, dev = gpu_volume(cupy, (9, 11, 13), np.uint8, 3, sum(chunks) + connectivity)
    for bg in (None, 0):
        labels, n = cdask.label(da.from_array(dev, chunks=chunks, asarray=False), connectivity=connectivity,
                                background=bg)
        assert isinstance(labels._meta, cupy.ndarray)
        got, got_n = dask.compute(labels, n, scheduler="threads")
        assert isinstance(got, cupy.ndarray) and got.dtype == cupy.uint32
        want, want_n = cclabel.label(host, connectivity=connectivity, background=bg, return_num=True, backend="cpu")
        np.testing.assert_array_equal(cupy.asnumpy(got), want, err_msg=f"chunks={chunks} bg={bg}")
        assert int(got_n) == want_n


@pytest.mark.parametrize("dtype", ["bool", "uint16", "int32", "uint64", "float32"])
def test_cupy_volume_chunks_every_kind_of_dtype(cupy, dtype):
    rng = np.random.default_rng(3)
    if dtype == "float32":
        host = np.array([0.0, -0.0, np.nan, 1.5], np.float32)[rng.integers(0, 4, size=(6, 7, 8))]
    else:
        host = rng.integers(0, 2 if dtype == "bool" else 3, size=(6, 7, 8)).astype(dtype)
    labels, n = cdask.label(da.from_array(cupy.asarray(host), chunks=(2, 3, 4), asarray=False), connectivity=26)
    got, got_n = dask.compute(labels, n)
    want, want_n = cclabel.label(host, connectivity=26, return_num=True, backend="cpu")
    np.testing.assert_array_equal(cupy.asnumpy(got), want, err_msg=dtype)
    assert int(got_n) == want_n


def test_cupy_volume_with_a_tolerance_and_rgb(cupy):
    rng = np.random.default_rng(9)
    host = rng.integers(0, 40, size=(7, 8, 9)).astype(np.uint8)
    labels, n = cdask.label(da.from_array(cupy.asarray(host), chunks=(3, 4, 5), asarray=False), connectivity=18,
                            tolerance=5)
    got, got_n = dask.compute(labels, n)
    want, want_n = cclabel.label(host, connectivity=18, tolerance=5, return_num=True)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    assert int(got_n) == want_n
    rgb = rng.integers(0, 2, size=(5, 6, 7, 3)).astype(np.uint8) * 200
    labels, n = cdask.label(da.from_array(cupy.asarray(rgb), chunks=(2, 3, 4, 3), asarray=False), connectivity=6)
    got, got_n = dask.compute(labels, n)
    want, want_n = cclabel.label(rgb, connectivity=6, return_num=True)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)


def test_cupy_picture_with_a_tolerance(cupy):
    rng = np.random.default_rng(4)
    host = rng.integers(0, 30, size=(37, 41)).astype(np.uint16)
    labels, n = cdask.label(da.from_array(cupy.asarray(host), chunks=(8, 11), asarray=False), tolerance=3)
    got, got_n = dask.compute(labels, n)
    assert isinstance(got, cupy.ndarray)
    want, want_n = cclabel.label(host, tolerance=3, return_num=True)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    assert int(got_n) == want_n
    with pytest.raises(TypeError, match="CuPy chunks with a tolerance"):
        cdask.label(da.from_array(cupy.asarray(host.astype(np.int16)), chunks=8, asarray=False), tolerance=3)
