"""cclabel.dask.label(volume, tolerance=T) (issues 27 and 28): chunked (Z, Y, X) volumes labelled
with a tolerance equal the in-memory cclabel.label(volume, tolerance=T, connectivity=...) value for
value (raster order z, y, x), and on the small cases a breadth-first flood fill written here over
test_volume.py's 6/18/26 offsets. bool, uint8, uint16 and uint32 volumes and RGB/RGBA volumes (the
dtypes the in-memory call takes a tolerance for), background on and off, chunkings of 1-voxel
slabs, rows and columns, 1 x 1 x 1 chunks and ragged ends. Across a seam two voxels join when they
are within the tolerance, as inside a chunk: chains whose every step is within T but whose ends are
not cross every seam, values sit at 0 and 255, and close values touch only through the edges and
corners of the chunk grid (where four and eight chunks meet). Bad arguments raise the in-memory
call's errors when label() is called (CuPy chunks: test_dask_volume.py).
"""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from conftest import dask_modules
from test_volume import bfs  # the volume tests' breadth-first fill

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402

CHUNKINGS = [(4, 4, 4), (1, 5, 3), (3, 1, 7), (5, 6, 1), (2, 3, 2), (100, 3, 100), (4, 100, 1)]


def flood_fill(vol, tolerance, connectivity, background=None):
    """Raster-order BFS joining neighbours whose every channel differs by at most the tolerance."""
    a = np.asarray(vol).astype(np.int64)
    if a.ndim == 3:
        a = a[..., None]
    if vol.dtype == bool:  # False is a bool volume's background, always
        is_bg = ~vol
    elif background is None:
        is_bg = np.zeros(a.shape[:3], bool)
    else:
        is_bg = np.all(a == np.atleast_1d(np.asarray(background, np.int64)), axis=3)
    return bfs(a.shape[:3], connectivity, is_bg, lambda p, q: np.abs(a[p] - a[q]).max() <= tolerance)


def check_many(cases, flood=False):
    """cases: (volume, chunks, tolerance, connectivity, background); one dask.compute for them all."""
    graphs = []
    for vol, chunks, tol, conn, bg in cases:
        arr = da.from_array(vol, chunks=chunks + vol.shape[3:])
        labels, n = cdask.label(arr, connectivity=conn, background=bg, tolerance=tol)
        assert labels.chunks == arr.chunks[:3] and labels.dtype == np.uint32
        graphs.append((labels, n))
    results = dask.compute(graphs, scheduler="threads")[0]
    for (vol, chunks, tol, conn, bg), (got, got_n) in zip(cases, results):
        what = f"{vol.shape} {vol.dtype} chunks={chunks} tolerance={tol} conn={conn} bg={bg!r}"
        want, want_n = cclabel.label(vol, connectivity=conn, background=bg, tolerance=tol, return_num=True)
        np.testing.assert_array_equal(got, want, err_msg=what)
        assert int(got_n) == want_n, what
        if flood:
            np.testing.assert_array_equal(got, flood_fill(vol, tol, conn, bg), err_msg="flood fill: " + what)


def near(rng, shape, dtype, spread):
    """Values within `spread` of a few levels (the dtype's extremes among them): close neighbours
    join, others stay apart."""
    info = np.iinfo(dtype)
    levels = np.array([int(info.min), int(info.min) + 3 * spread, int(info.max) - spread, int(info.max)])
    base = levels[rng.integers(0, levels.size, size=shape)]
    return np.clip(base + rng.integers(-spread, spread + 1, size=shape), int(info.min), int(info.max)).astype(dtype)


@pytest.mark.parametrize("conn", [6, 18, 26])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_gray(conn, dtype):
    rng = np.random.default_rng(conn * 10 + np.dtype(dtype).num)
    cases = []
    for shape in [(1, 1, 1), (1, 1, 17), (1, 13, 1), (11, 1, 1), (9, 11, 10)]:
        vol = near(rng, shape, dtype, 3)
        for tol, bg in ((1, None), (3, int(vol.flat[0])), (2, int(np.iinfo(dtype).max))):
            cases += [(vol, c, tol, conn, bg) for c in CHUNKINGS]
    check_many(cases)
    vol = near(rng, (6, 7, 5), dtype, 2)
    check_many([(vol, (2, 3, 2), 2, conn, None), (vol, (1, 1, 1), 1, conn, int(vol.flat[0]))], flood=True)


