"""cclabel.dask.label(..., tolerance=T) (issue 28): chunked tolerance labels equal the in-memory
cclabel.label(img, tolerance=T) value for value (raster numbering), and a flood fill written here
on the small cases; 4- and 8-connectivity, gray, signed, label-like and RGB/RGBA images, background
on and off, chunkings that cut regions everywhere (1-pixel rows and columns, 1 x 1 chunks, ragged
ends, more chunks than one merge takes). Joining across a seam is per pixel pair, so the cases put
chains of close values (ramps, spirals) across every seam and chunk corner. Bad arguments raise the
in-memory call's own errors when label() is called. One case on a LocalCluster (2 processes).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import bfs_labels, dask_modules

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402

# 1 x 1 chunks cost four tasks a pixel: they are given to the small cases only.
CHUNKINGS = [(4, 4), (1, 3), (5, 2), (29, 1), (2, 2), (7, 100)]


def flood_fill(img, tolerance, connectivity, background=None):
    """Raster-order BFS joining neighbours whose every channel differs by at most the tolerance."""
    a = np.asarray(img).astype(np.int64)
    if a.ndim == 2:
        a = a[:, :, None]
    if np.asarray(img).dtype == bool:  # False is a bool picture's background, always
        is_bg = ~np.asarray(img)
    elif background is None:
        is_bg = np.zeros(a.shape[:2], bool)
    else:
        if isinstance(background, str):
            background = [int(background[i:i + 2], 16) for i in range(1, len(background), 2)]
        is_bg = np.all(a == np.atleast_1d(np.asarray(background, np.int64)), axis=2)
    return bfs_labels(a.shape[0], a.shape[1], lambda y, x, y2, x2: np.abs(a[y2, x2] - a[y, x]).max() <= tolerance,
                      connectivity, lambda y, x: is_bg[y, x])


def check_many(cases, scheduler="threads", flood=False):
    """cases: (image, chunks, tolerance, connectivity, background); one dask.compute for them all."""
    graphs = []
    for img, chunks, tol, conn, bg in cases:
        arr = da.from_array(img, chunks=chunks + img.shape[2:])
        labels, n = cdask.label(arr, connectivity=conn, background=bg, tolerance=tol)
        assert labels.chunks == arr.chunks[:2]
        graphs.append((labels, n))
    results = dask.compute(graphs, scheduler=scheduler)[0]
    for (img, chunks, tol, conn, bg), (got, got_n) in zip(cases, results):
        what = f"{img.shape} {img.dtype} chunks={chunks} tolerance={tol} conn={conn} bg={bg!r}"
        want, want_n = cclabel.label(img, connectivity=conn, background=bg, tolerance=tol, return_num=True)
        assert got.dtype == np.uint32, what
        np.testing.assert_array_equal(got, want, err_msg=what)
        assert int(got_n) == want_n, what
        if flood:
            np.testing.assert_array_equal(got, flood_fill(img, tol, conn, bg), err_msg="flood fill: " + what)


def near(rng, shape, dtype, spread):
    """Values within `spread` of a few levels: close neighbours join, others stay apart."""
    info = np.iinfo(dtype)
    levels = np.array([int(info.min), int(info.min) + 3 * spread, int(info.max) - spread, int(info.max)])
    base = levels[rng.integers(0, levels.size, size=shape)]
    step = rng.integers(-spread, spread + 1, size=shape)
    return np.clip(base + step, int(info.min), int(info.max)).astype(dtype)


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int8, np.int16, np.int32])
def test_gray_and_signed(conn, dtype):
    rng = np.random.default_rng(conn * 100 + np.dtype(dtype).num)
    cases = []
    for h, w in [(1, 1), (1, 23), (23, 1), (33, 29)]:
        img = near(rng, (h, w), dtype, 3)
        for tol, bg in ((1, None), (3, int(img[0, 0]))):
            for chunks in CHUNKINGS:
                cases.append((img, chunks, tol, conn, bg))
    check_many(cases, flood=False)
    # the flood fill on a selection (it is slow)
    check_many([(near(rng, (13, 11), dtype, 2), (3, 4), 2, conn, None)], flood=True)


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("channels", [3, 4])
def test_rgb_and_rgba(conn, channels):
    rng = np.random.default_rng(conn + channels)
    cases = []
    for h, w in [(1, 9), (9, 1), (21, 18)]:
        img = near(rng, (h, w, channels), np.uint8, 4)
        img[rng.random((h, w)) < 0.2] = 255  # white paper
        bg = "#" + "ff" * channels
        for tol in (2, 4, 255):
            for b in (None, bg):
                for chunks in CHUNKINGS[:5]:
                    cases.append((img, chunks, tol, conn, b))
    check_many(cases)
    img = near(rng, (12, 10, channels), np.uint8, 3)
    check_many([(img, (5, 3), 3, conn, None), (img, (1, 1), 3, conn, tuple([int(v) for v in img[0, 0]]))], flood=True)


@pytest.mark.parametrize("conn", [4, 8])
def test_label_images_and_bool(conn):
    rng = np.random.default_rng(conn)
    labels = rng.integers(0, 6, size=(31, 27)).astype(np.uint32) * 10   # label-like: 0, 10, 20, ...
    labels[rng.random(labels.shape) < 0.3] += 1
    mask = rng.random((31, 27)) < 0.55
    cases = []
    for chunks in CHUNKINGS:
        cases += [(labels, chunks, 1, conn, 0), (labels, chunks, 10, conn, None), (mask, chunks, 5, conn, None),
                  (mask, chunks, 1, conn, False)]
    check_many(cases)
    check_many([(labels[:12, :12], (5, 5), 1, conn, 0), (labels[:12, :12], (1, 1), 10, conn, None),
                (mask[:12, :12], (1, 2), 3, conn, None), (mask[:12, :12], (1, 1), 3, conn, None)], flood=True)


@pytest.mark.parametrize("conn", [4, 8])
def test_chains_across_every_seam(conn):
    """A ramp (one region at tolerance 3, its ends 255 apart) and a spiral of close values: regions
    that exist only through pairs across seams, with nothing equal on either side."""
    ramp = (np.add.outer(np.arange(40), np.arange(45)) * 3 % 256).astype(np.uint8)
    ramp[:, 20] = 128 + ramp[:, 20] // 2     # a column that breaks the ramp at some rows only
    steps = np.zeros((24, 24), np.uint16)
    y, x, v, d = 0, 0, 1, 0
    dirs = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    seen = np.zeros_like(steps, bool)
    for _ in range(24 * 24):
        steps[y, x], seen[y, x] = v, True
        v += 2
        ny, nx = y + dirs[d][0], x + dirs[d][1]
        if not (0 <= ny < 24 and 0 <= nx < 24) or seen[ny, nx]:
            d = (d + 1) % 4
            ny, nx = y + dirs[d][0], x + dirs[d][1]
            if not (0 <= ny < 24 and 0 <= nx < 24) or seen[ny, nx]:
                break
        y, x = ny, nx
    cases = [(steps, (1, 1), 2, conn, None)]
    for chunks in [(3, 3), (1, 45), (40, 1), (7, 5)]:
        cases += [(ramp, chunks, 3, conn, None), (ramp, chunks, 2, conn, None), (steps, chunks, 2, conn, None)]
    check_many(cases)
    check_many([(steps, (5, 5), 2, conn, None)], flood=True)


def test_diagonal_contacts_at_chunk_corners():
    """Close values that touch only diagonally through the corner where four chunks meet, both ways."""
    img = np.zeros((8, 8), np.uint8) + 200
    img[3, 3], img[4, 4] = 10, 12      # \ through the corner at (4, 4)
    img[3, 4], img[4, 3] = 60, 61      # / through the same corner
    check_many([(img, (4, 4), 2, conn, 200) for conn in (4, 8)], flood=True)
    labels8 = cclabel.label(img, background=200, tolerance=2)
    assert labels8[3, 3] == labels8[4, 4] and labels8[3, 4] == labels8[4, 3]


def test_regression_cc3d_eight_connected_delta_joins_too_far():
    """cc3d 4.1.1's 8-connected delta puts the 9 with the 2; the flood fill does not, nor any chunking."""
    img = np.array([[11, 2], [10, 9]], np.uint8)
    check_many([(img, c, 4, 8, None) for c in [(1, 1), (1, 2), (2, 1), (2, 2)]], flood=True)