@pytest.mark.parametrize("conn", [6, 18, 26])
def test_bool_ignores_the_tolerance(conn):
    """A bool volume labels its True voxels whatever the tolerance, in memory and chunked."""
    mask = np.random.default_rng(conn).random((8, 9, 10)) < 0.4
    check_many([(mask, c, t, conn, bg) for c in CHUNKINGS[:5] for t, bg in ((1, None), (5, False))])
    check_many([(mask[:5, :6, :5], (2, 2, 2), 3, conn, None)], flood=True)


@pytest.mark.parametrize("conn", [6, 18, 26])
@pytest.mark.parametrize("channels", [3, 4])
def test_rgb_and_rgba(conn, channels):
    rng = np.random.default_rng(conn + channels)
    vol = near(rng, (7, 8, 9, channels), np.uint8, 3)
    vol[rng.random(vol.shape[:3]) < 0.2] = 255  # white paper
    white = (255,) * channels
    cases = [(vol, c, tol, conn, bg) for c in CHUNKINGS[:5] for tol in (0, 2, 3, 255) for bg in (None, white)]
    check_many(cases)
    small = vol[:4, :5, :6]
    check_many([(small, (2, 2, 3), 3, conn, None), (small, (1, 1, 1), 2, conn, white)], flood=True)


def snake(shape, step, wall):
    """A 1-voxel path through the even rows of every slice (boustrophedon: each row starts where the
    one before it ended, one voxel of an odd row links rows of a slice, a z step links slices), its
    values rising by `step` a voxel from 1000, everything else `wall`: one region at tolerance
    `step` that runs through every chunk, its ends far more than `step` apart."""
    Z, Y, X = shape
    vol = np.full(shape, wall, np.uint16)
    v, g = 1000, 0
    for z in range(Z):
        rows = list(range(0, Y, 2))
        for k, y in enumerate(rows if z % 2 == 0 else rows[::-1]):
            for x in (range(X) if g % 2 == 0 else range(X - 1, -1, -1)):
                vol[z, y, x] = v
                v += step
            if k + 1 < len(rows):  # the link to the next row of this slice
                vol[z, y + 1 if z % 2 == 0 else y - 1, X - 1 if g % 2 == 0 else 0] = v
                v += step
            g += 1
    return vol


def test_chains_whose_ends_differ_by_more_than_the_tolerance():
    """Ramps along each axis and along the diagonal, each step `d` and their ends 200 and more apart:
    one region at tolerance d whatever the chunking (the 1-voxel chunkings make every step a seam),
    planes apart at d - 1; and a 1-voxel snake of rising values through every chunk."""
    z, y, x = np.indices((6, 7, 8))
    cases = []
    for ramp, d in ((z * 40 + 55, 40), (y * 35, 35), (x * 30, 30), ((z + y + x) * 12, 12)):
        vol = ramp.astype(np.uint8)
        assert int(vol.max()) - int(vol.min()) >= 200
        for conn in (6, 26):
            assert cclabel.label(vol, connectivity=conn, tolerance=d, return_num=True)[1] == 1
            assert cclabel.label(vol, connectivity=conn, tolerance=d - 1, return_num=True)[1] > 1
        for chunks in [(1, 1, 1), (1, 7, 8), (6, 1, 8), (6, 7, 1), (2, 3, 4), (4, 3, 2)]:
            cases += [(vol, chunks, t, conn, None) for t in (d - 1, d) for conn in (6, 18, 26)]
    check_many(cases)
    vol = snake((4, 7, 6), 5, 2000)
    path = vol != 2000
    cases = [(vol, c, 5, conn, 2000) for c in [(1, 1, 1), (2, 3, 2), (4, 7, 1), (1, 7, 6)] for conn in (6, 18, 26)]
    cases += [(vol, (2, 3, 2), 4, 6, 2000), (vol, (1, 1, 1), 5, 6, None)]
    check_many(cases, flood=True)
    labels, n = cclabel.label(vol, connectivity=6, background=2000, tolerance=5, return_num=True)
    assert n == 1 and (labels[path] == 1).all() and int(vol[path].max()) - int(vol[path].min()) > 100 * 5
    assert cclabel.label(vol, connectivity=6, background=2000, tolerance=4, return_num=True)[1] == path.sum()


def test_values_at_0_and_255():
    """0 and 255 join at tolerance 255 and not below (no wrapping around), or through a chain of
    128s at 128."""
    vol = np.zeros((4, 4, 4), np.uint8)
    vol[2:] = 255
    bridged = vol.copy()
    bridged[:, :, 3] = 128
    cases = [(v, (2, 2, 2), t, conn, bg) for v in (vol, bridged) for t in (1, 127, 128, 254, 255) for conn in (6, 26)
             for bg in (None, 0, 255)]
    check_many(cases, flood=True)
    for t, apart, bridged_apart in ((254, 2, 1), (255, 1, 1), (127, 2, 2), (128, 2, 1)):
        assert cclabel.label(vol, connectivity=6, tolerance=t, return_num=True)[1] == apart
        assert cclabel.label(bridged, connectivity=6, tolerance=t, return_num=True)[1] == bridged_apart


def test_edges_and_corners_of_the_chunk_grid():
    """Close values (10 and 12) that touch only across an edge of the chunk grid (four chunks meet:
    18 and 26) or a corner (eight chunks meet: 26 only), in every orientation; beside each, a pair
    whose values are one more than the tolerance apart, which never joins."""
    pairs = [o for o in itertools.product((-1, 0, 1), repeat=3) if sum(map(bool, o)) >= 2]
    cases = []
    for gap in (2, 3):
        vol = np.full((16, 16, 16), 200, np.uint8)
        for c, (o, corner) in enumerate(zip(pairs, itertools.product((4, 8, 12), repeat=3))):
            a = tuple(k - 1 if d >= 0 else k for k, d in zip(corner, o))   # beside the corner ...
            b = tuple(p + d for p, d in zip(a, o))                          # ... and its neighbour across it
            vol[a], vol[b] = 5 * c, 5 * c + gap
        cases += [(vol, (4, 4, 4), 2, conn, 200) for conn in (6, 18, 26)]
        for conn, joined in ((6, 0), (18, 12), (26, 20)):
            n = cclabel.label(vol, connectivity=conn, background=200, tolerance=2, return_num=True)[1]
            assert n == 40 - (joined if gap == 2 else 0)
    check_many(cases, flood=True)


def test_regions_crossing_every_chunk():
    """A 3-D comb of close values (a spine of 1..3, teeth of 4..6 and 100..103)."""
    rng = np.random.default_rng(4)
    vol = np.full((12, 12, 12), 50, np.uint8)
    vol[:, 0, :] = rng.integers(1, 4, size=(12, 12))
    vol[::2, :, ::3] = rng.integers(3, 6, size=vol[::2, :, ::3].shape)
    vol[1::2, 5:, 1::3] = rng.integers(100, 104, size=vol[1::2, 5:, 1::3].shape)
    check_many([(vol, c, t, conn, 50) for conn in (6, 18, 26) for c in [(5, 5, 5), (12, 1, 12)] for t in (1, 2, 3)] +
               [(vol, (1, 1, 1), 2, conn, 50) for conn in (6, 26)])


def test_many_chunks_several_levels(monkeypatch):
    from cclabel import _dask_faces
    monkeypatch.setattr(_dask_faces, "_BUDGET", 64)
    vol = near(np.random.default_rng(5), (20, 21, 22), np.uint8, 2)
    labels, _ = cdask.label(da.from_array(vol, chunks=3), connectivity=26, tolerance=2)
    assert len({k[1] for k in labels.dask if isinstance(k, tuple) and str(k[0]).startswith("cclabel-merge")}) >= 3
    check_many([(vol, (3, 3, 3), t, conn, None) for conn in (6, 18, 26) for t in (1, 2)])


def test_a_tolerance_joins_rather_than_being_ignored():
    vol = np.zeros((4, 4, 4), np.uint8)
    vol[0, 0, :4] = (1, 2, 3, 4)
    for t, want in ((0, 5), (1, 1)):
        labels, n = cdask.label(da.from_array(vol, chunks=1), connectivity=26, tolerance=t)
        labels, n = dask.compute(labels, n, scheduler="threads")
        assert int(n) == want
        np.testing.assert_array_equal(labels, cclabel.label(vol, connectivity=26, tolerance=t))
    labels, n = cdask.label(da.from_array(vol, chunks=2), connectivity=6, tolerance=None)  # None: exact
    assert int(n.compute()) == 5