def test_many_chunks_several_levels(monkeypatch):
    """More chunks than one merge takes: the tree has several levels."""
    from cclabel import _dask_faces
    monkeypatch.setattr(_dask_faces, "_BUDGET", 64)
    rng = np.random.default_rng(3)
    img = near(rng, (45, 50), np.uint8, 2)
    labels, n = cdask.label(da.from_array(img, chunks=(3, 4)), tolerance=2)
    assert sum(1 for k in labels.dask if isinstance(k, tuple) and str(k[0]).startswith("cclabel-merge")) > 16
    check_many([(img, (3, 4), 2, 8, None), (img, (3, 4), 1, 4, int(img[0, 0]))])


def test_zero_size_and_dtype():
    img = np.zeros((0, 5), np.uint8)
    labels, n = cdask.label(da.from_array(img, chunks=2), tolerance=3)
    got, n = dask.compute(labels, n, scheduler="threads")
    assert got.shape == (0, 5) and int(n) == 0
    img = np.array([[1, 2, 9], [3, 4, 9]], np.uint8)
    arr = da.from_array(img, chunks=((1, 0, 1), (2, 0, 1)))
    labels, n = cdask.label(arr, tolerance=1, dtype=np.uint64)
    assert labels.chunks == arr.chunks and labels.dtype == np.uint64
    got, n = dask.compute(labels, n, scheduler="threads")
    np.testing.assert_array_equal(got, cclabel.label(img, tolerance=1))
    assert int(n) == 2
    labels, _ = cdask.label(da.from_array(img, chunks=1), tolerance=0)  # exact labelling
    np.testing.assert_array_equal(labels.compute(), cclabel.label(img))