def test_zero_size_big_endian_threads_and_64_bit_labels():
    labels, n = cdask.label(da.zeros((0, 4, 4), dtype=np.uint8, chunks=2), connectivity=26, tolerance=3)
    got, n = dask.compute(labels, n, scheduler="threads")
    assert got.shape == (0, 4, 4) and int(n) == 0
    vol = near(np.random.default_rng(9), (10, 9, 12), np.uint16, 3)
    want = cclabel.label(vol, connectivity=18, tolerance=2)
    for threads in (None, 1, 2):
        labels, _ = cdask.label(da.from_array(vol.astype(">u2"), chunks=(4, 5, 6)), connectivity=18, tolerance=2,
                                threads=threads)
        np.testing.assert_array_equal(labels.compute(scheduler="threads"), want)
    arr = da.from_array(vol, chunks=((4, 0, 6), (9,), (5, 7)))
    labels, n = cdask.label(arr, connectivity=6, tolerance=2, dtype=np.uint64)
    assert labels.chunks == arr.chunks and labels.dtype == np.uint64
    np.testing.assert_array_equal(labels.compute(scheduler="threads"), cclabel.label(vol, connectivity=6, tolerance=2))


def in_memory_error(vol, **kw):
    with pytest.raises(Exception) as info:
        cclabel.label(vol, **kw)
    return info.type, re.escape(str(info.value))


@pytest.mark.parametrize("kw, vol", [
    (dict(tolerance=-1), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=256), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=65536), np.zeros((4, 4, 4), np.uint16)),
    (dict(tolerance=1.5), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=True), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance="3"), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=1.5), np.zeros((4, 4, 4), np.int16)),    # a typed volume's tolerance: a whole number
    (dict(tolerance=-1.0), np.zeros((4, 4, 4), np.float32)),
    (dict(tolerance=2, background=300), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=2, background=(1, 2)), np.zeros((4, 4, 4, 3), np.uint8)),
    (dict(tolerance=2), np.zeros((4, 4, 4, 3), np.uint16)),
    (dict(tolerance=2, backend="gpu"), np.zeros((4, 4, 4), np.uint8)),
    (dict(tolerance=2, threads=-1), np.zeros((4, 4, 4), np.uint8)),
])
@pytest.mark.parametrize("conn", [6, 26])
def test_errors_are_the_in_memory_calls(kw, vol, conn):
    kind, message = in_memory_error(vol, connectivity=conn, **kw)
    with pytest.raises(kind, match=message):
        cdask.label(da.from_array(vol, chunks=(2, 2, 2) + vol.shape[3:]), connectivity=conn, **kw)


def test_errors_of_the_chunking():
    with pytest.raises(ValueError, match=r"colour axis .* split across chunks .* array.rechunk\(\{3: -1\}\)"):
        cdask.label(da.zeros((4, 8, 8, 3), dtype=np.uint8, chunks=(4, 4, 4, 1)), connectivity=6, tolerance=2)
    with pytest.raises(ValueError, match="unknown size"):
        arr = da.zeros((4, 8, 8), dtype=np.uint8, chunks=4)
        cdask.label(arr[arr[:, 0, 0] == 0], connectivity=26, tolerance=2)



@pytest.mark.parametrize("conn", [6, 26])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_signed_volumes_equal_the_in_memory_labels(dtype, conn):
    """Signed volumes take a tolerance in memory (a number of their values); their seams compare
    int64 differences, exact for these dtypes."""
    vol = near(np.random.default_rng(3), (9, 10, 11), dtype, 3)
    want = cclabel.label(vol, connectivity=conn, tolerance=2)
    labels, _ = cdask.label(da.from_array(vol, chunks=(4, 3, 5)), connectivity=conn, tolerance=2)
    np.testing.assert_array_equal(labels.compute(scheduler="threads"), want)


@pytest.mark.parametrize("dtype", [np.float32, np.uint64, np.int64])
def test_float_and_64_bit_volume_chunks_with_a_tolerance_are_refused(dtype):
    """cclabel.label takes them in memory, but the seams compare int64 steps against int(tolerance),
    wrong for floats (a 0.5 ramp split in four) and 64-bit extremes: refused, not mislabelled."""
    with pytest.raises(TypeError, match="tolerance: .* not " + np.dtype(dtype).name):
        cdask.label(da.from_array(np.zeros((4, 4, 4), dtype), chunks=2), connectivity=6, tolerance=2)
    ramp = (np.arange(8) * 0.5).astype(dtype).reshape(8, 1, 1)  # without a tolerance: exact, as before
    labels, n = cdask.label(da.from_array(ramp, chunks=2), connectivity=6)
    np.testing.assert_array_equal(labels.compute(scheduler="threads"), cclabel.label(ramp, connectivity=6))