def test_big_endian_and_threads():
    img = near(np.random.default_rng(9), (20, 22), np.uint16, 3).astype(">u2")
    want = cclabel.label(img.astype(np.uint16), tolerance=2)
    for threads in (None, 1, 2):
        labels, _ = cdask.label(da.from_array(img, chunks=(6, 7)), tolerance=2, threads=threads)
        np.testing.assert_array_equal(labels.compute(scheduler="threads"), want)


def in_memory_error(img, **kw):
    with pytest.raises(Exception) as info:
        cclabel.label(img, **kw)
    return info.type, re.escape(str(info.value))


@pytest.mark.parametrize("kw, img", [
    (dict(tolerance=-1), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=256), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=65536), np.zeros((4, 4), np.uint16)),
    (dict(tolerance=1.5), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=True), np.zeros((4, 4), np.uint8)),
    (dict(tolerance="3"), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=2, connectivity=6), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=2, background=300), np.zeros((4, 4), np.uint8)),
    (dict(tolerance=2, background="#12"), np.zeros((4, 4, 3), np.uint8)),
    (dict(tolerance=2, backend="gpu"), np.zeros((4, 4), np.uint8)),
])
def test_errors_are_the_in_memory_calls(kw, img):
    kind, message = in_memory_error(img, **kw)
    with pytest.raises(kind, match=message):
        cdask.label(da.from_array(img, chunks=(2, 2) + img.shape[2:]), **kw)


def test_float_and_64_bit_chunks_with_a_tolerance_are_refused():
    """cclabel.label takes them in memory (by value); the dask seams do not yet, and say so."""
    for dtype in (np.float32, np.int64):
        img = np.zeros((4, 4), dtype)
        assert cclabel.label(img, tolerance=2).max() == 1
        with pytest.raises(TypeError, match=f"not {np.dtype(dtype).name} yet"):
            cdask.label(da.from_array(img, chunks=(2, 2)), tolerance=2)


def test_errors_of_the_chunking():
    with pytest.raises(ValueError, match=r"colour axis .* split across chunks"):
        cdask.label(da.zeros((8, 8, 3), dtype=np.uint8, chunks=(4, 4, 1)), tolerance=2)
    with pytest.raises(ValueError, match="unknown size"):
        arr = da.zeros((8, 8), dtype=np.uint8, chunks=4)
        cdask.label(arr[arr[:, 0] == 0], tolerance=2)
    with pytest.raises(ValueError, match="expected shape"):
        cdask.label(da.zeros((2, 8, 8), dtype=np.uint16, chunks=4), tolerance=2)


def test_cupy_chunks_are_refused_for_now():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    arr = da.from_array(cupy.zeros((6, 8), cupy.uint8), chunks=2, asarray=False)
    with pytest.raises(TypeError, match="CuPy chunks are not supported"):
        cdask.label(arr, tolerance=2)


def test_distributed():
    rng = np.random.default_rng(11)
    img = near(rng, (70, 64, 3), np.uint8, 3)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, distributed.Client(cluster):
        labels, n = cdask.label(da.from_array(img, chunks=(16, 20, 3)), connectivity=8, tolerance=3)
        got, n = dask.compute(labels, n)
    want, want_n = cclabel.label(img, tolerance=3, return_num=True)
    np.testing.assert_array_equal(got, want)
    assert int(n) == want_n
